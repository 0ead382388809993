"""The network drawings colour what the report says, where the layout puts it: a saturated
link in the top colour and idle ones in the bottom colour (matplotlib's artists, not
pixels), every channel of every family drawn once, large grids in blocks, and bad input
refused with the problem and the fix, from Python and from both commands."""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from matplotlib import colormaps
from matplotlib.collections import LineCollection, PathCollection
from matplotlib.figure import Figure

import flitsim
from flitsim import network, plots
from flitsim.network import grid, layout
from conftest import REPO

VIRIDIS = colormaps["viridis"]
GREYS = colormaps["Greys"]
WINDOW = 1000


def channels(fig: Figure, panel: int = 0) -> LineCollection:
    """The panel's channel segments (the collection the drawing tags "channels")."""
    found = [c for c in fig.axes[panel].collections if isinstance(c, LineCollection) and c.get_gid() == "channels"]
    assert len(found) == 1
    return found[0]


def routers(fig: Figure, panel: int = 0) -> PathCollection:
    found = [c for c in fig.axes[panel].collections if isinstance(c, PathCollection) and c.get_gid() == "routers"]
    assert len(found) == 1
    return found[0]


def colour_at(lines: LineCollection, start: tuple[float, float], end: tuple[float, float]) -> tuple[float, ...]:
    """The colour of the segment drawn from ``start`` to ``end`` (there must be one)."""
    hits = [i for i, s in enumerate(lines.get_segments()) if np.allclose(s, [start, end])]
    assert len(hits) == 1, f"no segment {start} -> {end}"
    return tuple(lines.get_colors()[hits[0]])


def cube_report(dims: list[int], wrap: list[bool], util: dict[str, float], default: float, accepted: dict[int, float] | None = None, vcs: int = 2) -> dict[str, Any]:
    """A report written by hand: every channel of a k-ary n-cube at ``default``
    flits/cycle except those named in ``util``, one node per router, accepted throughput
    ``accepted`` (node -> flits/cycle, else 0.1)."""
    rows: list[dict[str, Any]] = []
    n = len(dims)
    for node, c in enumerate(itertools.product(*[range(k) for k in reversed(dims)])):
        c = tuple(reversed(c))
        name = "(" + ",".join(map(str, c)) + ")"
        for d in range(n):
            for sign in (1, -1):
                if not (wrap[d] or 0 <= c[d] + sign < dims[d]):
                    continue
                other = list(c)
                other[d] = (c[d] + sign) % dims[d]
                port = ("+" if sign > 0 else "-") + "xyz"[d]
                u = util.get(name + port, default)
                rows.append({"id": len(rows), "kind": "network", "from": name + port, "to": "(" + ",".join(map(str, other)) + ")" + ("-" if sign > 0 else "+") + "xyz"[d],
                             "vc_flits": [round(u * WINDOW)] + [0] * (vcs - 1), "utilization": u})
        rows.append({"id": len(rows), "kind": "ejection", "from": name + "local0", "to": f"node{node}", "vc_flits": [0] * vcs, "utilization": 0.0})
    nodes = int(np.prod(dims))
    values = [(accepted or {}).get(i, 0.1) for i in range(nodes)]
    kind = "torus" if all(wrap) else "mesh" if not any(wrap) else "cube"
    topology: dict[str, Any] = {"type": kind, "dims": dims}
    if kind == "cube":
        topology["wrap"] = wrap
    return {
        "config": {"topology": topology, "channel": {}},
        "topology": {"description": "x".join(map(str, dims)) + f" {kind}"},
        "stats": {"window": [0, WINDOW], "accepted": {"values": values}, "per_source": {"values": values}},
        "channels": rows,
    }


def result(report: dict[str, Any]) -> flitsim.Result:
    return flitsim.Result(json.dumps(report))


