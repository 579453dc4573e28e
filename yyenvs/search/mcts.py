"""Monte-Carlo tree search over any batched core, the strongest scripted baseline (the agent that
plays it is :class:`~yyenvs.agents.mcts.MCTSAgent`).

:class:`MCTS` runs one independent search per row of the batch, but every
expensive step is batched across rows (and across a few simulations per row at
a time), so one search costs a few hundred batched core calls whatever the
batch size.  Its settings are :class:`~yyenvs.search.settings.MCTSSettings`.

The search (per row, per ``act``):

* **Tree.**  A :class:`SearchTree`: the layout the Gumbel search shares
  (:class:`~yyenvs.search.tree.Tree`), allocated once per search, with
  float32 statistics.  Each node's edges (one per legal action or chance
  outcome) are made when the node is expanded; an edge's child node exists
  once a simulation has gone through it.  Selection and backup are numba
  kernels over the whole batch, each row's tree in parallel.
* **Selection.**  PUCT: ``Q + c_uct * prior * sqrt(N) / (1 + n)``, where
  ``Q`` is the mean value for the player to move, and the prior is a softmax
  of the one-ply ``core.heuristic`` of each child for that player (z-scored
  among siblings; immediate wins/losses get a large/small prior).  With
  ``prior="uniform"`` it is plain UCT, unvisited children first in a per-game
  random order.  ``wave`` simulations per row are selected at once using
  virtual loss, then stepped together.
* **Chance.**  For a game whose spec declares chance the search runs on the
  core's ``chance="explicit"`` twin: a chance event is a node whose edges are
  the outcomes, and a simulation passing it samples one by
  ``chance_probabilities`` with the search's own random numbers (a pure
  function of the agent seed, the root and the simulation).  The search never
  reads the game's own stream, so it cannot see the real game's future throws;
  the caller still steps the real game with its (sampled) core, and ``act``
  returns player actions only.
* **Evaluation.**  A rollout (:mod:`yyenvs.search.rollout`) from the new leaf
  (greedy or random moves, all leaves of all rows stepped as one batch; chance
  outcomes sampled as above) until the game ends or after ``max_rollout_steps`` moves, when
  ``tanh(heuristic / scale)`` per player is used (``scale``: ``value_scale``
  if given, else the spread of the root's one-ply heuristics).  The value is
  a vector (one entry per player): rewards collected along the path plus the
  leaf value.
* **Backup.**  Every node on the path adds the whole value vector, and a
  node's value is read for the player who moves at its parent, so 1-4
  players and a player moving several times in a row need nothing special.
* **Decision.**  An immediate win if there is one (the game ends with the
  mover first and rewarded), else the most visited root child; ties by mean
  value, then by a per-game random number.  Rows with a single legal action
  are not searched.

Randomness is a pure function of (agent seed, game seed, ply, simulation), so
the same state gives the same action whatever batch it is in.
"""
from __future__ import annotations

import dataclasses
import math
from collections import namedtuple

import numpy as np
from numba import njit, prange

from yyenvs.search.rollout import Rollouts
from yyenvs.search.settings import MCTSSettings
from yyenvs.search.action_selection import sample_edge, uct_edge
from yyenvs.search.backup import backup
from yyenvs.search.tree import Tree, Walk, follow_edge
from yyenvs.core.contract import CHANCE_PLAYER, BatchState, GameCore, show
from yyenvs.core.kernels import batch_kernel, block_rows, num_blocks
from yyenvs.core.rng import hash_u64, uniform01, uniform3

DEFAULT_SIMULATIONS = 100

#: the most simulations per move: the tree of one row holds simulations + 1 nodes
MAX_SIMULATIONS = 1_000_000


#: random-number tags (one stream per use)
#: (5 and 6 are the rollouts' streams, see yyenvs.search.rollout)
_TAG_ROOT, _TAG_DECISION, _TAG_TREE_CHANCE, _TAG_EDGE = 1, 3, 8, 77


# --------------------------------------------------------------------------
# the tree and its kernels
# --------------------------------------------------------------------------
@dataclasses.dataclass
class SearchTree(Tree):
    """A batch of search trees (:class:`~yyenvs.search.tree.Tree`, float32 statistics)
    with, per edge of the roots (the first edges of the pool), the mover's reward if the action
    wins the game at once, else -inf."""

    root_edge_win: np.ndarray = dataclasses.field(default_factory=lambda: np.zeros(0))


