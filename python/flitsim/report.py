"""``flitsim report DIR``: one self-contained HTML file describing a directory of results.

``DIR`` is any of:

* a results store (``flitsim-store.json``: :func:`flitsim.sweep` with ``store=``, or
  ``flitsim sweep --store``),
* a reproduction (``reproduction.json``: ``flitsim reproduce NAME --out DIR``), whose runs
  are in its store,
* the output of ``flitsim sweep --out DIR`` (``sweep.json``, which holds the reports).

The page holds tables (the summary of every run, by the config keys that differ between
runs; a reproduction's rows against the paper's numbers), figures as embedded PNG images
(load-latency and throughput curves, latency CDFs, fairness, VC balance and threshold
traces where the reports have them), each run drawn on its network (channel loads and
node throughput, :mod:`flitsim.network`; for a reproduction, the run of each row), the
configs and the simulator version. It needs no network, no script and no other file.

Run it as ``python -m flitsim report DIR [--out FILE]`` (default ``DIR/report.html``) or
``flitsim report DIR``, or call :func:`write_report`.
"""

from __future__ import annotations

import base64
import html
import io
import json
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Union

import pandas as pd
from matplotlib.figure import Figure

from . import _core, plots
from .config import Config
from .result import SUMMARY_FIELDS, Result
from .store import Store

PathLike = Union[str, "os.PathLike[str]"]

#: Most runs shown in a latency CDF (the first ones in table order).
MAX_CDF_SERIES = 6
#: Frames of a run drawn over time (runs with ``stats.channel_timeline``).
NETWORK_FRAMES = 6
#: Resolution of the network drawings (one per run: kept small), and their widest, in pixels.
NETWORK_DPI = 80
NETWORK_MAX_PX = 1000


@dataclass
class Collection:
    """What a results directory holds: its runs (store key -> result), what kind of
    directory it is, and for a reproduction its document (``reproduction.json``)."""

    path: Path
    kind: str
    results: dict[str, Result]
    reproduction: dict[str, Any] | None = None
    configs: dict[str, str] = field(default_factory=dict)


def load(directory: PathLike) -> Collection:
    """Read a store, a reproduction or a ``flitsim sweep --out`` directory."""
    path = Path(directory)
    if (path / "reproduction.json").is_file():
        doc = json.loads((path / "reproduction.json").read_text(encoding="utf-8"))
        results: dict[str, Result] = {}
        if doc.get("store"):
            store_path = Path(doc["store"])
            store = Store(store_path if store_path.is_absolute() else path / store_path)
            # Only this study's runs (a store may be shared with other studies and sweeps).
            wanted = dict.fromkeys(
                k
                for row in doc["rows"]
                for k in (row.get("key"), row.get("baseline_key"), *row.get("keys", []), *row.get("baseline_keys", []))
                if k
            )
            results = {k: r for k in wanted if (r := store.get(k)) is not None}
        return Collection(path, "reproduction", results, doc, dict(doc.get("configs", {})))
    if (path / "flitsim-store.json").is_file():
        store = Store(path)
        return Collection(path, "store", {k: r for k in store.keys() if (r := store.get(k)) is not None})
    if (path / "sweep.json").is_file():
        doc = json.loads((path / "sweep.json").read_text(encoding="utf-8"))
        keys = [row.get("key", str(i)) for i, row in enumerate(doc["rows"])]
        return Collection(path, "sweep", {k: Result(json.dumps(rep, indent=2)) for k, rep in zip(keys, doc["reports"])})
    raise ValueError(f"{path} is not a results directory: no flitsim-store.json, reproduction.json or sweep.json in it")


def _flatten(value: Any, prefix: str = "") -> dict[str, Any]:
    if isinstance(value, Mapping):
        out: dict[str, Any] = {}
        for k, v in value.items():
            out.update(_flatten(v, f"{prefix}{k}."))
        return out
    return {prefix[:-1]: value}


