"""Typed use of the public API: `mypy --strict` must accept this file (test_typing.py)
and reject the mistakes in `typed_misuse.py`."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

import flitsim


def study(path: Path) -> pd.DataFrame:
    cfg: flitsim.Config = flitsim.Config(path, set={"traffic.load": 0.2}, seed=3)
    key: str = cfg.key
    result: flitsim.Result = flitsim.simulate(cfg)
    latency: float = result.summary["latency_mean"]
    tables: list[pd.DataFrame] = [result.latency, result.per_source, result.channels]
    text: str = result.json
    sim = flitsim.Simulation({"topology": {"type": "torus", "dims": [4, 4]}})
    now: int = sim.run(100).run(100).now
    counters: dict[str, int] = sim.counters
    done: flitsim.Result = sim.finish()
    try:
        flitsim.simulate("seed = 1", set=["traffic.load=2"])
    except flitsim.ConfigError as e:
        where: str = e.path
        print(where, e.message)
    except flitsim.PartialDeadlockError as e:
        period: int = e.period
        print(period, e.blocked)
    except flitsim.DeadlockError as e:
        cycle: int = e.cycle
        print(cycle)
    store = flitsim.Store(path.parent / "store")
    stored: flitsim.Result | None = store.get(key)
    print(latency, tables, text, now, counters, done, stored)
    return flitsim.sweep(cfg, grid={"traffic.load": [0.1, 0.2]}, seeds=2, store=store, jobs=2)


def draw(result: flitsim.Result, report: Path) -> None:
    from matplotlib.figure import Figure

    from flitsim import network, plots

    fig: Figure = plots.network(result, "flits", vc=0, nodes=None, aggregate="mean", vmax=1.0)
    loads: network.Loads = network.read(network.load_report(report))
    values: list[float] = [link.value for link in loads.links]
    scene: network.Scene = network.scene(loads)
    print(fig, values, scene.panels[0].names, network.draw(result))
