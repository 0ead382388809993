"""A run drawn on its network over time: small multiples, one drawing per stretch of the
run, from the flits each channel carried in each timeline bin (``stats.timeline`` with
``stats.channel_timeline = true``), all on one colour scale so that the frames compare.

The run's bins are grouped into ``frames`` stretches of as equal a length as the bins
allow (:func:`spans`); each frame is the network drawn as :func:`flitsim.network.draw` draws it, its
links coloured by their utilisation in that stretch (or the flits they carried). A
network drawn as one panel gets one panel per frame, several to a row; a network drawn
as several (the z-planes of a 3-D torus) gets one row of panels per frame.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from matplotlib.figure import Figure

from ..result import Result
from .loads import check_report, read
from .scene import Panel, Scene, render

#: What the frames' links can show.
FRAME_VALUES: dict[str, str] = {
    "utilization": "flits per cycle on the channel in the frame (Gb/s with channel.link_gbps)",
    "flits": "flits the channel carried in the frame",
}


def spans(bin_ends: list[int], frames: int) -> list[tuple[int, int, int, int]]:
    """The frames of a run whose timeline bins end at ``bin_ends``: ``frames`` groups of
    consecutive bins (as many as there are bins at most), their counts differing by one
    at most (bin ``i * n // frames`` starts frame ``i``, of ``n`` bins), each as
    ``(first bin, end bin (exclusive), first cycle, end cycle (exclusive))``."""
    if not isinstance(frames, int) or isinstance(frames, bool) or frames < 1:
        raise ValueError(f"frames {frames!r} must be a whole number of frames, at least 1")
    n = len(bin_ends)
    f = min(frames, n)
    cuts = [i * n // f for i in range(f + 1)]
    return [(lo, hi, bin_ends[lo - 1] if lo else 0, bin_ends[hi - 1]) for lo, hi in zip(cuts, cuts[1:])]


def draw_frames(
    source: Result | Mapping[str, Any],
    value: str = "utilization",
    *,
    frames: int = 6,
    aggregate: str = "max",
    vmax: float | None = None,
    title: str | None = None,
) -> Figure:
    """``source`` drawn on its network in ``frames`` stretches of its run (see the module
    docs), its links coloured by ``value`` (:data:`FRAME_VALUES`) on one scale from 0 to
    ``vmax`` (default the largest of any frame). Routers are plain markers (the report
    has no per-node counts over time)."""
    from .. import network  # (its `scene`: the layout of each family; imported here, not at the top, as the package imports this module)

    report = source.report if isinstance(source, Result) else source
    check_report(report)
    if value not in FRAME_VALUES:
        raise ValueError(f"value {value!r} is not one the frames colour links by: {', '.join(FRAME_VALUES)}")
    rows: list[Mapping[str, Any]] = report["channels"]
    bins = report["stats"].get("timeline") or []
    if not rows or not bins or not any(r.get("timeline") for r in rows):
        raise ValueError(
            "the report has no per-channel timelines to draw frames from: run it again with stats.timeline = W "
            "(a bin width in cycles, e.g. a tenth of the run) and stats.channel_timeline = true"
        )
    ends = [int(b["cycle"]) for b in bins]
    drawn_frames: list[Scene] = []
    labels: list[str] = []
    link_label = ""
    for lo, hi, start, end in spans(ends, frames):
        cycles = max(end - start, 1)

        def row_in_frame(row: Mapping[str, Any], lo: int = lo, hi: int = hi, cycles: int = cycles) -> dict[str, Any]:
            flits = sum(row.get("timeline", [])[lo:hi])
            return {**row, "vc_flits": [flits], "utilization": flits / cycles}

        framed = {**report, "channels": [row_in_frame(r) for r in rows]}
        loads = read(framed, value, nodes=None)
        drawn_frames.append(network.scene(loads, aggregate))
        labels.append(f"cycles {start}-{end}")
        link_label = loads.link_label.replace("in the window", "in the frame")
    per_frame = len(drawn_frames[0].panels)
    panels: list[Panel] = []
    for label, drawn in zip(labels, drawn_frames):
        for p in drawn.panels:
            p.title = f"{label}: {p.title}" if p.title and per_frame > 1 else label
            panels.append(p)
    columns = per_frame if per_frame > 1 else min(3, len(drawn_frames))
    first = drawn_frames[0]
    width, height = first.panel_size
    scale = 1.0 if per_frame > 1 else 0.8
    whole = Scene(
        panels=panels,
        title=title if title is not None else f"{first.title.split(':')[0]} over time: {link_label}",
        note="; ".join(n for n in (first.note, f"{len(drawn_frames)} frames of the run, one colour scale") if n),
        columns=columns,
        panel_size=(width * scale, height * scale),
    )
    return render(whole, link_label, None, vmax=vmax)