def test_a_saturated_link_gets_the_top_colour_and_the_others_a_lower_one() -> None:
    # A 4x4 torus, every channel at 0.1 flits/cycle but (1,2)+x at 1 (saturated) and
    # (2,2)-x at 0.5; node 9, on router (1,2), accepts 0.4 and every other 0.1.
    r = result(cube_report([4, 4], [True, True], {"(1,2)+x": 1.0, "(2,2)-x": 0.5}, 0.1, {9: 0.4}))
    fig = plots.network(r)
    lines = channels(fig)
    assert len(lines.get_segments()) == 64  # 16 routers x 4 directions
    o, g = grid.OFFSET, grid.GAP
    # (1,2)+x runs from x = 1 to 2 just below y = 2 (right of its travel); the scale runs
    # from 0 to the largest value, 1, so it is drawn in the top colour.
    assert colour_at(lines, (1 + g, 2 - o), (2 - g, 2 - o)) == VIRIDIS(1.0)
    # Its partner (2,2)-x, just above, at half the scale; an ordinary link at a tenth.
    assert colour_at(lines, (2 - g, 2 + o), (1 + g, 2 + o)) == VIRIDIS(0.5)
    assert colour_at(lines, (0 + g, 0 - o), (1 - g, 0 - o)) == VIRIDIS(0.1)
    # Wrap-around channels are half-length stubs leaving the edge routers outwards.
    assert colour_at(lines, (3 + g, 1 - o), (3.5, 1 - o)) == VIRIDIS(0.1)
    assert colour_at(lines, (0 - g, 1 + o), (-0.5, 1 + o)) == VIRIDIS(0.1)
    assert colour_at(lines, (2 + o, 3 + g), (2 + o, 3.5)) == VIRIDIS(0.1)
    # Hot links are drawn last (on top).
    assert tuple(lines.get_colors()[-1]) == VIRIDIS(1.0)
    # Router (1,2) (node 9) accepts the most: black; the others 0.1 on a scale to 0.4.
    markers = routers(fig)
    faces = {tuple(xy): tuple(f) for xy, f in zip(markers.get_offsets(), markers.get_facecolors())}
    assert faces[(1.0, 2.0)] == GREYS(1.0)
    assert faces[(0.0, 0.0)] == GREYS(0.1 / 0.4)
    # The colour bar says what the colours are.
    assert any("channel utilisation (flits/cycle)" in ax.get_ylabel() for ax in fig.axes)
    assert any("accepted throughput" in ax.get_xlabel() for ax in fig.axes)


def test_a_real_run_saturates_the_one_link_on_its_route() -> None:
    # Node 0 streams 3,000 flits to node 1 on a 4x4 torus: dimension order takes the one
    # channel (0,0)+x, which carries a flit every cycle of the window; nothing else moves.
    r = flitsim.simulate({
        "topology": {"type": "torus", "dims": [4, 4]},
        "traffic": {"trace": {"messages": [{"src": 0, "dst": 1, "flits": 3000}]}},
        "sim": {"warmup": 100, "measure": 1000},
    })
    fig = plots.network(r, vmax=1.0)
    lines = channels(fig)
    o, g = grid.OFFSET, grid.GAP
    assert colour_at(lines, (0 + g, 0 - o), (1 - g, 0 - o)) == VIRIDIS(1.0)
    others = [tuple(c) for c in lines.get_colors()[:-1]]
    assert len(others) == 63 and set(others) == {VIRIDIS(0.0)}
    # Only node 1 accepts anything: router (1,0) is the only marker not white.
    markers = routers(fig)
    dark = [tuple(xy) for xy, f in zip(markers.get_offsets(), markers.get_facecolors()) if tuple(f) != GREYS(0.0)]
    assert dark == [(1.0, 0.0)]


