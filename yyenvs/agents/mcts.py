"""The MCTS baseline as an agent: ``mcts`` and ``mcts:<simulations>`` in agent specs.

Each ``act`` searches the rows with more than one legal move with
:class:`~yyenvs.search.mcts.MCTS` (one tree per row) and plays its choice; a
row with a single legal move plays it at once.
"""
from __future__ import annotations

import numpy as np

from yyenvs.agents.base import Agent
from yyenvs.core.contract import BatchState, GameCore, show
from yyenvs.search.mcts import MCTS


class MCTSAgent(Agent):
    """The MCTS baseline; ``simulations`` (per move and row) is the strength knob, the other keywords
    are the search's settings (:class:`~yyenvs.search.settings.MCTSSettings`).

    Given a core with explicit chance, rows at a chance node are the caller's to
    resolve: ``act`` refuses them by name (``ValueError``).
    """

    name = "mcts"

    def __init__(self, core: GameCore, seed: int = 0, simulations: int | None = None, **settings):
        super().__init__(core, seed)
        self.mcts = MCTS(core, self.seed, simulations, **settings)

    @property
    def simulations(self) -> int:
        return self.mcts.simulations

    def __repr__(self) -> str:
        s = self.mcts.settings
        return (f"MCTSAgent(seed={int(self.seed)}, simulations={self.simulations}, "
                f"rollout={show(s.rollout)}, prior={show(s.prior)})")

    def act(self, state: BatchState, mask: np.ndarray) -> np.ndarray:
        out = np.full(state.batch_size, -1, dtype=np.int64)
        mask = self.legal_mask(state, mask)
        nlegal = mask.sum(axis=1)
        live = (~state.done) & (nlegal > 0)
        single = live & (nlegal == 1)
        if single.any():
            out[single] = np.argmax(mask[single], axis=1)
        search = np.flatnonzero(live & (nlegal > 1))
        if search.size:
            out[search] = self.mcts.best_actions(self.mcts.search(state.take(search)))
        return out
