"""A load-latency study: latency and accepted throughput against offered load on a torus
under two traffic patterns, several seeds, results kept in a store (a second run is free).

    python examples/load_latency.py [--quick] [--out DIR]

Writes DIR/latency.png, DIR/throughput.png and DIR/report.html; prints the last
unsaturated load of each pattern.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import flitsim
from flitsim import plots
from flitsim.report import write_report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="a 4x4 torus and short runs (a test's size)")
    parser.add_argument("--out", type=Path, default=Path("load-latency-out"))
    args = parser.parse_args()

    size = 4 if args.quick else 8
    loads = [0.1, 0.4, 0.7] if args.quick else [round(0.05 * i, 2) for i in range(1, 20)]
    config = {
        "topology": {"type": "torus", "dims": [size, size]},
        "router": {"vcs": 4, "buffer_depth": 8},
        "sim": {"warmup": 200 if args.quick else 3000, "measure": 600 if args.quick else 10000, "drain_limit": 20000},
    }
    df = flitsim.sweep(
        config,
        grid={"traffic.pattern.type": ["uniform", "transpose"], "traffic.load": loads},
        seeds=2 if args.quick else 3,
        store=args.out / "store",
        jobs=2 if args.quick else None,
    )
    print(df.groupby(["traffic.pattern.type", "traffic.load"])[["accepted", "latency_mean", "saturated"]].mean().to_string())
    for pattern, part in df.groupby("traffic.pattern.type"):
        ok = part[~part["saturated"]]
        print(f"{pattern}: last unsaturated load {ok['load'].max() if len(ok) else 'none'}")

    plots.latency_vs_load(df, series="traffic.pattern.type").savefig(args.out / "latency.png")
    plots.throughput_vs_load(df, series="traffic.pattern.type").savefig(args.out / "throughput.png")
    print(f"wrote {write_report(args.out / 'store', args.out / 'report.html')}")


if __name__ == "__main__":
    main()
