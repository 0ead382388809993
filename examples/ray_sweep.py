"""A sweep on a Ray cluster: the same call as a local sweep with backend="ray".

    python examples/ray_sweep.py                   # starts Ray on this machine
    python examples/ray_sweep.py --address auto    # joins the cluster `ray start --head` started here
    python examples/ray_sweep.py --address ray://HEAD:10001

Every node needs the same flitsim (and Ray) version installed. Results go to a store on
the machine running this script, so an interrupted sweep resumes; the table is the same,
bit for bit, as with the local backend (--check runs both and compares).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pandas as pd

import flitsim


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--address", default=None, help='a Ray cluster ("auto", "HOST:6379", "ray://HOST:10001"); default: start one here')
    parser.add_argument("--cpus", type=int, default=None, help="CPUs of the Ray started here (default: every core)")
    parser.add_argument("--quick", action="store_true", help="a small grid (a test's size)")
    parser.add_argument("--check", action="store_true", help="also run the local backend and compare")
    parser.add_argument("--out", type=Path, default=Path("ray-sweep-out"))
    args = parser.parse_args()

    config = {"topology": {"type": "torus", "dims": [4, 4] if args.quick else [8, 8]}, "sim": {"warmup": 300, "measure": 1000 if args.quick else 10000}}
    grid = {"router.vcs": [2, 4], "traffic.load": [0.1, 0.3] if args.quick else [0.1, 0.2, 0.3, 0.4, 0.5]}
    df = flitsim.sweep(config, grid=grid, seeds=2, backend="ray", address=args.address, jobs=args.cpus, store=args.out / "store")
    print(df.pivot_table(index="traffic.load", columns="router.vcs", values="latency_mean").to_string())
    if args.check:
        local = flitsim.sweep(config, grid=grid, seeds=2, jobs=2, progress=False)
        pd.testing.assert_frame_equal(df, local, check_exact=True)
        print("the local backend gives the same table, bit for bit")


if __name__ == "__main__":
    main()
