#!/usr/bin/env python3
"""The analytic estimate of static routing's eBB on the Clos of clos.toml (README.md).

Random bisections as the benchmark draws them (every node exchanging with its peer both
ways at once), each flow between line cards on one spine drawn uniformly from `spines`
of the 16 (a random per-pair table), its rate the max-min fair share of the links it
crosses (up link of its line card, down link of the spine). Fair round-robin crossbars
with one-packet buffers deliver this share (flows on one bottleneck finish together, so
the benchmark's s / t_p is the fair share). Prints the mean over patterns.

Then the same with the two directions of a pair coupled, as the paper's MPI benchmark
couples them (ping-ping / MPI_Sendrecv, one message at a time each way; README.md): the
pair is one commodity on the links of both its flows, so both directions get the
smaller share.

    python3 fair_share.py      # a few seconds
"""
import random
import statistics


def pattern(rng, nodes):
    order = list(range(nodes))
    rng.shuffle(order)
    a, b = order[: nodes // 2], order[nodes // 2 :]
    return [f for x, y in zip(a, b) for f in ((x, y), (y, x))]


def routes(flows, rng, spines, per_card=16):
    out = []
    for s, d in flows:
        if s // per_card == d // per_card:
            out.append([])  # on one crossbar: no shared link
        else:
            sp = rng.randrange(spines)
            out.append([("up", s // per_card, sp), ("down", sp, d // per_card)])
    return out


def max_min(links):
    cap, rate, left = {}, {}, set(range(len(links)))
    for ls in links:
        for l in ls:
            cap[l] = 1.0
    while left:
        count = {}
        for i in left:
            for l in links[i]:
                count[l] = count.get(l, 0) + 1
        share = min([1.0] + [cap[l] / n for l, n in count.items()])
        done = {i for i in left if share >= 1.0 or any(abs(cap[l] / count[l] - share) < 1e-12 for l in links[i])}
        for i in done:
            rate[i] = share
            for l in links[i]:
                cap[l] -= share
        left -= done
    return statistics.mean(rate.values())


rng = random.Random(1)
for nodes in [32, 64, 128, 256, 512]:
    print(f"{nodes} nodes, random table over 16 spines: {statistics.mean(max_min(routes(pattern(rng, nodes), rng, 16)) for _ in range(12)):.3f}")
for spines in [12, 10, 8]:
    print(f"512 nodes, routes drawn from {spines} of the 16 spines: {statistics.mean(max_min(routes(pattern(rng, 512), rng, spines)) for _ in range(12)):.3f}")
print(f"bridge (a flow's spine fixes its up and down link), one stage of balls in bins: 1 - (15/16)^16 = {1 - (15 / 16) ** 16:.3f}")


def coupled(flows, rs):
    """Pairs as commodities: flows come in (x, y), (y, x) order (pattern(), bridge())."""
    return [rs[i] + rs[i + 1] for i in range(0, len(flows), 2)]


def bridge(nodes, per_card=16):
    return [f for i in range(nodes // (2 * per_card)) for q in range(per_card) for x, y in [(2 * i * per_card + q, (2 * i + 1) * per_card + q)] for f in ((x, y), (y, x))]


for nodes in [32, 64, 128, 256, 512]:
    vals = []
    for _ in range(12):
        flows = pattern(rng, nodes)
        vals.append(max_min(coupled(flows, routes(flows, rng, 16))))
    print(f"{nodes} nodes, random table, the pair's directions coupled: {statistics.mean(vals):.3f}")
for nodes in [64, 256, 512]:
    vals = []
    for _ in range(12):
        flows = bridge(nodes)
        vals.append(max_min(coupled(flows, routes(flows, rng, 16))))
    print(f"bridge, {nodes} nodes, random table, coupled: {statistics.mean(vals):.3f}")
