"""The typed surface: the package and a typed use of it pass `mypy --strict`, the stubs of
the native module match it (`stubtest`), and the stubs catch misuse."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import flitsim

HERE = Path(__file__).resolve().parent
PACKAGE = Path(flitsim.__file__).resolve().parent


def mypy(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mypy", "--strict", *args], capture_output=True, text=True, cwd=HERE.parents[1])


def test_package_and_typed_usage_pass_mypy_strict() -> None:
    p = mypy(str(PACKAGE), str(HERE / "typed_usage.py"))
    assert p.returncode == 0, p.stdout + p.stderr


def test_stubs_match_the_native_module() -> None:
    p = subprocess.run([sys.executable, "-m", "mypy.stubtest", "flitsim._core"], capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr


def test_stubs_catch_misuse() -> None:
    misuse = HERE / "typed_misuse.py"
    p = mypy(str(misuse))
    expected = {i + 1 for i, line in enumerate(misuse.read_text().splitlines()) if "# E:" in line}
    found = {int(m.group(1)) for m in re.finditer(r"typed_misuse\.py:(\d+): error", p.stdout)}
    assert found == expected, p.stdout


def test_the_package_is_marked_typed() -> None:
    assert (PACKAGE / "py.typed").is_file() and (PACKAGE / "_core.pyi").is_file()
