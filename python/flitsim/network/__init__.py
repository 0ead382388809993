"""A run drawn on its network: each channel's load as a coloured link and each router's
endpoint throughput as a coloured marker, for every topology family.

This package owns the drawing of a report on its topology, the one implementation that
:func:`flitsim.plots.network`, ``python -m flitsim draw`` (and so ``flitsim draw``) and
the HTML report of ``flitsim report`` use:

* :mod:`.loads` reads a report's channel rows into links between routers, valued in
  flits/cycle (Gb/s with ``channel.link_gbps``) or flits, all VCs or one;
* :mod:`.grid` lays out tori, meshes and cubes as grids of z-planes, aggregating large
  ones into blocks;
* :mod:`.families` lays out fat trees and Clos networks (stage columns), dragonflies
  (groups on a circle), crossbars (a star), and Kautz, HyperX and graph networks on a
  layout computed once (:mod:`.layout`);
* :mod:`.scene` turns the laid-out panels into a matplotlib figure with colour scales;
* :mod:`.frames` draws a run over time, one frame per stretch of its timeline.

    >>> from flitsim import network
    >>> fig = network.draw(result)                  # doctest: +SKIP
    >>> fig.savefig("network.svg")                  # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from matplotlib.figure import Figure

from ..result import Result
from . import families, grid
from .frames import FRAME_VALUES, draw_frames
from .loads import FAMILIES, NODE_VALUES, SAMPLED, VALUES, Link, Loads, check_report, coords, load_report, read, split_end
from .scene import Panel, Scene, render

#: How blocks of routers (large grids, large dragonflies) and parallel channels are summarised.
AGGREGATES: tuple[str, ...] = ("max", "mean", "min")

__all__ = [
    "AGGREGATES",
    "FAMILIES",
    "FRAME_VALUES",
    "Link",
    "Loads",
    "NODE_VALUES",
    "Panel",
    "SAMPLED",
    "Scene",
    "VALUES",
    "check_report",
    "coords",
    "draw",
    "draw_frames",
    "load_report",
    "read",
    "render",
    "scene",
    "split_end",
]


def scene(loads: Loads, aggregate: str = "max") -> Scene:
    """The drawing of ``loads`` laid out for its family, before colouring."""
    if aggregate not in AGGREGATES:
        raise ValueError(f"aggregate {aggregate!r} is not one of: {', '.join(AGGREGATES)}")
    if loads.family in ("torus", "mesh", "cube"):
        drawn = grid.scene(loads, aggregate)
    elif loads.family in ("clos", "k_ary_n_tree"):
        drawn = families.fat_tree(loads, aggregate)
    elif loads.family == "dragonfly":
        drawn = families.dragonfly(loads, aggregate)
    elif loads.family == "crossbar":
        drawn = families.crossbar(loads, aggregate)
    else:
        drawn = families.computed(loads, aggregate)
    if not any(p.segments for p in drawn.panels):
        raise ValueError(f"the report has no channels between routers to draw ({loads.description})")
    drawn.title = f"{loads.description}: {loads.link_label}"
    return drawn


def draw(
    source: Result | Mapping[str, Any],
    value: str = "utilization",
    *,
    vc: int | None = None,
    nodes: str | None = "accepted",
    aggregate: str = "max",
    vmax: float | None = None,
    title: str | None = None,
    frames: int | None = None,
) -> Figure:
    """A run's report drawn on its network: each channel coloured by ``value``
    ("utilization": flits/cycle, or Gb/s when the config sets ``channel.link_gbps``;
    "flits": flits in the window; "buffered", "blocked": its receiving end's buffer
    samples, see :data:`VALUES`), of VC ``vc`` only when given, on a scale from 0 to
    ``vmax`` (default the most loaded channel, which then gets the top colour); each
    router coloured by its endpoints' ``nodes`` value ("accepted" or "delivered"
    throughput, "latency", or None for plain markers). Large grids and dragonflies are
    drawn in blocks, ``aggregate`` ("max", "mean", "min") summarising each. With
    ``frames``, the run over time instead: :func:`draw_frames`."""
    if frames is not None:
        if vc is not None:
            raise ValueError("frames are drawn from each channel's flits over all VCs: leave vc out")
        return draw_frames(source, value, frames=frames, aggregate=aggregate, vmax=vmax, title=title)
    loads = read(source, value, vc=vc, nodes=nodes)
    drawn = scene(loads, aggregate)
    if title is not None:
        drawn.title = title
    return render(drawn, loads.link_label, loads.node_label, vmax=vmax)
