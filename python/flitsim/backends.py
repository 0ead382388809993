"""Where sweep points run. A backend takes tasks (store key, resolved config as TOML) and
yields each one's outcome as it finishes: the report text, or the FlitsimError it raised.

Workers only run the engine; the driver keeps the store and the progress bar, so a
backend that runs tasks elsewhere (a Ray cluster) needs nothing but this interface.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from typing import Protocol, Union

from . import _core

#: One point to run: its store key and its whole resolved config as TOML.
Task = tuple[str, str]
#: A finished task: its key and the report text, or the error the engine raised.
Outcome = tuple[str, Union[str, _core.FlitsimError]]


def run_toml(toml: str) -> str:
    """Run a whole resolved config (TOML) and return the report text. What a worker does."""
    return _core.run(_core.Config.load(toml, []))


class Backend(Protocol):
    """Runs tasks and yields their outcomes in completion order. Closing the iterator
    early (an error, Ctrl-C) cancels the tasks not yet started."""

    def run(self, tasks: Sequence[Task]) -> Iterator[Outcome]: ...


class LocalBackend:
    """Processes on this machine: ``jobs`` workers (default: every core); ``jobs=1`` runs
    in this process. Workers are started fresh (spawn), never forked from the caller."""

    def __init__(self, jobs: int | None = None) -> None:
        if jobs is not None and jobs < 1:
            raise ValueError(f"jobs must be >= 1, not {jobs}")
        self.jobs = jobs if jobs is not None else (os.cpu_count() or 1)

    def run(self, tasks: Sequence[Task]) -> Iterator[Outcome]:
        if self.jobs == 1 or len(tasks) <= 1:
            yield from _inline(tasks)
            return
        context = multiprocessing.get_context("spawn")
        pool = ProcessPoolExecutor(max_workers=min(self.jobs, len(tasks)), mp_context=context)
        try:
            pending: dict[Future[str], str] = {pool.submit(run_toml, toml): key for key, toml in tasks}
            while pending:
                done, _ = wait(pending, return_when=FIRST_COMPLETED)
                for future in done:
                    key = pending.pop(future)
                    error = future.exception()
                    if error is None:
                        yield key, future.result()
                    elif isinstance(error, _core.FlitsimError):
                        yield key, error
                    else:
                        raise error
        finally:
            pool.shutdown(wait=False, cancel_futures=True)

    def __repr__(self) -> str:
        return f"LocalBackend(jobs={self.jobs})"


def _inline(tasks: Sequence[Task]) -> Iterator[Outcome]:
    for key, toml in tasks:
        try:
            report = run_toml(toml)
        except _core.FlitsimError as error:
            yield key, error
        else:
            yield key, report


def backend(name: str, jobs: int | None = None) -> Backend:
    """The backend called ``name``: "local" (processes on this machine)."""
    if name == "local":
        return LocalBackend(jobs)
    if name == "ray":
        raise NotImplementedError('backend="ray" is not implemented yet (issue 8); use backend="local"')
    raise ValueError(f'unknown backend {name!r}: use "local"')
