#!/usr/bin/env python3
"""For which failure sets do the XT's section 2.2 rules give deadlock-free routes?

Checks the routes around many failure sets on the 11x12x16 torus of `faults.toml`
(`flitsim routes faults.toml --check`: every pair of live nodes followed, the channel
dependency graph tested for a cycle), each with one dateline node per dimension (the
paper's XT, `routing.ring_datelines = "dimension"`) and with a dateline node per broken
ring just past its failure (`"at_failures"`, flitsim's default), and prints one line per
set and a summary per kind of set. No simulation: about 1.5 s per check, 3 min in all.

Needs the flitsim binary (FLITSIM, default `flitsim` on the PATH).

    python3 fault_sets.py            # the table in README ("Which failure sets")
"""

import json
import os
import random
import subprocess
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
X, Y, Z = 11, 12, 16
MODES = ["dimension", "at_failures"]


def rid(x, y, z):
    return x + X * (y + Y * z)


def check(mode, sets):
    cmd = [os.environ.get("FLITSIM", "flitsim"), "routes", str(HERE / "faults.toml"), "--check", "--json",
           "--set", f'routing.ring_datelines="{mode}"']
    for s in sets:
        cmd += ["--set", s]
    # (The exit status says whether the routes passed; the JSON says how.)
    out = subprocess.run(cmd, capture_output=True, text=True)
    try:
        d = json.loads(out.stdout)
    except json.JSONDecodeError:
        raise SystemExit(f"{' '.join(cmd)} failed: {out.stderr.strip()}")
    return d["acyclic"], d["unreachable_pairs"], d["dropped_pairs"]


def cases():
    """(kind, label, --set overrides): random shapes from a fixed seed."""
    rng = random.Random(7)
    nodes = lambda ids: ["faults.random_link_fraction=0", "faults.nodes=[" + ",".join(map(str, ids)) + "]"]
    for _ in range(8):
        x, y, z = rng.randrange(X), rng.randrange(Y), rng.randrange(Z)
        yield "one node", f"({x},{y},{z})", nodes([rid(x, y, z)])
    for _ in range(4):
        x, y, z = rng.randrange(X), rng.randrange(Y), rng.randrange(Z)
        yield "four nodes in a z line", f"({x},{y},{z}..{z + 3})", nodes([rid(x, y, (z + j) % Z) for j in range(4)])
    for _ in range(4):
        x, y, z = rng.randrange(X), rng.randrange(Y), rng.randrange(Z)
        yield "four nodes in a y line", f"({x},{y}..{y + 3},{z})", nodes([rid(x, (y + j) % Y, z) for j in range(4)])
    for f, n in [(0.001, 6), (0.002, 13), (0.005, 32), (0.01, 63)]:
        for seed in range(1, 9):
            yield f"{f:.1%} random links ({n})", f"seed {seed}", [f"faults.random_link_fraction={f}", f"faults.seed={seed}"]


def main():
    summary = defaultdict(lambda: {m: [0, 0] for m in MODES})
    for kind, label, sets in cases():
        line = [f"{kind} {label}:"]
        for m in MODES:
            acyclic, unreachable, dropped = check(m, sets)
            summary[kind][m][0] += acyclic and unreachable == 0 and dropped == 0
            summary[kind][m][1] += 1
            line.append(f"{m} {'acyclic' if acyclic else 'CYCLE'}" + (f", {unreachable} pairs unconnected" if unreachable else "")
                        + (f", {dropped} dropped" if dropped else ""))
        print("  ".join(line), flush=True)
    print()
    print("| failure set | deadlock-free and complete, one dateline per dimension | the same, a dateline per broken ring |")
    print("|---|---|---|")
    for kind, s in summary.items():
        print(f"| {kind} | {s['dimension'][0]} of {s['dimension'][1]} | {s['at_failures'][0]} of {s['at_failures'][1]} |")


if __name__ == "__main__":
    main()