def test_physical_units_and_flit_counts() -> None:
    rep = cube_report([4, 4], [True, True], {"(1,2)+x": 0.5}, 0.25)
    rep["config"]["channel"] = {"flit_bytes": 8, "link_gbps": 12.8}
    loads = network.read(rep)
    # A channel carries one flit per cycle: 0.5 flits/cycle is half the link's 12.8 Gb/s.
    assert next(link.value for link in loads.links if link.name == "(1,2)+x") == pytest.approx(6.4)
    assert loads.link_label == "channel utilisation (Gb/s)"
    assert loads.node_values["(0,0)"] == pytest.approx(1.28)
    flits = network.read(rep, "flits", vc=0)
    assert next(link.value for link in flits.links if link.name == "(1,2)+x") == 500.0
    assert flits.link_label == "VC 0 flits in the window"
    # Every flit of this report is on VC 0: VC 1 is idle everywhere, in the bottom colour.
    assert {link.value for link in network.read(rep, vc=1).links} == {0.0}
    lines = channels(plots.network(result(rep), vc=1))
    assert {tuple(c) for c in lines.get_colors()} == {VIRIDIS(0.0)}


def test_large_grids_are_drawn_in_blocks() -> None:
    # A 32x32 torus in blocks of 2x2: 16x16 markers. The block of x 4-5, y 6-7 holds the
    # saturated channel (5,6)+x among its four +x channels at 0.1.
    rep = cube_report([32, 32], [True, True], {"(5,6)+x": 1.0}, 0.1)
    fig = plots.network(result(rep))
    assert len(routers(fig).get_offsets()) == 256
    o, g = grid.OFFSET, grid.GAP
    assert colour_at(channels(fig), (2 + g, 3 - o), (3 - g, 3 - o)) == VIRIDIS(1.0)
    scene = network.scene(network.read(rep), "mean")
    panel = scene.panels[0]
    assert panel.values[panel.names.index("(4-5,6-7)+x")] == pytest.approx((1.0 + 3 * 0.1) / 4)
    assert "blocks of 2x2 routers" in scene.note
    # A 20-wide mesh: the last block's own +x channel (18,0)+x joins the segment into it.
    mesh = cube_report([20, 2, 12], [False, False, False], {"(18,0,3)+x": 1.0}, 0.1)
    scene = network.scene(network.read(mesh), "max")
    assert len(scene.panels) == 6 and [p.title for p in scene.panels[:2]] == ["z = 0-1", "z = 2-3"]
    hot = scene.panels[1]
    assert hot.values[hot.names.index("(16-17,0,2-3)+x")] == 1.0
    assert max(v for p in scene.panels[:1] + scene.panels[2:] for v in p.values) == pytest.approx(0.1)


def test_a_3d_torus_is_a_row_of_z_planes_with_stubs_out_of_the_plane() -> None:
    rep = cube_report([3, 2, 2], [True, True, True], {"(2,1,1)+z": 1.0}, 0.2)
    fig = plots.network(result(rep))
    panels = [ax for ax in fig.axes if ax.get_title().startswith("z = ")]
    assert [ax.get_title() for ax in panels] == ["z = 0", "z = 1"]
    # Each plane: 6 routers x 6 channels (x, y, z both ways).
    assert len(channels(fig, 1).get_segments()) == 36
    a, b = 0.7 * grid.GAP, 1.7 * grid.GAP
    assert colour_at(channels(fig, 1), (2 + a, 1 + a), (2 + b, 1 + b)) == VIRIDIS(1.0)
    assert colour_at(channels(fig, 0), (2 + a, 1 + a), (2 + b, 1 + b)) == VIRIDIS(0.2)


def test_failed_links_are_dashed() -> None:
    rep = cube_report([4, 4], [True, True], {}, 0.1)
    rep["channels"] = [c for c in rep["channels"] if c["from"] not in ("(0,0)+x", "(1,0)-x")]
    rep["faults"] = {"failed_links": [[0, 0]], "failed_routers": []}
    fig = plots.network(result(rep))
    dashed = [c for c in fig.axes[0].collections if c.get_gid() == "failed"]
    assert len(dashed) == 1 and len(dashed[0].get_segments()) == 2
    assert len(channels(fig).get_segments()) == 62