#: what the selection reads besides the tree: its nodes per row, simulations per row (one wave),
#: the seed of its chance draws, the exploration constant, PUCT (else UCT) and the longest path
UCT = namedtuple("UCT", "nodes_per_row sims_per_row chance_seed c_uct puct max_depth")


@batch_kernel(parallel_min_batch=64)
def _select(walk, nodes, edges, settings, sim_key):
    """A wave of ``settings.sims_per_row`` simulations of every row, in blocks of rows (each row's
    tree is its own); simulation ``s`` (``r * sims_per_row + w``) of row r into ``walk[s]``."""
    nb = nodes.node_count.shape[0]
    for k in prange(num_blocks(nb)):
        lo, hi = block_rows(k, nb)
        _select_rows(walk, nodes, edges, settings, sim_key, lo, hi)


@njit(cache=True)
def _select_rows(walk, nodes, edges, settings, sim_key, lo, hi):
    """The wave of rows lo..hi-1: each simulation goes down from its row's root by
    :func:`~yyenvs.search.action_selection.uct_edge` (the simulations before it in the
    wave count as visits that lost: the virtual loss, undone by the backup), samples an outcome at
    a chance node (from ``sim_key[s]`` and the depth), and stops at a new node, a finished game or
    an unexpanded node (made earlier in the wave)."""
    _, _, _, to_move, terminal, visits, value_sum, _, _, first_edge, num_edges = nodes
    edge_prior = edges.prior
    C, sims_per_row, chance_seed, c_uct, puct, max_depth = settings
    leaf, is_new, path, depth = walk
    for r in range(lo, hi):
        for w in range(sims_per_row):
            s = r * sims_per_row + w
            n = r * C
            visits[n] += 1
            path[s, 0] = n
            d = 1
            new = False
            while not (terminal[n] or num_edges[n] == 0 or d > max_depth):
                e0 = first_edge[n]
                e1 = e0 + num_edges[n]
                player = to_move[n]
                if player == CHANCE_PLAYER:
                    e = sample_edge(edge_prior, e0, e1, uniform3(chance_seed, sim_key[s], np.uint64(d - 1)))
                else:
                    e = uct_edge(e0, e1, nodes, edges, player, c_uct, puct)
                ch, new = follow_edge(nodes, edges, r, C, n, e)
                visits[ch] += 1
                if player >= 0:
                    value_sum[ch, player] -= 1.0  # the virtual loss
                path[s, d] = ch
                d += 1
                n = ch
                if new:
                    break
            leaf[s] = n
            is_new[s] = new
            depth[s] = d


@njit(cache=True)
def _decide(C, nodes, edges, root_edge_win, u, out):
    """Per root: the immediate win, else the most visited child, then best mean, then noise.

    Equal on all four: the last such edge.
    """
    visits, value_sum = nodes.visits, nodes.value_sum
    for r in range(out.shape[0]):
        n = r * C
        player = nodes.to_move[n]
        e0 = nodes.first_edge[n]
        best = -1
        bw = bk = bq = bt = 0.0
        for e in range(e0, e0 + nodes.num_edges[n]):
            ch = edges.child[e]
            k = 0.0
            q = 0.0
            if ch >= 0:
                k = np.float64(visits[ch])
                q = value_sum[ch, player] / max(k, 1.0)
            t = (edges.noise[e] + u[r]) % 1.0
            win = root_edge_win[e]
            if (best < 0 or win > bw or (win == bw and (k > bk or (k == bk and (
                    q > bq or (q == bq and t >= bt)))))):
                best, bw, bk, bq, bt = e, win, k, q, t
        out[r] = edges.action[best] if best >= 0 else -1  # -1: a root without actions


@njit(cache=True)
def _group_softmax(z, group, ngroups):
    """Softmax of z within each group (groups are contiguous, in order)."""
    out = np.empty_like(z)
    n = z.shape[0]
    i = 0
    while i < n:
        j = i
        m = -1e300
        while j < n and group[j] == group[i]:
            m = max(m, z[j])
            j += 1
        s = 0.0
        for k in range(i, j):
            out[k] = math.exp(z[k] - m)
            s += out[k]
        for k in range(i, j):
            out[k] /= s
        i = j
    return out


