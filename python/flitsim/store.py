"""A results store: a directory of finished runs, keyed by a hash of each run's full config.

Layout (format 1)::

    STORE/flitsim-store.json          {"format": "flitsim-store", "version": 1}
    STORE/results/ab/abcdef...json    one run's report, the text `flitsim run --out` writes

The key is :attr:`flitsim.Config.key`: the SHA-256 (hex) of the UTF-8 bytes of
``{"config":<config>,"flitsim":"<version>"}``, where ``<config>`` is the whole resolved
config (defaults filled in, overrides and seed applied) as compact JSON with sorted keys,
written by the engine, with ``"inputs":{"<key path>":"<SHA-256 of the file>"}`` added when
the config names data files (a trace, a link list, routing tables). Two sweeps that reach the same config share its result, whatever
grid they came from; a different flitsim version never reuses another's results.

Only the process that drives a sweep reads or writes the store (workers, local or on a
cluster, return the report text), and each file is written to a temporary name and
renamed, so an interrupted sweep leaves only whole results behind.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Union

from .result import Result

FORMAT = {"format": "flitsim-store", "version": 1}
_MARKER = "flitsim-store.json"


class Store:
    """A results store directory (created if missing)."""

    def __init__(self, path: Union[str, os.PathLike[str]]) -> None:
        self.path = Path(path)
        if self.path.exists() and not self.path.is_dir():
            raise ValueError(f"{self.path} is a file, not a directory: a results store is a directory")
        marker = self.path / _MARKER
        if marker.exists():
            try:
                found = json.loads(marker.read_text(encoding="utf-8"))
            except ValueError as e:
                raise ValueError(f"{marker} is damaged ({e}): not a readable flitsim results store") from e
            if found != FORMAT:
                raise ValueError(f"{self.path} is a results store of format {found}, not {FORMAT}: use another directory")
        else:
            if self.path.exists() and any(self.path.iterdir()):
                raise ValueError(f"{self.path} exists and is not a flitsim results store (no {_MARKER}): use an empty or new directory")
            self.path.mkdir(parents=True, exist_ok=True)
            _write_atomic(marker, json.dumps(FORMAT) + "\n")

    def file(self, key: str) -> Path:
        """Where the result of ``key`` lives."""
        if not _is_key(key):
            raise ValueError(f"not a store key (64 lowercase hex digits): {key!r}")
        return self.path / "results" / key[:2] / f"{key}.json"

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and _is_key(key) and self.file(key).exists()

    def get(self, key: str) -> Result | None:
        """The stored result of ``key``, or None."""
        f = self.file(key)
        if not f.exists():
            return None
        text = f.read_text(encoding="utf-8", errors="replace")
        try:
            report = json.loads(text)
        except ValueError as e:
            raise ValueError(f"store file {f} is not a valid report ({e}); delete it to run that point again") from e
        if not isinstance(report, dict) or "stats" not in report:
            raise ValueError(f"store file {f} is not a flitsim report (no stats); delete it to run that point again")
        return Result(text)

    def put(self, key: str, report_json: str) -> None:
        """Store one run's report text under ``key`` (atomically)."""
        f = self.file(key)
        f.parent.mkdir(parents=True, exist_ok=True)
        _write_atomic(f, report_json)

    def keys(self) -> Iterator[str]:
        """Every stored key."""
        for f in sorted((self.path / "results").glob("*/*.json")):
            if _is_key(f.stem):  # (other files are not results)
                yield f.stem

    def __len__(self) -> int:
        return sum(1 for _ in self.keys())

    def __repr__(self) -> str:
        return f"flitsim.Store({str(self.path)!r})"


def _is_key(key: str) -> bool:
    return len(key) == 64 and all(c in "0123456789abcdef" for c in key)


def _write_atomic(path: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        # mkstemp makes the file private (0600); a store file gets the permissions any new
        # file gets (0666 less the umask), as the command line's do.
        os.chmod(tmp, 0o666 & ~_UMASK)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _read_umask() -> int:
    """The process's umask (read by setting it and putting it back: once, at import, before
    any thread of a sweep writes)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


_UMASK = _read_umask()