# Every family, small: the config and the channels and routers a hand count gives.
FAMILIES: dict[str, tuple[dict[str, Any], int, int]] = {
    # 4x4 torus: 16 routers x 4 channels.
    "torus": ({"topology": {"type": "torus", "dims": [4, 4]}}, 64, 16),
    # 3x4x2 mesh: x 2*4*2 links, y 3*3*2, z 3*4*1; two channels each.
    "mesh": ({"topology": {"type": "mesh", "dims": [3, 4, 2]}}, 2 * (16 + 18 + 12), 24),
    # A ring wrapped in x, a line in y: x 3*3 links, y 3*2.
    "cube": ({"topology": {"type": "cube", "dims": [3, 3], "wrap": [True, False]}}, 2 * (9 + 6), 9),
    # 8 injection and 8 ejection channels around the switch; markers: 8 nodes + the switch.
    "crossbar": ({"topology": {"type": "crossbar", "ports": 8}}, 16, 9),
    # K(3,2): 12 routers, 3 one-way links out of each.
    "kautz": ({"topology": {"type": "kautz", "degree": 3, "diameter": 2}, "routing": {"type": "source"}}, 36, 12),
    # 8-port, 3 stages: 8 leaves with 4 up links each to 4 spines.
    "clos": ({"topology": {"type": "clos", "radix": 8, "stages": 3}, "routing": {"type": "updown"}}, 64, 12),
    # 2-ary 3-tree: 3 levels of 4 switches, 8 links between each two levels.
    "k_ary_n_tree": ({"topology": {"type": "k_ary_n_tree", "k": 2, "n": 3}, "routing": {"type": "updown"}}, 32, 12),
    # 9 groups of 4: K4 in each group (6 links), one global link per pair of groups (36).
    "dragonfly": ({"topology": {"type": "dragonfly", "group_routers": 4, "global_ports": 2}, "routing": {"type": "dragonfly", "mode": "minimal"}}, 2 * (9 * 6 + 36), 36),
    # 3x3 HyperX: each router joined to 2 others in x and 2 in y.
    "hyperx": ({"topology": {"type": "hyperx", "dims": [3, 3]}, "routing": {"type": "hyperx", "mode": "dor"}}, 9 * 4, 9),
    # The Petersen graph: 10 routers, 15 links.
    "graph": ({"topology": {"type": "graph", "file": str(REPO / "presets" / "petersen.links")}, "routing": {"type": "graph"}}, 30, 10),
}


@pytest.mark.parametrize("family", FAMILIES)
def test_every_family_draws_each_channel_once(family: str) -> None:
    config, links, routers_drawn = FAMILIES[family]
    r = flitsim.simulate({**config, "traffic": {"load": 0.1}, "sim": {"warmup": 50, "measure": 200}})
    assert r.report["config"]["topology"]["type"] == family
    fig = plots.network(r)
    segments = [s for ax in fig.axes for c in ax.collections if c.get_gid() == "channels" for s in c.get_segments()]
    assert len(segments) == links
    assert sum(len(c.get_offsets()) for ax in fig.axes for c in ax.collections if c.get_gid() == "routers") == routers_drawn
    # Some channel carried traffic, so the top colour is on the most loaded one.
    colours = [tuple(c) for ax in fig.axes for coll in ax.collections if coll.get_gid() == "channels" for c in coll.get_colors()]
    assert VIRIDIS(1.0) in colours


def test_the_computed_layout_is_the_same_every_time() -> None:
    edges = ((0, 1), (1, 2), (2, 3), (3, 0), (0, 2))
    first = layout.layout(4, edges)
    layout._cached.cache_clear()
    np.testing.assert_array_equal(first, layout.layout(4, tuple(reversed(edges))))
    # A ring comes out as a ring: every router at one distance from the centre.
    ring = layout.layout(12, tuple((i, (i + 1) % 12) for i in range(12)))
    radius = np.hypot(ring[:, 0], ring[:, 1])
    assert radius.std() < 0.05 * radius.mean()


