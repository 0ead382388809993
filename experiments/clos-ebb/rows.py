#!/usr/bin/env python3
"""Write experiment.toml for the clos-ebb study (run from this folder: python3 rows.py).

Every eBB row averages (or takes the least / greatest of) one metric over `PATTERNS`
random bisections (`over`), relative to the uncontended pair: the same network and
messages on one line card (16 nodes, one crossbar), where nothing contends.
"""

PATTERNS = 8  # the paper measured 5,000 per configuration; see README.md

# The paper's static tables behave like pseudo-random routes per pair (its bridge
# result, 56% for static, rules out destination-mod-k, which is contention-free there).
# The dispersive schemes start from the same table: adaptive routing "behaves as static
# routing when no contention is sensed" (section 4.2), so what they gain over static is
# what their route changes gain.
TABLE = 'routing.static_scheme="hashed"'
SCHEMES = {
    "static": ['routing.selection="static"', TABLE],
    "random oblivious": ['routing.selection="random"'],
    "adaptive (4, 50%)": ['routing.selection="adaptive"', TABLE, "routing.threshold=4", "routing.probability=0.5"],
    "probing adaptive (16, 100%)": ['routing.selection="probing"', TABLE, "routing.threshold=16", "routing.probability=1.0"],
}

# The paper's numbers on the random bisections (fractions of its 1,090 MiB/s pair),
# keyed by (scheme, nodes, aggregate): (reference, compare, tolerance, judges, source).
# TOL: the tolerance of every magnitude row. The paper's averages are over 5,000
# patterns, given to 0.01; ours over 8 patterns carry a 95% confidence interval of
# +-0.01-0.03 (printed by the run), and the 2.5-fold smaller volume (20 messages of
# 1 MiB, not 50) moves probing's average by up to 0.02 and a single probing pattern by
# up to 0.04 (README.md, "Scaled"; static and random oblivious not at all): 0.08
# covers these, no more.
TOL = 0.08
PAPER = {
    ("static", 512, "mean"): (0.38, "within", TOL, None, "paper abstract and sec. 5.3: 414.3 MiB/s = 38% at 512 nodes (Fig. 2)"),
    ("random oblivious", 256, "mean"): (0.52, "within", TOL, None, "paper sec. 5.3: random oblivious stagnates around 566.6 MiB/s = 52% (Fig. 3; 256 and 512 nodes)"),
    ("random oblivious", 512, "mean"): (0.52, "within", TOL, None, "paper sec. 5.3: random oblivious stagnates around 566.6 MiB/s = 52% (Fig. 3; 256 and 512 nodes)"),
    ("random oblivious", 512, "max"): (0.586, "at_most", 0.0, None, "paper sec. 3.1 and 5.3: Karol's 58.6% head-of-line bound (623.5 MiB/s), which random oblivious stays under: every pattern's eBB <= 0.586"),
    ("probing adaptive (16, 100%)", 128, "mean"): (0.92, "within", TOL, None, "paper sec. 5.3: probing delivers 92% of full bisection at 128 nodes (Fig. 5)"),
    ("probing adaptive (16, 100%)", 512, "mean"): (0.77, "within", TOL, None, "paper abstract and sec. 5.3: probing delivers 77% at 512 nodes (Fig. 5)"),
    ("probing adaptive (16, 100%)", 512, "min"): (0.72, "at_least", 0.0, None, "paper sec. 5.3: in the worst case a minimum of 72% is sustained; the least of 5,000 patterns lies below the least of our 8, so only >= 0.72 is judged"),
    ("probing adaptive (16, 100%)", 32, "max"): (1.0, "within", 0.03, None, "paper abstract and sec. 5.3: full bisection (100%) in the best case up to 256 nodes (Fig. 5); +-0.03: the figure's precision"),
}

# Probing's best case at 64-256 nodes ("full bisection in the best case up to 256
# nodes"): the best of the 8 patterns at the study's 20 MiB per flow, rerun at the
# paper's volume (50 messages of 1 MiB per flow), where probing has longer to settle.
# One run each.
FULL_VOLUME = "traffic.message.per_source=50"
BEST_PATTERN = {64: 4, 128: 0, 256: 7}

BASELINE = ["topology.nodes=16", 'traffic.pattern={ type = "random_bisection", index = 0 }']


def q(s):
    return "'" + s + "'"


