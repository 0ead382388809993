"""Every family but the k-ary n-cubes: fat trees and folded Clos networks as stage
columns, dragonflies as groups on a circle, a crossbar as a star, and Kautz, HyperX and
any graph on a computed layout (:mod:`.layout`).

Links are straight segments between router positions, each direction its half: the
channel from ``a`` to ``b`` is the half of the segment next to ``a`` (a one-way link, as
most of a Kautz graph's, is the whole segment). Parallel channels between the same two
routers in the same direction (HyperX trunks, a graph's repeated links, a dragonfly's
several global links between two groups) share one half, coloured by their aggregate.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping

import numpy as np
import pandas as pd

from .layout import layout
from .loads import Link, Loads, natural_key
from .scene import Panel, Scene

Position = tuple[float, float]

#: A dragonfly with more routers is drawn one marker per group.
MAX_DRAGONFLY_ROUTERS = 600

_FAT = re.compile(r"^s(?P<switch>\d+)\(level (?P<level>\d+)\)$")
_DRAGONFLY = re.compile(r"^g(?P<group>\d+)r(?P<router>\d+)$")


def halves(panel: Panel, pos: Mapping[str, Position], links: list[Link], aggregate: str, key: Callable[[Link], tuple[str, str]] | None = None) -> None:
    """Add ``links`` to ``panel`` as half-segments between the routers' positions
    (``key`` maps a link to the pair of positions it joins; default its ends)."""
    ends = key or (lambda link: (link.src, link.dst))
    frame = pd.DataFrame.from_records([(*ends(link), link.value, link.name) for link in links], columns=["a", "b", "value", "name"])
    if frame.empty:
        return
    grouped = frame.groupby(["a", "b"], sort=False).agg(value=("value", aggregate), name=("name", "first"), count=("name", "size"))
    pairs = set(grouped.index)
    for (a, b), row in grouped.iterrows():
        if a == b:
            continue
        pa, pb = np.asarray(pos[a]), np.asarray(pos[b])
        end = (pa + pb) / 2 if (b, a) in pairs else pb
        name = row["name"] if row["count"] == 1 else f"{a}->{b} ({row['count']} channels)"
        panel.add([tuple(pa), tuple(end)], float(row["value"]), str(name))


def _markers(panel: Panel, pos: Mapping[str, Position], loads: Loads) -> None:
    for r, (x, y) in pos.items():
        panel.router(x, y, loads.node_values.get(r, math.nan), r)


def _sizes(count: int, panel_in: float) -> tuple[float, float]:
    """Line width and marker area for ``count`` routers on a panel ``panel_in`` wide."""
    spacing_pt = 72 * panel_in / max(math.sqrt(count), 1.0)
    return float(np.clip(0.08 * spacing_pt, 0.4, 3.5)), float(np.clip((0.3 * spacing_pt) ** 2, 4.0, 200.0))


def fat_tree(loads: Loads, aggregate: str) -> Scene:
    """A fat tree or folded Clos: one column per level, leaves (level 0) on the left,
    each level's switches spread over the height, up and down channels as halves."""
    levels: dict[int, list[str]] = {}
    for r in loads.routers:
        m = _FAT.match(r)
        if m is None:
            raise ValueError(f"router {r!r} is not a fat-tree switch name like 's4(level 1)'")
        levels.setdefault(int(m["level"]), []).append(r)
    tallest = max(len(v) for v in levels.values())
    pos: dict[str, Position] = {}
    for level, switches in levels.items():
        switches.sort(key=natural_key)
        step = tallest / len(switches)
        for i, s in enumerate(switches):
            pos[s] = (float(level), (i + 0.5) * step - tallest / 2)
    height = float(np.clip(0.16 * tallest, 3.0, 9.0))
    width = 1.2 + 1.6 * len(levels)
    spacing_pt = 72 * height / tallest
    panel = Panel(
        linewidth=float(np.clip(0.12 * spacing_pt, 0.3, 2.5)),
        marker_size=float(np.clip((0.5 * spacing_pt) ** 2, 4.0, 120.0)),
        xticks=([float(level) for level in sorted(levels)], [f"level {level}" + (" (leaves)" if level == 0 else "") for level in sorted(levels)]),
        aspect="auto",
    )
    halves(panel, pos, loads.links, aggregate)
    _markers(panel, pos, loads)
    return Scene([panel], "", _failures(loads), panel_size=(width, height))


