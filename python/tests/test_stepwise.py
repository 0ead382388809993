"""A Simulation advanced by hand and then finished gives the one-shot report."""

from __future__ import annotations

import pytest

import flitsim
from conftest import SMALL
from test_errors import ring

# Loaded past saturation, so that the source queues are not empty at the window's edges
# (warm-up 200, window to 1000) and the drain lasts.
LOADED = SMALL.replace("load = 0.3", "load = 0.9")


@pytest.mark.parametrize("chunks", [[], [1], [150, 100], [199, 1, 1], [1000], [600, 401], [1000, 7, 3]])
def test_steps_then_finish_equal_one_run(chunks: list[int]) -> None:
    whole = flitsim.simulate(LOADED)
    assert whole.report["cycles"] > 1010 and whole.summary["saturated"]
    sim = flitsim.Simulation(LOADED)
    for n in chunks:
        sim.run(n)
    assert sim.now == sum(chunks)
    assert sim.finish().json == whole.json
    assert sim.finished


def test_state_between_steps() -> None:
    sim = flitsim.Simulation(SMALL)
    assert sim.now == 0 and sim.in_network == 0 and sim.counters["packets_created"] == 0
    sim.run(100).run(100)
    c = sim.counters
    assert sim.now == 200
    assert c["packets_created"] > 0 and c["flits_injected"] >= c["flits_ejected"] > 0
    assert sim.in_network == c["flits_injected"] - c["flits_ejected"]
    w = sim.window
    assert w["window"] == [200, 1000] and w["packets_created"] == 0
    sim.run(500)
    w = sim.window
    assert w["packets_created"] > 0 and 0 < w["packets_delivered"] <= w["packets_created"] and w["mean_packet_latency"] > 0
    later = sim.counters
    assert all(later[k] >= c[k] for k in c)
    result = sim.finish()
    assert result == flitsim.simulate(SMALL)
    with pytest.raises(RuntimeError, match="finished"):
        sim.run(1)
    with pytest.raises(RuntimeError, match="finished"):
        sim.finish()
    with pytest.raises(ValueError):
        flitsim.Simulation(SMALL).run(-1)


def test_a_deadlock_stops_the_simulation_for_good() -> None:
    sim = flitsim.Simulation(ring(datelines=False))
    with pytest.raises(flitsim.DeadlockError) as info:
        sim.run(5000)
    # The state at the error stays readable.
    assert sim.now == info.value.cycle and sim.in_network > 0
    with pytest.raises(RuntimeError, match="stopped with an error"):
        sim.run(1)
    with pytest.raises(RuntimeError, match="stopped with an error"):
        sim.finish()


def test_config_errors_before_building() -> None:
    with pytest.raises(flitsim.InvalidConfigError) as info:
        flitsim.Simulation(SMALL, set={"router.vcs": 0})
    assert info.value.path == "router.vcs"


def test_a_simulation_is_not_copied_behind_the_users_back() -> None:
    # A copy would share the running engine (stepping one would step the other), so
    # copying and pickling are refused with the way to start another.
    import copy
    import pickle

    sim = flitsim.Simulation(SMALL).run(100)
    for attempt in (copy.copy, copy.deepcopy, pickle.dumps):
        with pytest.raises(TypeError, match=r"flitsim.Simulation\(sim.config\)"):
            attempt(sim)
    again = flitsim.Simulation(pickle.loads(pickle.dumps(sim.config))).run(100)
    assert again.now == sim.now and again.counters == sim.counters
