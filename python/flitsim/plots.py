"""Figures the field draws, from sweep data frames and :class:`~flitsim.Result` objects.

Every function returns a :class:`matplotlib.figure.Figure` built without pyplot (no
window, no global state: safe in scripts, servers and worker processes); save it with
``fig.savefig("plot.png")`` or show it in a notebook by leaving it as a cell's value.
The numbers plotted are the report's own (nothing is simulated or re-measured here):

==========================  =========================================================
:func:`latency_vs_load`     mean latency vs offered load, one line per series
:func:`throughput_vs_load`  accepted vs offered throughput, one line per series
:func:`latency_cdf`         latency distribution as a CDF, the engine's percentiles marked
:func:`latency_histogram`   the same distribution as a histogram
:func:`fairness`            throughput per source node, with Jain's index
:func:`network`             channel loads and node throughput drawn on the topology (any family)
:func:`channel_heatmap`     utilisation per channel direction on a 2-D torus or a z-slice
:func:`vc_balance`          VC_balance histograms per dimension (Cray XT metric)
:func:`ebb_distribution`    effective bisection bandwidth over random bisection patterns
:func:`time_series`         the self-tuned threshold and throughput per tuning period
:func:`timeline`            accepted throughput over time per run (``stats.timeline``)
==========================  =========================================================
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Union

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from . import network as _network
from .result import Result

#: One result, several (labelled by their index) or a mapping from label to result.
Results = Union[Result, Sequence[Result], Mapping[str, Result]]

#: Percentiles marked by :func:`latency_cdf` and :func:`latency_histogram`, as the
#: report's field suffixes (``p50`` is ``stats.packet_latency.p50``).
PERCENTILES: tuple[str, ...] = ("p50", "p90", "p99", "p999")



def _figure(width: float = 6.4, height: float = 4.2) -> tuple[Figure, Axes]:
    fig = Figure(figsize=(width, height), layout="constrained")
    return fig, fig.subplots()


def _labelled(results: Results) -> list[tuple[str, Result]]:
    if isinstance(results, Result):
        return [("", results)]
    if isinstance(results, Mapping):
        return [(str(k), v) for k, v in results.items()]
    return [(str(i), r) for i, r in enumerate(results)]


def _series(frame: pd.DataFrame, series: str | Sequence[str] | None) -> list[tuple[str, pd.DataFrame]]:
    """Split a sweep frame by the ``series`` columns; label each part ``col=value ...``."""
    if series is None:
        return [("", frame)]
    cols = [series] if isinstance(series, str) else list(series)
    missing = [c for c in cols if c not in frame.columns]
    if missing:
        raise KeyError(f"series columns {missing} are not in the frame (columns: {list(frame.columns)})")
    out: list[tuple[str, pd.DataFrame]] = []
    for values, part in frame.groupby(cols, sort=False, dropna=False):
        vals = values if isinstance(values, tuple) else (values,)
        out.append((" ".join(f"{c.rsplit('.', 1)[-1]}={v}" for c, v in zip(cols, vals)), part))
    return out


def load_curve(frame: pd.DataFrame, y: str, *, x: str = "offered", drop_saturated: bool = False) -> pd.DataFrame:
    """One series' curve: ``x`` and ``y`` averaged over the seeds of each configured load
    (``load``), sorted by load. Saturated rows are dropped first when ``drop_saturated``
    (their latency measures the source queues' growth, not the network)."""
    part = frame[~frame["saturated"].astype(bool)] if drop_saturated else frame
    curve: pd.DataFrame = part.groupby("load", sort=True)[[x, y]].mean().reset_index()
    return curve


def latency_vs_load(
    frame: pd.DataFrame,
    *,
    series: str | Sequence[str] | None = None,
    x: str = "offered",
    y: str = "latency_mean",
    drop_saturated: bool = True,
    title: str | None = None,
) -> Figure:
    """Latency (``y``, default the mean packet latency) against offered load (``x``) from
    a sweep frame, one line per value of the ``series`` column(s), each point the mean over
    seeds (:func:`load_curve`). Saturated points are left out unless ``drop_saturated=False``."""
    fig, ax = _figure()
    for label, part in _series(frame, series):
        curve = load_curve(part, y, x=x, drop_saturated=drop_saturated)
        ax.plot(curve[x].to_numpy(), curve[y].to_numpy(), marker="o", label=label or None)
    ax.set_xlabel("offered load (flits/node/cycle)" if x == "offered" else x)
    ax.set_ylabel(f"{y.replace('_', ' ')} (cycles)" if y.startswith(("latency", "network_latency")) else y)
    ax.set_xlim(left=0)
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    if series is not None:
        ax.legend()
    ax.set_title(title or "latency vs offered load")
    return fig


def throughput_vs_load(frame: pd.DataFrame, *, series: str | Sequence[str] | None = None, y: str = "accepted", title: str | None = None) -> Figure:
    """Accepted throughput (``y``: ``accepted`` mean per node, or ``accepted_min``) against
    offered load, one line per series, with the ``accepted = offered`` diagonal: a curve
    leaves the diagonal where the network saturates."""
    fig, ax = _figure()
    top = 0.0
    for label, part in _series(frame, series):
        curve = load_curve(part, y, x="offered")
        ax.plot(curve["offered"].to_numpy(), curve[y].to_numpy(), marker="o", label=label or None)
        top = max(top, float(curve["offered"].max()), float(curve[y].max()))
    ax.plot([0, top], [0, top], color="0.7", linestyle="--", linewidth=1, label="accepted = offered")
    ax.set_xlabel("offered load (flits/node/cycle)")
    ax.set_ylabel("accepted throughput (flits/node/cycle)")
    ax.set_xlim(left=0)
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    ax.legend()
    ax.set_title(title or "accepted vs offered throughput")
    return fig


def percentiles(result: Result, kind: str = "packet") -> dict[str, float]:
    """The engine's latency percentiles of ``kind`` ("packet" or "network"): ``{"p50": ...}``
    for the :data:`PERCENTILES` the report holds (computed by the engine from every measured
    packet, not from the histogram's bins)."""
    lat = result.report["stats"][f"{kind}_latency"]
    return {p: float(lat[p]) for p in PERCENTILES if p in lat}


def latency_samples(result: Result, kind: str = "packet") -> np.ndarray[Any, np.dtype[np.float64]]:
    """The latency histogram of ``kind`` as samples: each bin's lower edge repeated by its
    count (exact when the bin width is 1 cycle, as by default)."""
    lat = result.latency
    part = lat[lat["kind"] == kind]
    return np.repeat(part["lo"].to_numpy(dtype=float), part["count"].to_numpy())


def _mark_percentiles(ax: Axes, marks: Mapping[str, float], color: Any) -> None:
    for name, value in marks.items():
        ax.axvline(value, color=color, linestyle=":", linewidth=1)
        ax.annotate(name, (value, 1.0), xycoords=("data", "axes fraction"), rotation=90, va="top", ha="right", fontsize=8, color=color)


def latency_cdf(results: Results, *, kind: str = "packet", marks: Sequence[str] = ("p50", "p99"), title: str | None = None) -> Figure:
    """The latency distribution of ``kind`` ("packet": creation to tail ejection; "network")
    of one or several results as cumulative fractions (steps at each bin's upper edge), with
    the engine's percentiles ``marks`` drawn as vertical lines."""
    if kind not in ("packet", "network"):
        raise ValueError(f'kind is "packet" or "network", not {kind!r}')
    fig, ax = _figure()
    for i, (label, r) in enumerate(_labelled(results)):
        lat = r.latency
        part = lat[lat["kind"] == kind]
        line = ax.step(part["hi"].to_numpy(), part["cdf"].to_numpy(), where="post", label=label or None)[0]
        pct = percentiles(r, kind)
        _mark_percentiles(ax, {m: pct[m] for m in marks if m in pct}, line.get_color())
    ax.set_xlabel(f"{kind} latency (cycles)")
    ax.set_ylabel("fraction of packets")
    ax.set_ylim(0, 1.02)
    ax.grid(alpha=0.3)
    if not isinstance(results, Result):
        ax.legend()
    ax.set_title(title or f"{kind} latency CDF")
    return fig


def latency_histogram(result: Result, *, kind: str = "packet", marks: Sequence[str] = PERCENTILES, title: str | None = None) -> Figure:
    """The latency histogram of ``kind`` (bars over the report's bins: count per bin) with
    the engine's percentiles ``marks`` and the mean drawn as vertical lines."""
    fig, ax = _figure()
    lat = result.latency
    part = lat[(lat["kind"] == kind) & (lat["count"] > 0)]
    ax.bar(part["lo"].to_numpy(), part["count"].to_numpy(), width=(part["hi"] - part["lo"]).to_numpy(), align="edge", color="C0")
    pct = percentiles(result, kind)
    _mark_percentiles(ax, {m: pct[m] for m in marks if m in pct}, "C3")
    mean = float(result.report["stats"][f"{kind}_latency"]["mean"])
    ax.axvline(mean, color="k", linewidth=1)
    ax.annotate("mean", (mean, 1.0), xycoords=("data", "axes fraction"), rotation=90, va="top", ha="right", fontsize=8)
    ax.set_xlabel(f"{kind} latency (cycles)")
    ax.set_ylabel("packets")
    ax.grid(alpha=0.3, axis="y")
    ax.set_title(title or f"{kind} latency histogram")
    return fig


def fairness(results: Results, *, column: str = "delivered", title: str | None = None) -> Figure:
    """Throughput per source node (``column`` of :attr:`Result.per_source`: "delivered",
    the flits/cycle each source got through, or "accepted" at each node): bars for one
    result, lines for several; Jain's index of each in the legend or title."""
    fig, ax = _figure(7.5, 4.2)
    labelled = _labelled(results)
    for label, r in labelled:
        values = r.per_source[column].to_numpy()
        jain = r.report["stats"]["per_source" if column == "delivered" else "accepted"]["jain"]
        text = f"{label} (Jain {jain:.4f})" if label else f"Jain's index {jain:.4f}"
        if len(labelled) == 1:
            ax.bar(np.arange(len(values)), values, color="C0", label=text)
        else:
            ax.plot(np.arange(len(values)), values, marker=".", label=text)
    ax.set_xlabel("source node" if column == "delivered" else "node")
    ax.set_ylabel(f"{column} (flits/cycle)")
    ax.grid(alpha=0.3, axis="y")
    ax.legend()
    ax.set_title(title or "throughput per source")
    return fig


def channel_grid(result: Result, direction: str, *, z: int = 0, value: str = "utilization") -> np.ndarray[Any, np.dtype[np.float64]]:
    """The ``value`` (a column of :attr:`Result.channels`: "utilization" or "vc0", ...) of
    the network channel leaving each router in ``direction`` ("+x", "-y", ...) on a 2-D
    k-ary n-cube, or on the slice ``z`` of a 3-D one: an array of shape (radix y, radix x),
    row y, column x; NaN where a router has no such channel (a mesh edge)."""
    dims = [int(d) for d in result.report["config"]["topology"]["dims"]]
    if len(dims) not in (2, 3):
        raise ValueError(f"channel heatmaps are for 2-D and 3-D k-ary n-cubes; this network has dims {dims}")
    if len(dims) == 3 and not 0 <= z < dims[2]:
        raise ValueError(f"z={z} is outside the torus's third dimension (radix {dims[2]})")
    if len(dims) == 2 and z != 0:
        raise ValueError(f"z={z} names a slice, but this network is 2-D (dims {dims}): leave z out")
    valid = [f"{sign}{axis}" for axis in "xyz"[: len(dims)] for sign in "+-"]
    if direction not in valid:
        raise ValueError(f"direction {direction!r} is not one of this network's: {', '.join(valid)}")
    grid = np.full((dims[1], dims[0]), np.nan)
    ch = result.channels
    if ch.empty:
        raise ValueError("the report has no per-channel rows: run with stats.channel_counters = true")
    for src, v in zip(ch.loc[ch["kind"] == "network", "from"], ch.loc[ch["kind"] == "network", value]):
        router, port = _network.split_end(src)
        if port != direction:
            continue
        coords = _network.coords(router)
        if len(coords) == 3 and coords[2] != z:
            continue
        grid[coords[1], coords[0]] = v
    return grid


def network(
    result: Result,
    value: str = "utilization",
    *,
    vc: int | None = None,
    nodes: str | None = "accepted",
    aggregate: str = "max",
    vmax: float | None = None,
    title: str | None = None,
    frames: int | None = None,
) -> Figure:
    """The run drawn on its network, any topology family (over time in ``frames``
    stretches when given): a matplotlib Figure, with the options of
    :func:`flitsim.network.draw`, which documents them."""
    return _network.draw(result, value, vc=vc, nodes=nodes, aggregate=aggregate, vmax=vmax, title=title, frames=frames)


def channel_heatmap(result: Result, *, z: int = 0, directions: Sequence[str] | None = None, value: str = "utilization", title: str | None = None) -> Figure:
    """Per-channel utilisation (or another ``value`` column) of a 2-D torus or mesh, or of
    the slice ``z`` of a 3-D one: one heatmap per ``directions`` (default: every
    direction in the x-y plane, "+x", "-x", "+y", "-y"), routers at (column x, row y),
    on one colour scale (:func:`channel_grid` gives the arrays)."""
    dirs = list(directions) if directions is not None else ["+x", "-x", "+y", "-y"]
    grids = [channel_grid(result, d, z=z, value=value) for d in dirs]
    top = max((float(np.nanmax(g)) for g in grids if not np.all(np.isnan(g))), default=1.0) or 1.0
    cols = min(len(dirs), 2)
    rows = (len(dirs) + cols - 1) // cols
    fig = Figure(figsize=(4.2 * cols + 1, 3.6 * rows), layout="constrained")
    axes = np.atleast_1d(fig.subplots(rows, cols, squeeze=False)).ravel()
    image = None
    for ax, d, g in zip(axes, dirs, grids):
        image = ax.imshow(g, origin="lower", cmap="viridis", vmin=0, vmax=top, aspect="equal")
        ax.set_title(f"{d} channels")
        ax.set_xlabel("x")
        ax.set_ylabel("y")
    for ax in axes[len(dirs):]:
        ax.set_visible(False)
    if image is not None:
        fig.colorbar(image, ax=list(axes[: len(dirs)]), label=f"{value} (flits/cycle)" if value == "utilization" else value)
    dims = result.report["config"]["topology"]["dims"]
    where = f", z = {z}" if len(dims) == 3 else ""
    fig.suptitle(title or f"channel {value} ({'x'.join(str(d) for d in dims)}{where})")
    return fig


def vc_balance(source: Result | Sequence[Mapping[str, Any]], *, which: str = "analytic", title: str | None = None) -> Figure:
    """VC_balance histograms per dimension (Cray XT VC-assignment paper): links per bin
    [0, 0.25], (0.25, 0.5], (0.5, 0.75], (0.75, 1], grouped bars, the mean in the legend.
    ``source`` is a result run with ``stats.vc_balance = true`` (``which``: "analytic",
    from the routes, or "simulated", from the window's flits) or the ``dims`` list that
    ``flitsim vc-balance --json`` prints."""
    if isinstance(source, Result):
        found = source.report.get("vc_balance")
        if not found:
            raise ValueError("the report has no vc_balance: run with stats.vc_balance = true")
        dims: Sequence[Mapping[str, Any]] = found[which]
    else:
        dims = source
    fig, ax = _figure()
    bins = np.arange(4)
    width = 0.8 / max(len(dims), 1)
    for i, d in enumerate(dims):
        ax.bar(bins + i * width, np.asarray(d["histogram"], dtype=float), width=width, label=f"{d['dim']} (mean {d['mean']:.3f})")
    ax.set_xticks(bins + width * (len(dims) - 1) / 2, ["[0, .25]", "(.25, .5]", "(.5, .75]", "(.75, 1]"])
    ax.set_xlabel("VC_balance")
    ax.set_ylabel("links")
    ax.grid(alpha=0.3, axis="y")
    ax.legend()
    ax.set_title(title or f"VC balance per dimension ({which})")
    return fig


def ebb_distribution(frame: pd.DataFrame, *, value: str = "accepted", series: str | Sequence[str] | None = None, bins: int = 20, title: str | None = None) -> Figure:
    """The effective bisection bandwidth's distribution: one sweep row per random
    bisection pattern (e.g. a grid over ``traffic.pattern.index``), its ``value`` (default
    the accepted throughput per node) as a histogram per series with the mean (solid),
    minimum and maximum (dashed) marked: the eBB figures of the adaptive-routing paper."""
    fig, ax = _figure()
    for i, (label, part) in enumerate(_series(frame, series)):
        values = part[value].to_numpy(dtype=float)
        color = f"C{i}"
        ax.hist(values, bins=bins, alpha=0.6, color=color, label=f"{label} (mean {values.mean():.4f})" if label else f"mean {values.mean():.4f}")
        ax.axvline(values.mean(), color=color, linewidth=1.5)
        ax.axvline(values.min(), color=color, linewidth=1, linestyle="--")
        ax.axvline(values.max(), color=color, linewidth=1, linestyle="--")
    ax.set_xlabel(f"{value} (flits/node/cycle)")
    ax.set_ylabel("patterns")
    ax.grid(alpha=0.3, axis="y")
    ax.legend()
    ax.set_title(title or "effective bisection bandwidth")
    return fig


def congestion_trace(result: Result) -> pd.DataFrame:
    """The self-tuned throttle's trace (``congestion.trace`` in the report), one row per
    tuning period: ``cycle``, ``threshold``, ``throughput``, ``full``, ``estimate``,
    ``throttled_fraction``, ``action``."""
    found = result.report.get("congestion")
    if not found or not found.get("trace"):
        raise ValueError("the report has no congestion trace: run with [congestion] and congestion.trace = true")
    trace: pd.DataFrame = pd.DataFrame(found["trace"])
    return trace


def time_series(result: Result, *, title: str | None = None) -> Figure:
    """The throttling threshold (left axis, buffers) and the delivered throughput (right
    axis, flits/node/cycle) per tuning period over the run (:func:`congestion_trace`): the
    hill-climbing of the self-tuned congestion-control paper."""
    trace = congestion_trace(result)
    fig, ax = _figure(7.5, 4.2)
    ax.step(trace["cycle"].to_numpy(), trace["threshold"].to_numpy(), where="post", color="C0", label="threshold")
    ax.set_xlabel("cycle")
    ax.set_ylabel("threshold (full VC buffers)", color="C0")
    right = ax.twinx()
    right.plot(trace["cycle"].to_numpy(), trace["throughput"].to_numpy(), color="C1", label="throughput")
    right.set_ylabel("throughput (flits/node/cycle)", color="C1")
    ax.grid(alpha=0.3)
    ax.set_title(title or "self-tuned threshold and throughput")
    return fig


def timeline(results: Mapping[str, Result], *, title: str | None = None) -> Figure:
    """Accepted throughput over time (:attr:`Result.timeline`), one line per labelled
    run, with the first run's offered load dashed: e.g. Base, ALO and Tune under the
    bursty load of the self-tuned congestion-control paper (its Fig. 9)."""
    if not results:
        raise ValueError("no results to plot: give {label: Result}")
    fig, ax = _figure(7.5, 4.2)
    for i, (label, r) in enumerate(results.items()):
        t = r.timeline
        if t.empty:
            raise ValueError(f"{label}: the report has no timeline: run with stats.timeline = N (cycles per bin)")
        if i == 0:
            ax.plot(t["cycle"].to_numpy(), t["offered"].to_numpy(), color="0.6", linestyle="--", label="offered")
        ax.plot(t["cycle"].to_numpy(), t["accepted"].to_numpy(), color=f"C{i}", label=label)
    ax.set_xlabel("cycle")
    ax.set_ylabel("throughput (flits/node/cycle)")
    ax.grid(alpha=0.3)
    ax.legend()
    ax.set_title(title or "delivered throughput over time")
    return fig
