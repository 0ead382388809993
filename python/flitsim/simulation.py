"""Running simulations: one call to the end (:func:`simulate`), or step by step
(:class:`Simulation`) to watch a network evolve. Both run the engine's own loop."""

from __future__ import annotations

import json
import numbers
from typing import Any

from . import _core
from .config import Config, ConfigLike, Overrides
from .result import Result


def simulate(
    config: ConfigLike = None, *, set: Overrides = None, seed: int | None = None, threads: int | None = None
) -> Result:
    """Validate and run one simulation to the end (warm-up, window, drain).

    ``config``: a path, TOML text, a dict, a :class:`Config`, or None for the default.
    ``set``: overrides (``["traffic.load=0.4"]`` or ``{"traffic.load": 0.4}``), applied
    as ``flitsim run --set`` applies them. ``seed``: overrides the config's seed.
    ``threads``: threads stepping this one simulation (partitions of the network, as
    ``flitsim run --threads``); None uses the available cores for networks of 64
    input-queued routers or more (256 of the other router types) and one thread below. The report is the same for any count.

    The same config and seed give the report ``flitsim run --out`` writes, byte for byte.
    Raises a subclass of :class:`~flitsim.FlitsimError`: :class:`~flitsim.ParseError` or
    :class:`~flitsim.InvalidConfigError` (with ``.path``) before anything runs,
    :class:`~flitsim.DeadlockError`, :class:`~flitsim.PartialDeadlockError` or
    :class:`~flitsim.InvariantError` during the run.
    """
    cfg = Config(config, set=set, seed=seed)
    return Result(_core.run(cfg._core, _threads(threads)))


def _threads(threads: int | None) -> int | None:
    if threads is not None and (isinstance(threads, bool) or not isinstance(threads, numbers.Integral) or not 1 <= threads <= 256):
        raise ValueError(f"threads must be an integer in 1..=256 or None, not {threads!r}")
    return None if threads is None else int(threads)


_NO_COPY = (
    "a Simulation is a network in flight and is not copied or pickled; start another from its config, "
    "flitsim.Simulation(sim.config), or pickle sim.config (and, once finished, the Result)"
)


class Simulation:
    """A network under simulation, advanced by hand.

    ``run(cycles)`` simulates more cycles; ``now``, ``counters`` and ``window`` read the
    state in between; ``finish()`` runs the rest exactly as :func:`simulate` would from
    here and returns the :class:`Result`. Stepping and then finishing gives the same
    report as one :func:`simulate` call, unless the steps went past the cycle where that
    run would have stopped (then the report covers the extra cycles too).
    """

    __slots__ = ("_sim", "config")

    def __init__(
        self, config: ConfigLike = None, *, set: Overrides = None, seed: int | None = None, threads: int | None = None
    ) -> None:
        self.config: Config = Config(config, set=set, seed=seed)
        self._sim = _core.Simulation(self.config._core, _threads(threads))

    def __copy__(self) -> Simulation:
        # (A shallow copy would share the engine: stepping one would step both.)
        raise TypeError(_NO_COPY)

    def __deepcopy__(self, memo: dict[int, Any]) -> Simulation:
        raise TypeError(_NO_COPY)

    def __reduce__(self) -> Any:
        raise TypeError(_NO_COPY)

    @property
    def threads(self) -> int:
        """Threads stepping the network (1 when it is not partitioned)."""
        return self._sim.threads

    def run(self, cycles: int) -> Simulation:
        """Simulate ``cycles`` more cycles; returns ``self`` so calls chain.

        An error (deadlock, invariant) stops the simulation for good: it is raised, the
        state stays readable, and further ``run``/``finish`` calls raise RuntimeError.
        """
        if isinstance(cycles, bool) or not isinstance(cycles, numbers.Integral):
            raise TypeError(f"cycles is a whole number (int), not {type(cycles).__name__} {cycles!r}")
        if cycles < 0:
            raise ValueError(f"cycles must be >= 0, not {cycles}")
        self._sim.run_cycles(cycles)
        return self

    @property
    def now(self) -> int:
        """The next cycle to be simulated (cycles simulated so far)."""
        return self._sim.now

    @property
    def in_network(self) -> int:
        """Flits injected and not yet ejected."""
        return self._sim.in_network

    @property
    def counters(self) -> dict[str, int]:
        """The engine's event counters over the run so far (packets created, delivered,
        flits injected, ejected, router traversals, ...)."""
        counters: dict[str, int] = json.loads(self._sim.counters_json())
        return counters

    @property
    def window(self) -> dict[str, Any]:
        """The measurement window so far: ``window`` [start, end), ``packets_created`` and
        ``packets_delivered`` in it, ``mean_packet_latency`` of those delivered."""
        window: dict[str, Any] = json.loads(self._sim.window_json())
        return window

    @property
    def finished(self) -> bool:
        """True once :meth:`finish` has run."""
        return self._sim.finished

    def finish(self) -> Result:
        """Run the rest (window, then drain) and return the result; the simulation is done.
        An error (a deadlock) stops it as in :meth:`run`: raised, the state readable."""
        return Result(self._sim.finish())

    def __repr__(self) -> str:
        state = "finished" if self.finished else f"now={self.now}"
        return f"flitsim.Simulation({state})"
