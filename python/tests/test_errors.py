"""Every core error kind is its own exception class under FlitsimError, with the
command's message and the field path, and pickles (errors cross process boundaries)."""

from __future__ import annotations

import pickle
from pathlib import Path
from typing import Any

import pytest

import flitsim
from conftest import SMALL, cli_error

# (overrides on SMALL, class, path, words of the message)
CONFIG_ERRORS: list[tuple[dict[str, Any], type[flitsim.ConfigError], str, str]] = [
    ({"traffic.load": 3.0}, flitsim.InvalidConfigError, "traffic.load", "must be in [0, "),
    ({"traffic.lod": 0.1}, flitsim.ParseError, "traffic.lod", "unknown field `lod`"),
    ({"traffic.load": "high"}, flitsim.ParseError, "traffic.load", "expected a number"),
    ({"router.vcs": 0}, flitsim.InvalidConfigError, "router.vcs", "out of range"),
    ({"topology.type": "ring"}, flitsim.ParseError, "topology.type", "unknown variant `ring`"),
    ({"traffic.pattern": {"type": "hotspot"}}, flitsim.ParseError, "traffic.pattern.nodes", "missing field `nodes`"),
    ({"sim.measure": 0}, flitsim.InvalidConfigError, "sim.measure", "is 0"),
    ({"topology.dims": [4, "x"]}, flitsim.ParseError, "topology.dims[1]", "invalid type"),
]


@pytest.mark.parametrize(("overrides", "cls", "path", "words"), CONFIG_ERRORS, ids=[c[2] for c in CONFIG_ERRORS])
def test_config_errors_name_the_field(overrides: dict[str, Any], cls: type[flitsim.ConfigError], path: str, words: str, flitsim_bin: Path, small_toml: Path) -> None:
    with pytest.raises(cls) as info:
        flitsim.simulate(SMALL, set=overrides)
    e = info.value
    assert type(e) is cls and isinstance(e, flitsim.ConfigError) and isinstance(e, flitsim.FlitsimError)
    assert e.path == path
    assert words in e.message and words in str(e)
    # The command's message, word for word.
    sets = [flitsim.config.override_strings(overrides)[0]]
    assert str(e) == cli_error(flitsim_bin, str(small_toml), "--set", sets[0])
    back = pickle.loads(pickle.dumps(e))
    assert type(back) is cls and back.path == path and back.message == e.message and str(back) == str(e)


def test_errors_in_a_dict_config_name_the_field() -> None:
    cases: list[tuple[dict[str, Any], str, str]] = [
        ({"traffic": {"load": None}}, "traffic.load", "None has no TOML value"),
        ({"traffic": {"phases": [{"load": object()}]}}, "traffic.phases[0].load", "no TOML equivalent"),
        ({"sim": {"warmup": 2**64}}, "sim.warmup", "64-bit"),
        ({"traffic": {1: 2}}, "traffic", "not a string"),
        ({"traffic": {"load": 2.0}}, "traffic.load", "must be in [0, 1]"),
    ]
    for config, path, words in cases:
        with pytest.raises(flitsim.ConfigError) as info:
            flitsim.simulate(config)
        assert info.value.path == path, config
        assert words in str(info.value), config


def test_toml_syntax_errors() -> None:
    with pytest.raises(flitsim.ParseError) as info:
        flitsim.Config("seed = \n[topology")
    assert info.value.path == "<root>" and "not valid TOML" in str(info.value)
    with pytest.raises(flitsim.ParseError) as info:
        flitsim.Config(SMALL, set=["traffic.load"])
    assert "has no `=`" in str(info.value)


def ring(datelines: bool) -> str:
    """An 8-router ring, one VC, 2-flit buffers, 8-flit tornado packets at load 0.9: the
    ring's channel dependencies are cyclic without datelines, and it deadlocks."""
    return f"""seed = 1
[topology]
type = "torus"
dims = [8]
[router]
vcs = {2 if datelines else 1}
buffer_depth = 2
flow_control = "wormhole"
[routing]
type = "dor"
datelines = {str(datelines).lower()}
[traffic]
load = 0.9
packet_size = 8
pattern = {{ type = "tornado" }}
[sim]
warmup = 200
measure = 2000
drain_limit = 500
watchdog = 200
"""


def test_deadlock(flitsim_bin: Path, tmp_path: Path) -> None:
    with pytest.raises(flitsim.DeadlockError) as info:
        flitsim.simulate(ring(datelines=False))
    e = info.value
    assert type(e) is flitsim.DeadlockError and e.path is None
    assert e.cycle < 1000 and e.idle >= 200 and e.buffered > 0
    assert "router (" in e.blocked and str(e).startswith(f"deadlock detected at cycle {e.cycle}")
    f = tmp_path / "ring.toml"
    f.write_text(ring(datelines=False))
    assert str(e) == cli_error(flitsim_bin, str(f))
    back = pickle.loads(pickle.dumps(e))
    assert type(back) is flitsim.DeadlockError and (back.cycle, back.blocked) == (e.cycle, e.blocked)
    # With datelines the same ring runs.
    flitsim.simulate(ring(datelines=True))


