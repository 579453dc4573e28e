"""Rollouts: games played on from a batch of states by cheap moves, then valued per seat.

The MCTS baseline (:mod:`yyenvs.search.mcts`) values its leaves this way, and
the Gumbel search (:mod:`yyenvs.search.gumbel`, ``rollout_weight``) mixes these
values into the network's.  A rollout plays greedy or random moves (every row
of the batch stepped at once; chance outcomes drawn by their probabilities with
the rollout's own random numbers, never the game's stream) until the game ends
or for ``max_steps`` moves, then adds ``tanh(heuristic / scale)`` for every
seat of an unfinished game to the rewards collected on the way.
"""
from __future__ import annotations

import numpy as np

from yyenvs.core.contract import BatchState, GameCore
from yyenvs.core.moves import greedy_actions, sample_legal, sample_weighted
from yyenvs.core.rng import uniform01

#: random-number tags (one stream per use)
_TAG_ROLLOUT, _TAG_ROLLOUT_CHANCE = 5, 6


def sibling_spread(h: np.ndarray, live: np.ndarray, rows: np.ndarray, n: int):
    """(mean, spread) per node of the heuristics ``h`` of its children (``rows``: each child's
    node, of ``n``), counting the ``live`` ones: their standard deviation, else the mean's size,
    else 1, so that a scale made from it is never 0."""
    live = live.astype(np.float64)
    cnt = np.maximum(np.bincount(rows, weights=live, minlength=n), 1)
    mean = np.bincount(rows, weights=h * live, minlength=n) / cnt
    std = np.sqrt(np.bincount(rows, weights=(h - mean[rows]) ** 2 * live, minlength=n) / cnt)
    return mean, np.where(std > 1e-9, std, np.where(np.abs(mean) > 1e-9, np.abs(mean), 1.0))


class Rollouts:
    """Rollouts on ``core`` (explicit chance where the game has chance) with seed ``seed``.

    ``policy``: ``"greedy"`` (the move of best one-ply heuristic, ties by
    random numbers) or ``"random"``; ``max_steps``: moves before the heuristic
    is used (chance outcomes do not count).
    """

    def __init__(self, core: GameCore, seed: np.uint64, policy: str = "greedy", max_steps: int = 4):
        self.core = core
        self.seed = seed
        self.policy = policy
        self.max_steps = int(max_steps)
        self.explicit = bool(core.explicit_chance)
        self._has_heuristic = None  # decided on first use

    def heuristic(self, state: BatchState, player) -> np.ndarray | None:
        """``core.heuristic`` as float64, or None for a core that has none."""
        if self._has_heuristic is False:
            return None
        try:
            h = np.asarray(self.core.heuristic(state, player), dtype=np.float64)
        except NotImplementedError:
            self._has_heuristic = False
            return None
        self._has_heuristic = True
        return h

    def one_ply(self, children: BatchState, mover: np.ndarray, rows: np.ndarray, n: int):
        """(h, mean, spread) of ``children``, each a node's child (``rows``: its node, of ``n``):
        each child's heuristic for ``mover``, the seat that moved into it, and per node the mean
        and spread of its live children's (:func:`sibling_spread`); None for a core without a
        heuristic."""
        h = self.heuristic(children, mover)
        if h is None:
            return None
        return (h, *sibling_spread(h, ~children.done, rows, n))

    def resolve_chance(self, cur: BatchState, salt: np.ndarray, ret: np.ndarray, idx: np.ndarray) -> None:
        """Step every chance node of ``cur`` with an outcome drawn by its probabilities (in place),
        adding the rewards to ``ret[idx]``."""
        core = self.core
        for k in range(core.max_game_length + 1):
            chance = core.is_chance_node(cur)
            if not chance.any():
                return
            u = uniform01(self.seed, cur.seed, cur.ply.astype(np.uint64), salt,
                          np.uint64(_TAG_ROLLOUT_CHANCE), np.uint64(k))
            outcome = np.empty(cur.batch_size, np.int64)
            sample_weighted(core.chance_probabilities(cur), u, outcome)
            outcome[~chance] = -1
            core.step(cur, outcome)
            ret[idx] += cur.rewards

    def values(self, st: BatchState, salt: np.ndarray, scale: np.ndarray) -> np.ndarray:
        """(S, P) value of each row of ``st`` (stepped in place): the rollout's rewards plus the
        squashed heuristic of an unfinished game.  ``salt`` (S,) picks each row's random numbers."""
        core = self.core
        S = st.batch_size
        ret = np.zeros((S, core.num_players), dtype=np.float64)
        idx = np.arange(S)
        cur = st
        if self.explicit:
            self.resolve_chance(cur, salt, ret, idx)
        for _ in range(self.max_steps):
            live = ~cur.done
            if not live.any():
                break
            if live.sum() * 2 < cur.batch_size:
                cur = cur.take(live)
                idx = idx[live]
            mask = core.legal_action_mask(cur)
            u = uniform01(self.seed, cur.seed, cur.ply.astype(np.uint64), salt[idx], np.uint64(_TAG_ROLLOUT))
            if self.policy == "greedy":
                a = greedy_actions(core, cur, mask, u, value=self.heuristic)
            else:
                a = np.empty(cur.batch_size, dtype=np.int64)
                sample_legal(np.ascontiguousarray(mask), u, a)
            a[cur.done] = -1
            core.step(cur, a)
            ret[idx] += cur.rewards
            if self.explicit:
                self.resolve_chance(cur, salt[idx], ret, idx)
        live = ~cur.done
        if live.any():
            sub = cur.take(live) if not live.all() else cur
            rows = idx[live]
            for p in range(core.num_players):
                h = self.heuristic(sub, np.full(sub.batch_size, p, dtype=np.int8))
                if h is None:
                    break
                ret[rows, p] += np.tanh(h / scale[rows])
        return ret
