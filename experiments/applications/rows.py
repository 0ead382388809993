#!/usr/bin/env python3
"""Write experiment.toml for the applications study (run from this folder: python3 rows.py).

Every trace (recorded by record.py) is replayed on every fabric with each of its
options, computation dropped (the traces were recorded with 16 ranks on 2 cores, where a
rank's computation is stretched by waiting for a core: see README.md), so the metric is
the communication time the fabric gives the program. Each fabric's second option is
also reported relative to its first. No paper gives these numbers: every row is
reported, none judged.
"""

TRACES = {
    "HPCC MPIFFT": "hpcc-fft-16.ranks",
    "HPCC PTRANS": "hpcc-ptrans-16.ranks",
    "LAMMPS LJ melt": "lammps-lj-16.ranks",
}

AGE = ['router.age_rr_select="0xffffffffffffffff"', "router.age_clock_period=8", "router.req_age_bias=[3, 2, 1]", "router.rsp_age_bias=[3, 2, 1]"]
TABLE = ['routing.type="table"']

# fabric: (config, [(option name, overrides)]); the first option is the baseline.
FABRICS = {
    "SeaStar 4x4x4": ("seastar.toml", [("round robin", []), ("age-based (period 8, biases 3,2,1)", AGE)]),
    "XT tables 4x4x4": ("seastar.toml", [("initial VCs", TABLE + ['routing.vc_policy="initial"']), ("v3 VCs", TABLE + ['routing.vc_policy="v3"'])]),
    "Kautz K(3,3)": ("kautz.toml", [("source routes", [])]),
    "Clos 64": (
        "clos.toml",
        [("static", []), ("probing (16, 100%)", ['routing.selection="probing"', "routing.threshold=16", "routing.probability=1.0"])],
    ),
    "Torus 8x8, adaptive": ("tuned.toml", [("no throttling", []), ("self-tuned", ['congestion.policy="tune"'])]),
    "Dragonfly 72": ("dragonfly.toml", [("minimal", []), ("UGAL", ['routing.mode="ugal"'])]),
}


def toml_list(items):
    return "[" + ", ".join("'" + i + "'" for i in items) + "]"


def row(name, config, settings, metric, source, relative=None):
    lines = ["[[row]]", f'name = "{name}"', f'config = "{config}"', f"set = {toml_list(settings)}", f'metric = "{metric}"']
    if relative is not None:
        lines.append(f"relative_to = {toml_list(relative)}")
    lines += ['compare = "report"', f'source = "{source}"']
    return "\n".join(lines) + "\n"


def main():
    out = [
        'title = "Applications on the papers\' fabrics: HPCC and LAMMPS traced at 16 ranks, replayed"',
        'description = """',
        "Real MPI programs (Debian's hpcc and lammps) traced on this machine at 16 ranks (record.py),",
        "replayed on small versions of the five papers' fabrics and a dragonfly with each fabric's",
        "options: the predicted communication time, and the time measured on this machine. See README.md.",
        '"""',
        "",
    ]
    for trace, file in TRACES.items():
        tfile = f'traffic.trace.file="{file}"'
        out.append(row(
            f"{trace}: time measured in MPI on this machine (longest rank), ns",
            "seastar.toml", [tfile], "trace.app.measured.mpi_ns_max",
            "the trace: 16 ranks on 2 cores (oversubscribed), Open MPI over shared memory"))
        for fabric, (config, options) in FABRICS.items():
            base = [tfile] + options[0][1]
            for name, settings in options:
                out.append(row(f"{trace} on {fabric}, {name}: communication time, ns", config, [tfile] + settings,
                               "trace.app.time_ns", "ours: no paper gives it"))
            for name, settings in options[1:]:
                out.append(row(f"{trace} on {fabric}: {name} / {options[0][0]}, communication time", config,
                               [tfile] + settings, "trace.app.time_ns", "ours: no paper gives it", relative=base))
    with open("experiment.toml", "w") as f:
        f.write("\n".join(out))


if __name__ == "__main__":
    main()
