"""An arbitration comparison on SeaStar routers (presets/seastar-xt3.toml): round-robin
vs age-based output arbitration when seven sources merge onto one node of an 8-node line
(the SC07 aging paper's Figure 4). Round robin halves the share of each source at every
hop from the destination (P6 gets 1/2, P5 1/4, ...); age-based arbitration brings the
shares much closer to equal.

    python examples/arbitration.py [--quick] [--out DIR]

Writes DIR/fairness.png (per-source throughput of both) and prints Jain's index of the
seven senders' throughput under each.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import flitsim
from flitsim import plots

PRESET = Path(__file__).resolve().parents[1] / "presets" / "seastar-xt3.toml"

ARBITERS = {
    "round robin": {"router.age_rr_select": 0},
    "age-based": {"router.age_rr_select": "0xffffffffffffffff", "router.age_clock_period": 8},
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="shorter runs (a test's size)")
    parser.add_argument("--out", type=Path, default=Path("arbitration-out"))
    args = parser.parse_args()

    merge = {
        "topology.type": "mesh",
        "topology.dims": [8],
        "router.vcs": 1,
        "routing.classes": 1,
        "routing.order": [0],
        "router.req_age_bias": [1],
        "router.rsp_age_bias": [1],
        "traffic.load": 1.0,
        "traffic.packet_size": 1,
        "traffic.pattern": {"type": "merge_to_one", "dest": 7},
        "sim.warmup": 1000 if args.quick else 5000,
        "sim.measure": 8000 if args.quick else 64000,
        "sim.drain_limit": 0,
    }
    results = {name: flitsim.simulate(PRESET, set={**merge, **arbiter}) for name, arbiter in ARBITERS.items()}
    for name, r in results.items():
        sent = r.per_source["delivered"][:7]
        jain = sent.sum() ** 2 / (len(sent) * (sent**2).sum())
        shares = sent / sent.sum()
        print(f"{name:>12}: Jain's index of the 7 senders {jain:.4f}; shares of P0..P6 " + " ".join(f"{s:.3f}" for s in shares))
    args.out.mkdir(parents=True, exist_ok=True)
    plots.fairness(results, title="merging onto P7: throughput per source").savefig(args.out / "fairness.png")
    print(f"wrote {args.out / 'fairness.png'}")


if __name__ == "__main__":
    main()