def summary_frame(results: Mapping[str, Result]) -> pd.DataFrame:
    """One row per run: the config keys whose values differ between the runs (dotted
    paths, values as in the report), the summary fields and ``key``, sorted by those keys."""
    flat = {k: _flatten(r.report["config"]) for k, r in results.items()}
    names: list[str] = []
    for f in flat.values():
        names.extend(n for n in f if n not in names)
    varying = [n for n in names if n != "seed" and len({json.dumps(f.get(n), sort_keys=True) for f in flat.values()}) > 1]
    records = []
    for k, r in results.items():
        record: dict[str, Any] = {n: _cell(flat[k].get(n)) for n in varying}
        record.update(r.summary)
        record["key"] = k
        records.append(record)
    frame: pd.DataFrame = pd.DataFrame.from_records(records, columns=[*varying, *SUMMARY_FIELDS, "key"])
    # The trace columns only when some run replayed a trace (NaN in every row otherwise).
    frame = frame.drop(columns=[c for c in TRACE_FIELDS if frame[c].isna().all()])
    order = [c for c in [*varying, "seed"] if c in frame.columns]
    if order and not frame.empty:
        frame = frame.sort_values(order, key=lambda s: s.map(str) if s.dtype == object else s, kind="stable").reset_index(drop=True)
    frame.attrs["varying"] = varying
    return frame


#: Summary fields a run without a ``[traffic.trace]`` leaves NaN.
TRACE_FIELDS = ("trace_completion", "trace_latency_mean")
#: Longest text shown in a cell of the runs table (longer, e.g. saturation reasons, is cut).
MAX_CELL_TEXT = 60


def cdf_runs(labels: list[str], ordered: list[Result]) -> dict[str, Result]:
    """The runs the latency CDF draws (at most :data:`MAX_CDF_SERIES`, by label): the
    unsaturated ones when there are any, since a saturated run's latencies, orders of
    magnitude longer, would flatten every other curve."""
    pairs = list(zip(labels, ordered))
    calm = [(label, r) for label, r in pairs if not r.summary["saturated"]]
    return dict((calm or pairs)[:MAX_CDF_SERIES])


def _short(value: Any) -> Any:
    if isinstance(value, str) and len(value) > MAX_CELL_TEXT:
        return value[: MAX_CELL_TEXT - 1] + "…"
    return value


def _cell(value: Any) -> Any:
    return json.dumps(value) if isinstance(value, (list, dict)) else value


def png(fig: Figure, dpi: int = 100) -> str:
    """A figure as a base64 PNG ``data:`` URI."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi)
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def figures(collection: Collection, frame: pd.DataFrame) -> list[tuple[str, Figure]]:
    """The figures the collection's reports support, each with a caption."""
    out: list[tuple[str, Figure]] = []
    results = collection.results
    varying: list[str] = frame.attrs.get("varying", [])
    if collection.reproduction is not None:
        fig = _deviation(collection.reproduction["rows"])
        if fig is not None:
            out.append(("flitsim against the reference, per judged row", fig))
        out.extend(_series(collection.reproduction["rows"]))
    if "traffic.load" in varying and len(frame) > 1:
        # Curves only when the runs differ in the load and at most two other keys (the series).
        others = [c for c in varying if c != "traffic.load"]
        series = others or None
        if len(others) <= 2 and (series is None or frame.groupby(series).ngroups <= 10):
            out.append(("mean packet latency vs offered load (mean over seeds)", plots.latency_vs_load(frame, series=series)))
            out.append(("accepted vs offered throughput", plots.throughput_vs_load(frame, series=series)))
    ordered = [results[k] for k in frame["key"] if k in results]
    if ordered:
        labels = run_labels(frame)
        cdf = cdf_runs(labels, ordered)
        left_out = "" if len(cdf) == min(len(ordered), MAX_CDF_SERIES) else ", saturated runs left out"
        out.append((f"packet latency CDF (p50 and p99 marked{left_out})", plots.latency_cdf(cdf if len(cdf) > 1 else next(iter(cdf.values())))))
        last = ordered[-1]
        out.append((f"throughput per source ({labels[-1]})", plots.fairness(last)))
        for label, r in zip(labels, ordered):
            if r.report.get("vc_balance"):
                out.append((f"VC balance ({label})", plots.vc_balance(r)))
                break
        for label, r in zip(labels, ordered):
            if (r.report.get("congestion") or {}).get("trace"):
                out.append((f"threshold and throughput over time ({label})", plots.time_series(r)))
                break
    return out


