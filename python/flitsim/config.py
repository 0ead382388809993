"""Configs as data: a TOML file, TOML text, a dict, or the built-in default, with overrides.

Every form goes through the engine's own parser and checks (the ones ``flitsim run``
uses), so a bad config raises the same message as the command, as a typed
:class:`~flitsim.ConfigError` naming the field.
"""

from __future__ import annotations

import hashlib
import json
import numbers
import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Union

from . import _core

#: What :func:`simulate`, :class:`Simulation`, :class:`Config` and :func:`sweep` accept
#: as a config: a path (``os.PathLike``, or a one-line ``str`` ending in ``.toml`` or
#: naming an existing file), TOML text, a dict in TOML's data model, a :class:`Config`,
#: or None for the built-in default.
ConfigLike = Union["Config", Mapping[str, Any], str, "os.PathLike[str]", None]

#: Overrides: ``key.path=value`` strings (the command's ``--set`` syntax), or a mapping
#: from dotted key path to a Python value.
Overrides = Union[Mapping[str, Any], Sequence[str], None]


class Config:
    """A parsed config: defaults filled in, overrides applied, not yet validated.

    ``Config(config, set=..., seed=...)`` loads any :data:`ConfigLike`. Configs compare by
    value, pickle as their TOML text, and have a store :attr:`key`.
    """

    __slots__ = ("_core",)

    def __init__(self, config: ConfigLike = None, *, set: Overrides = None, seed: int | None = None) -> None:
        self._core: _core.Config = _load(config, override_strings(set, seed))

    @classmethod
    def _wrap(cls, core: _core.Config) -> Config:
        c = cls.__new__(cls)
        c._core = core
        return c

    @property
    def toml(self) -> str:
        """The whole config as TOML, every default written out (``flitsim run`` reads it)."""
        return self._core.to_toml()

    @property
    def seed(self) -> int:
        """The seed of every random stream."""
        return self._core.seed

    @property
    def canonical_json(self) -> str:
        """Compact JSON with sorted keys, written by the engine: what the store key hashes."""
        return self._core.canonical_json()

    @property
    def key(self) -> str:
        """The results-store key: SHA-256 (hex) of ``{"config":<canonical_json>,"flitsim":"<version>"}``,
        with ``"inputs":{"<key path>":"<SHA-256 of the file>"}`` added when the config names
        data files (a trace, a link list, routing tables), so that editing one makes a new
        key (the engine writes the text, as the CLI's store hashes it)."""
        return hashlib.sha256(self._core.store_text().encode("utf-8")).hexdigest()

    def to_dict(self) -> dict[str, Any]:
        """The whole config as plain data, unset optional fields left out, so that
        ``Config(c.to_dict()) == c``."""
        value: dict[str, Any] = _without_none(json.loads(self._core.canonical_json()))
        return value

    def validate(self) -> None:
        """Check ranges and cross-field rules and build the network, as ``flitsim validate``.

        Raises :class:`~flitsim.InvalidConfigError` naming the field.
        """
        self._core.validate()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Config) and self._core == other._core

    def __hash__(self) -> int:
        return hash(self._core.canonical_json())

    def __repr__(self) -> str:
        return f"flitsim.Config(key={self.key[:12]}..., seed={self.seed})"

    def __getstate__(self) -> str:
        return self._core.to_toml()

    def __setstate__(self, state: str) -> None:
        self._core = _core.Config.load(state, [])


def override_strings(set: Overrides, seed: int | None = None) -> list[str]:
    """Overrides as ``key=value`` strings; ``seed`` last so that it wins."""
    out: list[str] = []
    if isinstance(set, str):
        out.append(set)
    elif isinstance(set, Mapping):
        for key, value in set.items():
            out.append(_core.Config.override_string(str(key), _plain(value)))
    elif isinstance(set, (bytes, bytearray)) or (set is not None and not isinstance(set, Iterable)):
        raise TypeError(f"set is a dict of key paths to values, or a list of \"key=value\" strings, not {type(set).__name__}")
    elif set is not None:
        for s in set:
            if not isinstance(s, str):
                raise TypeError(f"set as a list holds \"key=value\" strings, not {type(s).__name__} {s!r}; use a dict for key-value pairs")
            out.append(s)
    if seed is not None:
        out.append(f"seed={check_seed(seed)}")
    return out


def check_seed(seed: Any) -> int:
    """``seed`` as an int: a whole number (an int, or an integral NumPy scalar), not a
    float, string or bool that would silently become another seed."""
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
        raise TypeError(f"a seed is a whole number (int), not {type(seed).__name__} {seed!r}")
    return int(seed)


def is_path(config: str) -> bool:
    """Is a ``str`` config a path? Yes if it is one line and ends in ``.toml`` or names a file."""
    if "\n" in config or "=" in config or "[" in config:
        return False
    return config.strip().endswith(".toml") or os.path.isfile(config)


def _load(config: ConfigLike, overrides: list[str]) -> _core.Config:
    if config is None:
        return _core.Config.load(None, overrides)
    if isinstance(config, Config):
        if not overrides:
            return config._core
        return _core.Config.load(config.toml, overrides)
    if isinstance(config, Mapping):
        return _core.Config.from_dict(_plain(config), overrides)
    if isinstance(config, os.PathLike) or (isinstance(config, str) and is_path(config)):
        try:
            text = Path(config).read_text(encoding="utf-8")
        except UnicodeDecodeError as e:
            raise OSError(f"cannot read config {config}: not UTF-8 text ({e})") from e
        # Data files the file names (a trace, a link list, tables) are beside it.
        return _core.Config.load(text, overrides, str(Path(config).parent))
    if isinstance(config, str):
        if config.strip() and not any(c in config for c in "\n=["):
            # One line that is neither a file nor TOML: most likely a mistyped path.
            raise FileNotFoundError(
                f"no config file {config!r} (a str config is a path when it names a file or ends in .toml, else TOML text with key = value lines)"
            )
        return _core.Config.load(config, overrides)
    raise TypeError(f"a config is a path, TOML text, a dict, a flitsim.Config or None, not {type(config).__name__}")


def _without_none(value: Any) -> Any:
    """``value`` with the dict entries whose value is None removed, recursively."""
    if isinstance(value, dict):
        return {k: _without_none(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_without_none(v) for v in value]
    return value


def _plain(value: Any, depth: int = 0) -> Any:
    """Mappings as dicts and sequences as lists, recursively (the engine reads dicts and
    lists). Deeper than any config nests, values are passed on as they are, and the
    engine refuses them with their key path (a deep or self-containing structure)."""
    if depth > _MAX_DEPTH:
        return value
    if isinstance(value, Mapping):
        return {k: _plain(v, depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v, depth + 1) for v in value]
    return value


# The engine's limit on nested lists and dicts (crates/flitsim-py/src/convert.rs).
_MAX_DEPTH = 64
