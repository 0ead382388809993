"""Where sweep points run. A backend takes tasks (store key, resolved config as TOML) and
yields each one's outcome as it finishes: the report text, or the FlitsimError it raised.

Workers only run the engine; the driver keeps the store and the progress bar, so a
backend that runs tasks elsewhere needs nothing but this interface: :class:`LocalBackend`
(processes on this machine) and :class:`RayBackend` (a Ray cluster; Ray is imported only
when it is used).
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from typing import Any, Protocol, Union

from . import _core

#: One point to run: its store key and its whole resolved config as TOML.
Task = tuple[str, str]
#: A finished task: its key and the report text, or the error the engine raised.
Outcome = tuple[str, Union[str, _core.FlitsimError]]


def run_toml(toml: str) -> str:
    """Run a whole resolved config (TOML) and return the report text. What a worker does:
    on one thread, since a sweep already runs its points side by side."""
    return _core.run(_core.Config.load(toml, []), 1)


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


def _outcome(toml: str) -> str | _core.FlitsimError:
    """What a Ray task returns: the report text, or the engine's error as a value (so it
    crosses back pickled with its attributes, not wrapped in Ray's task error)."""
    try:
        return run_toml(toml)
    except _core.FlitsimError as error:
        return error


def import_ray() -> Any:
    """The ``ray`` module, or an ImportError that says how to install it."""
    try:
        import ray
    except ImportError as error:
        raise ImportError('backend="ray" needs Ray: `pip install ray` (the same version on every node of the cluster)') from error
    return ray


class RayBackend:
    """Tasks on a Ray cluster: each point is one remote call of :func:`run_toml`; the
    driver (the process that calls :func:`~flitsim.sweep`) keeps the store and the
    progress bar.

    ``address=None`` starts a Ray runtime on this machine (``num_cpus`` workers, default
    every core) unless this process is connected already; ``"auto"`` joins the cluster
    started on this machine by ``ray start``; ``"ray://HOST:10001"`` or ``"HOST:6379"``
    joins that cluster. Every node needs the same flitsim package (the workers import it).
    A connection this backend made stays open for later sweeps; ``ray.shutdown()`` ends it.
    """

    def __init__(self, address: str | None = None, *, num_cpus: int | None = None) -> None:
        if num_cpus is not None and num_cpus < 1:
            raise ValueError(f"num_cpus must be >= 1, not {num_cpus}")
        self.address = address
        self.num_cpus = num_cpus

    def connect(self) -> Any:
        """Start or join Ray (once per process); the ``ray`` module."""
        ray = import_ray()
        if not ray.is_initialized():
            if self.address is None:
                ray.init(num_cpus=self.num_cpus, include_dashboard=False, configure_logging=False)
            else:
                ray.init(address=self.address, configure_logging=False)
        return ray

    def run(self, tasks: Sequence[Task]) -> Iterator[Outcome]:
        """Submit every task as a Ray task and yield outcomes as they finish; closing the
        iterator early cancels the tasks still pending."""
        if not tasks:
            return
        ray = self.connect()
        # A task whose worker dies (a node lost, or the worker a previous sweep's early
        # exit force-cancelled and Ray reuses while it exits) is run again: a point's
        # result depends only on its config, so a retry changes nothing. The engine's
        # own errors come back as outcomes, never as worker deaths.
        remote = ray.remote(num_cpus=1, max_retries=3)(_outcome)
        pending: dict[Any, str] = {remote.remote(toml): key for key, toml in tasks}
        try:
            while pending:
                done, _ = ray.wait(list(pending), num_returns=1)
                for ref in done:
                    key = pending.pop(ref)
                    yield key, ray.get(ref)
        finally:
            for ref in pending:
                ray.cancel(ref, force=True)

    def __repr__(self) -> str:
        return f"RayBackend(address={self.address!r}, num_cpus={self.num_cpus})"


def backend(name: str, jobs: int | None = None, address: str | None = None) -> Backend:
    """The backend called ``name``: "local" (``jobs`` processes on this machine) or "ray"
    (a Ray cluster at ``address``; None starts one here with ``jobs`` CPUs)."""
    if name == "local":
        if address is not None:
            raise ValueError('address is for backend="ray"; the local backend runs on this machine')
        return LocalBackend(jobs)
    if name == "ray":
        return RayBackend(address, num_cpus=jobs)
    raise ValueError(f'unknown backend {name!r}: use "local" or "ray"')