def test_large_dragonflies_are_drawn_per_group() -> None:
    # 41 groups of 16 routers (656 > 600): one marker per group; a global link between
    # every two groups (41*40/2, two directions each) and one ring of local channels each.
    r = flitsim.simulate({"topology": {"type": "dragonfly", "group_routers": 16, "global_ports": 10, "groups": 41},
                          "routing": {"type": "dragonfly", "mode": "minimal"}, "traffic": {"load": 0.05}, "sim": {"warmup": 20, "measure": 50}})
    scene = network.scene(network.read(r), "max")
    assert len(scene.panels[0].points) == 41
    assert len(scene.panels[0].segments) == 41 * 40 + 41
    assert "drawn per group" in scene.note


def test_bad_input_names_the_problem_and_the_fix(tmp_path: Path) -> None:
    good = cube_report([4, 4], [True, True], {}, 0.1)
    with pytest.raises(ValueError, match=r"value 'load' is not one .*utilization, flits"):
        network.read(good, "load")
    with pytest.raises(ValueError, match=r"vc 2 is not a VC of these channels: they have 2 \(0 to 1\); leave vc out"):
        network.read(good, vc=2)
    with pytest.raises(ValueError, match=r"nodes 'speed' .*accepted, delivered, latency"):
        network.read(good, nodes="speed")
    with pytest.raises(ValueError, match=r"no stats.latency_by_source .*run it again"):
        network.read(good, nodes="latency")
    with pytest.raises(ValueError, match=r"no buffer samples to draw 'blocked' from: run it again with stats.buffer_sample = 1"):
        network.read(good, "blocked")
    with pytest.raises(ValueError, match=r"'buffered' is sampled over all of a channel's VCs together: leave vc out"):
        network.read(good, "buffered", vc=0)
    with pytest.raises(ValueError, match=r"no per-channel timelines .*stats.timeline = W .*stats.channel_timeline = true"):
        plots.network(result(good), frames=3)
    with pytest.raises(ValueError, match=r"aggregate 'sum' is not one of: max, mean, min"):
        plots.network(result(good), aggregate="sum")
    with pytest.raises(ValueError, match=r"it has no config, stats, channels.*flitsim run CONFIG --out FILE"):
        network.read({"rows": []})
    empty = flitsim.simulate({"topology": {"type": "torus", "dims": [4, 4]}, "stats": {"channel_counters": False}, "sim": {"warmup": 10, "measure": 50}})
    with pytest.raises(ValueError, match=r"no per-channel rows .*stats.channel_counters = true"):
        plots.network(empty)
    not_json = tmp_path / "config.toml"
    not_json.write_text("[topology]\n")
    with pytest.raises(ValueError, match=r"config.toml is not JSON .*flitsim run CONFIG --out FILE"):
        network.load_report(not_json)
    with pytest.raises(ValueError, match=r"no such file"):
        network.load_report(tmp_path / "missing.json")


def line_of_three(router: dict[str, Any], traffic: dict[str, Any], stats: dict[str, Any], measure: int) -> flitsim.Result:
    """A run on a 1-D mesh of 3 routers (drawn with -x just above the line, +x below)."""
    return flitsim.simulate({
        "topology": {"type": "mesh", "dims": [3]},
        "router": router,
        "traffic": {"packet_size": 4, **traffic},
        "sim": {"warmup": 0 if "phases" in traffic else 2000, "measure": measure, "drain_limit": 0},
        "stats": stats,
    })


def test_blocked_channels_are_those_backed_up_behind_a_slow_sink() -> None:
    # Nodes 1 and 2 send everything to node 0, whose processor port takes a flit per
    # 100 cycles: every channel towards it backs up, the other direction carries nothing.
    r = line_of_three(
        {"type": "buffered_crossbar", "vcs": 2, "buffer_depth": 16, "eject_rate": 0.01},
        {"load": 1.0, "pattern": {"type": "merge_to_one", "dest": 0}},
        {"buffer_sample": 1},
        2000,
    )
    rows = {(c["from"], c["to"]): c for c in r.report["channels"]}
    fig = plots.network(r, "blocked", vmax=1.0)
    lines = channels(fig)
    o, g = grid.OFFSET, grid.GAP
    for start, end, row in [((1 - g, o), (0 + g, o), ("(1)-x", "(0)+x")), ((2 - g, o), (1 + g, o), ("(2)-x", "(1)+x"))]:
        assert colour_at(lines, start, end) == VIRIDIS(rows[row]["blocked"])
        assert rows[row]["blocked"] > 0.9
    for start, end in [((0 + g, -o), (1 - g, -o)), ((1 + g, -o), (2 - g, -o))]:
        assert colour_at(lines, start, end) == VIRIDIS(0.0)
    assert any("blocked (fraction of cycles" in ax.get_ylabel() for ax in fig.axes)


