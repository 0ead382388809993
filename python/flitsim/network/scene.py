"""What a network drawing holds, independent of the family that laid it out, and how it
becomes a matplotlib figure.

A :class:`Scene` is panels of coloured polylines (channels) and markers (routers), in
data coordinates the layout chose. :func:`render` draws it with one colour scale for the
links and one for the routers, each with its colour bar. Within a panel the links are
drawn from the least to the most loaded, so hot links lie on top; their colours are set
explicitly (``LineCollection.get_colors()`` gives each segment's RGBA, in the order of
``get_segments()``).
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from matplotlib import colormaps
from matplotlib.cm import ScalarMappable
from matplotlib.collections import LineCollection
from matplotlib.colors import Colormap, Normalize
from matplotlib.figure import Figure

#: Colour map of the links: dark (idle) to yellow (the most loaded).
LINK_CMAP = "viridis"
#: Colour map of the routers' endpoint throughput: white (none) to black (the most).
NODE_CMAP = "Greys"


@dataclass
class Panel:
    """One axes of a drawing: channel polylines with their values and names, router
    markers with theirs (NaN: a router without endpoints, drawn hollow), and links the
    report has no channel for (failed), drawn dashed."""

    title: str = ""
    segments: list[np.ndarray[Any, np.dtype[np.float64]]] = field(default_factory=list)
    values: list[float] = field(default_factory=list)
    names: list[str] = field(default_factory=list)
    points: list[tuple[float, float]] = field(default_factory=list)
    point_values: list[float] = field(default_factory=list)
    point_names: list[str] = field(default_factory=list)
    missing: list[np.ndarray[Any, np.dtype[np.float64]]] = field(default_factory=list)
    linewidth: float = 2.0
    marker_size: float = 60.0
    #: Tick positions and labels of the x and y axes (None: no axis drawn).
    xticks: tuple[list[float], list[str]] | None = None
    yticks: tuple[list[float], list[str]] | None = None
    xlabel: str = ""
    ylabel: str = ""
    #: "equal" (a grid, a circle) or "auto" (stage columns).
    aspect: str = "equal"

    def add(self, points: Sequence[tuple[float, float]], value: float, name: str) -> None:
        """A channel drawn as the polyline through ``points``."""
        self.segments.append(np.asarray(points, dtype=float))
        self.values.append(value)
        self.names.append(name)

    def router(self, x: float, y: float, value: float, name: str) -> None:
        """A router marker at ``(x, y)``."""
        self.points.append((x, y))
        self.point_values.append(value)
        self.point_names.append(name)


@dataclass
class Scene:
    """A whole drawing: its panels (laid out ``columns`` per row, each ``panel_size``
    inches), its title, and a note on what was aggregated or left out."""

    panels: list[Panel]
    title: str
    note: str = ""
    columns: int = 1
    panel_size: tuple[float, float] = (4.0, 4.0)


def top(values: Sequence[float], vmax: float | None) -> float:
    """The top of a colour scale: ``vmax``, else the largest finite value (1 when every
    value is 0 or there is none, so that a scale always has a range)."""
    if vmax is not None:
        if not (math.isfinite(vmax) and vmax > 0):
            raise ValueError(f"vmax {vmax!r} must be a positive number (the value drawn in the top colour)")
        return float(vmax)
    finite = [v for v in values if math.isfinite(v)]
    return max(finite, default=0.0) or 1.0


def render(scene: Scene, link_label: str, node_label: str | None, *, vmax: float | None = None, link_cmap: str | Colormap = LINK_CMAP, node_cmap: str | Colormap = NODE_CMAP) -> Figure:
    """Draw ``scene``: the links coloured on a scale from 0 to ``vmax`` (default the
    largest link value, which then gets the top colour), routers on a scale from 0 to
    their largest value; a colour bar for each, labelled ``link_label`` and ``node_label``."""
    lcmap = colormaps[link_cmap] if isinstance(link_cmap, str) else link_cmap
    ncmap = colormaps[node_cmap] if isinstance(node_cmap, str) else node_cmap
    link_norm = Normalize(0.0, top([v for p in scene.panels for v in p.values], vmax))
    node_norm = Normalize(0.0, top([v for p in scene.panels for v in p.point_values], None))
    cols = max(1, min(scene.columns, len(scene.panels)))
    rows = max(1, math.ceil(len(scene.panels) / cols))
    w, h = scene.panel_size
    fig = Figure(figsize=(w * cols + 1.9, h * rows + 0.9), layout="constrained")
    axes = fig.subplots(rows, cols, squeeze=False).ravel()
    any_nodes = False
    for ax, panel in zip(axes, scene.panels):
        values = np.asarray(panel.values, dtype=float)
        order = np.argsort(values, kind="stable")
        if len(order):
            colors = lcmap(link_norm(values[order]))
            ax.add_collection(LineCollection([panel.segments[i] for i in order], colors=colors, linewidths=panel.linewidth, capstyle="butt", zorder=2, gid="channels"))
        if panel.missing:
            ax.add_collection(LineCollection(panel.missing, colors="0.55", linewidths=max(panel.linewidth / 2, 0.6), linestyles=(0, (2, 2)), zorder=1, gid="failed"))
        if panel.points:
            xy = np.asarray(panel.points, dtype=float)
            pv = np.asarray(panel.point_values, dtype=float)
            has = np.isfinite(pv)
            any_nodes = any_nodes or bool(has.any())
            faces = np.ones((len(pv), 4))
            faces[has] = ncmap(node_norm(pv[has]))
            ax.scatter(xy[:, 0], xy[:, 1], s=panel.marker_size, c=faces, edgecolors="0.3", linewidths=0.6, zorder=3, gid="routers")
        ax.margins(0.06)
        ax.autoscale_view()
        ax.set_aspect(panel.aspect)
        if panel.title:
            ax.set_title(panel.title, fontsize=9)
        if panel.xticks is None and panel.yticks is None:
            ax.set_axis_off()
        else:
            for side in ("top", "right"):
                ax.spines[side].set_visible(False)
            if panel.xticks is not None:
                ax.set_xticks(panel.xticks[0], panel.xticks[1], fontsize=7)
            if panel.yticks is not None:
                ax.set_yticks(panel.yticks[0], panel.yticks[1], fontsize=7)
            ax.set_xlabel(panel.xlabel, fontsize=8)
            ax.set_ylabel(panel.ylabel, fontsize=8)
    for ax in axes[len(scene.panels):]:
        ax.set_visible(False)
    shown = list(axes[: len(scene.panels)])
    fig.colorbar(ScalarMappable(link_norm, lcmap), ax=shown, label=link_label, shrink=0.8, aspect=30, location="right")
    if node_label is not None and any_nodes:
        fig.colorbar(ScalarMappable(node_norm, ncmap), ax=shown, label=node_label, shrink=0.5, aspect=40, location="bottom")
    width_chars = int(fig.get_figwidth() * 72 / (10 * 0.55))
    fig.suptitle(textwrap.fill(scene.title, width_chars), fontsize=10)
    if scene.note:
        fig.supxlabel(scene.note, fontsize=8, color="0.35")
    return fig