PARTIAL = """
[topology]
type = "torus"
dims = [4, 4, 4]
[router]
vcs = 2
[routing]
type = "table"
vc_policy = "v3"
dateline = [3, 3, 0]
ring_datelines = "dimension"
[traffic]
load = 0.3
[sim]
warmup = 300
measure = 20000
watchdog = 300
[faults]
links = [[5, 4], [30, 4]]
unroutable = "skip"
cyclic_routes = "run"
"""


def test_partial_deadlock() -> None:
    # Routes around two failed links that the route check finds cyclic (with one dateline
    # node per dimension, as the engine's own fixture), run anyway: a cycle of VCs wedges
    # while other packets still arrive.
    with pytest.raises(flitsim.PartialDeadlockError) as info:
        flitsim.simulate(PARTIAL)
    e = info.value
    assert isinstance(e, flitsim.DeadlockError)
    assert e.cycle % 300 == 0 and e.period == 300 and e.idle == 300
    assert "cycle of waiting channels" in e.blocked
    back = pickle.loads(pickle.dumps(e))
    assert type(back) is flitsim.PartialDeadlockError and back.period == 300


def test_the_hierarchy() -> None:
    assert issubclass(flitsim.ParseError, flitsim.ConfigError)
    assert issubclass(flitsim.InvalidConfigError, flitsim.ConfigError)
    assert issubclass(flitsim.PartialDeadlockError, flitsim.DeadlockError)
    for cls in (flitsim.ConfigError, flitsim.DeadlockError, flitsim.InvariantError):
        assert issubclass(cls, flitsim.FlitsimError)
    assert issubclass(flitsim.FlitsimError, Exception)
    # Named where they are re-exported, so that pickle finds them.
    for name in ("FlitsimError", "ConfigError", "ParseError", "InvalidConfigError", "DeadlockError", "PartialDeadlockError", "InvariantError"):
        cls = getattr(flitsim, name)
        assert cls.__module__ == "flitsim" and cls.__name__ == name


def test_a_deadlock_in_finish_leaves_the_simulation_readable() -> None:
    s = flitsim.Simulation(ring(datelines=False))
    with pytest.raises(flitsim.DeadlockError) as info:
        s.finish()
    # As after a failed run(): where it stopped and what it counted stay readable.
    assert s.now == info.value.cycle
    assert s.counters["flits_injected"] > s.counters["flits_ejected"]
    assert not s.finished
    for more in (0, 1):
        with pytest.raises(RuntimeError, match="stopped with an error"):
            s.run(more)


def test_deep_or_self_containing_values_are_parse_errors() -> None:
    v: Any = 1
    for _ in range(20_000):
        v = [v]
    with pytest.raises(flitsim.ParseError, match="more than 64 deep") as info:
        flitsim.Config({"topology": {"type": "torus", "dims": v}})
    assert info.value.path.startswith("topology.dims[0]")
    cyclic: dict[str, Any] = {}
    cyclic["self"] = cyclic
    with pytest.raises(flitsim.ParseError, match="more than 64 deep"):
        flitsim.Config({"traffic": cyclic})


def test_files_and_seeds_that_are_not_what_they_claim(tmp_path: Path) -> None:
    bad = tmp_path / "latin1.toml"
    bad.write_bytes(b"seed = 1 # caf\xe9\n")
    with pytest.raises(OSError, match="latin1.toml: not UTF-8"):
        flitsim.Config(bad)
    for seed in (1.7, "3", True):
        with pytest.raises(TypeError, match="a seed is a whole number"):
            flitsim.Config(SMALL, seed=seed)  # type: ignore[arg-type]
    assert flitsim.Config(SMALL, seed=5).seed == 5


def test_to_dict_round_trips() -> None:
    c = flitsim.Config(SMALL, set={"traffic.load": 0.25})
    d = c.to_dict()
    assert "dim_latency" not in d["channel"]  # unset: left out, not None
    assert flitsim.Config(d) == c


def test_arguments_of_the_wrong_shape_are_type_errors() -> None:
    with pytest.raises(TypeError, match="not bytes"):
        flitsim.Config(SMALL, set=b"traffic.load=0.1")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="use a dict"):
        flitsim.Config(SMALL, set=[("traffic.load", 0.1)])  # type: ignore[list-item]
    assert flitsim.Config(SMALL, set=["traffic.load=0.1"]) == flitsim.Config(SMALL, set={"traffic.load": 0.1})
    for threads in (0, 2**70, 1.0, True):
        with pytest.raises(ValueError, match="1..=256"):
            flitsim.Simulation(SMALL, threads=threads)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="whole number"):
        flitsim.Simulation(SMALL).run("5")  # type: ignore[arg-type]
