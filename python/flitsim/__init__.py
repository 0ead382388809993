"""flitsim: a fast, faithful, flit-level simulator of interconnection networks.

The engine is Rust (the native module ``flitsim._core``); this package turns configs
into runs and runs into data frames. It holds no simulation logic: the same config and
seed give the same report as the ``flitsim`` command, byte for byte.

    >>> import flitsim
    >>> r = flitsim.simulate({"topology": {"type": "torus", "dims": [4, 4]}}, set={"traffic.load": 0.2})
    >>> r.summary["accepted"]                                       # doctest: +SKIP
    >>> df = flitsim.sweep("torus.toml", grid={"traffic.load": [0.1, 0.2, 0.3]},
    ...                    seeds=3, store="results/")                # doctest: +SKIP
"""

from __future__ import annotations

from ._core import (
    ConfigError,
    DeadlockError,
    FlitsimError,
    InvalidConfigError,
    InvariantError,
    ParseError,
    PartialDeadlockError,
    __version__,
)
from .config import Config, ConfigLike, Overrides
from .result import SUMMARY_FIELDS, Result
from .simulation import Simulation, simulate
from .store import Store
from .sweep import expand_grid, sweep

__all__ = [
    "Config",
    "ConfigError",
    "ConfigLike",
    "DeadlockError",
    "FlitsimError",
    "InvalidConfigError",
    "InvariantError",
    "Overrides",
    "ParseError",
    "PartialDeadlockError",
    "Result",
    "SUMMARY_FIELDS",
    "Simulation",
    "Store",
    "__version__",
    "expand_grid",
    "simulate",
    "sweep",
]
