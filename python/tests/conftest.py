"""Shared fixtures: the `flitsim` command to compare against, and small configs."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

#: A small, quick config (4x4 torus, about a thousand cycles) used throughout.
SMALL = """\
seed = 3
[topology]
type = "torus"
dims = [4, 4]
[router]
allocator = "islip"
[traffic]
load = 0.3
packet_size = { sizes = [1, 4], weights = [0.5, 0.5] }
[sim]
warmup = 200
measure = 800
drain_limit = 5000
"""


@pytest.fixture(scope="session")
def flitsim_bin() -> Path:
    """The `flitsim` command: $FLITSIM_BIN (test.sh sets it), else built here by cargo."""
    given = os.environ.get("FLITSIM_BIN")
    if given:
        path = Path(given)
        assert path.is_file(), f"FLITSIM_BIN={given} is not a file"
        return path
    out = subprocess.run(
        ["cargo", "build", "--locked", "-q", "--profile", "test", "-p", "flitsim-cli", "--message-format=json"],
        cwd=REPO, check=True, capture_output=True, text=True,
    ).stdout
    for line in out.splitlines():
        msg = json.loads(line)
        if msg.get("reason") == "compiler-artifact" and msg["target"]["name"] == "flitsim" and msg.get("executable"):
            return Path(msg["executable"])
    raise AssertionError("cargo built no flitsim executable")


@pytest.fixture()
def small_toml(tmp_path: Path) -> Path:
    path = tmp_path / "small.toml"
    path.write_text(SMALL)
    return path


def cli_run(flitsim_bin: Path, tmp_path: Path, *args: str) -> str:
    """`flitsim run ARGS --out FILE -q`: the report text."""
    out = tmp_path / f"cli-{len(list(tmp_path.iterdir()))}.json"
    subprocess.run([str(flitsim_bin), "run", *args, "--out", str(out), "-q"], check=True, capture_output=True, text=True)
    return out.read_text()


def cli_error(flitsim_bin: Path, *args: str) -> str:
    """The message `flitsim run ARGS` prints after `error: ` (it must fail)."""
    p = subprocess.run([str(flitsim_bin), "run", "-q", *args], capture_output=True, text=True)
    assert p.returncode != 0, p.stdout
    assert p.stderr.startswith("error: "), p.stderr
    return p.stderr[len("error: "):].rstrip("\n")
