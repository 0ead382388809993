"""Tori, meshes and mixed k-ary n-cubes as grids: one panel per z-plane (x across, y up),
a row of planes for a 3-D network.

Each direction of a link is its own segment beside the other, on the right of its
direction of travel: a ``+x`` channel runs just below the line between two routers, its
``-x`` partner just above; ``+y`` just right of the column, ``-y`` just left. A wrap-around
channel is a half-length stub leaving the edge router outwards (``+x`` at the right
edge, ``-x`` at the left). Channels out of the plane (``+z``, ``-z``; in 4-D and above,
every higher dimension) are short diagonal stubs: ``+`` up and to the right of the
router, ``-`` down and to the left.

A plane wider than :data:`MAX_SIDE` routers, or more than :data:`MAX_PLANES` planes,
is drawn in blocks: each block of routers is one marker, the segment from one block to
the next shows the aggregate (max, mean or min) of the channels in that direction
leaving any router of the block (in a mesh, a last block's channels inside it join the
segment into it), and each panel aggregates a range of planes. Channels a full network
would have but the report lacks (failed links) are dashed when nothing is aggregated.
"""

from __future__ import annotations

import math
import re
from typing import Any

import numpy as np
import pandas as pd

from .loads import Loads, coords
from .scene import Panel, Scene

#: Most routers (or blocks) drawn along a side of a plane.
MAX_SIDE = 16
#: Most panels (planes or blocks of planes) drawn.
MAX_PLANES = 8
#: Offset of each direction from the line between two routers, and the gap left
#: around a router, in router spacings.
OFFSET, GAP = 0.12, 0.2

_PORT = re.compile(r"^(?P<sign>[+-])(?P<dim>[xyzw]|d\d+)$")
_DIM = {"x": 0, "y": 1, "z": 2, "w": 3}


def _dim(port: str) -> tuple[int, int] | None:
    """``"+y"`` as ``(1, +1)``; None for a local port."""
    m = _PORT.match(port)
    if m is None:
        return None
    d = m["dim"]
    return (_DIM[d] if d in _DIM else int(d[1:])), (1 if m["sign"] == "+" else -1)


def wraps(topology: dict[str, Any]) -> list[bool]:
    """Per dimension: has it wrap-around links (a torus ring) or not (a mesh line)?"""
    dims = topology["dims"]
    if topology["type"] == "torus":
        return [True] * len(dims)
    if topology["type"] == "mesh":
        return [False] * len(dims)
    return [bool(w) for w in topology["wrap"]]


def _span(lo: int, hi: int) -> str:
    return str(lo) if lo == hi else f"{lo}-{hi}"


