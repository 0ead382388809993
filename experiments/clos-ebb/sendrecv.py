#!/usr/bin/env python3
"""The eBB of clos.toml when the two directions of a pair are coupled message by message,
as the paper's benchmark couples them (README.md, "The benchmark couples the two
directions"), against the same pairs streaming independently (what the rows measure).

This is the evidence for the coupled mode the rows now use (`traffic.message.exchange`),
measured before the engine had it, with a trace (`traffic.trace`, `after`). A trace run
reports no per-flow bandwidth, so this script measures each flow's rate over a fixed
window instead: every
node receives one flow, so a node's accepted rate over cycles [0, T] is its flow's rate,
and their mean over the nodes is the eBB while no flow has finished (64 messages of
256 KiB per flow, so even an uncontended flow runs for 262,144 cycles, past T = 80,000).
For static routing and random oblivious the rates are steady and this equals
b_p = s / t_p (static, 512 nodes, pattern 0, independent: 0.512 over the window, 0.513
as b_p). For adaptive and probing it reads lower, since their rates rise
as they settle (probing, 512 nodes, pattern 0: 0.773 against 0.810): compare the two
modes, not the absolute values.

Patterns are drawn with Python's Mersenne Twister (the paper's generator), not the
engine's streams, so they are not the rows' patterns.

    python3 sendrecv.py                  # 512 nodes, 4 patterns, 4 schemes, both modes
    python3 sendrecv.py 256 512 --patterns 8 --schemes static random
    python3 sendrecv.py 64 512 --bridge  # the bridge pattern (one pattern; --tables seeds)

Needs the flitsim binary (FLITSIM, default `flitsim` on the PATH); each run is one
simulation, one at a time.
"""
import argparse
import json
import os
import random
import statistics
import subprocess
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
FLITS = 262144 // 64  # a 256 KiB message in 64-byte flits
MESSAGES = 64
WINDOW = 80000
SCHEMES = {
    "static": ['routing.selection="static"', 'routing.static_scheme="hashed"'],
    "random": ['routing.selection="random"'],
    "adaptive": ['routing.selection="adaptive"', 'routing.static_scheme="hashed"', "routing.threshold=4", "routing.probability=0.5"],
    "probing": ['routing.selection="probing"', 'routing.static_scheme="hashed"', "routing.threshold=16", "routing.probability=1.0"],
}


def pairs(nodes, pattern, bridge):
    if bridge:
        return [(2 * i * 16 + q, (2 * i + 1) * 16 + q) for i in range(nodes // 32) for q in range(16)]
    rng = random.Random(1000 * nodes + pattern)
    order = list(range(nodes))
    rng.shuffle(order)
    return list(zip(order[: nodes // 2], order[nodes // 2 :]))


def trace(path, ps, coupled):
    """Each node sends MESSAGES messages to its peer; coupled: message k + 1 waits for the
    peer's message k (MPI_Sendrecv / IMB PingPing: one message at a time each way)."""
    ids, lines = {}, []
    for k in range(MESSAGES):
        for a, b in ps:
            for s, d in ((a, b), (b, a)):
                dep = f" after={ids[(d, k - 1)]}" if coupled and k else ""
                ids[(s, k)] = len(lines)
                lines.append(f"{s} {d} {FLITS}{dep}")
    path.write_text("\n".join(lines) + "\n")


def config(tmp):
    text = (HERE / "clos.toml").read_text()
    head = text[: text.index("[traffic]")]
    tail = text[text.index("[sim]") :]
    cfg = tmp / "clos_trace.toml"
    cfg.write_text(head + f'[traffic]\ntrace = {{ file = "{tmp / "t.txt"}", packet_flits = 64 }}\n\n' + tail)
    return cfg


def run(cfg, tmp, nodes, sets):
    out = tmp / "out.json"
    cmd = [os.environ.get("FLITSIM", "flitsim"), "run", str(cfg), "-q", "-o", str(out), "-s", f"topology.nodes={nodes}", "-s", "sim.until_done=false", "-s", f"sim.measure={WINDOW}", "-s", "sim.drain_limit=0"]
    for s in sets:
        cmd += ["-s", s]
    subprocess.run(cmd, check=True)
    return json.loads(out.read_text())["stats"]["accepted"]["mean"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("nodes", nargs="*", type=int, default=[512])
    ap.add_argument("--patterns", type=int, default=4)
    ap.add_argument("--tables", type=int, default=1, help="table seeds per pattern")
    ap.add_argument("--schemes", nargs="*", default=list(SCHEMES))
    ap.add_argument("--bridge", action="store_true")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as t:
        tmp = Path(t)
        cfg = config(tmp)
        base = {}
        for coupled in (False, True):
            trace(tmp / "t.txt", pairs(16, 0, False), coupled)
            base[coupled] = run(cfg, tmp, 16, SCHEMES["static"])
        print(f"uncontended pair (16 nodes): independent {base[False]:.4f}, coupled {base[True]:.4f} flits/cycle")
        for nodes in a.nodes:
            for scheme in a.schemes:
                res = {}
                for coupled in (False, True):
                    vals = []
                    for p in range(1 if a.bridge else a.patterns):
                        trace(tmp / "t.txt", pairs(nodes, p, a.bridge), coupled)
                        for seed in range(1, a.tables + 1):
                            vals.append(run(cfg, tmp, nodes, SCHEMES[scheme] + [f"seed={seed}"]) / base[coupled])
                    res[coupled] = vals
                what = "bridge" if a.bridge else "random bisections"
                print(f"{nodes} nodes, {what}, {scheme}: independent {statistics.mean(res[False]):.3f}, coupled {statistics.mean(res[True]):.3f}  ({', '.join(f'{x:.3f}' for x in res[True])})", flush=True)


if __name__ == "__main__":
    main()
