"""A report's channel rows read as loads between routers, and each router's endpoint
throughput: the numbers every drawing of :mod:`flitsim.network` colours.

The engine names a channel's ends ``ROUTER PORT`` (``(3,4)+x``, ``[0121]link2``,
``s4(level 1)port0``, ``g2r1global0``, ``r7link3``, ``xbarlocal5``) or ``nodeN`` for an
endpoint (``Topology::router_name`` and ``port_name`` in the engine). :func:`split_end`
splits them; :func:`read` turns the rows into :class:`Link` objects valued in the unit
asked for.
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Union

from ..result import Result

PathLike = Union[str, "os.PathLike[str]"]

#: What a link's colour can show: the report's channel counters, all VCs or one.
VALUES: dict[str, str] = {
    "utilization": "flits per cycle on the channel in the measurement window (Gb/s with channel.link_gbps)",
    "flits": "flits the channel carried in the measurement window",
    "buffered": "mean flits buffered at the channel's receiving end (needs stats.buffer_sample)",
    "blocked": "fraction of the sampled cycles in which a buffer at the channel's receiving end was full, so its sender could not send in that VC (needs stats.buffer_sample)",
}
#: The values read from the buffer samples rather than the flit counters (all VCs together).
SAMPLED: tuple[str, ...] = ("buffered", "blocked")
#: What a router marker's colour can show: the throughput of the router's endpoints.
NODE_VALUES: dict[str, str] = {
    "accepted": "flits/cycle ejected at each node (stats.accepted.values), the mean over the router's nodes",
    "delivered": "flits/cycle each source got delivered (stats.per_source.values), the mean over the router's nodes",
    "latency": "mean packet latency of each source's measured packets, cycles (stats.latency_by_source), the mean over the router's nodes that sent any",
}

# A router's name as the engine writes it, then the port; or an endpoint `nodeN`.
_END = re.compile(r"^(?P<router>s\d+\(level \d+\)|\([0-9,]+\)|\[[^\]]*\]|g\d+r\d+|r\d+|xbar|node\d+)(?P<port>.*)$")
_COORDS = re.compile(r"^\((?P<coords>\d+(?:,\d+)*)\)$")

#: Topology types (`topology.type`) and the drawing each gets.
FAMILIES: tuple[str, ...] = ("torus", "mesh", "cube", "crossbar", "kautz", "clos", "k_ary_n_tree", "dragonfly", "hyperx", "graph")


def split_end(name: str) -> tuple[str, str]:
    """A channel end as ``(router, port)``: ``"(1,2)+x"`` is ``("(1,2)", "+x")``,
    ``"node5"`` is ``("node5", "")``. Raises ValueError for a name no family writes."""
    m = _END.match(name)
    if m is None:
        raise ValueError(f"channel end {name!r} is not a router and port flitsim writes (e.g. '(1,2)+x', '[012]link0', 'node5')")
    return m["router"], m["port"]


def coords(router: str) -> tuple[int, ...]:
    """The coordinates of a k-ary n-cube or HyperX router name: ``"(1,2,0)"`` is ``(1, 2, 0)``."""
    m = _COORDS.match(router)
    if m is None:
        raise ValueError(f"router {router!r} has no coordinates (a torus, mesh or HyperX router is named like '(1,2,0)')")
    return tuple(int(c) for c in m["coords"].split(","))


def natural_key(name: str) -> tuple[Any, ...]:
    """Sort key that orders the numbers inside names by value (``r2`` before ``r10``)."""
    return tuple(int(t) if t.isdigit() else t for t in re.split(r"(\d+)", name))


@dataclass(frozen=True)
class Link:
    """One channel between two routers (or, in a crossbar, a node and the switch):
    its ends, its value in the unit of :attr:`Loads.link_label`, and the report's name of
    its sending end (``from``)."""

    src: str
    src_port: str
    dst: str
    dst_port: str
    value: float
    name: str


@dataclass
class Loads:
    """What a drawing colours, read from one report (see :func:`read`)."""

    #: The config's ``topology.type``.
    family: str
    #: The config's ``[topology]`` table.
    topology: dict[str, Any]
    #: The report's description of the network (``topology.description``).
    description: str
    #: Every router-to-router channel the report counts (in a crossbar: the endpoint channels).
    links: list[Link]
    #: Every router the rows name, in their order (in a crossbar, the nodes too).
    routers: list[str]
    #: Per router with endpoints: their mean throughput (empty with ``nodes=None``).
    node_values: dict[str, float]
    #: Colour-scale label of the links, with the unit.
    link_label: str
    #: Colour-scale label of the routers, or None.
    node_label: str | None
    #: Links the report names as failed (``faults.failed_links``): no channel rows.
    failed_links: int = 0
    #: Routers the report names as failed.
    failed_routers: int = 0
    #: Endpoint router of each node (``nodeN`` -> router).
    node_router: dict[str, str] = field(default_factory=dict)


def load_report(path: PathLike) -> Result:
    """The report ``flitsim run CONFIG --out PATH`` wrote, as a :class:`~flitsim.Result`;
    a clear ValueError when the file is missing or holds something else."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ValueError(f"{p}: no such file; give the JSON report that `flitsim run CONFIG --out {p.name}` writes") from None
    except (OSError, UnicodeDecodeError) as e:
        raise ValueError(f"{p}: cannot read it ({e}); give the JSON report that `flitsim run CONFIG --out FILE` writes") from None
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        raise ValueError(f"{p} is not JSON ({e.msg} at line {e.lineno}): give the report that `flitsim run CONFIG --out FILE` writes") from None
    check_report(doc, str(p))
    return Result(text)


