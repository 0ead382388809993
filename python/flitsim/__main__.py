"""``python -m flitsim report DIR [--out FILE]``: the HTML report of a results directory
(what ``flitsim report`` runs; see :mod:`flitsim.report`)."""

from __future__ import annotations

import argparse
import sys


def main(argv: list[str] | None = None) -> int:
    """The command line of ``python -m flitsim``; returns the exit code."""
    parser = argparse.ArgumentParser(prog="python -m flitsim", description="flitsim's Python commands")
    commands = parser.add_subparsers(dest="command", required=True)
    report = commands.add_parser("report", help="write a self-contained HTML report of a results store, reproduction or sweep directory")
    report.add_argument("dir", help="the directory: a results store, `flitsim reproduce --out` or `flitsim sweep --out` output")
    report.add_argument("-o", "--out", help="the HTML file to write (default: DIR/report.html)")
    args = parser.parse_args(argv)
    from .report import write_report

    try:
        path = write_report(args.dir, args.out)
    except (OSError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
