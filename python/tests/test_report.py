"""`flitsim report`: the HTML report of a store, a reproduction and a CLI sweep, opened in
headless Chromium (images decoded, no console errors); the command runs the package's
module and says what to do when Python lacks the package."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import flitsim
from flitsim import report
from browser import chromium, open_page
from conftest import SMALL

GRID = {"router.allocator": ["islip", "separable_input_first"], "traffic.load": [0.1, 0.3]}


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("report") / "store"
    flitsim.sweep(SMALL, grid=GRID, jobs=1, progress=False, store=path)
    return path


def test_store_report_holds_the_runs_the_figures_and_the_config(store: Path) -> None:
    col = report.load(store)
    frame = report.summary_frame(col.results)
    # The varying keys are found from the configs themselves.
    assert frame.attrs["varying"] == ["router.allocator", "traffic.load"]
    assert len(frame) == 4 and sorted(frame["key"]) == sorted(flitsim.Store(store).keys())
    text = report.render(store)
    assert text.startswith("<!DOCTYPE html>") and text.count('<img src="data:image/png;base64,') >= 4
    # Each of the four runs drawn on its network, named as in the runs table.
    assert text.count('<figure class="network">') == 4
    labels = report.run_labels(frame)
    assert [c for c, _ in report.network_runs(col, frame)] == [f"run {i + 1}: {label}" for i, label in enumerate(labels)]
    assert "latency vs offered load" in text and flitsim.__version__ in text
    assert 'allocator = "separable_input_first"' in text or "allocator = &quot;" in text


def test_report_renders_in_headless_chromium(store: Path) -> None:
    if chromium() is None:
        pytest.skip("no chromium: test.sh installs it as root (apt-get install chromium); otherwise install it to run this test")
    out = report.write_report(store, store.parent / "report.html")
    page = open_page(out)
    assert page.title.startswith("flitsim results")
    assert len(page.images) >= 4
    for image in page.images:
        assert image["complete"] and image["width"] > 100 and image["height"] > 100, image
        assert image["ink"] > 0.01, image
    # The network figures, one per run: present, decoded, and drawn on. A 4x4 torus's
    # drawing is about 7% coloured pixels (its links); without the links only the colour
    # bar's 1% would be.
    networks = [i for i in page.images if i["alt"].startswith("network: ")]
    assert len(networks) == 4, [i["alt"] for i in page.images]
    for image in networks:
        assert image["ink"] > 0.1 and image["colour"] > 0.03, image
    assert "Networks" in page.text
    assert page.console_errors == []
    assert "Runs" in page.text and "Configs" in page.text


def test_python_m_flitsim_report(store: Path, tmp_path: Path) -> None:
    out = tmp_path / "r.html"
    p = subprocess.run([sys.executable, "-m", "flitsim", "report", str(store), "--out", str(out)], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert out.read_text().startswith("<!DOCTYPE html>")
    p = subprocess.run([sys.executable, "-m", "flitsim", "report", str(tmp_path)], capture_output=True, text=True)
    assert p.returncode == 2 and "not a results directory" in p.stderr


def test_the_command_runs_the_module(flitsim_bin: Path, store: Path, tmp_path: Path) -> None:
    env = {**os.environ, "FLITSIM_PYTHON": sys.executable}
    out = tmp_path / "cli.html"
    p = subprocess.run([str(flitsim_bin), "report", str(store), "--out", str(out)], capture_output=True, text=True, env=env)
    assert p.returncode == 0, p.stderr
    assert "<h1>flitsim results" in out.read_text()
    # A Python without the package: a clear error naming the fix.
    bare = tmp_path / "bare-python"
    bare.write_text(f"#!/bin/sh\nexec {sys.executable} -S -I \"$@\"\n")
    bare.chmod(0o755)
    p = subprocess.run([str(flitsim_bin), "report", str(store)], capture_output=True, text=True, env={**env, "FLITSIM_PYTHON": str(bare)})
    assert p.returncode == 2
    assert "cannot import the flitsim package" in p.stderr and "pip install" in p.stderr and "FLITSIM_PYTHON" in p.stderr
    p = subprocess.run([str(flitsim_bin), "report", str(store)], capture_output=True, text=True, env={**env, "FLITSIM_PYTHON": str(tmp_path / "nope")})
    assert p.returncode == 2 and "cannot run" in p.stderr


def test_a_reproductions_curves_are_drawn_per_series_path() -> None:
    # Three rows with curves over time (two on one path), one without: two figures, the
    # lines the rows' points, the paper's curves in the caption.
    from flitsim import report

    def row(name: str, path: str | None, values: list[float], ref: str = "") -> dict[str, object]:
        series = {"path": path, "values": values, "cycles": [100 * (i + 1) for i in range(len(values))], "reference": ref} if path else None
        return {"name": name, "result": "info", "series": series}

    rows = [
        row("A: accepted", "stats.timeline.accepted", [0.1, 0.3, 0.2], "A rises then falls"),
        row("B: accepted", "stats.timeline.accepted", [0.2, 0.2, 0.2]),
        row("C: threshold", "congestion.trace.threshold", [5.0, 7.0]),
        row("D: no curve", None, []),
    ]
    figs = report._series(rows)
    assert [c.split(" over time")[0] for c, _ in figs] == ["stats.timeline.accepted", "congestion.trace.threshold"]
    assert "A rises then falls" in figs[0][0]
    a, b = figs[0][1].axes[0].get_lines()
    assert list(a.get_xdata()) == [100, 200, 300] and list(a.get_ydata()) == [0.1, 0.3, 0.2]
    assert a.get_label() == "A" and b.get_label() == "B"
    assert list(figs[1][1].axes[0].get_lines()[0].get_ydata()) == [5.0, 7.0]



def test_saturated_runs_stay_out_of_the_cdf_and_long_text_is_cut(tmp_path: Path) -> None:
    path = tmp_path / "store"
    # The same network twice, one run judged saturated by a latency limit of 1 cycle.
    flitsim.sweep(SMALL, grid={"stats.latency_limit": [1, 1000]}, jobs=1, progress=False, store=path)
    col = report.load(path)
    frame = report.summary_frame(col.results)
    # No run replayed a trace: no columns of NaN for it.
    assert not set(report.TRACE_FIELDS) & set(frame.columns)
    assert list(frame["saturated"]) == [True, False]
    ordered = [col.results[k] for k in frame["key"]]
    assert [r.summary["saturated"] for r in report.cdf_runs(["limit 1", "limit 1000"], ordered).values()] == [False]
    # With every run saturated, the CDF still draws them.
    assert len(report.cdf_runs(["limit 1"], ordered[:1])) == 1
    reason = frame["reason"].iloc[0]
    assert len(reason) > report.MAX_CELL_TEXT, reason
    text = report.render(path)
    assert reason not in text and reason[: report.MAX_CELL_TEXT - 1] + "…" in text
    assert "saturated runs left out" in text


def test_a_run_without_channel_rows_is_named_not_drawn(tmp_path: Path) -> None:
    path = tmp_path / "store"
    flitsim.sweep(SMALL, grid={"stats.channel_counters": [True, False]}, jobs=1, progress=False, store=path)
    text = report.render(path)
    assert text.count('<figure class="network">') == 1
    assert "not drawn (the report has no per-channel rows (it was run with stats.channel_counters = false)" in text


def test_a_run_with_buffer_samples_and_timelines_is_drawn_three_ways(tmp_path: Path) -> None:
    path = tmp_path / "store"
    sampled = {"stats.buffer_sample": [1], "stats.timeline": [250], "stats.channel_timeline": [True]}
    flitsim.sweep(SMALL, grid=sampled, jobs=1, progress=False, store=path)
    col = report.load(path)
    captions = [c for c, _ in report.network_figures(col, report.summary_frame(col.results))]
    assert captions == ["run 1", "run 1: blocked channels", "run 1: over time"]
    out = report.write_report(path, tmp_path / "report.html")
    assert out.read_text().count('<figure class="network">') == 3
    if chromium() is None:
        return
    page = open_page(out)
    networks = [i for i in page.images if i["alt"].startswith("network: ")]
    assert len(networks) == 3
    for image in networks:
        assert image["complete"] and image["ink"] > 0.1 and image["colour"] > 0.03, image
    assert page.console_errors == []