def run_labels(frame: pd.DataFrame) -> list[str]:
    """A name for each run of the summary frame, in its order: the config keys that
    differ between the runs (``allocator=islip load=0.3``) when short, else ``run N``
    (its row in the runs table)."""
    varying: list[str] = frame.attrs.get("varying", [])
    labels = [" ".join(f"{c.rsplit('.', 1)[-1]}={row[c]}" for c in varying) for _, row in frame.iterrows()]
    return [label if 0 < len(label) <= 40 else f"run {i + 1}" for i, label in enumerate(labels)]


def network_runs(collection: Collection, frame: pd.DataFrame) -> list[tuple[str, Result]]:
    """The runs drawn on their network, each with its caption: for a reproduction, the
    run of each row that has one (rows sharing a run drawn once, their names joined);
    otherwise every run, in the order of the runs table."""
    results = collection.results
    if collection.reproduction is not None:
        by_key: dict[str, list[str]] = {}
        for row in collection.reproduction["rows"]:
            key = row.get("key") or next(iter(row.get("keys") or []), None)
            if key in results:
                by_key.setdefault(key, []).append(str(row["name"]))
        return [("; ".join(names) if len(names) <= 3 else f"{names[0]} and {len(names) - 1} more rows", results[key]) for key, names in by_key.items()]
    if frame.empty:
        return []
    return [(f"run {i + 1}: {label}" if not label.startswith("run ") else label, results[k]) for i, (label, k) in enumerate(zip(run_labels(frame), frame["key"])) if k in results]


def network_figures(collection: Collection, frame: pd.DataFrame) -> Iterator[tuple[str, Figure | str]]:
    """Each run of :func:`network_runs` drawn on its network (:func:`flitsim.plots.network`),
    with its caption; then, for a run with buffer samples (``stats.buffer_sample``), its
    blocked channels, and for a run with channel timelines (``stats.channel_timeline``),
    its :data:`NETWORK_FRAMES` frames over time. For a run that cannot be drawn (no channel
    rows), the reason instead of a figure. A generator, so a report of many runs holds one
    figure at a time."""
    for caption, result in network_runs(collection, frame):
        rows = result.report.get("channels") or []
        extra: list[tuple[str, dict[str, Any]]] = []
        if any("blocked" in r for r in rows):
            extra.append((f"{caption}: blocked channels", {"value": "blocked"}))
        if any(r.get("timeline") for r in rows):
            extra.append((f"{caption}: over time", {"frames": NETWORK_FRAMES}))
        for what, options in [(caption, {}), *extra]:
            try:
                yield what, plots.network(result, **options)
            except ValueError as e:
                yield what, str(e)


def _series(rows: list[dict[str, Any]]) -> list[tuple[str, Figure]]:
    """The curves over time of a reproduction's rows (``series`` in experiment.toml): one
    figure per series path, a line per row (at most :data:`MAX_CDF_SERIES` per figure)."""
    by_path: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        s = r.get("series")
        if s and s.get("values"):
            by_path.setdefault(s["path"], []).append(r)
    out: list[tuple[str, Figure]] = []
    for path, group in by_path.items():
        for start in range(0, len(group), MAX_CDF_SERIES):
            fig = Figure(figsize=(7.5, 4.2), layout="constrained")
            ax = fig.subplots()
            for i, r in enumerate(group[start:start + MAX_CDF_SERIES]):
                s = r["series"]
                x = s["cycles"] or list(range(len(s["values"])))
                ax.plot(x, s["values"], color=f"C{i}", linewidth=1, label=r["name"].split(":")[0][:40])
            ax.set_xlabel("cycle" if group[0]["series"]["cycles"] else "point")
            ax.set_ylabel(path.rsplit(".", 1)[-1])
            ax.grid(alpha=0.3)
            ax.legend(fontsize=7)
            papers = [r["series"]["reference"] for r in group[start:start + MAX_CDF_SERIES] if r["series"].get("reference")]
            caption = f"{path} over time, per row" + (" (the paper: " + "; ".join(papers) + ")" if papers else "")
            out.append((caption, fig))
    return out


