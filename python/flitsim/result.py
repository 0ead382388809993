"""The result of one run: the engine's JSON report, with its tables as data frames.

A :class:`Result` holds the report text exactly as ``flitsim run --out`` writes it and
derives everything else from it; it pickles as that text.
"""

from __future__ import annotations

import json
import math
from typing import Any

import pandas as pd

#: The columns of :attr:`Result.summary`, in order (also the summary columns of a sweep).
SUMMARY_FIELDS: tuple[str, ...] = (
    "load",
    "seed",
    "cycles",
    "offered",
    "accepted",
    "accepted_min",
    "accepted_jain",
    "per_source_jain",
    "latency_mean",
    "latency_p50",
    "latency_p90",
    "latency_p99",
    "latency_p999",
    "latency_max",
    "network_latency_mean",
    "network_latency_p50",
    "network_latency_p99",
    "avg_hops",
    "packets_measured",
    "packets_delivered",
    "saturated",
    "reason",
    "trace_completion",
    "trace_latency_mean",
)


class Result:
    """One run's report. ``json`` is the engine's text; the rest is read from it."""

    __slots__ = ("_json", "_report")

    def __init__(self, json_text: str) -> None:
        self._json = json_text
        self._report: dict[str, Any] | None = None

    @property
    def json(self) -> str:
        """The report as JSON text, byte for byte what ``flitsim run --out`` writes."""
        return self._json

    @property
    def report(self) -> dict[str, Any]:
        """The whole report as a dict (config, seed, version, topology, counters, stats, ...)."""
        if self._report is None:
            self._report = json.loads(self._json)
        return self._report

    @property
    def summary(self) -> dict[str, Any]:
        """The headline numbers (see :data:`SUMMARY_FIELDS`); latencies in cycles,
        throughput in flits/node/cycle, ``reason`` the saturation reasons joined by "; ".
        With no packet measured (a load of 0, say) the latencies and ``avg_hops`` are NaN.
        ``trace_completion`` (the cycle the last message of a ``[traffic.trace]``
        completed, the run time the application would see) and ``trace_latency_mean``
        (creation to completion, cycles) are NaN without a trace."""
        r = self.report
        s = r["stats"]
        trace = self.trace
        lat = s["packet_latency"]
        net = s["network_latency"]
        # With no packet measured the latencies and hops are missing (NaN), not 0.
        if lat["count"] == 0:
            lat = dict.fromkeys(("mean", "p50", "p90", "p99", "p999", "max"), math.nan)
        if net["count"] == 0:
            net = dict.fromkeys(("mean", "p50", "p99"), math.nan)
        return {
            "load": r["config"]["traffic"]["load"],
            "seed": r["seed"],
            "cycles": r["cycles"],
            "offered": s["offered"],
            "accepted": s["accepted"]["mean"],
            "accepted_min": s["accepted"]["min"],
            "accepted_jain": s["accepted"]["jain"],
            "per_source_jain": s["per_source"]["jain"],
            "latency_mean": lat["mean"],
            "latency_p50": lat["p50"],
            "latency_p90": lat["p90"],
            "latency_p99": lat["p99"],
            "latency_p999": lat["p999"],
            "latency_max": lat["max"],
            "network_latency_mean": net["mean"],
            "network_latency_p50": net["p50"],
            "network_latency_p99": net["p99"],
            "avg_hops": s["avg_hops"] if s["packets_measured"] else math.nan,
            "packets_measured": s["packets_measured"],
            "packets_delivered": s["packets_delivered"],
            "saturated": s["saturated"],
            "reason": "; ".join(s["saturation_reasons"]),
            "trace_completion": trace["completion"] if trace else math.nan,
            "trace_latency_mean": trace["latency_mean"] if trace else math.nan,
        }

    @property
    def trace(self) -> dict[str, Any] | None:
        """With ``[traffic.trace]``: the trace's messages created and completed, their
        latency and the cycle the last one completed (the report's ``trace``); else None."""
        trace: dict[str, Any] | None = self.report.get("trace")
        return trace

    @property
    def application(self) -> dict[str, Any] | None:
        """With an application trace (``traffic.trace.format`` ``"ranks"`` or ``"otf2"``):
        its predicted run time (``time_cycles``, ``time_ns``), the slowest rank, each
        rank's finish, per kind of call its messages and latency, and what the trace
        measured (the report's ``trace.app``); else None."""
        trace = self.trace
        app: dict[str, Any] | None = trace.get("app") if trace else None
        return app

    @property
    def calls(self) -> pd.DataFrame:
        """With an application trace, one row per kind of call (``point_to_point`` and
        each collective used): ``algorithm``, ``calls`` (collective calls), ``messages``,
        ``flits``, ``completed``, ``latency_mean`` and ``latency_max`` (cycles), and
        ``time_mean`` and ``time_max``: the time a rank spends in calls of that kind (cycles;
        its mean over ranks and the most of any rank). Empty without one."""
        cols = [
            "call",
            "algorithm",
            "calls",
            "messages",
            "flits",
            "completed",
            "latency_mean",
            "latency_max",
            "time_mean",
            "time_max",
        ]
        app = self.application
        rows = [{c: row.get(c) for c in cols} for row in app["calls"]] if app else []
        frame: pd.DataFrame = pd.DataFrame(rows, columns=cols)
        return frame

    @property
    def latency(self) -> pd.DataFrame:
        """Latency distributions of the measured packets, one row per histogram bin:
        ``kind`` ("packet": creation to tail ejection; "network": from leaving the source
        queue), bin ``[lo, hi)`` in cycles, ``count``, and ``cdf`` (fraction of that kind's
        packets with latency below ``hi``)."""
        rows: list[dict[str, Any]] = []
        for kind in ("packet", "network"):
            h = self.report["stats"][f"{kind}_latency"]["histogram"]
            total = sum(h["counts"]) or 1
            seen = 0
            for i, count in enumerate(h["counts"]):
                seen += count
                lo = h["start"] + i * h["bin_width"]
                rows.append({"kind": kind, "lo": lo, "hi": lo + h["bin_width"], "count": count, "cdf": seen / total})
        frame: pd.DataFrame = pd.DataFrame(rows, columns=["kind", "lo", "hi", "count", "cdf"])
        return frame

    @property
    def per_source(self) -> pd.DataFrame:
        """One row per node: ``delivered`` (flits/cycle from this source ejected anywhere
        in the window), ``accepted`` (flits/cycle ejected at this node) and ``latency``
        (mean packet latency of this source's measured packets, cycles; 0 with none)."""
        s = self.report["stats"]
        frame: pd.DataFrame = pd.DataFrame({"delivered": s["per_source"]["values"], "accepted": s["accepted"]["values"], "latency": s["latency_by_source"]})
        frame.index.name = "node"
        return frame

    @property
    def channels(self) -> pd.DataFrame:
        """One row per connected channel: ``kind`` (network, injection, ejection), ends
        ``from`` and ``to``, flits per VC in the window (``vc0``, ``vc1``, ...) and
        ``utilization`` (flits/cycle); with ``stats.buffer_sample``, also ``buffered``
        (mean flits at the receiving end) and ``blocked`` (fraction of samples a buffer
        there was full), NaN for ejection channels. Empty with
        ``stats.channel_counters = false``."""
        rows = self.report["channels"]
        vcs = max((len(c["vc_flits"]) for c in rows), default=0)
        sampled = any("buffered" in c for c in rows)
        extra = ["buffered", "blocked"] if sampled else []
        columns = ["kind", "from", "to", *[f"vc{v}" for v in range(vcs)], "utilization", *extra]
        data = [[c["kind"], c["from"], c["to"], *c["vc_flits"], c["utilization"], *[c.get(k, float("nan")) for k in extra]] for c in rows]
        frame: pd.DataFrame = pd.DataFrame(data, columns=columns, index=pd.Index([c["id"] for c in rows], name="channel"))
        return frame

    @property
    def timeline(self) -> pd.DataFrame:
        """Throughput over time, one row per bin of ``stats.timeline`` cycles over the
        whole run: ``cycle`` (the bin's end), ``offered`` and ``accepted``
        (flits/node/cycle in the bin). Empty when ``stats.timeline`` is 0 (the default)."""
        bins = self.report["stats"].get("timeline", [])
        frame: pd.DataFrame = pd.DataFrame(bins, columns=["cycle", "offered", "accepted"])
        return frame

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Result) and self._json == other._json

    def __hash__(self) -> int:
        return hash(self._json)

    def __repr__(self) -> str:
        s = self.summary
        sat = ", saturated" if s["saturated"] else ""
        return f"flitsim.Result(load={s['load']}, accepted={s['accepted']:.4f}, latency_mean={s['latency_mean']:.2f}{sat})"

    def __getstate__(self) -> str:
        return self._json

    def __setstate__(self, state: str) -> None:
        self._json = state
        self._report = None