def dragonfly(loads: Loads, aggregate: str) -> Scene:
    """A dragonfly: groups around a circle (group 0 at the top, then clockwise), each
    group's routers on a small circle, local and global channels as halves. Above
    :data:`MAX_DRAGONFLY_ROUTERS` routers, each group is one marker (its routers'
    aggregate), global channels are aggregated per pair of groups and each group's
    local channels are a ring around it."""
    groups: dict[int, list[str]] = {}
    for r in loads.routers:
        m = _DRAGONFLY.match(r)
        if m is None:
            raise ValueError(f"router {r!r} is not a dragonfly router name like 'g2r1'")
        groups.setdefault(int(m["group"]), []).append(r)
    g = len(groups)
    a = max(len(v) for v in groups.values())
    centre = {gr: (math.cos(math.pi / 2 - 2 * math.pi * gr / g), math.sin(math.pi / 2 - 2 * math.pi * gr / g)) for gr in groups}
    group_of = {r: gr for gr, rs in groups.items() for r in rs}
    if len(loads.routers) > MAX_DRAGONFLY_ROUTERS:
        lw, size = _sizes(g, 7.0)
        panel = Panel(linewidth=lw, marker_size=size)
        global_links = [link for link in loads.links if group_of[link.src] != group_of[link.dst]]
        names = {gr: f"g{gr}" for gr in groups}
        gpos = {names[gr]: c for gr, c in centre.items()}
        halves(panel, gpos, global_links, aggregate, key=lambda link: (names[group_of[link.src]], names[group_of[link.dst]]))
        ring = 0.6 * math.sin(math.pi / g)
        local = pd.DataFrame.from_records([(group_of[link.src], link.value) for link in loads.links if group_of[link.src] == group_of[link.dst]], columns=["group", "value"])
        for gr, v in local.groupby("group")["value"].agg(aggregate).items():
            cx, cy = centre[int(gr)]
            around = np.linspace(0, 2 * math.pi, 33)
            panel.add(list(zip(cx + ring * np.cos(around), cy + ring * np.sin(around))), float(v), f"g{gr} local channels")
        values = pd.DataFrame.from_records([(group_of[r], v) for r, v in loads.node_values.items()], columns=["group", "value"])
        per_group = values.groupby("group")["value"].agg(aggregate) if not values.empty else pd.Series(dtype=float)
        for gr, (x, y) in centre.items():
            panel.router(x, y, float(per_group.get(gr, math.nan)), f"g{gr}")
        note = f"{len(loads.routers)} routers drawn per group: the {aggregate} over each group's routers, global channels per pair of groups, local channels as a ring"
        return Scene([panel], "", "; ".join(s for s in [note, _failures(loads)] if s), panel_size=(7.0, 7.0))
    radius = min(0.35, 0.8 * math.sin(math.pi / g)) if a > 1 else 0.0
    pos: dict[str, Position] = {}
    for gr, rs in groups.items():
        rs.sort(key=natural_key)
        cx, cy = centre[gr]
        turn = math.atan2(cy, cx)
        for i, r in enumerate(rs):
            t = turn + 2 * math.pi * i / len(rs)
            pos[r] = (cx + radius * math.cos(t), cy + radius * math.sin(t))
    lw, size = _sizes(len(pos), 6.5)
    panel = Panel(linewidth=lw, marker_size=size)
    halves(panel, pos, loads.links, aggregate)
    _markers(panel, pos, loads)
    return Scene([panel], "", _failures(loads), panel_size=(6.5, 6.5))


def crossbar(loads: Loads, aggregate: str) -> Scene:
    """A crossbar: the switch in the middle, its nodes around it (node 0 at the top, then
    clockwise), each node's injection channel the half next to the node and its ejection
    channel the half next to the switch; the markers are the nodes' own throughput."""
    nodes = sorted((r for r in loads.routers if r != "xbar"), key=natural_key)
    pos: dict[str, Position] = {"xbar": (0.0, 0.0)}
    for i, node in enumerate(nodes):
        t = math.pi / 2 - 2 * math.pi * i / len(nodes)
        pos[node] = (math.cos(t), math.sin(t))
    lw, size = _sizes(len(nodes), 5.0)
    panel = Panel(linewidth=2 * lw, marker_size=size)
    halves(panel, pos, loads.links, aggregate)
    _markers(panel, pos, loads)
    return Scene([panel], "", "", panel_size=(5.0, 5.0))


def computed(loads: Loads, aggregate: str) -> Scene:
    """Kautz, HyperX and graph networks: routers where :func:`.layout.layout` puts them
    (the same for every report of the same network), links as halves."""
    routers = sorted(loads.routers, key=natural_key)
    index = {r: i for i, r in enumerate(routers)}
    xy = layout(len(routers), tuple((index[link.src], index[link.dst]) for link in loads.links))
    pos = {r: (float(xy[i, 0]), float(xy[i, 1])) for i, r in enumerate(routers)}
    lw, size = _sizes(len(routers), 6.5)
    panel = Panel(linewidth=lw, marker_size=size)
    halves(panel, pos, loads.links, aggregate)
    _markers(panel, pos, loads)
    return Scene([panel], "", _failures(loads), panel_size=(6.5, 6.5))


def _failures(loads: Loads) -> str:
    if not (loads.failed_links or loads.failed_routers):
        return ""
    return f"{loads.failed_links} failed links and {loads.failed_routers} failed routers (no channels: not drawn)"
