"""``python -m flitsim report DIR [--out FILE]``: the HTML report of a results directory
(what ``flitsim report`` runs; see :mod:`flitsim.report`).

``python -m flitsim draw REPORT.json [--out FIG.svg|png|pdf]``: a run's channel loads and
node throughput drawn on its network (what ``flitsim draw`` runs; see
:mod:`flitsim.network`)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

#: The figure formats ``draw`` writes, by the output file's extension.
FORMATS = ("svg", "png", "pdf")


def main(argv: list[str] | None = None) -> int:
    """The command line of ``python -m flitsim``; returns the exit code."""
    parser = argparse.ArgumentParser(prog="python -m flitsim", description="flitsim's Python commands")
    commands = parser.add_subparsers(dest="command", required=True)
    report = commands.add_parser("report", help="write a self-contained HTML report of a results store, reproduction or sweep directory")
    report.add_argument("dir", help="the directory: a results store, `flitsim reproduce --out` or `flitsim sweep --out` output")
    report.add_argument("-o", "--out", help="the HTML file to write (default: DIR/report.html)")
    draw = commands.add_parser("draw", help="draw a run's channel loads and node throughput on its network (SVG, PNG or PDF)")
    draw.add_argument("report", help="the run's JSON report (`flitsim run CONFIG --out REPORT.json`)")
    draw.add_argument("-o", "--out", help="the figure to write, its format by extension: .svg, .png or .pdf (default: REPORT with .svg)")
    draw.add_argument(
        "--value",
        default="utilization",
        help="what colours the links: utilization (flits/cycle, Gb/s with channel.link_gbps; default), flits, or, from stats.buffer_sample, buffered or blocked",
    )
    draw.add_argument("--vc", type=int, help="draw only this VC's flits (default: all VCs)")
    draw.add_argument("--nodes", default="accepted", help="what colours the routers: accepted (default), delivered throughput, latency, or none")
    draw.add_argument("--aggregate", default="max", help="how blocks of a large network are summarised: max (default), mean or min")
    draw.add_argument("--vmax", type=float, help="the value of the top colour (default: the most loaded link's)")
    draw.add_argument("--title", help="the figure's title (default: the network and what is drawn)")
    draw.add_argument("--frames", type=int, help="draw the run over time in this many frames (needs stats.timeline and stats.channel_timeline)")
    args = parser.parse_args(argv)
    try:
        if args.command == "draw":
            path = _draw(args)
        else:
            from .report import write_report

            path = write_report(args.dir, args.out)
    except (OSError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(f"wrote {path}")
    return 0


def _draw(args: argparse.Namespace) -> Path:
    from . import network

    source = Path(args.report)
    out = Path(args.out) if args.out else source.with_suffix(".svg")
    fmt = out.suffix.lstrip(".").lower()
    if fmt not in FORMATS:
        raise ValueError(f"--out {out}: the format comes from the extension, which must be one of .{', .'.join(FORMATS)}")
    result = network.load_report(source)
    nodes = None if args.nodes == "none" else args.nodes
    fig = network.draw(result, args.value, vc=args.vc, nodes=nodes, aggregate=args.aggregate, vmax=args.vmax, title=args.title, frames=args.frames)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, format=fmt, dpi=120)
    return out


if __name__ == "__main__":
    sys.exit(main())