def check_report(doc: Any, where: str = "the report") -> None:
    """Raise a ValueError naming what is missing unless ``doc`` is a run's report."""
    fix = "give the JSON that `flitsim run CONFIG --out FILE` writes"
    if not isinstance(doc, Mapping):
        raise ValueError(f"{where} is not a flitsim report (a JSON object with config, stats and channels): {fix}")
    missing = [k for k in ("config", "stats", "channels") if k not in doc]
    if missing:
        hint = " (it looks like a sweep's or a store's file: draw one run's report)" if "rows" in doc or "reports" in doc else ""
        raise ValueError(f"{where} is not a flitsim run report: it has no {', '.join(missing)}{hint}; {fix}")
    topo = doc["config"].get("topology") if isinstance(doc["config"], Mapping) else None
    if not isinstance(topo, Mapping) or "type" not in topo:
        raise ValueError(f"{where} has no config.topology.type: {fix}")
    if topo["type"] not in FAMILIES:
        raise ValueError(f"{where}: topology type {topo['type']!r} is not one this flitsim draws ({', '.join(FAMILIES)})")


def read(source: Result | Mapping[str, Any], value: str = "utilization", *, vc: int | None = None, nodes: str | None = "accepted") -> Loads:
    """The loads of one report: each router-to-router channel's ``value`` (see
    :data:`VALUES`; only VC ``vc`` when given) and, unless ``nodes`` is None, each
    router's endpoint throughput (:data:`NODE_VALUES`). Rates are flits/cycle, or Gb/s
    when the config sets ``channel.link_gbps`` (a channel carries one flit per cycle, so
    a rate of 1 is the link's rate)."""
    report = source.report if isinstance(source, Result) else source
    check_report(report)
    if value not in VALUES:
        raise ValueError(f"value {value!r} is not one this drawing colours links by: {', '.join(VALUES)}")
    if nodes is not None and nodes not in NODE_VALUES:
        raise ValueError(f"nodes {nodes!r} is not a node throughput: {', '.join(NODE_VALUES)}, or None (none on the command line) for plain markers")
    rows: list[Mapping[str, Any]] = report["channels"]
    if not rows:
        raise ValueError("the report has no per-channel rows (it was run with stats.channel_counters = false): run it again with stats.channel_counters = true, the default")
    vcs = max(len(r["vc_flits"]) for r in rows)
    if value in SAMPLED:
        if vc is not None:
            raise ValueError(f"value {value!r} is sampled over all of a channel's VCs together: leave vc out, or draw utilization or flits of VC {vc}")
        if not any(value in r for r in rows):
            raise ValueError(
                f"the report has no buffer samples to draw {value!r} from: run it again with stats.buffer_sample = 1 (a sample every cycle; larger is cheaper)"
            )
    if vc is not None and not (isinstance(vc, int) and 0 <= vc < vcs):
        raise ValueError(f"vc {vc!r} is not a VC of these channels: they have {vcs} (0 to {vcs - 1}); leave vc out to draw all of them")
    config = report["config"]
    topology = dict(config["topology"])
    family = str(topology["type"])
    start, end = report["stats"]["window"]
    window = max(end - start, 1)
    gbps = (config.get("channel") or {}).get("link_gbps")
    rate_unit = "Gb/s" if gbps else "flits/cycle"
    scale = float(gbps) if gbps else 1.0

    def channel_value(row: Mapping[str, Any]) -> float:
        if value in SAMPLED:
            return float(row.get(value, math.nan))
        flits = row["vc_flits"][vc] if vc is not None else sum(row["vc_flits"])
        if value == "flits":
            return float(flits)
        rate = flits / window if vc is not None else float(row["utilization"])
        return rate * scale

    links: list[Link] = []
    seen: dict[str, None] = {}
    node_router: dict[str, str] = {}
    for row in rows:
        src, src_port = split_end(row["from"])
        dst, dst_port = split_end(row["to"])
        kind = row["kind"]
        if kind == "ejection":
            node_router[dst] = src
        if kind == "network" or family == "crossbar":
            links.append(Link(src, src_port, dst, dst_port, channel_value(row), row["from"]))
        for r in (src, dst):
            if not r.startswith("node") or family == "crossbar":
                seen.setdefault(r, None)
    which = f"VC {vc} " if vc is not None else "channel "
    link_label = {
        "utilization": f"{which}utilisation ({rate_unit})",
        "flits": f"{which}flits in the window",
        "buffered": "buffered flits at the receiving end (mean)",
        "blocked": "blocked (fraction of cycles a buffer there is full)",
    }[value]
    node_values: dict[str, float] = {}
    node_label: str | None = None
    if nodes is not None:
        stats = report["stats"]
        if nodes == "latency" and "latency_by_source" not in stats:
            raise ValueError("the report has no stats.latency_by_source (an older flitsim wrote it): run it again, or draw nodes='accepted'")
        per_node = {"accepted": stats["accepted"]["values"], "delivered": stats["per_source"]["values"]}.get(nodes) or stats["latency_by_source"]
        sums: dict[str, list[float]] = {}
        for i, v in enumerate(per_node):
            node = f"node{i}"
            router = node if family == "crossbar" else node_router.get(node)
            # (A node's latency counts only if it had a measured packet delivered: its
            # latency is then at least a cycle.)
            if router is not None and (nodes != "latency" or v > 0):
                sums.setdefault(router, []).append(float(v) * (1.0 if nodes == "latency" else scale))
        node_values = {r: math.fsum(vs) / len(vs) for r, vs in sums.items()}
        node_label = "packet latency (cycles, mean of the nodes' sources)" if nodes == "latency" else f"{nodes} throughput ({'Gb/s' if gbps else 'flits/cycle'} per node)"
    faults = report.get("faults") or {}
    return Loads(
        family=family,
        topology=topology,
        description=str((report.get("topology") or {}).get("description", family)),
        links=links,
        routers=list(seen),
        node_values=node_values,
        link_label=link_label,
        node_label=node_label,
        failed_links=len(faults.get("failed_links", [])),
        failed_routers=len(faults.get("failed_routers", [])),
        node_router=node_router,
    )