def test_routers_coloured_by_their_nodes_packet_latency() -> None:
    # The same traffic at a fifth of the load, with a fast sink: node 2's packets take
    # one more hop than node 1's, so they take longest (black); node 0 sent none (white,
    # as a router whose nodes have no value).
    r = line_of_three({"vcs": 2}, {"load": 0.2, "pattern": {"type": "merge_to_one", "dest": 0}}, {}, 2000)
    latency = r.report["stats"]["latency_by_source"]
    assert latency[0] == 0.0 and latency[2] > latency[1] > 0.0
    assert r.per_source["latency"].tolist() == latency
    fig = plots.network(r, nodes="latency")
    faces = {tuple(xy): tuple(f) for xy, f in zip(routers(fig).get_offsets(), routers(fig).get_facecolors())}
    assert faces[(0.0, 0.0)] == (1.0, 1.0, 1.0, 1.0)
    assert faces[(2.0, 0.0)] == GREYS(1.0)
    assert faces[(1.0, 0.0)] == GREYS(latency[1] / latency[2])
    assert any("packet latency (cycles" in ax.get_xlabel() for ax in fig.axes)


def test_frames_show_the_traffic_turn_around() -> None:
    # Everyone sends to node 0 for 1,800 cycles, nothing for 200, then to node 2: with
    # timeline bins of 2,000 cycles, the first frame has flits only on the -x channels
    # and the second only on the +x ones. Channel (1)+x carries two streams in the
    # shorter second frame, the most of any channel in any frame: the top colour.
    r = line_of_three(
        {"vcs": 2},
        {"phases": [
            {"duration": 1800, "load": 0.2, "pattern": {"type": "merge_to_one", "dest": 0}},
            {"duration": 200, "load": 0.0},
            {"duration": 1800, "load": 0.2, "pattern": {"type": "merge_to_one", "dest": 2}},
        ]},
        {"timeline": 2000, "channel_timeline": True},
        3800,
    )
    fig = plots.network(r, frames=2)
    first, second = channels(fig, 0), channels(fig, 1)
    o, g = grid.OFFSET, grid.GAP
    minus = [((1 - g, o), (0 + g, o)), ((2 - g, o), (1 + g, o))]
    plus = [((0 + g, -o), (1 - g, -o)), ((1 + g, -o), (2 - g, -o))]
    for start, end in plus:
        assert colour_at(first, start, end) == VIRIDIS(0.0)
    for start, end in minus:
        assert colour_at(first, start, end) != VIRIDIS(0.0)
        assert colour_at(second, start, end) == VIRIDIS(0.0)
    assert colour_at(second, *plus[1]) == VIRIDIS(1.0)
    assert [ax.get_title() for ax in fig.axes[:2]] == ["cycles 0-2000", f"cycles 2000-{r.report['stats']['timeline'][-1]['cycle']}"]
    # As many frames as bins at most; none asked for is refused.
    assert len([ax for ax in fig.axes if ax.get_title()]) == 2
    assert len([ax for ax in plots.network(r, frames=9).axes if ax.get_title()]) == 2
    with pytest.raises(ValueError, match=r"frames 0 must be a whole number of frames, at least 1"):
        plots.network(r, frames=0)


