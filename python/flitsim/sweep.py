"""Design-space sweeps: a grid (or a list) of overrides times seeds, run in parallel, every
finished point kept in a results store so that a sweep resumes and a repeated one is free."""

from __future__ import annotations

import itertools
import numbers
import os
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Union

import pandas as pd
from tqdm.auto import tqdm

from . import _core
from .backends import Backend, Task, backend as make_backend
from .config import Config, ConfigLike, Overrides, check_seed
from .result import SUMMARY_FIELDS, Result
from .store import Store

#: ``seeds``: a count n (seeds 1..n; 1 is the default seed) or the seeds themselves.
Seeds = Union[int, Iterable[int], None]


def expand_grid(grid: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The cartesian product of a grid (key path -> list of values), the last key varying
    fastest."""
    keys = list(grid)
    values: list[list[Any]] = []
    for k in keys:
        v = grid[k]
        if isinstance(v, (str, bytes, Mapping)) or not isinstance(v, Iterable):
            raise TypeError(f"grid[{k!r}] = {v!r}: give a list of values, e.g. [{v!r}]")
        values.append(list(v))
        if not values[-1]:
            raise ValueError(f"grid[{k!r}] is empty")
    return [dict(zip(keys, combo)) for combo in itertools.product(*values)]


def sweep(
    config: ConfigLike = None,
    *,
    grid: Mapping[str, Any] | None = None,
    points: Sequence[Mapping[str, Any]] | None = None,
    seeds: Seeds = None,
    set: Overrides = None,
    backend: str | Backend = "local",
    address: str | None = None,
    store: str | os.PathLike[str] | Store | None = None,
    jobs: int | None = None,
    progress: bool = True,
    errors: str = "raise",
) -> pd.DataFrame:
    """Run ``config`` at every point of ``grid`` (the cartesian product of dotted key paths
    to lists of values) or of ``points`` (a list of ``{key path: value}`` dicts), once per
    seed, and return one data frame.

    One row per (point, seed), in grid order then seed order: the point's overrides as
    columns named by key path, the :data:`~flitsim.result.SUMMARY_FIELDS` (``seed`` among
    them) and ``key``, the point's store key (``invalid-N`` for a point whose overrides
    the parser refused, with ``errors="record"``). ``df.attrs`` holds ``ran`` (simulations run
    now) and ``cached`` (points read from the store).

    ``set`` applies to every point before the point's own overrides. ``backend``:
    "local" (processes on this machine, ``jobs`` of them, default every core; ``jobs=1``
    runs in this process), "ray" (a Ray cluster: ``address`` "auto" or a cluster's
    address; None starts Ray on this machine with ``jobs`` CPUs; see
    :class:`~flitsim.backends.RayBackend`) or a :class:`~flitsim.backends.Backend`. Every
    backend gives the same data frame, bit for bit. ``store``: a results
    directory (see :mod:`flitsim.store`); points already in it are not run again, and
    every point is written as soon as it finishes. ``errors``: "raise" stops at the first
    point the engine refuses or that deadlocks (finished points stay stored) and raises
    its typed error; "record" runs everything and puts the error in an ``error`` column.
    """
    if errors not in ("raise", "record"):
        raise ValueError(f'errors must be "raise" or "record", not {errors!r}')
    if grid is not None and points is not None:
        raise ValueError("give grid or points, not both")
    base = Config(config, set=set)
    # Refuse a bad base config before anything runs, as `flitsim sweep` does.
    base.validate()
    overrides = expand_grid(grid) if grid is not None else [dict(p) for p in points] if points is not None else [{}]
    seed_list: list[int | None] = _seeds(seeds)
    if seeds is not None and any("seed" in p for p in overrides):
        raise ValueError("give the seeds with seeds= or as a grid key, not both")

    rows: list[tuple[dict[str, Any], str]] = []
    todo: dict[str, str] = {}
    points_of: dict[str, dict[str, Any]] = {}
    results: dict[str, Result | _core.FlitsimError] = {}
    for point in overrides:
        for seed in seed_list:
            try:
                cfg = Config(base, set=point, seed=seed)
            except _core.FlitsimError as e:
                # A point whose overrides do not parse: raised now, or recorded (it has
                # no config, so no store key; its row's key says so).
                if errors == "raise":
                    if hasattr(e, "add_note"):
                        e.add_note(f"in the sweep point {point if seed is None else {**point, 'seed': seed}}")
                    raise
                bad = f"invalid-{len(rows)}"
                rows.append((point, bad))
                results[bad] = e
                continue
            rows.append((point, cfg.key))
            todo.setdefault(cfg.key, cfg.toml)
            points_of.setdefault(cfg.key, point if seed is None else {**point, "seed": seed})

    stored = store if isinstance(store, Store) or store is None else Store(store)
    if stored is not None:
        for key in list(todo):
            found = stored.get(key)
            if found is not None:
                results[key] = found
                del todo[key]
    cached = sum(isinstance(r, Result) for r in results.values())
    runner = make_backend(backend, jobs, address) if isinstance(backend, str) else backend
    tasks: list[Task] = list(todo.items())

    bar = tqdm(total=cached + len(tasks), initial=cached, desc="sweep", unit="point", disable=not progress, dynamic_ncols=True)
    try:
        outcomes = runner.run(tasks)
        try:
            for key, outcome in outcomes:
                if isinstance(outcome, str):
                    if stored is not None:
                        stored.put(key, outcome)
                    results[key] = Result(outcome)
                elif errors == "raise":
                    if hasattr(outcome, "add_note"):
                        outcome.add_note(f"in the sweep point {points_of[key]}")
                    raise outcome
                else:
                    results[key] = outcome
                bar.update(1)
        finally:
            close = getattr(outcomes, "close", None)
            if close is not None:
                close()
    finally:
        bar.close()

    frame = _frame(rows, results)
    frame.attrs["ran"] = len(tasks)
    frame.attrs["cached"] = cached
    if stored is not None:
        frame.attrs["store"] = str(stored.path)
    return frame


def _seeds(seeds: Seeds) -> list[int | None]:
    if seeds is None:
        return [None]
    if isinstance(seeds, numbers.Integral) and not isinstance(seeds, bool):
        if seeds < 1:
            raise ValueError(f"seeds={seeds}: give a count >= 1 or a list of seeds")
        return list(range(1, int(seeds) + 1))
    if isinstance(seeds, (str, bytes, bool)) or not isinstance(seeds, Iterable):
        raise TypeError(f"seeds is a count (int) or a list of seeds, not {type(seeds).__name__} {seeds!r}")
    out: list[int | None] = [check_seed(s) for s in seeds]
    if not out:
        raise ValueError("seeds is empty")
    return out


def _frame(rows: list[tuple[dict[str, Any], str]], results: Mapping[str, Result | _core.FlitsimError]) -> pd.DataFrame:
    point_columns: list[str] = []
    for point, _ in rows:
        point_columns.extend(k for k in point if k not in point_columns)
    failed = any(not isinstance(r, Result) for r in results.values())
    records: list[dict[str, Any]] = []
    for point, key in rows:
        record: dict[str, Any] = dict(point)
        outcome = results[key]
        if isinstance(outcome, Result):
            record.update(outcome.summary)
        else:
            record["error"] = f"{type(outcome).__name__}: {outcome}"
        record["key"] = key
        records.append(record)
    columns = [*point_columns, *(f for f in SUMMARY_FIELDS if f not in point_columns), "key"]
    if failed:
        columns.append("error")
    frame: pd.DataFrame = pd.DataFrame.from_records(records, columns=columns)
    return frame
