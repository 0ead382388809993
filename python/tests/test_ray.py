"""The Ray backend: a small local Ray cluster (2 CPUs) gives the local backend's table and
store contents bit for bit; without Ray installed the error says how to get it."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest

import flitsim
from flitsim.backends import RayBackend
from conftest import SMALL
from test_errors import ring

ray = pytest.importorskip("ray", reason="Ray is not installed (python/requirements-dev.txt pins it)")

GRID = {"traffic.load": [0.1, 0.3], "router.allocator": ["islip", "separable_input_first"]}


@pytest.fixture(scope="module")
def local_ray() -> Iterator[None]:
    """A Ray runtime on this machine with 2 CPUs, as the sweep's address=None starts one."""
    ray.init(num_cpus=2, include_dashboard=False, configure_logging=False)
    try:
        yield
    finally:
        ray.shutdown()


def test_ray_gives_the_local_backends_results_bit_for_bit(local_ray: None, tmp_path: Path) -> None:
    local = flitsim.sweep(SMALL, grid=GRID, seeds=2, jobs=2, progress=False, store=tmp_path / "local")
    remote = flitsim.sweep(SMALL, grid=GRID, seeds=2, backend="ray", progress=False, store=tmp_path / "ray")
    assert remote.attrs["ran"] == 8
    pd.testing.assert_frame_equal(local, remote, check_exact=True)
    a, b = flitsim.Store(tmp_path / "local"), flitsim.Store(tmp_path / "ray")
    assert list(a.keys()) == list(b.keys())
    for key in a.keys():
        ra, rb = a.get(key), b.get(key)
        assert ra is not None and rb is not None and ra.json == rb.json
    # The driver keeps the store: a repeat on Ray runs nothing.
    again = flitsim.sweep(SMALL, grid=GRID, seeds=2, backend=RayBackend(), progress=False, store=tmp_path / "ray")
    assert again.attrs["ran"] == 0 and again.attrs["cached"] == 8


def test_ray_returns_the_engines_typed_errors(local_ray: None) -> None:
    points = [{"routing.datelines": True, "router.vcs": 2}, {"routing.datelines": False, "router.vcs": 1}]
    with pytest.raises(flitsim.DeadlockError) as info:
        flitsim.sweep(ring(datelines=True), points=points, backend="ray", progress=False)
    assert info.value.cycle > 0
    df = flitsim.sweep(ring(datelines=True), points=points, backend="ray", progress=False, errors="record")
    assert df.iloc[1]["error"].startswith("DeadlockError: deadlock detected")


def test_backend_arguments() -> None:
    with pytest.raises(ValueError, match='address is for backend="ray"'):
        flitsim.sweep(SMALL, address="auto", progress=False)
    with pytest.raises(ValueError, match="num_cpus"):
        RayBackend(num_cpus=0)
    assert repr(RayBackend("auto")) == "RayBackend(address='auto', num_cpus=None)"


def test_without_ray_the_error_names_pip_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)
    with pytest.raises(ImportError, match="pip install ray"):
        flitsim.sweep(SMALL, grid={"traffic.load": [0.1, 0.2]}, backend="ray", progress=False)
