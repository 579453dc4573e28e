"""The scripted baselines: uniform random and one-ply greedy, both batched."""
from __future__ import annotations

import numpy as np

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
    (per game).  All rows and all their actions are stepped as one batch.
    """

    name = "greedy"

    def act(self, state, mask):
        B = state.batch_size
        out = np.full(B, -1, dtype=np.int64)
        rows, actions = np.nonzero(self.legal_mask(state, mask))
        if rows.size == 0:
            return out
        children = state.take(rows)
        self.core.step(children, actions)
        value = self.core.heuristic(children, state.current_player[rows])
        # tiny per-game noise breaks ties without favouring low action ids
        noise = self.uniforms(state)[rows] + (actions * 0.6180339887) % 1.0
        value = value + 1e-6 * (noise % 1.0)
        order = np.lexsort((-value, rows))  # by row, best value first
        first = np.ones(order.size, dtype=bool)
        first[1:] = rows[order][1:] != rows[order][:-1]
        best = order[first]
        out[rows[best]] = actions[best]
        return out
