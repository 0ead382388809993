"""The plot helpers draw the report's own numbers: the lines' data are the frame's columns,
heatmaps have the torus's shape and its channels' values, percentiles are the engine's."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure

import flitsim
from flitsim import plots
from conftest import REPO, SMALL

GRID = {"router.allocator": ["islip", "separable_input_first"], "traffic.load": [0.1, 0.2, 0.3]}


@pytest.fixture(scope="module")
def frame() -> pd.DataFrame:
    return flitsim.sweep(SMALL, grid=GRID, jobs=1, progress=False)


@pytest.fixture(scope="module")
def result() -> flitsim.Result:
    return flitsim.simulate(SMALL, set={"stats.vc_balance": True})


def test_load_curves_are_the_frame_columns(frame: pd.DataFrame) -> None:
    fig = plots.latency_vs_load(frame, series="router.allocator")
    assert isinstance(fig, Figure)
    ax = fig.axes[0]
    lines = ax.get_lines()
    assert [line.get_label() for line in lines] == ["allocator=islip", "allocator=separable_input_first"]
    for line, (_, part) in zip(lines, frame.groupby("router.allocator", sort=False)):
        kept = part[~part["saturated"]]
        np.testing.assert_array_equal(line.get_xdata(), kept["offered"].to_numpy())
        np.testing.assert_array_equal(line.get_ydata(), kept["latency_mean"].to_numpy())
    fig = plots.throughput_vs_load(frame, series="router.allocator")
    lines = fig.axes[0].get_lines()
    assert len(lines) == 3 and lines[-1].get_label() == "accepted = offered"
    isl = frame[frame["router.allocator"] == "islip"]
    np.testing.assert_array_equal(lines[0].get_ydata(), isl["accepted"].to_numpy())


def test_several_seeds_are_averaged() -> None:
    df = flitsim.sweep(SMALL, grid={"traffic.load": [0.1, 0.2]}, seeds=2, jobs=1, progress=False)
    line = plots.latency_vs_load(df).axes[0].get_lines()[0]
    want = df.groupby("load")["latency_mean"].mean().to_numpy()
    np.testing.assert_allclose(line.get_ydata(), want)
    with pytest.raises(KeyError, match="not in the frame"):
        plots.latency_vs_load(df, series="router.vcs")


def test_latency_percentiles_are_the_engines_and_match_numpy(result: flitsim.Result) -> None:
    pct = plots.percentiles(result)
    s = result.summary
    assert pct["p50"] == s["latency_p50"] and pct["p99"] == s["latency_p99"] and pct["p999"] == s["latency_p999"]
    # The histogram's bins are one cycle wide: its samples give numpy the same percentiles.
    samples = plots.latency_samples(result)
    assert len(samples) == s["packets_measured"]
    for name, q in (("p50", 50), ("p90", 90), ("p99", 99)):
        assert np.percentile(samples, q, method="inverted_cdf") == pytest.approx(pct[name], abs=1)
    hist = plots.latency_histogram(result)
    ax = hist.axes[0]
    marked = sorted(line.get_xdata()[0] for line in ax.get_lines())
    assert marked == sorted([*pct.values(), result.report["stats"]["packet_latency"]["mean"]])
    heights = [p.get_height() for p in ax.patches]
    lat = result.latency
    assert heights == list(lat[(lat["kind"] == "packet") & (lat["count"] > 0)]["count"])
    cdf = plots.latency_cdf({"a": result, "b": result}, kind="network")
    steps = [line for line in cdf.axes[0].get_lines() if line.get_label() in ("a", "b")]
    assert len(steps) == 2
    net = lat[lat["kind"] == "network"]
    np.testing.assert_array_equal(steps[0].get_ydata(), net["cdf"].to_numpy())


def test_fairness_bars_are_the_per_source_throughput(result: flitsim.Result) -> None:
    fig = plots.fairness(result)
    heights = [p.get_height() for p in fig.axes[0].patches]
    assert heights == list(result.per_source["delivered"])
    assert f"{result.summary['per_source_jain']:.4f}" in fig.axes[0].get_legend().get_texts()[0].get_text()


def test_channel_heatmap_has_the_torus_shape_and_its_channels(result: flitsim.Result) -> None:
    fig = plots.channel_heatmap(result)
    images = [ax.images[0] for ax in fig.axes if ax.images]
    assert len(images) == 4
    for image in images:
        assert image.get_array().shape == (4, 4)
    grid = plots.channel_grid(result, "+x")
    ch = result.channels
    assert grid[2, 1] == ch.loc[ch["from"] == "(1,2)+x", "utilization"].iloc[0]
    assert not np.isnan(grid).any()
    # A 3-D torus: the slice z of a 3x4x2 torus is 4 rows (y) by 3 columns (x).
    r3 = flitsim.simulate(SMALL, set={"topology.dims": [3, 4, 2], "sim.measure": 300})
    g = plots.channel_grid(r3, "-y", z=1)
    assert g.shape == (4, 3)
    ch3 = r3.channels
    assert g[3, 2] == ch3.loc[ch3["from"] == "(2,3,1)-y", "utilization"].iloc[0]
    assert plots.channel_heatmap(r3, z=1).axes[0].images[0].get_array().shape == (4, 3)
    with pytest.raises(ValueError, match="outside"):
        plots.channel_grid(r3, "+x", z=2)
    # A slice of a 2-D network, or a direction it does not have, is refused, not an
    # empty picture.
    with pytest.raises(ValueError, match="2-D"):
        plots.channel_heatmap(result, z=1)
    with pytest.raises(ValueError, match=r"\+x, -x, \+y, -y"):
        plots.channel_grid(result, "+z")
    with pytest.raises(ValueError, match="not one of"):
        plots.channel_grid(r3, "x+")


def test_vc_balance_bars_are_the_reports_histograms(result: flitsim.Result) -> None:
    fig = plots.vc_balance(result)
    dims = result.report["vc_balance"]["analytic"]
    heights = [p.get_height() for p in fig.axes[0].patches]
    assert heights == [float(h) for d in dims for h in d["histogram"]]
    with pytest.raises(ValueError, match="stats.vc_balance"):
        plots.vc_balance(flitsim.simulate(SMALL))


def test_ebb_distribution_marks_mean_min_max() -> None:
    df = pd.DataFrame({"traffic.pattern.index": range(8), "accepted": [0.5, 0.4, 0.45, 0.6, 0.55, 0.42, 0.48, 0.52]})
    fig = plots.ebb_distribution(df, bins=4)
    ax = fig.axes[0]
    marks = [line.get_xdata()[0] for line in ax.get_lines()]
    assert marks == [df["accepted"].mean(), 0.4, 0.6]
    assert sum(p.get_height() for p in ax.patches) == 8


def test_time_series_is_the_threshold_trace() -> None:
    base = (REPO / "experiments/self-tuned-congestion/base.toml").read_text()
    r = flitsim.simulate(base, set={"topology.dims": [4, 4], "congestion.policy": "tune", "routing.deadlock": "recovery",
                                    "traffic.load": 0.5, "sim.warmup": 500, "sim.measure": 2000})
    trace = plots.congestion_trace(r)
    assert len(trace) > 5
    fig = plots.time_series(r)
    threshold = fig.axes[0].get_lines()[0]
    throughput = fig.axes[1].get_lines()[0]
    np.testing.assert_array_equal(threshold.get_xdata(), trace["cycle"].to_numpy())
    np.testing.assert_array_equal(threshold.get_ydata(), trace["threshold"].to_numpy())
    np.testing.assert_array_equal(throughput.get_ydata(), trace["throughput"].to_numpy())
    with pytest.raises(ValueError, match="congestion trace"):
        plots.time_series(flitsim.simulate(SMALL))


def test_timeline_draws_each_runs_accepted_throughput() -> None:
    # A burst: 600 cycles at 0.05, 400 at 0.6, 1000 at 0.05, in bins of 100 cycles.
    toml = SMALL + "[stats]\ntimeline = 100\n"
    phases = [{"duration": 600, "load": 0.05}, {"duration": 400, "load": 0.6}, {"duration": 1000, "load": 0.05}]
    r = flitsim.simulate(toml, set={"traffic.phases": phases, "sim.warmup": 0, "sim.measure": 2000})
    t = r.timeline
    assert list(t.columns) == ["cycle", "offered", "accepted"]
    assert t["cycle"].iloc[0] == 100 and t["cycle"].iloc[-1] == r.report["cycles"]
    # The burst shows in the offered load of its bins, and the accepted follows it.
    burst = t[(t.cycle > 600) & (t.cycle <= 1000)]
    calm = t[t.cycle <= 600]
    assert burst["offered"].mean() > 5 * calm["offered"].mean()
    assert burst["accepted"].mean() > 3 * calm["accepted"].mean()
    fig = plots.timeline({"one": r, "same": r})
    offered, one, same = fig.axes[0].get_lines()
    np.testing.assert_array_equal(one.get_ydata(), t["accepted"].to_numpy())
    np.testing.assert_array_equal(offered.get_ydata(), t["offered"].to_numpy())
    assert one.get_label() == "one" and same.get_label() == "same"
    assert flitsim.simulate(SMALL).timeline.empty
    with pytest.raises(ValueError, match="stats.timeline"):
        plots.timeline({"off": flitsim.simulate(SMALL)})


def test_figures_save_as_png(tmp_path: Path, result: flitsim.Result) -> None:
    out = tmp_path / "cdf.png"
    plots.latency_cdf(result).savefig(out)
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
