"""`flitsim.simulate` gives the report `flitsim run --out` writes, byte for byte, from
a path, TOML text, a dict or a Config, with overrides and seeds applied the same way."""

from __future__ import annotations

import math
import pickle
import signal
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import pandas as pd
import pytest

import flitsim
from conftest import SMALL, cli_run


def test_path_text_dict_and_config_equal_the_command(flitsim_bin: Path, small_toml: Path, tmp_path: Path) -> None:
    cli = cli_run(flitsim_bin, tmp_path, str(small_toml))
    as_dict = tomllib.loads(SMALL)
    results = {
        "pathlib.Path": flitsim.simulate(small_toml),
        "str path": flitsim.simulate(str(small_toml)),
        "TOML text": flitsim.simulate(SMALL),
        "dict": flitsim.simulate(as_dict),
        "Config": flitsim.simulate(flitsim.Config(as_dict)),
        "resolved TOML": flitsim.simulate(flitsim.Config(SMALL).toml),
    }
    for how, result in results.items():
        assert result.json == cli, how


def test_overrides_and_seed_equal_the_commands_set(flitsim_bin: Path, small_toml: Path, tmp_path: Path) -> None:
    cli = cli_run(flitsim_bin, tmp_path, str(small_toml), "--set", "traffic.load=0.45", "--set", "seed=11", "-s", 'traffic.pattern={ type = "transpose" }')
    as_strings = flitsim.simulate(small_toml, set=["traffic.load=0.45", 'traffic.pattern={ type = "transpose" }'], seed=11)
    as_values = flitsim.simulate(SMALL, set={"traffic.load": 0.45, "traffic.pattern": {"type": "transpose"}}, seed=11)
    assert as_strings.json == cli
    assert as_values.json == cli
    assert as_values.summary["seed"] == 11 and as_values.summary["load"] == 0.45


def test_threads_change_no_result(flitsim_bin: Path, small_toml: Path, tmp_path: Path) -> None:
    # One simulation stepped on 2 or 3 threads (partitions of the network) reports what
    # one thread does, and what `flitsim run --threads 2` writes.
    one = flitsim.simulate(small_toml, threads=1)
    assert flitsim.simulate(small_toml, threads=2).json == one.json
    assert flitsim.simulate(small_toml, threads=3).json == one.json
    assert cli_run(flitsim_bin, tmp_path, str(small_toml), "--threads", "2") == one.json
    sim = flitsim.Simulation(small_toml, threads=2)
    assert sim.threads == 2
    assert sim.run(500).finish().json == one.json
    with pytest.raises(ValueError, match="threads"):
        flitsim.simulate(small_toml, threads=0)


def test_threads_on_every_router_type() -> None:
    # The self-tuned congestion network (central routers, side-band throttling, Disha)
    # and the SiCortex fabric (crosspoint switches, retry links with bit errors) on two
    # threads report what one thread does.
    repo = Path(__file__).resolve().parents[2]
    tpds = str(repo / "presets" / "tpds-adaptive-16x16.toml")
    over = ["sim.warmup=300", "sim.measure=1500", "routing.deadlock=\"recovery\"", "congestion.policy=\"tune\"", "traffic.load=0.6"]
    sc = str(repo / "experiments" / "sicortex-kautz" / "sc5832.toml")
    sc_over = ["sim.warmup=200", "sim.measure=800", "channel.retry.errors.ber=1e-4", "topology.diameter=4"]
    for config, overrides in [(tpds, over), (sc, sc_over)]:
        sim = flitsim.Simulation(config, set=overrides, threads=2)
        assert sim.threads == 2, config
        assert sim.run(500).finish().json == flitsim.simulate(config, set=overrides, threads=1).json, config


def test_no_config_is_the_commands_default(flitsim_bin: Path, tmp_path: Path) -> None:
    # Overrides on the built-in default: `flitsim run --set ...` without a file.
    short = ["sim.warmup=100", "sim.measure=300", "topology.dims=[4, 4]"]
    cli = cli_run(flitsim_bin, tmp_path, *[a for s in short for a in ("--set", s)])
    assert flitsim.simulate(set=short).json == cli
    assert flitsim.simulate(None, set=short).json == cli


