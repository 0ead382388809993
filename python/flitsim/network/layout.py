"""A deterministic 2-D layout of any network graph: a spectral embedding refined by a
force-directed pass, computed once per graph (cached).

Spectral: the coordinates are the Laplacian's eigenvectors of the two smallest non-zero
eigenvalues (Hall's quadratic placement), of the graph plus a faint all-to-all weight so
that disconnected parts (failed routers) still get a place. Dense ``eigh`` up to
:data:`DENSE_MAX` routers; above, orthogonal iteration on the sparse Laplacian from a
fixed seed. Then, up to :data:`FORCE_MAX` routers, Fruchterman and Reingold's spring
embedder (repulsion between every pair, attraction along links, a cooling step limit)
spreads routers that the spectral coordinates put on top of each other, as they do when
an eigenvalue repeats (the Petersen graph, HyperX). Every step is fixed: the same graph
gives the same picture.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np

Array = np.ndarray[Any, np.dtype[np.float64]]
Edges = np.ndarray[Any, np.dtype[np.int64]]

#: Largest graph laid out with a dense eigendecomposition.
DENSE_MAX = 1500
#: Largest graph refined by the force-directed pass (its cost grows with the square).
FORCE_MAX = 1200
#: Seed of every random start.
SEED = 0
#: Weight of the all-to-all edges added so that every graph is connected.
FAINT = 1e-3


def layout(n: int, edges: tuple[tuple[int, int], ...]) -> Array:
    """Positions (``n`` x 2, in [-1, 1]) of routers ``0..n`` joined by ``edges`` (pairs of
    router indices, either order, repeats allowed)."""
    pos: Array = np.array(_cached(n, tuple(sorted({(min(a, b), max(a, b)) for a, b in edges if a != b}))), dtype=float)
    return pos


@lru_cache(maxsize=16)
def _cached(n: int, edges: tuple[tuple[int, int], ...]) -> Array:
    if n == 0:
        return np.zeros((0, 2))
    if n == 1:
        return np.zeros((1, 2))
    if n == 2:
        return np.array([[-1.0, 0.0], [1.0, 0.0]])
    e = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
    pos = _spectral(n, e)
    if n <= FORCE_MAX:
        pos = _springs(pos, e)
    return _normalise(pos)


def _normalise(pos: Array) -> Array:
    pos = pos - pos.mean(axis=0)
    span = np.abs(pos).max()
    return pos / span if span > 0 else pos


def _spectral(n: int, e: Edges) -> Array:
    degree = np.bincount(e.ravel(), minlength=n).astype(float)
    if n <= DENSE_MAX:
        lap = np.zeros((n, n))
        np.add.at(lap, (e[:, 0], e[:, 1]), -1.0)
        np.add.at(lap, (e[:, 1], e[:, 0]), -1.0)
        lap[np.diag_indices(n)] += degree
        lap += FAINT * (n * np.eye(n) - 1.0)
        _, vectors = np.linalg.eigh(lap)
        return np.asarray(vectors[:, 1:3], dtype=float)
    # Orthogonal iteration on (c I - L), which turns the smallest eigenvalues of L into the
    # largest; the constant vector (eigenvalue 0) is projected out at every step.
    c = 2.0 * float(degree.max()) + FAINT * n + 1.0

    def times(x: Array) -> Array:
        lx = degree[:, None] * x
        np.add.at(lx, e[:, 0], -x[e[:, 1]])
        np.add.at(lx, e[:, 1], -x[e[:, 0]])
        lx += FAINT * (n * x - x.sum(axis=0))
        return c * x - lx

    x = np.random.default_rng(SEED).standard_normal((n, 2))
    for _ in range(300):
        x = times(x)
        x -= x.mean(axis=0)
        x, _ = np.linalg.qr(x)
    return np.asarray(x, dtype=float)


def _springs(pos: Array, e: Edges, iterations: int = 80) -> Array:
    """Fruchterman-Reingold from ``pos``: ideal distance k = 1/sqrt(n) in a unit box."""
    n = len(pos)
    pos = _normalise(pos) * 0.5
    # Routers the spectral step put at one point are pulled apart by a fixed nudge.
    pos = pos + np.random.default_rng(SEED).uniform(-1e-3, 1e-3, pos.shape)
    k = 1.0 / np.sqrt(n)
    step = 0.1
    for it in range(iterations):
        delta = pos[:, None, :] - pos[None, :, :]
        dist2 = np.maximum((delta**2).sum(axis=-1), 1e-6)
        disp = (delta * (k * k / dist2)[:, :, None]).sum(axis=1)
        d = pos[e[:, 0]] - pos[e[:, 1]]
        pull = d * (np.sqrt((d**2).sum(axis=1)) / k)[:, None]
        np.add.at(disp, e[:, 0], -pull)
        np.add.at(disp, e[:, 1], pull)
        length = np.maximum(np.sqrt((disp**2).sum(axis=1)), 1e-9)
        pos = pos + disp * (np.minimum(length, step * (1 - it / iterations)) / length)[:, None]
    return pos