def test_frames_group_the_bins_evenly() -> None:
    ends = [10, 20, 30, 40, 50, 55]
    assert network.frames.spans(ends, 3) == [(0, 2, 0, 20), (2, 4, 20, 40), (4, 6, 40, 55)]
    # 6 bins in 4 frames: 1, 2, 1 and 2 bins.
    assert network.frames.spans(ends, 4) == [(0, 1, 0, 10), (1, 3, 10, 30), (3, 4, 30, 40), (4, 6, 40, 55)]
    assert network.frames.spans(ends, 1) == [(0, 6, 0, 55)]
    assert network.frames.spans(ends, 6)[-1] == (5, 6, 50, 55)
    assert len(network.frames.spans(ends, 9)) == 6


@pytest.fixture(scope="module")
def report_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("draw") / "r.json"
    path.write_text(json.dumps(cube_report([4, 4], [True, True], {"(1,2)+x": 1.0}, 0.1)))
    return path


def test_python_m_flitsim_draw_writes_svg_and_png(report_file: Path, tmp_path: Path) -> None:
    for name in ("fig.svg", "fig.png"):
        out = tmp_path / name
        p = subprocess.run([sys.executable, "-m", "flitsim", "draw", str(report_file), "--out", str(out)], capture_output=True, text=True)
        assert p.returncode == 0, p.stderr
        assert p.stdout.strip() == f"wrote {out}"
    svg = (tmp_path / "fig.svg").read_text()
    assert "<svg" in svg and svg.count("<path") > 64
    png = (tmp_path / "fig.png").read_bytes()
    assert png.startswith(b"\x89PNG") and len(png) > 5000
    # Without --out: beside the report, as SVG.
    p = subprocess.run([sys.executable, "-m", "flitsim", "draw", str(report_file), "--vc", "0", "--nodes", "none"], capture_output=True, text=True)
    assert p.returncode == 0 and report_file.with_suffix(".svg").stat().st_size > 0, p.stderr


@pytest.mark.parametrize(
    "args, message",
    [
        (["--value", "load"], "value 'load' is not one this drawing colours links by: utilization, flits"),
        (["--vc", "5"], "vc 5 is not a VC of these channels: they have 2 (0 to 1); leave vc out"),
        (["--out", "fig.jpg"], "the format comes from the extension, which must be one of .svg, .png, .pdf"),
    ],
)
def test_python_m_flitsim_draw_refuses_bad_options(report_file: Path, tmp_path: Path, args: list[str], message: str) -> None:
    p = subprocess.run([sys.executable, "-m", "flitsim", "draw", str(report_file), *args], capture_output=True, text=True, cwd=tmp_path)
    assert p.returncode == 2 and p.stderr.startswith("error: ") and message in p.stderr, p.stderr
    assert "Traceback" not in p.stderr


def test_the_command_draws_through_the_package(flitsim_bin: Path, report_file: Path, tmp_path: Path) -> None:
    env = {**os.environ, "FLITSIM_PYTHON": sys.executable}
    for name in ("cli.svg", "cli.png"):
        out = tmp_path / name
        p = subprocess.run([str(flitsim_bin), "draw", str(report_file), "--out", str(out)], capture_output=True, text=True, env=env)
        assert p.returncode == 0, p.stderr
        assert out.stat().st_size > 5000
    assert (tmp_path / "cli.svg").read_text().count("<path") > 64
    # Files that are not a report: a config, a sweep's JSON, nothing at all.
    config = tmp_path / "c.toml"
    config.write_text("seed = 1\n")
    sweep = tmp_path / "sweep.json"
    sweep.write_text(json.dumps({"rows": [], "reports": []}))
    for path, message in [
        (config, "c.toml is not JSON"),
        (sweep, "is not a flitsim run report: it has no config, stats, channels (it looks like a sweep's or a store's file: draw one run's report)"),
        (tmp_path / "none.json", "none.json is not a file: give the JSON report that `flitsim run CONFIG --out REPORT.json` writes"),
    ]:
        p = subprocess.run([str(flitsim_bin), "draw", str(path)], capture_output=True, text=True, env=env)
        assert p.returncode == 2 and p.stderr.startswith("error: ") and message in p.stderr, p.stderr
        assert "Traceback" not in p.stderr
