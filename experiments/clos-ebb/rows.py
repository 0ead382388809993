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

# Paper values (fractions of the 1,090 MiB/s pair bandwidth), section 5.3 and 5.4.
PAPER = {
    ("static", 512): (0.38, "within", 0.08, "paper sec. 5.3: 414.3 MiB/s = 38% at 512 nodes (Fig. 2)"),
    ("random oblivious", 512): (0.52, "within", 0.08, "paper sec. 5.3: stalls near 566.6 MiB/s = 52% (Fig. 3), under Karol's 58.6%"),
    ("probing adaptive (16, 100%)", 128): (0.92, "within", 0.08, "paper sec. 5.3: 92% of full bisection at 128 nodes (Fig. 5)"),
    ("probing adaptive (16, 100%)", 512): (0.77, "within", 0.08, "paper sec. 5.3: 77% at 512 nodes (Fig. 5)"),
}

# The bridge rows' exchange: 64 messages of 256 KiB per flow (16 MiB; the paper: 50 MiB).
BRIDGE_VOLUME = "traffic.message.per_source=64"

BASELINE = ["topology.nodes=16", 'traffic.pattern={ type = "random_bisection", index = 0 }']


def q(s):
    return "'" + s + "'"


def row(name, sets, metric, reference=None, compare="report", tolerance=0.0, source="paper Fig. 6 (curve only)", over=True, aggregate="mean", baseline=BASELINE):
    out = ["[[row]]", f'name = "{name}"', 'config = "clos.toml"', "set = [" + ", ".join(q(s) for s in sets) + "]", f'metric = "{metric}"']
    if over:
        out.append(f'over = {{ key = "traffic.pattern.index", count = {PATTERNS} }}')
        out.append(f'aggregate = "{aggregate}"')
    out.append("relative_to = [" + ", ".join(q(s) for s in baseline) + "]")
    if reference is not None:
        out.append(f"reference = {reference}")
    out.append(f'compare = "{compare}"')
    if tolerance:
        out.append(f"tolerance = {tolerance}")
    out.append(f'source = "{source}"')
    return "\n".join(out) + "\n"


def main():
    rows = []
    for nodes in [32, 64, 128, 256, 512]:
        for scheme, sets in SCHEMES.items():
            s = [f"topology.nodes={nodes}"] + sets
            ref = PAPER.get((scheme, nodes))
            if ref:
                value, compare, tol, source = ref
                rows.append(row(f"eBB {nodes} nodes, {scheme}: average", s, "messages.flow_bandwidth.mean", value, compare, tol, source))
            else:
                rows.append(row(f"eBB {nodes} nodes, {scheme}: average", s, "messages.flow_bandwidth.mean"))
            for agg in ["min", "max"]:
                rows.append(row(f"eBB {nodes} nodes, {scheme}: {agg} over patterns", s, "messages.flow_bandwidth.mean", aggregate=agg))
    # Figure 7: the bridge pattern (line card 2i paired with line card 2i + 1), one
    # pattern per size, so with BRIDGE_VOLUME messages per flow (see README.md: probing
    # settles by cycle ~51,000, half of the 4 MiB exchange).
    for nodes in [64, 256, 512]:
        for scheme, sets in SCHEMES.items():
            s = [f"topology.nodes={nodes}", 'traffic.pattern={ type = "bridge", per_switch = 16 }', BRIDGE_VOLUME] + sets
            base = BASELINE + [BRIDGE_VOLUME]
            if scheme.startswith("probing"):
                rows.append(row(f"bridge {nodes} nodes, {scheme}", s, "messages.flow_bandwidth.mean", 0.98, "at_least", 0.0, "paper sec. 5.4: over 98% at any size (Fig. 7)", over=False, baseline=base))
            else:
                rows.append(row(f"bridge {nodes} nodes, {scheme}", s, "messages.flow_bandwidth.mean", 0.56, "report", 0.0, "paper sec. 5.4: the others average around 56% (Fig. 7)", over=False, baseline=base))
    # Section 5.3's parameter study at 128 nodes (threshold 0, 4, 8, 16; probability
    # 50%, 100%): "for small configurations (up to 128 nodes), the choice of parameters
    # was not significant, i.e. all results were in a range of 10% of each other".
    for threshold in [0, 4, 8, 16]:
        for p in [0.5, 1.0]:
            s = ["topology.nodes=128", 'routing.selection="probing"', TABLE, f"routing.threshold={threshold}", f"routing.probability={p}"]
            rows.append(row(f"probing 128 nodes, threshold {threshold}, probability {int(p * 100)}%: average", s, "messages.flow_bandwidth.mean", source="paper sec. 5.3: all within 10% of each other up to 128 nodes"))
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
                    'source = "paper sec. 4.4.1: the probing time is a round trip, about 4 us (a 4 KB packet takes 3.5 us to inject); its figure is for an idle path"',
                ]
            )
            + "\n"
        )
    head = '''title = "Effective bisection bandwidth on a Clos: static, random oblivious, adaptive and probing adaptive source routing (Geoffray & Hoefler)"
description = """
Figures 2-7: eBB as a fraction of the uncontended pair bandwidth (the same messages on one
line card), average / min / max over random bisections, 32 to 512 nodes of 32-port crossbars.
Scaled: 16 messages of 256 KiB per pair instead of 50 of 1 MiB, %d patterns instead of 5,000.
See README.md.
"""

''' % PATTERNS
    with open("experiment.toml", "w") as f:
        f.write(head + "\n".join(rows))


if __name__ == "__main__":
    main()
