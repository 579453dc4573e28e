"""The scripted baselines: uniform random and one-ply greedy, both batched."""
from __future__ import annotations

import numpy as np
from numba import njit

from yyenvs.agents.base import Agent, sample_legal


class RandomAgent(Agent):
    """Uniform over the legal actions of each row."""

    name = "random"

    def act(self, state, mask):
        out = np.empty(state.batch_size, dtype=np.int64)
        sample_legal(self.legal_mask(state, mask), self.uniforms(state), out)
        return out


class GreedyAgent(Agent):
    """One-ply search: try every legal action, keep the best ``core.heuristic``.

    The value is taken for the player who moved; ties are broken at random
    (per game).  All rows and all their actions are stepped as one batch.  In
    a game with chance the actions are stepped with explicit chance, so a move
    that leads to a chance event is valued before its outcome: greedy never
    reads the outcome the game's stream holds, and plays the same in both modes.
    """

    name = "greedy"

    def __init__(self, core, seed: int = 0):
        super().__init__(core, seed)
        self.lookahead = core.with_options(chance="explicit") if core.spec.chance else core

    def act(self, state, mask):
        return greedy_actions(self.lookahead, state, self.legal_mask(state, mask), self.uniforms(state))


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
