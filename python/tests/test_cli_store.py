"""The `flitsim` command and the package share one results store: a point either one
computed is reused by the other (same key, same file, same report bytes), for
`flitsim sweep --store` and `flitsim reproduce --out/--store`."""

from __future__ import annotations

import csv
import json
import subprocess
from pathlib import Path

import pandas as pd
import pytest

import flitsim
from flitsim import report
from browser import chromium, open_page
from conftest import SMALL

ALLOCATORS = ["islip", "separable_input_first"]


def cli(flitsim_bin: Path, *args: str) -> str:
    p = subprocess.run([str(flitsim_bin), *args], capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr
    return p.stdout


def cli_sweep(flitsim_bin: Path, config: Path, store: Path, out: Path) -> tuple[str, list[dict[str, str]]]:
    stdout = cli(flitsim_bin, "sweep", str(config), "--grid", "router.allocator=" + ",".join(ALLOCATORS),
                 "--loads", "0.1:0.3:0.2", "--seeds", "1,2", "--store", str(store), "--out", str(out), "--jobs", "2")
    with open(out / "sweep.csv", newline="") as f:
        return stdout, list(csv.DictReader(f))


def py_sweep(config: Path, store: Path) -> pd.DataFrame:
    return flitsim.sweep(config, grid={"router.allocator": ALLOCATORS, "traffic.load": [0.1, 0.3]}, seeds=[1, 2], jobs=2, progress=False, store=store)


def test_python_writes_the_command_reuses(flitsim_bin: Path, small_toml: Path, tmp_path: Path) -> None:
    store = tmp_path / "store"
    df = py_sweep(small_toml, store)
    assert df.attrs["ran"] == 8
    stamps = {f: f.stat().st_mtime_ns for f in store.glob("results/*/*.json")}
    stdout, rows = cli_sweep(flitsim_bin, small_toml, store, tmp_path / "out")
    assert "0 run now, 8 reused" in stdout
    # Same points in the same order (grid, then load, then seed), same keys, same numbers.
    assert [r["key"] for r in rows] == list(df["key"])
    assert [r["router.allocator"] for r in rows] == list(df["router.allocator"])
    assert [float(r["latency_mean"]) for r in rows] == pytest.approx(list(df["latency_mean"]), abs=1e-4)
    assert {f: f.stat().st_mtime_ns for f in store.glob("results/*/*.json")} == stamps


def test_the_command_writes_python_reuses(flitsim_bin: Path, small_toml: Path, tmp_path: Path) -> None:
    store = tmp_path / "store"
    stdout, rows = cli_sweep(flitsim_bin, small_toml, store, tmp_path / "out")
    assert "8 run now, 0 reused" in stdout
    assert json.loads((store / "flitsim-store.json").read_text()) == {"format": "flitsim-store", "version": 1}
    df = py_sweep(small_toml, store)
    assert df.attrs["ran"] == 0 and df.attrs["cached"] == 8
    assert list(df["key"]) == [r["key"] for r in rows]
    # The stored report is the engine's text, byte for byte what the package writes.
    stored = flitsim.Store(store).get(rows[0]["key"])
    assert stored is not None
    # Both write result files with the permissions of any new file.
    modes = {f.stat().st_mode & 0o777 for f in store.glob("results/*/*.json")}
    flitsim.sweep(small_toml, points=[{"traffic.load": 0.05}], jobs=1, progress=False, store=store)
    assert {f.stat().st_mode & 0o777 for f in store.glob("results/*/*.json")} == modes and len(modes) == 1
    assert stored.json == flitsim.simulate(small_toml, set={"router.allocator": "islip", "traffic.load": 0.1}, seed=1).json
    # The command's sweep.json holds the same reports.
    doc = json.loads((tmp_path / "out" / "sweep.json").read_text())
    assert doc["grid"] == ["router.allocator"] and doc["reports"][0] == stored.report
    # Its output directory is a report source too: the same runs by key.
    col = report.load(tmp_path / "out")
    assert col.kind == "sweep" and list(col.results) == list(df["key"])
    assert "latency vs offered load" in report.render(tmp_path / "out")


EXPERIMENT = """\
title = "A small study"
description = "Two loads on a 4x4 torus."

[[row]]
name = "accepted at 0.1"
config = "small.toml"
set = ["traffic.load=0.1"]
metric = "stats.accepted.mean"
reference = 0.1
tolerance = 0.02
source = "offered load"

[[row]]
name = "accepted at 0.3"
config = "small.toml"
set = ["traffic.load=0.3"]
metric = "stats.accepted.mean"
reference = 0.3
tolerance = 0.03
source = "offered load"
"""


def test_reproduce_uses_the_store_and_reports(flitsim_bin: Path, tmp_path: Path) -> None:
    study = tmp_path / "experiments" / "mini"
    study.mkdir(parents=True)
    (study / "experiment.toml").write_text(EXPERIMENT)
    (study / "small.toml").write_text(SMALL)
    out = tmp_path / "repro"
    # The package computes one of the two runs first; the command reuses it.
    pre = flitsim.sweep(SMALL, points=[{"traffic.load": 0.1}], jobs=1, progress=False, store=out / "store")
    stdout = cli(flitsim_bin, "reproduce", "mini", "--dir", str(tmp_path / "experiments"), "--out", str(out))
    assert "2 of 2 reference numbers reproduced in magnitude" in stdout
    doc = json.loads((out / "reproduction.json").read_text())
    assert doc["format"] == "flitsim-reproduction" and doc["flitsim"] == flitsim.__version__ and doc["store"] == "store"
    assert doc["configs"] == {"small.toml": SMALL}
    keys = [flitsim.Config(SMALL, set={"traffic.load": load}).key for load in (0.1, 0.3)]
    assert [r["key"] for r in doc["rows"]] == keys and keys[0] == pre["key"].iloc[0]
    assert sorted(flitsim.Store(out / "store").keys()) == sorted(keys)
    stored = flitsim.Store(out / "store").get(keys[1])
    assert stored is not None and doc["rows"][1]["flitsim"] == stored.summary["accepted"]
    # The HTML report of the reproduction: its rows, figures and configs, rendered.
    page_file = report.write_report(out)
    text = page_file.read_text()
    assert "A small study" in text and "accepted at 0.3" in text and "2 of 2 reference numbers reproduced in magnitude" in text
    # Each row's run drawn on its network, captioned with the row's name.
    assert text.count('<figure class="network">') == 2
    if chromium() is not None:
        page = open_page(page_file)
        assert page.console_errors == [] and page.images and all(i["complete"] and i["width"] > 0 for i in page.images)
        networks = {i["alt"]: i for i in page.images if i["alt"].startswith("network: ")}
        assert sorted(networks) == sorted(f"network: {row['name']}" for row in doc["rows"])
        assert all(i["ink"] > 0.1 and i["colour"] > 0.03 for i in networks.values()), networks


def test_a_data_file_is_part_of_the_key(flitsim_bin: Path, tmp_path: Path) -> None:
    # A trace replayed from a file: the command's sweep stores two points (no loads: the
    # trace sets its own times); the package finds them by the same keys; after the file
    # changes, the same sweep computes two new points instead of reusing stale ones.
    trace = tmp_path / "pingpong.trace"
    trace.write_text("0 3 4\n3 0 4 after=0\n")
    config = tmp_path / "trace.toml"
    config.write_text(
        '[topology]\ntype = "mesh"\ndims = [4]\n[sim]\nwarmup = 0\nmeasure = 10000\nuntil_done = true\n'
        f"[traffic.trace]\nfile = {json.dumps(str(trace))}\n"
    )
    store = tmp_path / "store"
    cli(flitsim_bin, "sweep", str(config), "--grid", "router.vcs=2,4", "--store", str(store), "--out", str(tmp_path / "out"), "--jobs", "1")
    keys = sorted(flitsim.Config(config, set={"router.vcs": v}).key for v in (2, 4))
    assert sorted(flitsim.Store(store).keys()) == keys
    trace.write_text("0 3 8\n3 0 8 after=0\n")
    again = flitsim.sweep(config, grid={"router.vcs": [2, 4]}, jobs=1, progress=False, store=store)
    assert set(again["key"]).isdisjoint(keys) and len(list(flitsim.Store(store).keys())) == 4
    # 8 flits instead of 4 each way: the ping-pong ends 2 x 4 cycles later.
    first = flitsim.Store(store).get(keys[0])
    assert first is not None
    assert set(again["trace_completion"]) == {first.summary["trace_completion"] + 8}
