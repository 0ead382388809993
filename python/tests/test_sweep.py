"""Sweeps: grid and points, seeds, the results store (resume, repeat for free), the same
table for one process and two, errors raised or recorded."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path

import pandas as pd
import pytest

import flitsim
from flitsim.backends import LocalBackend, Outcome, Task
from conftest import SMALL
from test_errors import ring

GRID = {"traffic.load": [0.1, 0.3], "router.allocator": ["islip", "separable_input_first"]}


def test_expand_grid() -> None:
    points = flitsim.expand_grid(GRID)
    assert points == [
        {"traffic.load": 0.1, "router.allocator": "islip"},
        {"traffic.load": 0.1, "router.allocator": "separable_input_first"},
        {"traffic.load": 0.3, "router.allocator": "islip"},
        {"traffic.load": 0.3, "router.allocator": "separable_input_first"},
    ]
    with pytest.raises(ValueError):
        flitsim.expand_grid({"traffic.load": []})
    with pytest.raises(TypeError, match="give a list"):
        flitsim.expand_grid({"router.allocator": "islip"})


def test_rows_are_the_points_runs(tmp_path: Path) -> None:
    df = flitsim.sweep(SMALL, grid=GRID, seeds=[5, 6], jobs=1, progress=False)
    assert len(df) == 8 and df.attrs["ran"] == 8 and df.attrs["cached"] == 0
    assert list(df.columns[:2]) == ["traffic.load", "router.allocator"]
    assert list(df.columns[2:-1]) == list(flitsim.SUMMARY_FIELDS) and df.columns[-1] == "key"
    assert list(df["seed"]) == [5, 6] * 4
    assert (df["traffic.load"] == df["load"]).all()
    # Each row is that point's own run.
    row = df.iloc[5]
    one = flitsim.simulate(SMALL, set={"traffic.load": 0.3, "router.allocator": "islip"}, seed=6)
    assert row["router.allocator"] == "islip" and row["seed"] == 6
    assert row["latency_mean"] == one.summary["latency_mean"] and row["key"] == flitsim.Config(SMALL, set={"traffic.load": 0.3, "router.allocator": "islip"}, seed=6).key


def test_points_seeds_and_defaults() -> None:
    df = flitsim.sweep(SMALL, points=[{"traffic.load": 0.2}, {"traffic.load": 0.2, "router.vcs": 2}], seeds=2, jobs=1, progress=False)
    assert list(df["seed"]) == [1, 2, 1, 2]
    assert list(df["router.vcs"].isna()) == [True, True, False, False]
    # No grid, no points: the config itself.
    one = flitsim.sweep(SMALL, jobs=1, progress=False)
    assert len(one) == 1 and one.iloc[0]["latency_mean"] == flitsim.simulate(SMALL).summary["latency_mean"]
    with pytest.raises(ValueError):
        flitsim.sweep(SMALL, grid=GRID, points=[{}], progress=False)
    with pytest.raises(flitsim.InvalidConfigError):
        flitsim.sweep(SMALL, set={"router.vcs": 0}, grid=GRID, progress=False)


def test_one_process_and_two_give_the_same_table(tmp_path: Path) -> None:
    one = flitsim.sweep(SMALL, grid=GRID, seeds=2, jobs=1, progress=False, store=tmp_path / "a")
    two = flitsim.sweep(SMALL, grid=GRID, seeds=2, jobs=2, progress=False, store=tmp_path / "b")
    assert two.attrs["ran"] == 8
    pd.testing.assert_frame_equal(one, two)
    # The stores hold the same reports, byte for byte.
    a = flitsim.Store(tmp_path / "a")
    b = flitsim.Store(tmp_path / "b")
    assert list(a.keys()) == list(b.keys()) and len(a) == 8
    for key in a.keys():
        ra, rb = a.get(key), b.get(key)
        assert ra is not None and rb is not None and ra.json == rb.json


def test_a_repeated_sweep_runs_nothing(tmp_path: Path) -> None:
    store = tmp_path / "store"
    first = flitsim.sweep(SMALL, grid=GRID, jobs=2, progress=False, store=store)
    files = sorted(store.glob("results/*/*.json"))
    stamps = [f.stat().st_mtime_ns for f in files]
    assert len(files) == 4 and first.attrs["ran"] == 4
    again = flitsim.sweep(SMALL, grid=GRID, jobs=2, progress=False, store=store)
    assert again.attrs["ran"] == 0 and again.attrs["cached"] == 4
    pd.testing.assert_frame_equal(first, again, check_like=False)
    assert [f.stat().st_mtime_ns for f in files] == stamps
    # A stored result is the point's report.
    key = first.iloc[0]["key"]
    stored = flitsim.Store(store).get(key)
    assert stored is not None and stored == flitsim.simulate(SMALL, set={"traffic.load": 0.1, "router.allocator": "islip"})
    # A wider grid runs only its new points; the same config reached another way is shared.
    wider = flitsim.sweep(SMALL, grid={**GRID, "traffic.load": [0.1, 0.3, 0.5]}, jobs=1, progress=False, store=store)
    assert wider.attrs["ran"] == 2 and wider.attrs["cached"] == 4
    same = flitsim.sweep(SMALL, points=[{"traffic.load": 0.3}], set={"router.allocator": "islip"}, jobs=1, progress=False, store=store)
    assert same.attrs["ran"] == 0


class Interrupting:
    """A backend that stops (as Ctrl-C would) after `after` points."""

    def __init__(self, after: int) -> None:
        self.after = after

    def run(self, tasks: Sequence[Task]) -> Iterator[Outcome]:
        for i, outcome in enumerate(LocalBackend(jobs=1).run(tasks)):
            if i == self.after:
                raise KeyboardInterrupt
            yield outcome


def test_an_interrupted_sweep_resumes(tmp_path: Path) -> None:
    store = tmp_path / "store"
    with pytest.raises(KeyboardInterrupt):
        flitsim.sweep(SMALL, grid=GRID, seeds=2, backend=Interrupting(after=3), progress=False, store=store)
    assert len(flitsim.Store(store)) == 3
    assert not list(store.glob("results/*/.tmp-*"))
    resumed = flitsim.sweep(SMALL, grid=GRID, seeds=2, jobs=2, progress=False, store=store)
    assert resumed.attrs["ran"] == 5 and resumed.attrs["cached"] == 3
    fresh = flitsim.sweep(SMALL, grid=GRID, seeds=2, jobs=1, progress=False)
    pd.testing.assert_frame_equal(resumed, fresh)


def test_errors_raise_or_are_recorded(tmp_path: Path) -> None:
    points = [{"routing.datelines": True, "router.vcs": 2}, {"routing.datelines": False, "router.vcs": 1}]
    store = tmp_path / "store"
    with pytest.raises(flitsim.DeadlockError) as info:
        flitsim.sweep(ring(datelines=True), points=points, jobs=2, progress=False, store=store)
    assert info.value.cycle > 0
    df = flitsim.sweep(ring(datelines=True), points=points, jobs=1, progress=False, store=store, errors="record")
    assert df.columns[-1] == "error"
    assert pd.isna(df.iloc[0]["error"]) and df.iloc[1]["error"].startswith("DeadlockError: deadlock detected")
    assert pd.isna(df.iloc[1]["latency_mean"]) and df.iloc[0]["latency_mean"] > 0
    # Failed points are not stored: they run again next time.
    assert len(flitsim.Store(store)) == 1
    assert flitsim.sweep(ring(datelines=True), points=points, jobs=1, progress=False, store=store, errors="record").attrs["ran"] == 1


def test_the_store_refuses_other_directories(tmp_path: Path) -> None:
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "data.csv").write_text("x\n")
    with pytest.raises(ValueError, match="not a flitsim results store"):
        flitsim.Store(tmp_path / "other")
    s = flitsim.Store(tmp_path / "new")
    assert json.loads((tmp_path / "new" / "flitsim-store.json").read_text())["format"] == "flitsim-store"
    with pytest.raises(ValueError):
        s.get("../../etc/passwd")
    assert "0" * 64 not in s and s.get("0" * 64) is None


def test_unknown_backend() -> None:
    with pytest.raises(ValueError, match="unknown backend"):
        flitsim.sweep(SMALL, backend="slurm", progress=False)


def test_record_covers_points_that_do_not_parse_and_seeds_are_checked(tmp_path: Path) -> None:
    df = flitsim.sweep(SMALL, grid={"router.vcs": [2, "x"]}, jobs=1, progress=False, errors="record")
    assert pd.isna(df.iloc[0]["error"]) and df.iloc[0]["latency_mean"] > 0
    assert df.iloc[1]["error"].startswith("ParseError: config error at `router.vcs`")
    assert df.iloc[1]["key"] == "invalid-1"
    with pytest.raises(flitsim.ParseError) as info:
        flitsim.sweep(SMALL, grid={"router.vcs": [2, "x"]}, jobs=1, progress=False)
    assert "in the sweep point {'router.vcs': 'x'}" in "".join(getattr(info.value, "__notes__", []))
    for seeds in ("12", 2.0, [1.5], True):
        with pytest.raises(TypeError):
            flitsim.sweep(SMALL, seeds=seeds, jobs=1, progress=False)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="not both"):
        flitsim.sweep(SMALL, grid={"seed": [5, 6]}, seeds=2, jobs=1, progress=False)


def test_a_damaged_store_is_named(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    with pytest.raises(ValueError, match="is a file, not a directory"):
        flitsim.Store(tmp_path / "file")
    s = flitsim.Store(tmp_path / "store")
    key = flitsim.Config(SMALL).key
    s.put(key, "{}")
    with pytest.raises(ValueError, match=f"{key}.json is not a flitsim report"):
        flitsim.sweep(SMALL, jobs=1, progress=False, store=s)
    assert "xyz" not in s
    (s.path / "results" / "zz").mkdir()
    (s.path / "results" / "zz" / "notakey.json").write_text("{}")
    assert list(s.keys()) == [key]
