"""Board symmetries: the rotations and reflections of a square board, on planes, points and actions.

A game whose rules look the same after turning or mirroring the board
declares it in its spec (``GameSpec.symmetry``, e.g. ``"D4"``: the eight
transforms of the square) and its core lists them (``GameCore.symmetries()``)
as :class:`Symmetry` objects: how the observation planes move and where each
action goes.  Training uses them to multiply its data (a position and its
search target seen turned are as good as the position itself).

A transform is ``k`` quarter turns (``numpy.rot90``) followed, when ``flip``,
by a mirror of the columns; every map here is built by applying that same
transform to an array of indices, so planes, points and directions always
agree.
"""
from __future__ import annotations

import dataclasses

import numpy as np

#: the dihedral group of the square as (quarter turns, mirror), the identity first
DIHEDRAL = tuple((k, flip) for flip in (False, True) for k in range(4))


def transform_grid(a: np.ndarray, k: int, flip: bool, axes=(0, 1)) -> np.ndarray:
    """``a`` turned ``k`` quarter turns in the plane of ``axes``, then mirrored when ``flip``."""
    a = np.rot90(a, k, axes=axes)
    return np.flip(a, axis=axes[1]) if flip else a


def point_map(rows: int, cols: int, k: int, flip: bool) -> np.ndarray:
    """(rows * cols,) the index (row-major) that each grid point moves to."""
    moved = transform_grid(np.arange(rows * cols).reshape(rows, cols), k, flip)
    out = np.empty(rows * cols, np.int64)
    out[moved.reshape(-1)] = np.arange(rows * cols)
    return out


def direction_map(vectors, k: int, flip: bool) -> np.ndarray:
    """(D,) the direction each of ``vectors`` ((drow, dcol) steps) turns into."""
    index = {tuple(v): i for i, v in enumerate(vectors)}
    out = np.empty(len(vectors), np.int64)
    for i, (dr, dc) in enumerate(vectors):
        grid = np.zeros((3, 3), np.int64)
        grid[1 + dr, 1 + dc] = 1
        r, c = np.argwhere(transform_grid(grid, k, flip))[0]
        out[i] = index[(int(r) - 1, int(c) - 1)]
    return out


@dataclasses.dataclass(frozen=True)
class Symmetry:
    """One board transform: ``k`` quarter turns then a mirror when ``flip``; ``action[a]`` is
    the action that ``a`` becomes."""

    k: int
    flip: bool
    action: np.ndarray

    def observations(self, obs: np.ndarray) -> np.ndarray:
        """A batch of (B, H, W, C) observation planes, transformed (a copy)."""
        return np.ascontiguousarray(transform_grid(obs, self.k, self.flip, axes=(1, 2)))

    def per_action(self, values: np.ndarray) -> np.ndarray:
        """A (B, A) array over actions (a mask, a policy), moved with the actions."""
        out = np.empty_like(values)
        out[:, self.action] = values
        return out
