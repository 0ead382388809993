#!/usr/bin/env python3
"""Writes HPC Challenge's MPIFFT and PTRANS at the XT paper's scale (2,048 and 2,016 PEs of
the 11x12x16 torus), built from what their 16-rank traces show
(experiments/applications/hpcc-fft-16.ranks and hpcc-ptrans-16.ranks):

- mpifft-2048.ranks: MPIFFT's calls as the trace makes them (a barrier, an allreduce of
  4 B, six all-to-alls on the world, an allreduce of 8 B and a bcast of 8 B), made by
  every one of 2,048 ranks (`*` lines); the all-to-all block is BLOCK_FFT bytes.
- ptrans-2016.ranks.gz: PTRANS's transpose on a 42 x 48 process grid (HPCC's P <= Q
  nearest to square for 2,016 ranks), its grid positions drawn at random as HPCC draws
  them (GRID_SEED), between the trace's barrier and its three allreduces. A block-cyclic
  P x Q grid sends every rank's blocks to lcm(P, Q)^2 / (P Q) = 56 partners: block row i
  = p + a P, block column j = q + b Q (a < 8, b < 7) of rank (p, q) goes to rank
  (j mod P, i mod Q). Each rank sends its 56 messages of BLOCK_PTRANS bytes in that
  order (a, then b), receiving after each the messages of the same (a, b) sent to it, as
  the trace's send-then-receive on the 4 x 4 grid does (there each rank has one
  partner, the transpose: the check below).

    python3 apps.py        # rewrites both files (deterministic)
"""

import gzip
import random
from math import lcm
from pathlib import Path

HERE = Path(__file__).resolve().parent
TRACES = HERE.parent / "applications"

BLOCK_FFT = 2048  # bytes per all-to-all block: 256 flits of 8 B, bandwidth-bound
BLOCK_PTRANS = 1024  # bytes per transpose message: 128 flits of 8 B
GRID_SEED = 1


def fft_calls():
    """Rank 0's calls in the MPIFFT trace, computation dropped."""
    calls = []
    for line in (TRACES / "hpcc-fft-16.ranks").read_text().splitlines():
        f = line.split()
        if f and f[0] == "0" and f[1] != "compute":
            calls.append(f[1:])
    return calls


def mpifft(ranks=2048):
    calls = fft_calls()
    assert [c[0] for c in calls] == ["barrier", "allreduce"] + ["alltoall"] * 6 + ["allreduce", "bcast"], calls
    out = [f"# HPCC MPIFFT on {ranks} ranks, from hpcc-fft-16.ranks by apps.py: the trace's calls,",
           f"# each made by every rank, all-to-all blocks of {BLOCK_FFT} B.", f"ranks {ranks}"]
    for c in calls:
        if c[0] == "alltoall":
            c = ["alltoall", str(BLOCK_FFT)]
        out.append("* " + " ".join(c))
    return "\n".join(out) + "\n"


def transpose(P, Q):
    """Per grid rank g = p Q + q and block class k (a, b): the grid rank it sends to."""
    L = lcm(P, Q)
    classes = [(a, b) for a in range(L // P) for b in range(L // Q)]
    dest = {}
    for g in range(P * Q):
        p, q = divmod(g, Q)
        for k, (a, b) in enumerate(classes):
            i, j = p + a * P, q + b * Q
            dest[g, k] = (j % P) * Q + (i % Q)
    return len(classes), dest


def ptrans(P=42, Q=48):
    n = P * Q
    grid = list(range(n))
    random.Random(GRID_SEED).shuffle(grid)  # grid rank g runs as world rank grid[g]
    classes, dest = transpose(P, Q)
    senders = {}
    for (g, k), d in dest.items():
        senders.setdefault((d, k), []).append(g)
    out = [f"# HPCC PTRANS on {n} ranks ({P} x {Q} grid, drawn with seed {GRID_SEED}), by apps.py:",
           f"# {classes} transpose messages of {BLOCK_PTRANS} B per rank.", f"ranks {n}", "* barrier"]
    for g in range(n):
        w = grid[g]
        for k in range(classes):
            if dest[g, k] != g:
                out.append(f"{w} send {grid[dest[g, k]]} {BLOCK_PTRANS}")
            for s in senders.get((g, k), []):
                if s != g:
                    out.append(f"{w} recv {grid[s]} {BLOCK_PTRANS}")
    out += ["* allreduce 16", "* allreduce 8", "* allreduce 8"]
    return "\n".join(out) + "\n"


def check_against_the_trace():
    """On 4 x 4 every rank sends one message, to its transpose partner; the trace's
    exchange goes to the same partner on its grid communicator."""
    classes, dest = transpose(4, 4)
    assert classes == 1 and all(dest[g, 0] == (g % 4) * 4 + g // 4 for g in range(16))
    lines = (TRACES / "hpcc-ptrans-16.ranks").read_text().splitlines()
    comm1 = [int(x) for x in next(l for l in lines if l.startswith("comm 1 ")).split()[2].split(",")]
    for line in lines:
        f = line.split()
        if len(f) >= 5 and f[1] == "send" and f[4] == "comm=1":
            me, peer = comm1.index(int(f[0])), int(f[2])
            assert peer == dest[me, 0], (line, me, peer)
    # 42 x 48: 56 distinct partners per rank, every rank receiving 56 messages.
    classes, dest = transpose(42, 48)
    assert classes == 56
    assert all(len({dest[g, k] for k in range(56)}) == 56 for g in range(2016))


if __name__ == "__main__":
    check_against_the_trace()
    (HERE / "mpifft-2048.ranks").write_text(mpifft())
    with gzip.GzipFile(HERE / "ptrans-2016.ranks.gz", "wb", mtime=0) as f:
        f.write(ptrans().encode())
    print("wrote mpifft-2048.ranks and ptrans-2016.ranks.gz")
