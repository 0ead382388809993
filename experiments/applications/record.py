#!/usr/bin/env python3
"""Record the applications study's traces (run from this folder: python3 record.py).

Runs Debian's `hpcc` (HPC Challenge 1.5, input hpccinf.txt) and `lmp` (LAMMPS, input
lammps-lj.in) on 16 MPI ranks under flitsim's tracer (`flitsim trace record`), and
writes the ranks text traces the study replays:

- hpcc-fft-16.ranks: HPCC's MPIFFT, the world collectives from the barrier before its
  six all-to-alls to the barrier after them;
- hpcc-ptrans-16.ranks: HPCC's PTRANS, from the barrier before its first run of ten or
  more allreduces (the transposes and their checks) to the barrier after it;
- lammps-lj-16.ranks: the whole LAMMPS run.

Needs flitsim built with the otf2 feature (FLITSIM names the binary; default
`flitsim`), Open MPI's mpirun, hpcc and lmp (Debian: apt-get install hpcc lammps
libotf2-trace-dev libopenmpi-dev). The traces are checked in, so the study runs without
any of these; rerun this to record them again (the times differ from run to run).
"""

import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
FLITSIM = os.environ.get("FLITSIM", "flitsim")
RANKS = 16


def mpirun():
    cmd = ["mpirun", "--oversubscribe", "-np", str(RANKS)]
    if os.geteuid() == 0:
        cmd.insert(1, "--allow-run-as-root")
    return cmd


def record(workdir, command):
    """Trace `command` under mpirun in `workdir`; the anchor of its archive."""
    out = os.path.join(workdir, "trace")
    subprocess.run([FLITSIM, "trace", "record", "--out", out, "--", *mpirun(), *command], cwd=workdir, check=True)
    return os.path.join(out, "trace.otf2")


def world_collectives(anchor):
    """(index, kind) of rank 0's world collectives, from `flitsim trace show --collectives`."""
    text = subprocess.run([FLITSIM, "trace", "show", anchor, "--collectives"], check=True, capture_output=True, text=True).stdout
    rows = [line.split() for line in text.splitlines()[1:]]
    return [(int(r[0]), r[1]) for r in rows]


def around(colls, first, last):
    """The window from the barrier before index `first` to the first barrier after `last`."""
    lo = max(i for i, k in colls if k == "barrier" and i < first)
    hi = min(i for i, k in colls if k == "barrier" and i > last)
    return f"{lo}..{hi}"


def runs(colls, kind, length):
    """(first, last) of every run of at least `length` consecutive `kind` collectives."""
    found, start = [], None
    for j, (i, k) in enumerate(colls + [(None, None)]):
        if k == kind and start is None:
            start = j
        elif k != kind and start is not None:
            if j - start >= length:
                found.append((colls[start][0], colls[j - 1][0]))
            start = None
    return found


def convert(anchor, out, window=None):
    """Write the ranks text of `anchor` (in the window) to `out` in this folder."""
    workdir = os.path.dirname(os.path.dirname(anchor))
    cmd = [FLITSIM, "trace", "convert", os.path.relpath(anchor, workdir), "--out", os.path.join(HERE, out)]
    if window:
        cmd += ["--window", window]
    subprocess.run(cmd, check=True, cwd=workdir)


def main():
    for tool in ("mpirun", "hpcc", "lmp"):
        if shutil.which(tool) is None:
            sys.exit(f"{tool} is not installed (Debian: apt-get install openmpi-bin hpcc lammps)")
    with tempfile.TemporaryDirectory() as tmp:
        shutil.copy(os.path.join(HERE, "hpccinf.txt"), tmp)
        anchor = record(tmp, ["hpcc"])
        colls = world_collectives(anchor)
        fft = runs(colls, "alltoall", 6)[-1]
        ptrans = runs(colls, "allreduce", 10)[0]
        convert(anchor, "hpcc-fft-16.ranks", around(colls, *fft))
        convert(anchor, "hpcc-ptrans-16.ranks", around(colls, *ptrans))
    with tempfile.TemporaryDirectory() as tmp:
        shutil.copy(os.path.join(HERE, "lammps-lj.in"), tmp)
        anchor = record(tmp, ["lmp", "-in", "lammps-lj.in", "-log", "none", "-screen", "none"])
        convert(anchor, "lammps-lj-16.ranks")


if __name__ == "__main__":
    main()