def test_a_trace_from_a_dict_reports_its_completion() -> None:
    # A ping-pong of 1-flit messages between the ends of an 8-router line: each takes the
    # zero-load latency of 7 hops with unit stages and channels, 2 + 4 (7 + 1) + 7 = 41
    # cycles, and the answer leaves when the ping arrived (tests/trace.rs derives it).
    config = {
        "topology": {"type": "mesh", "dims": [8]},
        "sim": {"warmup": 0, "measure": 10_000, "until_done": True},
        "traffic": {"trace": {"messages": [{"src": 0, "dst": 7, "flits": 1}, {"src": 7, "dst": 0, "flits": 1, "after": [0]}]}},
    }
    r = flitsim.simulate(config)
    assert r.trace is not None and r.trace["completed"] == 2
    assert (r.summary["trace_completion"], r.summary["trace_latency_mean"]) == (82, 41.0)
    assert math.isnan(flitsim.simulate(SMALL).summary["trace_completion"])
    assert flitsim.simulate(SMALL).trace is None
    assert r.application is None and r.calls.empty
    with pytest.raises(flitsim.ConfigError, match=r"traffic\.trace\.messages\[1\]"):
        flitsim.simulate({**config, "traffic": {"trace": {"messages": [{"src": 0, "dst": 7, "flits": 1}, {"src": 7, "dst": 0, "flits": 1, "after": [1]}]}}})


def test_an_application_trace_reports_its_calls() -> None:
    # presets/cg-64.ranks: 64 ranks, 5 iterations, each a halo exchange with 4 neighbours
    # (64 x 4 x 5 = 1,280 messages of 2 KiB = 128 flits of 16 B) and two allreduces of
    # 8 B, by recursive doubling on 64 ranks: 64 log2 64 = 384 one-flit messages each.
    r = flitsim.simulate(Path(__file__).resolve().parents[2] / "presets" / "app-cg.toml", set=["traffic.trace.compute_scale=0"])
    app = r.application
    assert app is not None and (app["ranks"], app["placement"]) == (64, "linear")
    assert app["time_cycles"] == r.trace["completion"] and len(app["finish"]) == 64
    calls = r.calls.set_index("call")
    assert list(calls.index) == ["point_to_point", "allreduce"]
    assert tuple(calls.loc["point_to_point", ["messages", "flits", "completed"]]) == (1280, 1280 * 128, 1280)
    assert tuple(calls.loc["allreduce", ["algorithm", "calls", "messages", "flits"]]) == ("recursive_doubling", 10, 3840, 3840)
    # Every rank waits for all it receives and nothing is computed: its times in its
    # calls add up to its finish.
    assert calls["time_mean"].sum() == pytest.approx(app["finish_mean"], rel=1e-12)


def test_result_tables() -> None:
    r = flitsim.simulate(SMALL)
    s = r.summary
    assert list(s) == list(flitsim.SUMMARY_FIELDS)
    report = r.report
    assert s["latency_mean"] == report["stats"]["packet_latency"]["mean"]
    assert s["accepted"] == report["stats"]["accepted"]["mean"]
    assert not s["saturated"] and s["reason"] == ""
    assert report["version"] == flitsim.__version__

    lat = r.latency
    assert list(lat.columns) == ["kind", "lo", "hi", "count", "cdf"]
    for kind in ("packet", "network"):
        part = lat[lat.kind == kind]
        assert part["count"].sum() == report["stats"][f"{kind}_latency"]["count"] == s["packets_delivered"]
        assert part["cdf"].iloc[-1] == pytest.approx(1.0)
        assert part["cdf"].is_monotonic_increasing
        # The histogram's range holds the exact minimum and maximum.
        assert part["lo"].iloc[0] <= report["stats"][f"{kind}_latency"]["min"]
        assert part["hi"].iloc[-1] > report["stats"][f"{kind}_latency"]["max"]

    per = r.per_source
    assert per.index.name == "node" and len(per) == 16
    assert per["accepted"].mean() == pytest.approx(s["accepted"])
    assert list(per.columns) == ["delivered", "accepted", "latency"]
    # Each source's mean latency lies within the run's smallest and largest.
    pl = report["stats"]["packet_latency"]
    assert ((per["latency"] >= pl["min"]) & (per["latency"] <= pl["max"])).all()

    ch = r.channels
    assert isinstance(ch, pd.DataFrame) and ch.index.name == "channel"
    assert set(ch["kind"]) == {"network", "injection", "ejection"}
    assert [c for c in ch.columns if c.startswith("vc")] == ["vc0", "vc1", "vc2", "vc3"]
    assert len(ch[ch.kind == "network"]) == 4 * 16
    window = report["stats"]["window"][1] - report["stats"]["window"][0]
    flits = ch[["vc0", "vc1", "vc2", "vc3"]].sum(axis=1)
    assert (flits / window).to_numpy() == pytest.approx(ch["utilization"].to_numpy())