def _deviation(rows: list[dict[str, Any]]) -> Figure | None:
    judged = [r for r in rows if r["result"] != "info" and r.get("reference") not in (None, 0) and r.get("flitsim") is not None]
    if not judged:
        return None
    fig = Figure(figsize=(7.5, 0.28 * len(judged) + 1.2), layout="constrained")
    ax = fig.subplots()
    dev = [(r["flitsim"] - r["reference"]) / abs(r["reference"]) * 100 for r in judged]
    colors = ["C2" if r["result"] == "pass" else "C3" for r in judged]
    ax.barh(range(len(judged)), dev, color=colors)
    ax.set_yticks(range(len(judged)), [r["name"][:48] for r in judged], fontsize=7)
    ax.invert_yaxis()
    ax.axvline(0, color="k", linewidth=0.8)
    ax.set_xlabel("flitsim vs reference (%; green: within its tolerance)")
    return fig


def _config_text(result: Result) -> str:
    """A report's config as TOML (through the engine), else as JSON."""

    def plain(v: Any) -> Any:
        if isinstance(v, dict):
            return {k: plain(x) for k, x in v.items() if x is not None}
        return [plain(x) for x in v] if isinstance(v, list) else v

    try:
        return Config(plain(result.report["config"])).toml
    except (_core.FlitsimError, TypeError, ValueError):
        return json.dumps(result.report["config"], indent=2)


_STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1200px; padding: 0 1em; color: #222; }
table { border-collapse: collapse; font-size: 0.85em; margin: 1em 0; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.5em; text-align: right; }
th { background: #f0f0f0; }
td.pass { background: #e3f6e3; } td.FAIL { background: #fbe0e0; }
figure { display: inline-block; margin: 0.5em; vertical-align: top; }
figcaption { font-size: 0.85em; color: #555; }
img { max-width: 100%; }
pre { background: #f7f7f7; padding: 0.8em; overflow-x: auto; font-size: 0.8em; }
.scroll { overflow-x: auto; }
"""


def render(directory: PathLike) -> str:
    """The HTML report of ``directory`` (see the module's documentation) as text."""
    collection = load(directory)
    frame = summary_frame(collection.results) if collection.results else pd.DataFrame()
    doc = collection.reproduction
    versions = sorted({r.report.get("version", "?") for r in collection.results.values()} | ({doc["flitsim"]} if doc else set()))
    title = f"flitsim reproduction: {doc['title']}" if doc else f"flitsim results: {collection.path.name or collection.path}"
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{html.escape(title)}</title><style>{_STYLE}</style></head><body>",
        f"<h1>{html.escape(title)}</h1>",
        "<p>",
        f"Directory <code>{html.escape(str(collection.path))}</code> ({collection.kind}), {len(collection.results)} stored runs. ",
        f"Simulator version {html.escape(', '.join(versions))}; report written by the flitsim package {html.escape(_core.__version__)}.",
        "</p>",
    ]
    if doc:
        if doc.get("description"):
            parts.append(f"<p>{html.escape(doc['description'])}</p>")
        rows = doc["rows"]
        parts.append(f"<h2>Rows</h2><p>{html.escape(doc['summary'])}.</p>")
        parts.append(_rows_table(rows))
    figs = figures(collection, frame) if collection.results or doc else []
    if figs:
        parts.append("<h2>Figures</h2>")
        for caption, fig in figs:
            parts.append(f'<figure><img src="{png(fig)}" alt="{html.escape(caption)}"><figcaption>{html.escape(caption)}</figcaption></figure>')
    for i, (caption, drawing) in enumerate(network_figures(collection, frame)):
        if i == 0:
            parts.append("<h2>Networks</h2>")
            parts.append(
                "<p>Each run drawn on its network: every channel coloured by its utilisation in the measurement window "
                "(flits/cycle, or Gb/s with <code>channel.link_gbps</code>), the most loaded in the top colour; every router "
                "by the mean throughput accepted at its nodes (white: none, or no nodes). A run with buffer samples "
                "(<code>stats.buffer_sample</code>) is drawn again with each channel coloured by the fraction of cycles a "
                "buffer at its receiving end was full; a run with channel timelines (<code>stats.channel_timeline</code>) "
                "over time, in frames on one colour scale.</p>"
            )
        if isinstance(drawing, str):
            parts.append(f"<p>{html.escape(caption)}: not drawn ({html.escape(drawing)}).</p>")
            continue
        alt = f"network: {caption}"
        dpi = min(NETWORK_DPI, int(NETWORK_MAX_PX / drawing.get_figwidth()))
        parts.append(f'<figure class="network"><img src="{png(drawing, dpi)}" alt="{html.escape(alt)}"><figcaption>{html.escape(caption)}</figcaption></figure>')
    if not frame.empty:
        parts.append("<h2>Runs</h2>")
        if frame.attrs.get("varying"):
            parts.append("<p>Columns before <code>load</code> are the config keys that differ between the runs.</p>")
        shown = frame.drop(columns=["key"]).assign(key=frame["key"].str[:12])
        shown = shown.apply(lambda col: col.map(_short))  # Series.map: any pandas >= 1.5
        shown.insert(0, "run", range(1, len(shown) + 1))
        parts.append('<div class="scroll">' + shown.to_html(index=False, escape=True, float_format=lambda v: f"{v:.6g}", border=0) + "</div>")
    parts.append("<h2>Configs</h2>")
    if collection.configs:
        for name, text in collection.configs.items():
            parts.append(f"<h3><code>{html.escape(name)}</code></h3><pre>{html.escape(text)}</pre>")
    elif collection.results:
        first = next(iter(collection.results.values())) if frame.empty else collection.results[frame["key"].iloc[0]]
        parts.append("<p>The first run's whole resolved config (the others differ in the keys of the table):</p>")
        parts.append(f"<pre>{html.escape(_config_text(first))}</pre>")
    parts.append("</body></html>\n")
    return "\n".join(parts)


def _rows_table(rows: list[dict[str, Any]]) -> str:
    head = "<tr><th>quantity</th><th>reference</th><th>flitsim</th><th>tolerance</th><th>result</th><th>source</th></tr>"
    body = []
    for r in rows:
        ref = "-" if r.get("reference") is None else f"{r['reference']:.4g}"
        got = "-" if r.get("flitsim") is None else f"{r['flitsim']:.4g}"
        shown = f"{r['result']} (direction)" if r["result"] == "pass" and r.get("judges") == "direction" else r["result"]
        source = r["source"] + (f" (not judged: {r['reason']})" if r.get("reason") else "")
        body.append(
            f"<tr><td style=\"text-align:left\">{html.escape(r['name'])}</td><td>{ref}</td><td>{got}</td>"
            f"<td>{html.escape(str(r['tolerance']))}</td><td class=\"{html.escape(r['result'])}\">{html.escape(shown)}</td>"
            f"<td style=\"text-align:left\">{html.escape(source)}</td></tr>"
        )
    return '<div class="scroll"><table>' + head + "".join(body) + "</table></div>"


def write_report(directory: PathLike, out: PathLike | None = None) -> Path:
    """Write the HTML report of ``directory`` to ``out`` (default ``directory/report.html``)
    and return its path."""
    target = Path(out) if out is not None else Path(directory) / "report.html"
    text = render(directory)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")
    return target