def row(name, sets, metric, reference=None, compare="report", tolerance=0.0, source="paper Fig. 6 (curve only)", over=True, aggregate="mean", baseline=BASELINE, judges=None, reason=None, seeds=None):
    out = ["[[row]]", f'name = "{name}"', 'config = "clos.toml"', "set = [" + ", ".join(q(s) for s in sets) + "]", f'metric = "{metric}"']
    if over:
        out.append(f'over = {{ key = "traffic.pattern.index", count = {PATTERNS} }}')
        out.append(f'aggregate = "{aggregate}"')
    if seeds:
        out.append(f"seeds = {seeds}")
    if baseline is not None:
        out.append("relative_to = [" + ", ".join(q(s) for s in baseline) + "]")
    if reference is not None:
        out.append(f"reference = {reference}")
    out.append(f'compare = "{compare}"')
    if judges:
        out.append(f'judges = "{judges}"')
    if tolerance:
        out.append(f"tolerance = {tolerance}")
    if reason:
        out.append(f'reason = "{reason}"')
    out.append(f'source = "{source}"')
    return "\n".join(out) + "\n"


def main():
    rows = []
    for nodes in [32, 64, 128, 256, 512]:
        for scheme, sets in SCHEMES.items():
            s = [f"topology.nodes={nodes}"] + sets
            for agg, what in [("mean", "average"), ("min", "min over patterns"), ("max", "max over patterns")]:
                ref = PAPER.get((scheme, nodes, agg))
                if ref:
                    value, compare, tol, judges, source = ref
                    rows.append(row(f"eBB {nodes} nodes, {scheme}: {what}", s, "messages.flow_bandwidth.mean", value, compare, tol, source, aggregate=agg, judges=judges))
                else:
                    rows.append(row(f"eBB {nodes} nodes, {scheme}: {what}", s, "messages.flow_bandwidth.mean", aggregate=agg))
    # Probing's best case at the paper's volume (see BEST_PATTERN).
    for nodes, pattern in BEST_PATTERN.items():
        s = [f"topology.nodes={nodes}", f'traffic.pattern={{ type = "random_bisection", index = {pattern} }}', FULL_VOLUME] + SCHEMES["probing adaptive (16, 100%)"]
        rows.append(row(f"eBB {nodes} nodes, probing adaptive (16, 100%): best pattern ({pattern}) at 50 x 1 MiB", s, "messages.flow_bandwidth.mean", 1.0, "within", 0.03, "paper abstract and sec. 5.3: full bisection (100%) in the best case up to 256 nodes (Fig. 5); the best of our 8 patterns at 20 MiB, rerun at the paper's 50 MiB; +-0.03: the figure's precision", over=False, baseline=BASELINE + [FULL_VOLUME]))
    # The uncontended pair in MiB/s against the paper's ping-pong pair.
    rows.append(row("uncontended pair (16 nodes, one line card), MiB/s", ["topology.nodes=16"], "messages.flow_mib_per_s.mean", 1090, over=False, baseline=None, reason="the NIC's and MPI's per-message costs are not modelled: our pair runs at the link's 10 Gb/s (1,192 MiB/s); every eBB here is relative to our pair and the paper's to its own, so the difference cancels", source="paper sec. 5.3: the nominal ping-pong bandwidth of two nodes, 1090 MiB/s, the baseline of every eBB"))
    # Figure 7: the bridge pattern (line card 2i paired with line card 2i + 1), one
    # pattern per size. Static routing depends on the table drawn from the seed: its
    # rows average 4 seeds (tables).
    for nodes in [64, 256, 512]:
        for scheme, sets in SCHEMES.items():
            s = [f"topology.nodes={nodes}", 'traffic.pattern={ type = "bridge", per_switch = 16 }'] + sets
            if scheme.startswith("probing"):
                rows.append(row(f"bridge {nodes} nodes, {scheme}", s, "messages.flow_bandwidth.mean", 0.98, "at_least", 0.0, "paper sec. 5.4: over 98% at any size (Fig. 7); a fraction of the uncontended pair cannot exceed 1, so >= 0.98 places it within 0.02", over=False, judges="magnitude"))
            elif scheme == "static":
                rows.append(row(f"bridge {nodes} nodes, {scheme} (4 tables)", s, "messages.flow_bandwidth.mean", 0.56, "within", TOL, "paper sec. 5.4: all the other methods average around 56% (Fig. 7)", over=False, baseline=BASELINE, seeds=4))
            else:
                rows.append(row(f"bridge {nodes} nodes, {scheme}", s, "messages.flow_bandwidth.mean", 0.56, "within", TOL, "paper sec. 5.4: all the other methods average around 56% (Fig. 7)", over=False))
    # Section 5.3's parameter study at 128 nodes (threshold 0, 4, 8, 16; probability
    # 50%, 100%): "for small configurations (up to 128 nodes), the choice of parameters
    # was not significant, i.e. all results were in a range of 10% of each other for most
    # parameters", (16, 100%) the best: every combination >= 92% less 10%, 0.83. (16,
    # 100%) itself is the eBB 128-node probing row.
    for threshold in [0, 4, 8, 16]:
        for p in [0.5, 1.0]:
            if (threshold, p) == (16, 1.0):
                continue
            s = ["topology.nodes=128", 'routing.selection="probing"', TABLE, f"routing.threshold={threshold}", f"routing.probability={p}"]
            rows.append(row(f"probing 128 nodes, threshold {threshold}, probability {int(p * 100)}%: average", s, "messages.flow_bandwidth.mean", 0.83, "at_least", 0.0, "paper sec. 5.3: up to 128 nodes all (threshold, probability) results within 10% of each other, the best (16, 100%) at 92%: >= 0.83", judges="direction"))
    # Section 4.4, convergence: when the probing NICs made their last route change, and
    # how many changes and probes it took (pattern 0).
    for nodes in [128, 512]:
        s = [f"topology.nodes={nodes}", 'routing.selection="probing"', TABLE, "routing.threshold=16", "routing.probability=1.0", 'traffic.pattern={ type = "random_bisection", index = 0 }']
        for metric, what in [("dispersion.last_change", "last route change (cycle)"), ("cycles", "run length (cycles)"), ("dispersion.route_changes", "route changes"), ("dispersion.probes", "probes"), ("dispersion.forced", "forced dispersions")]:
            rows.append(
                "\n".join(
                    [
                        "[[row]]",
                        f'name = "convergence {nodes} nodes, probing: {what}"',
                        'config = "clos.toml"',
                        "set = [" + ", ".join(q(x) for x in s) + "]",
                        f'metric = "{metric}"',
                        'compare = "report"',
                        'source = "paper sec. 4.4.1 estimates 2n = 32 packets (128 KB) per pair to find a free route among 16; it measures none of these"',
                    ]
                )
                + "\n"
            )
        # The probing time: a probe's round trip, queueing to reply, in microseconds
        # (51.2 ns per 64-byte flit at 10 Gb/s).
        rows.append(
            "\n".join(
                [
                    "[[row]]",
                    f'name = "convergence {nodes} nodes, probing: mean probe round trip (us)"',
                    'config = "clos.toml"',
                    "set = [" + ", ".join(q(x) for x in s) + "]",
                    'metric = "dispersion.round_trip_cycles"',
                    'divide_by = "dispersion.answers"',
                    "scale = 0.0512",
                    "reference = 4.0",
                    'compare = "report"',
                    'reason = "the paper gives an order of magnitude for an idle path (one 4 KB packet time, 3.5 us), not a measurement; ours is measured under contention, where a NIC probes only once flow control has stopped it, so probe and reply wait behind both NICs\' blocked data (README.md)"',
                    'source = "paper sec. 4.4.1: the probing time is a round trip, about 4 us (a 4 KB packet takes 3.5 us to inject); its figure is for an idle path"',
                ]
            )
            + "\n"
        )
    head = '''title = "Effective bisection bandwidth on a Clos: static, random oblivious, adaptive and probing adaptive source routing (Geoffray & Hoefler)"
description = """
Figures 2-7: eBB as a fraction of the uncontended pair bandwidth (the same messages on one
line card), average / min / max over random bisections, 32 to 512 nodes of 32-port crossbars.
Each pair's two directions coupled message by message (ping-ping, traffic.message.exchange).
Scaled: 20 messages of 1 MiB per pair instead of 50, %d patterns instead of 5,000.
See README.md.
"""

''' % PATTERNS
    with open(__import__("pathlib").Path(__file__).with_name("experiment.toml"), "w") as f:
        f.write(head + "\n".join(rows))


if __name__ == "__main__":
    main()