def test_results_and_configs_pickle() -> None:
    r = flitsim.simulate(SMALL)
    back = pickle.loads(pickle.dumps(r))
    assert back == r and back.json == r.json and back.summary == r.summary
    c = flitsim.Config(SMALL, set={"traffic.load": 0.2})
    c2 = pickle.loads(pickle.dumps(c))
    assert c2 == c and c2.key == c.key and c2.toml == c.toml
    assert flitsim.simulate(c2) == flitsim.simulate(c)


def test_config_keys() -> None:
    a = flitsim.Config(SMALL)
    # The same resolved config, however it was written, has one key.
    assert flitsim.Config(tomllib.loads(SMALL)).key == a.key
    assert flitsim.Config(a.toml).key == a.key
    assert flitsim.Config(SMALL, set={"traffic.load": 0.3}).key == a.key
    # Any change, the seed included, changes it.
    assert flitsim.Config(SMALL, seed=4).key != a.key
    assert flitsim.Config(SMALL, set={"traffic.load": 0.30000001}).key != a.key
    assert len(a.key) == 64
    assert a.to_dict()["traffic"]["load"] == 0.3
    assert a.seed == 3


def test_a_config_files_data_files_are_beside_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Loaded from another working directory, the preset still finds its trace.
    preset = Path(__file__).resolve().parents[2] / "presets" / "trace-halo.toml"
    monkeypatch.chdir(tmp_path)
    c = flitsim.Config(preset)
    assert c.to_dict()["traffic"]["trace"]["file"] == str(preset.parent / "halo-8x8.trace")
    c.validate()


def test_numpy_values_are_plain_values() -> None:
    np = pytest.importorskip("numpy")
    a = flitsim.Config(SMALL, set={"traffic.load": np.float64(0.25), "sim.warmup": np.int64(100)})
    b = flitsim.Config(SMALL, set={"traffic.load": 0.25, "sim.warmup": 100})
    assert a == b


def test_a_config_that_is_not_a_config() -> None:
    with pytest.raises(TypeError):
        flitsim.simulate(42)  # type: ignore[arg-type]
    with pytest.raises(FileNotFoundError):
        flitsim.simulate("no/such/config.toml")
    # A mistyped path without the .toml ending is not taken for TOML text.
    with pytest.raises(FileNotFoundError, match="no config file 'examples/torus8x8.tml'"):
        flitsim.simulate("examples/torus8x8.tml")
    # One line of TOML is still TOML.
    with pytest.raises(flitsim.ConfigError, match="traffic.load"):
        flitsim.simulate("traffic.load = 7")


@pytest.mark.parametrize("call", ["flitsim.simulate(LONG)", "flitsim.Simulation(LONG).run(10**9)"])
def test_ctrl_c_stops_a_long_run(call: str) -> None:
    # A run of a hundred million cycles, interrupted after it has started: it stops within
    # a few thousand cycles with KeyboardInterrupt.
    # The child installs Python's own SIGINT handler: a shell that runs the tests in the
    # background (CI) starts its processes with SIGINT ignored.
    script = (
        "import flitsim, signal, sys\n"
        "signal.signal(signal.SIGINT, signal.default_int_handler)\n"
        "LONG = {'topology': {'type': 'torus', 'dims': [4, 4]}, 'sim': {'measure': 100_000_000}}\n"
        "print('started', flush=True)\n"
        f"try:\n    {call}\nexcept KeyboardInterrupt:\n    print('interrupted', flush=True)\n    sys.exit(3)\n"
    )
    p = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert p.stdout is not None
        assert p.stdout.readline().strip() == "started"
        time.sleep(1.0)
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=30)
    finally:
        p.kill()
        p.wait()
    assert p.returncode == 3 and "interrupted" in out, err


def test_no_measured_packet_leaves_latency_missing() -> None:
    # At load 0 nothing is measured: the latencies are missing (NaN), not a latency of
    # 0 cycles; a measured run has numbers there.
    idle = flitsim.simulate(SMALL, set={"traffic.load": 0.0})
    s = idle.summary
    assert s["packets_measured"] == 0
    for key in ("latency_mean", "latency_p50", "latency_p99", "latency_max", "network_latency_mean", "avg_hops"):
        assert math.isnan(s[key]), key
    busy = flitsim.simulate(SMALL).summary
    assert busy["packets_measured"] > 0 and busy["latency_mean"] >= busy["avg_hops"] > 0
