"""Types of the native module ``flitsim._core`` (crates/flitsim-py). Use the ``flitsim``
package; this layer converts and nothing more."""

from typing import Any, Optional, final

__version__: str
__all__ = [
    "Config",
    "ConfigError",
    "DeadlockError",
    "FlitsimError",
    "InvalidConfigError",
    "InvariantError",
    "ParseError",
    "PartialDeadlockError",
    "Simulation",
    "__version__",
    "run",
]

class FlitsimError(Exception):
    """Base class of every error flitsim raises."""

    path: Optional[str]

class ConfigError(FlitsimError):
    """A config was refused before anything ran."""

    path: str
    message: str

class ParseError(ConfigError):
    """Not valid TOML, a value of the wrong type, or an unknown or missing key."""

class InvalidConfigError(ConfigError):
    """A value is out of range, inconsistent with another, or unsupported."""

class DeadlockError(FlitsimError):
    """The watchdog saw no flit move while flits were buffered."""

    cycle: int
    buffered: int
    blocked: str
    idle: int

class PartialDeadlockError(DeadlockError):
    """A cycle of waiting input VCs did not move for a watchdog period."""

    period: int

class InvariantError(FlitsimError):
    """Check mode found a conservation or bound violation."""

    cycle: int
    message: str

@final
class Config:
    @staticmethod
    def load(text: Optional[str], overrides: list[str], dir: Optional[str] = None) -> Config: ...
    @staticmethod
    def from_dict(config: dict[str, Any], overrides: list[str]) -> Config: ...
    @staticmethod
    def override_string(key: str, value: Any) -> str: ...
    def to_toml(self) -> str: ...
    def canonical_json(self) -> str: ...
    def store_text(self) -> str: ...
    @property
    def seed(self) -> int: ...
    def validate(self) -> None: ...
    def __eq__(self, value: object, /) -> bool: ...

@final
class Simulation:
    def __new__(cls, config: Config, threads: int | None = None) -> Simulation: ...
    @property
    def threads(self) -> int: ...
    def run_cycles(self, cycles: int) -> None: ...
    @property
    def now(self) -> int: ...
    @property
    def in_network(self) -> int: ...
    def counters_json(self) -> str: ...
    def window_json(self) -> str: ...
    def finish(self) -> str: ...
    @property
    def finished(self) -> bool: ...

def run(config: Config, threads: int | None = None) -> str: ...
