"""Choosing moves from legal-action masks, for agents and searches alike: a uniform legal move, a
move drawn by weight, and the one-ply greedy move by the core's heuristic.

Each takes its random numbers as one U[0, 1) per row (an agent's per-game stream, or a search's), so
a row's choice does not depend on the batch it is in.
"""
from __future__ import annotations

import numpy as np
from numba import njit, prange

from yyenvs.core.kernels import batch_kernel


@batch_kernel
def sample_legal(mask, u, out):
    """out[b] = the k-th legal action of row b with k = floor(u[b] * #legal); -1 if none.

    Counts eight mask bytes at a time (each byte is 0 or 1).
    """
    A = mask.shape[1]
    W = A // 8
    ones = np.uint64(0x0101010101010101)
    for b in prange(mask.shape[0]):
        row = mask[b]
        words = row[: W * 8].view(np.uint64)
        n = 0
        for w in range(W):
            n += np.int64((words[w] * ones) >> np.uint64(56))
        for a in range(W * 8, A):
            n += np.int64(row[a])
        if n == 0:
            out[b] = -1
            continue
        k = min(np.int64(u[b] * n), n - 1)
        a = 0
        for w in range(W):
            c = np.int64((words[w] * ones) >> np.uint64(56))
            if k < c:
                break
            k -= c
            a += 8
        while True:
            if row[a]:
                if k == 0:
                    break
                k -= 1
            a += 1
        out[b] = a


@njit(cache=True)
def sample_weighted(weights, u, out):
    """out[b] = an action drawn with probability weights[b, a] / sum(weights[b]); -1 if none > 0.

    The first action whose running sum of (positive) weights passes
    ``u[b] * total``, so one U[0, 1) per row fixes the draw.
    """
    for b in range(weights.shape[0]):
        total = 0.0
        for a in range(weights.shape[1]):
            if weights[b, a] > 0:
                total += weights[b, a]
        out[b] = -1
        if not total > 0:
            continue
        x = u[b] * total
        acc = 0.0
        for a in range(weights.shape[1]):
            w = weights[b, a]
            if w > 0:
                out[b] = a  # the last possible one, should rounding leave acc <= x
                acc += w
                if acc > x:
                    break


def greedy_actions(core, state, mask, u, value=None) -> np.ndarray:
    """The one-ply greedy action of each row: -1 where the row has no legal action.

    Every legal action of every row (``mask``, (B, A) bool) is stepped as one
    batch and valued for the player who moved by ``value(children, movers)``
    (default ``core.heuristic``; a value function may return None: no values,
    so the tie-break decides).  Among the actions within ``TIE`` of the best
    value, ``u`` (one U[0, 1) per row, e.g. :meth:`Agent.uniforms`) picks one
    uniformly, so a game plays the same at any batch size.
    """
    out = np.full(state.batch_size, -1, dtype=np.int64)
    rows, actions = np.nonzero(mask)
    if rows.size == 0:
        return out
    children = state.take(rows)
    core.step(children, actions)
    v = (value or core.heuristic)(children, state.current_player[rows])
    v = np.zeros(rows.size) if v is None else np.ascontiguousarray(v, dtype=np.float64)
    _best_per_row(rows, actions, v, np.ascontiguousarray(u, dtype=np.float64), out)
    return out


TIE = 1e-9  # values this close to the best count as equal (heuristics are sums of small numbers)


@njit(cache=True)
def _best_per_row(rows, actions, value, u, out):
    """out[r] = one of row r's actions of highest value, the ``u[r]``-th share of the tied ones.

    ``rows`` / ``actions`` / ``value`` list the candidates, grouped by row.
    """
    n = out.shape[0]
    best = np.full(n, -np.inf)
    for i in range(rows.shape[0]):
        if value[i] > best[rows[i]]:
            best[rows[i]] = value[i]
    ties = np.zeros(n, np.int64)
    for i in range(rows.shape[0]):
        if value[i] >= best[rows[i]] - TIE:
            ties[rows[i]] += 1
    pick = np.empty(n, np.int64)
    for r in range(n):
        pick[r] = min(int(u[r] * ties[r]), ties[r] - 1)
    for i in range(rows.shape[0]):
        r = rows[i]
        if value[i] >= best[r] - TIE:
            if pick[r] == 0:
                out[r] = actions[i]
            pick[r] -= 1
