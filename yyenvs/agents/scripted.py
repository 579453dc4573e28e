"""The scripted baselines: uniform random and one-ply greedy, both batched."""
from __future__ import annotations

import numpy as np

from yyenvs.agents.base import Agent
from yyenvs.core.moves import greedy_actions, sample_legal


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