def scene(loads: Loads, aggregate: str, *, max_side: int = MAX_SIDE, max_planes: int = MAX_PLANES) -> Scene:
    """The grid drawing of a torus, mesh or cube (see the module's documentation)."""
    dims = [int(d) for d in loads.topology["dims"]]
    wrap = wraps(loads.topology)
    n = len(dims)
    kx, ky = dims[0], (dims[1] if n > 1 else 1)
    upper = dims[2:]
    planes = math.prod(upper)
    bx, by = math.ceil(kx / max_side), math.ceil(ky / max_side)
    bp = math.ceil(planes / max_planes)
    gx, gy, gp = math.ceil(kx / bx), math.ceil(ky / by), math.ceil(planes / bp)
    blocked = bx > 1 or by > 1 or bp > 1

    def plane_of(c: tuple[int, ...]) -> int:
        p = 0
        for d in reversed(range(2, n)):
            p = p * dims[d] + c[d]
        return p

    def fold(block: int, blocks: int, sign: int, ring: bool) -> int:
        # A mesh's last block has no neighbour beyond it: its own channels in that
        # direction join the segment entering it.
        if ring or blocks < 2:
            return block
        return min(block, blocks - 2) if sign > 0 else max(block, 1)

    records: list[tuple[int, int, int, int, int, float]] = []
    present: set[tuple[tuple[int, ...], int, int]] = set()
    for link in loads.links:
        where = _dim(link.src_port)
        if where is None:
            continue
        d, sign = where
        c = coords(link.src)
        present.add((c, d, sign))
        i, j, p = c[0] // bx, (c[1] if n > 1 else 0) // by, plane_of(c) // bp
        if d == 0:
            i = fold(i, gx, sign, wrap[0])
        elif d == 1:
            j = fold(j, gy, sign, wrap[1])
        records.append((p, i, j, min(d, 2), sign, link.value))
    frame = pd.DataFrame.from_records(records, columns=["plane", "i", "j", "dim", "sign", "value"])
    agg = frame.groupby(["plane", "i", "j", "dim", "sign"], sort=True)["value"].agg(aggregate)
    nodes = pd.DataFrame.from_records(
        [(plane_of(c) // bp, c[0] // bx, (c[1] if n > 1 else 0) // by, v) for r, v in loads.node_values.items() for c in [coords(r)]],
        columns=["plane", "i", "j", "value"],
    )
    node_agg = nodes.groupby(["plane", "i", "j"])["value"].agg(aggregate) if not nodes.empty else pd.Series(dtype=float)

    side = max(gx, gy)
    panel_in = min(5.0, 2.6 + 0.15 * side)
    unit_pt = 72 * panel_in / (side + 1)
    linewidth = float(np.clip(0.11 * unit_pt, 0.8, 4.5))
    marker = float((0.26 * unit_pt) ** 2)
    panels = [Panel(linewidth=linewidth, marker_size=marker) for _ in range(gp)]
    names = ["x", "y", "z", "w"] + [f"d{d}" for d in range(4, n)]

    def name(p: int, i: int, j: int, d: int, sign: int) -> str:
        # The report's name of the channel, or of the block's channels.
        axis = names[d] if d < 2 or n == 3 else "z..."
        where = [_span(i * bx, min((i + 1) * bx, kx) - 1)] + ([_span(j * by, min((j + 1) * by, ky) - 1)] if n > 1 else [])
        if n > 2:
            lo, hi = p * bp, min((p + 1) * bp, planes) - 1
            if len(upper) == 1:
                where.append(_span(lo, hi))
            else:
                where.append(_plane_name(lo, upper)[1:-1] if lo == hi else f"{_plane_name(lo, upper)}-{_plane_name(hi, upper)}")
        return f"({','.join(where)}){'+' if sign > 0 else '-'}{axis}"

    for (p, i, j, d, sign), v in agg.items():
        x, y = float(i), float(j)
        if d == 0:
            last = i == gx - 1 if sign > 0 else i == 0
            end = x + sign * (0.5 if last else 1 - GAP)
            yy = y - sign * OFFSET
            panels[p].add([(x + sign * GAP, yy), (end, yy)], float(v), name(p, i, j, d, sign))
        elif d == 1:
            last = j == gy - 1 if sign > 0 else j == 0
            end = y + sign * (0.5 if last else 1 - GAP)
            xx = x + sign * OFFSET
            panels[p].add([(xx, y + sign * GAP), (xx, end)], float(v), name(p, i, j, d, sign))
        else:
            a, b = 0.7 * GAP, 1.7 * GAP
            panels[p].add([(x + sign * a, y + sign * a), (x + sign * b, y + sign * b)], float(v), name(p, i, j, d, sign))
    for p in range(gp):
        for i in range(gx):
            for j in range(gy):
                v = node_agg.get((p, i, j), math.nan)
                panels[p].router(float(i), float(j), float(v), name(p, i, j, 0, 1)[:-2])
    if not blocked:
        _missing(panels, dims, wrap, present, plane_of)
    for p, panel in enumerate(panels):
        lo, hi = p * bp, min((p + 1) * bp, planes) - 1
        if n == 3:
            panel.title = f"z = {_span(lo, hi)}"
        elif n > 3:
            panel.title = f"({','.join(names[2:n])}) = {_plane_name(lo, upper)}" + (f" to {_plane_name(hi, upper)}" if hi > lo else "")
        every = max(1, math.ceil(gx / 8)), max(1, math.ceil(gy / 8))
        panel.xticks = ([float(i) for i in range(0, gx, every[0])], [_span(i * bx, min((i + 1) * bx, kx) - 1) for i in range(0, gx, every[0])])
        panel.yticks = ([float(j) for j in range(0, gy, every[1])], [_span(j * by, min((j + 1) * by, ky) - 1) for j in range(0, gy, every[1])]) if n > 1 else ([], [])
        panel.xlabel = "x"
        panel.ylabel = "y" if p == 0 and n > 1 else ""
    note = ""
    if blocked:
        parts = ([f"blocks of {bx}x{by} routers"] if bx > 1 or by > 1 else []) + ([f"{bp} planes a panel"] if bp > 1 else [])
        note = f"{', '.join(parts)}: each segment is the {aggregate} over the channels in its direction leaving the block's routers"
    if n > 3:
        note = "; ".join(s for s in [note, f"the diagonal stubs are the {aggregate} over the channels of dimensions {', '.join(names[2:n])}"] if s)
    if loads.failed_links or loads.failed_routers:
        note = "; ".join(s for s in [note, f"{loads.failed_links} failed links, {loads.failed_routers} failed routers" + ("" if blocked else " (dashed: no channel)")] if s)
    return Scene(panels, "", note, columns=min(gp, 4), panel_size=(panel_in, max(1.8, panel_in * gy / max(gx, gy) + 0.3)))


def _plane_name(p: int, upper: list[int]) -> str:
    c = []
    for k in upper:
        c.append(p % k)
        p //= k
    return "(" + ",".join(str(v) for v in c) + ")"


def _missing(panels: list[Panel], dims: list[int], wrap: list[bool], present: set[tuple[tuple[int, ...], int, int]], plane_of: Any) -> None:
    """Dashed segments where the full network has a channel the report does not (failed
    links and the links of failed routers)."""
    n = len(dims)
    for c in np.ndindex(*dims):
        for d in range(n):
            for sign in (1, -1):
                if (c, d, sign) in present or not (wrap[d] or 0 <= c[d] + sign < dims[d]):
                    continue
                x, y, panel = float(c[0]), float(c[1] if n > 1 else 0), panels[plane_of(c)]
                if d == 0:
                    last = c[0] == dims[0] - 1 if sign > 0 else c[0] == 0
                    yy = y - sign * OFFSET
                    panel.missing.append(np.array([(x + sign * GAP, yy), (x + sign * (0.5 if last else 1 - GAP), yy)]))
                elif d == 1:
                    last = c[1] == dims[1] - 1 if sign > 0 else c[1] == 0
                    xx = x + sign * OFFSET
                    panel.missing.append(np.array([(xx, y + sign * GAP), (xx, y + sign * (0.5 if last else 1 - GAP))]))
                else:
                    a, b = 0.7 * GAP, 1.7 * GAP
                    panel.missing.append(np.array([(x + sign * a, y + sign * a), (x + sign * b, y + sign * b)]))