# --------------------------------------------------------------------------
# the search
# --------------------------------------------------------------------------
class MCTS:
    """UCT/PUCT search with rollouts over ``core`` (see the module docstring): ``simulations`` per row
    (default :data:`DEFAULT_SIMULATIONS`), the other settings keywords of
    :class:`~yyenvs.search.settings.MCTSSettings` (held in ``self.settings``).

    ``core`` is the game as the caller steps it; for a game with chance the
    search runs on ``search_core``, its ``chance="explicit"`` twin.
    """

    def __init__(self, core: GameCore, seed: int = 0, simulations: int | None = None, **settings):
        self.settings = MCTSSettings.make(settings)
        sims = DEFAULT_SIMULATIONS if simulations is None else simulations
        if isinstance(sims, (bool, np.bool_)) or not isinstance(sims, (int, np.integer)) or \
                not 1 <= sims <= MAX_SIMULATIONS:
            raise ValueError(f"mcts: simulations must be an integer from 1 to {MAX_SIMULATIONS:,}, got {show(sims)}")
        self.simulations = int(sims)
        self.core = core
        self.seed = np.uint64(int(seed) % (1 << 64))
        if core.spec.chance and not core.explicit_chance:
            core.state_layout()  # made first, so that both cores share it (no re-checks)
            self.search_core = core.with_options(chance="explicit")
        else:
            self.search_core = core
        self.explicit = bool(self.search_core.explicit_chance)
        steps = self.settings.max_rollout_steps
        self.max_rollout_steps = self.search_core.max_game_length + 1 if steps is None else steps
        self.rollouts = Rollouts(self.search_core, self.seed, self.settings.rollout, self.max_rollout_steps)

    # -- expansion ------------------------------------------------------------
    def _expand(self, tree: SearchTree, nodes: np.ndarray, states: BatchState, root: bool = False):
        """Make the edges of ``nodes`` (node indices) whose states are ``states``.

        Returns the spread of each node's one-ply heuristics (the value scale
        at the roots); at the roots it also records the immediate wins.
        """
        core = self.search_core
        n = nodes.size
        done = states.done
        mover = states.current_player
        tree.terminal[nodes] = done
        tree.reward[nodes] = states.rewards
        tree.to_move[nodes] = mover
        chance = None
        if self.explicit:
            chance = (mover == CHANCE_PLAYER) & ~done
            if not chance.any():
                chance = None
        mask = core.legal_action_mask(states)
        mask[done] = False
        if root and core.num_actions > self.core.num_actions:
            mask[:, self.core.num_actions:] = False  # the caller's actions only
        sl, counts = tree.add_edges(nodes, mask)
        rows = np.repeat(np.arange(n), counts)  # each new edge's node (of ``nodes``) and action
        acts = tree.edge_action[sl].astype(np.int64)
        k = rows.size
        tree.edge_noise[sl] = uniform01(self.seed, states.seed[rows], states.ply[rows].astype(np.uint64),
                                        acts.astype(np.uint64), np.uint64(_TAG_EDGE))
        prior = np.full(k, 1.0, dtype=np.float64)
        if k:
            prior /= counts[rows]
        spread = np.ones(n)
        if k and (self.settings.prior == "heuristic" or root):
            if chance is None:  # every edge is a player's
                sel, prow, pact = None, rows, acts
            else:
                sel = np.flatnonzero(~chance[rows])
                prow, pact = rows[sel], acts[sel]
            spread, p = self._heuristic_priors(tree, states, prow, pact, n, root)
            if p is not None:
                if sel is None:
                    prior = p
                else:
                    prior[sel] = p
        if chance is not None:
            on = np.flatnonzero(chance[rows])
            prior[on] = core.chance_probabilities(states)[rows[on], acts[on]]
        tree.edge_prior[sl] = prior
        return spread

    def _heuristic_priors(self, tree, states, rows, acts, n, root):
        """(spread per node, softmax prior per edge or None) from each child's one-ply heuristic."""
        k = rows.size
        spread = np.ones(n)
        if k == 0:
            return spread, None
        ch = states.take(rows)
        self.search_core.step(ch, acts)
        player = states.current_player.astype(np.int64)[rows]
        r_mover = ch.rewards[np.arange(k), player].astype(np.float64)
        if root:
            # immediate wins: the game ends and the mover is first with a positive reward
            best = ch.rewards.astype(np.float64).max(axis=1)
            tree.root_edge_win = np.where(ch.terminated & (r_mover > 0) & (r_mover >= best),
                                          r_mover, -np.inf)
        one_ply = self.rollouts.one_ply(ch, player, rows, n)
        if one_ply is None:
            return spread, None
        h, mean, spread = one_ply
        z = np.clip((h - mean[rows]) / spread[rows], -3.0, 3.0)
        # finished children: their real outcome for the mover
        z = np.where(ch.terminated, np.sign(r_mover) * 6.0, np.where(ch.truncated, 0.0, z))
        if self.settings.prior != "heuristic":
            return spread, None
        return spread, _group_softmax(self.settings.prior_beta * z, rows, n)

    # -- the search ---------------------------------------------------------------
    def search(self, root: BatchState) -> SearchTree:
        """Search from every row of ``root`` (games in progress, a player to move); the trees.

        ``root`` is a state of ``core`` (or of ``search_core``: they share a
        layout); it is not changed.  :meth:`best_actions` reads the decision
        off the trees; tests and tools may read the rest.
        """
        core = self.search_core
        B = root.batch_size
        P = core.num_players
        sims = self.simulations
        C = sims + 1
        root_salt = hash_u64(root.seed, root.ply.astype(np.uint64), np.uint64(_TAG_ROOT))
        tree = SearchTree.allocate(root, C, P, edges=64 * B, stats=np.float32)
        roots = tree.roots
        spread = self._expand(tree, roots, root, root=True)
        if tree.root_edge_win.size != tree.num_used_edges:
            tree.root_edge_win = np.full(tree.num_used_edges, -np.inf)
        tree.reward[roots] = 0.0
        scale = np.full(B, self.settings.value_scale) if self.settings.value_scale is not None else spread
        # a path has at most one edge per node and per step of the game
        max_depth = min(C, int(core.max_game_length) + 1)
        done_sims = 0
        while done_sims < sims:
            nsim = min(self.settings.wave, sims - done_sims)
            S = B * nsim
            sim_id = (done_sims + np.arange(S) % nsim).astype(np.uint64)
            salt = hash_u64(root_salt[np.arange(S) // nsim], sim_id)
            walk = Walk(np.zeros(S, np.int64), np.zeros(S, np.bool_), np.zeros((S, max_depth + 1), np.int64),
                        np.zeros(S, np.int64))
            settings = UCT(C, nsim, self.seed ^ np.uint64(_TAG_TREE_CHANCE), self.settings.c_uct, self.settings.prior == "heuristic",
                           max_depth)
            _select(walk, tree.node_arrays(), tree.edge_arrays(), settings, salt)
            leaf = walk.leaf
            new = leaf[walk.is_new]
            if new.size:
                ch = tree.states.take(tree.parent[new])
                core.step(ch, tree.action[new])
                tree.states.put(new, ch)
                self._expand(tree, new, ch)
            # evaluate every simulation's leaf (finished leaves are worth 0 from there)
            value = np.zeros((S, P), np.float64)
            ev = np.flatnonzero(~tree.terminal[leaf])
            if ev.size:
                value[ev] = self.rollouts.values(tree.states.take(leaf[ev]), salt[ev], scale[ev // nsim])
            backup(walk, value, tree.node_arrays(), 1.0, 1.0, nsim)
            done_sims += nsim
        return tree

    def best_actions(self, tree: SearchTree) -> np.ndarray:
        """The action chosen at each root of ``tree``."""
        roots = tree.roots
        st = tree.states
        u = uniform01(self.seed, st.seed[roots], st.ply[roots].astype(np.uint64), np.uint64(_TAG_DECISION))
        out = np.empty(roots.size, np.int64)
        _decide(tree.nodes_per_row, tree.node_arrays(), tree.edge_arrays(), tree.root_edge_win, u, out)
        return out
