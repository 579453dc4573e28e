"""Monte-Carlo tree search over any batched core: the strongest scripted baseline.

:class:`MCTSAgent` runs one independent search per row of the batch, but
every expensive step is batched across rows (and across a few simulations per
row at a time), so one ``act`` costs a few hundred batched core calls whatever
the batch size.

The search (per row, per ``act``):

* **Tree.**  Node ``n`` of row ``r`` lives at ``r * C + n`` (``C`` =
  simulations + 1: each simulation adds at most one node, so memory is
  bounded).  Node states are kept in one :class:`BatchState` of ``B * C``
  rows; the children of a node are an edge list (legal actions) in a shared
  pool, created when the node is created (lazy: a child's state exists only
  once a simulation has gone through that edge).
* **Selection.**  PUCT: ``Q + c_uct * prior * sqrt(N) / (1 + n)``, where the
  prior is a softmax of the one-ply ``core.heuristic`` of each child for the
  player who moves (z-scored among siblings; immediate wins/losses get a
  large/small prior).  With ``prior="uniform"`` it is plain UCT, unvisited
  children first in a per-game random order.  ``wave`` simulations per row
  are selected at once using virtual loss, then stepped together.
* **Evaluation.**  A rollout from the new leaf (greedy or random moves, all
  leaves of all rows stepped as one batch) until the game ends or after
  ``max_rollout_steps``, when ``tanh(heuristic / scale)`` per player is used
  (``scale``: ``core.heuristic_scale`` if the core has one, else the spread of
  the root's one-ply heuristics).  The value is a vector (one entry per
  player): rewards collected along the path plus the leaf value.
* **Backup.**  Each edge gets the value of the player who chose it, so 1-4
  players and a player moving several times in a row need nothing special.
* **Chance.**  Node states are one sample of the chance outcome (stepping a
  copy).  So that the search never peeks at the real game's future draws, any
  ``uint64`` state field whose name contains ``rng`` is re-keyed (hashed with
  the agent seed) at the root and before each rollout.
* **Decision.**  An immediate win if there is one (the game ends with the
  mover first and rewarded), else the most visited root child; ties by mean
  value, then by a per-game random number.  Rows with a single legal action are not searched.

Randomness is a pure function of (agent seed, game seed, ply, simulation), so
the same state gives the same action whatever batch it is in.
"""
from __future__ import annotations

import dataclasses
import math

import numpy as np
from numba import njit

from yyenvs.agents.base import Agent, sample_legal
from yyenvs.core.contract import BatchState, GameCore, show
from yyenvs.core.rng import hash_u64, uniform01

DEFAULT_SIMULATIONS = 100


# --------------------------------------------------------------------------
# tree kernels
# --------------------------------------------------------------------------
@njit(cache=True)
def _select(nsim, C, node_edge0, node_nedge, node_N, node_ready, node_term, node_count,
            e_action, e_child, e_N, e_W, e_prior, e_noise, c_uct, puct,
            leaf, is_new, parent, action, path, depth):
    """Select ``nsim`` leaves per row (virtual loss between them); allocate new nodes."""
    B = node_count.shape[0]
    for r in range(B):
        for w in range(nsim):
            s = r * nsim + w
            n = r * C
            d = 0
            while True:
                if node_term[n] or not node_ready[n] or node_nedge[n] == 0 or d >= path.shape[1]:
                    leaf[s] = n
                    is_new[s] = False
                    break
                e0 = node_edge0[n]
                ne = node_nedge[n]
                total = max(node_N[n], 1)
                sq = math.sqrt(total)
                lg = math.log(total)
                best = e0
                bestv = -1e300
                for e in range(e0, e0 + ne):
                    k = e_N[e]
                    if puct:
                        q = e_W[e] / k if k > 0 else 0.0
                        v = q + c_uct * e_prior[e] * sq / (1.0 + k) + 1e-9 * e_noise[e]
                    elif k == 0:
                        v = 1e9 + e_noise[e]
                    else:
                        v = e_W[e] / k + c_uct * math.sqrt(lg / k)
                    if v > bestv:
                        bestv = v
                        best = e
                e = best
                e_N[e] += 1
                e_W[e] -= 1.0  # virtual loss, undone by the backup
                node_N[n] += 1
                path[s, d] = e
                d += 1
                ch = e_child[e]
                if ch < 0:
                    ch = r * C + node_count[r]
                    node_count[r] += 1
                    e_child[e] = ch
                    leaf[s] = ch
                    is_new[s] = True
                    parent[s] = n
                    action[s] = e_action[e]
                    break
                n = ch
            depth[s] = d


@njit(cache=True)
def _backup(nsim, path, depth, value, e_child, e_player, node_reward, e_W):
    """Add each simulation's return (value of the edge's mover) along its path."""
    B = path.shape[0] // nsim
    P = value.shape[1]
    for r in range(B):
        G = np.empty(P)
        for w in range(nsim):
            s = r * nsim + w
            for p in range(P):
                G[p] = value[s, p]
            for k in range(depth[s] - 1, -1, -1):
                e = path[s, k]
                ch = e_child[e]
                for p in range(P):
                    G[p] += node_reward[ch, p]
                e_W[e] += G[e_player[e]] + 1.0


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
# the agent
# --------------------------------------------------------------------------
def _count(name, value, least, most=None):
    """An integer option >= ``least`` (2.5 or True would be silently truncated)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or value < least:
        raise ValueError(f"mcts: {name} must be an integer >= {least}, got {show(value)}")
    if most is not None and value > most:
        raise ValueError(f"mcts: {name} must be an integer from {least} to {most:,}, got {show(value)}")
    return int(value)


#: the most simulations per move: the tree of one row holds simulations + 1 nodes
MAX_SIMULATIONS = 1_000_000


def _finite(name, value):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)) \
            or not math.isfinite(value):
        raise ValueError(f"mcts: {name} must be a finite number, got {show(value)}")
    return float(value)


class MCTSAgent(Agent):
    """UCT/PUCT search with rollouts; ``simulations`` is the strength knob.

    Parameters: ``simulations`` per move and per row (default
    :data:`DEFAULT_SIMULATIONS`); ``rollout`` ``"random"`` or ``"greedy"``;
    ``c_uct`` exploration constant; ``max_rollout_steps`` before the
    heuristic is used (``None``: play to the end); ``prior`` ``"heuristic"``
    (one-ply heuristic softmax, PUCT) or ``"uniform"`` (plain UCT);
    ``prior_beta`` inverse temperature of that softmax; ``wave``
    simulations per row selected together (virtual loss).

    Defaults (100 simulations, 4-step greedy rollouts, then the heuristic)
    were tuned on Yoxii and Koi against ``greedy``: see
    ``benchmarks/mcts_ladder.py``.  Random rollouts to the end
    (``rollout="random", max_rollout_steps=None``) need no heuristic at all.
    """

    name = "mcts"

    def __init__(self, core: GameCore, seed: int = 0, simulations: int | None = None,
                 rollout: str = "greedy", c_uct: float = 1.4, max_rollout_steps: int | None = 4,
                 prior: str = "heuristic", prior_beta: float = 1.0, wave: int = 8,
                 value_scale: float | None = None):
        super().__init__(core, seed)
        if rollout not in ("random", "greedy"):
            raise ValueError(f"mcts: rollout must be 'random' or 'greedy', got {show(rollout)}")
        if prior not in ("heuristic", "uniform"):
            raise ValueError(f"mcts: prior must be 'heuristic' or 'uniform', got {show(prior)}")
        self.simulations = _count("simulations", DEFAULT_SIMULATIONS if simulations is None
                                  else simulations, 1, MAX_SIMULATIONS)
        self.rollout = rollout
        self.c_uct = _finite("c_uct", c_uct)
        self.max_rollout_steps = (core.max_game_length + 1 if max_rollout_steps is None
                                  else _count("max_rollout_steps", max_rollout_steps, 0))
        self.prior = prior
        self.prior_beta = _finite("prior_beta", prior_beta)
        self.wave = _count("wave", wave, 1)
        if value_scale is not None and not _finite("value_scale", value_scale) > 0:
            raise ValueError(f"mcts: value_scale must be a positive number or None, got {show(value_scale)}")
        self.value_scale = value_scale if value_scale is not None else getattr(
            core, "heuristic_scale", None)
        self._has_heuristic = None  # decided on first use
        self.keep_tree = False  # set True to keep the last search's tree in ``last_tree``
        self.last_tree = None

    def __repr__(self) -> str:
        return (f"MCTSAgent(seed={int(self.seed)}, simulations={self.simulations}, "
                f"rollout={show(self.rollout)}, prior={show(self.prior)})")

    # -- helpers -----------------------------------------------------------
    def _heuristic(self, state, player):
        if self._has_heuristic is False:
            return None
        try:
            h = np.asarray(self.core.heuristic(state, player), dtype=np.float64)
        except NotImplementedError:
            self._has_heuristic = False
            return None
        self._has_heuristic = True
        return h

    def _rekey(self, state: BatchState, salt: np.ndarray) -> None:
        """Re-key any per-game chance stream (uint64 fields named *rng*)."""
        for f in dataclasses.fields(state):
            if "rng" not in f.name:
                continue
            arr = getattr(state, f.name)
            if arr.dtype != np.uint64 or arr.shape[0] == 0:
                continue
            s = np.asarray(salt, dtype=np.uint64).reshape((-1,) + (1,) * (arr.ndim - 1))
            arr[...] = hash_u64(arr, self.seed, s)

    def _greedy_actions(self, state, mask, u):
        """One-ply greedy move per row (random tie-break from ``u``), -1 where none."""
        out = np.full(state.batch_size, -1, dtype=np.int64)
        rows, acts = np.nonzero(mask)
        if rows.size == 0:
            return out
        ch = state.take(rows)
        self.core.step(ch, acts)
        v = self._heuristic(ch, state.current_player[rows])
        if v is None:
            v = np.zeros(rows.size)
        v = v + 1e-6 * ((u[rows] + acts * 0.6180339887) % 1.0)
        order = np.lexsort((-v, rows))
        first = np.ones(order.size, dtype=bool)
        first[1:] = rows[order][1:] != rows[order][:-1]
        best = order[first]
        out[rows[best]] = acts[best]
        return out

    # -- expansion ------------------------------------------------------------
    def _expand(self, nodes: np.ndarray, states: BatchState, root: bool = False):
        """Create the edge lists of ``nodes`` (global indices) with states ``states``."""
        T = self._tree
        n = nodes.size
        done = states.done
        T["term"][nodes] = done
        T["ready"][nodes] = True
        T["reward"][nodes] = states.rewards
        mask = self.core.legal_action_mask(states)
        mask[done] = False
        rows, acts = np.nonzero(mask)
        counts = np.bincount(rows, minlength=n)
        start = T["esize"]
        offs = np.zeros(n, dtype=np.int64)
        np.cumsum(counts[:-1], out=offs[1:])
        T["edge0"][nodes] = start + offs
        T["nedge"][nodes] = counts
        k = rows.size
        self._reserve(start + k)
        sl = slice(start, start + k)
        T["action"][sl] = acts
        T["child"][sl] = -1
        T["N"][sl] = 0
        T["W"][sl] = 0.0
        player = states.current_player.astype(np.int64)
        T["player"][sl] = player[rows]
        T["noise"][sl] = uniform01(self.seed, states.seed[rows],
                                   states.ply[rows].astype(np.uint64), acts.astype(np.uint64),
                                   np.uint64(77))
        prior = np.full(k, 1.0, dtype=np.float64)
        if k:
            prior /= counts[rows]
        spread = np.ones(n)
        if k and (self.prior == "heuristic" or root):
            ch = states.take(rows)
            self.core.step(ch, acts)
            if root:
                # immediate wins: the game ends and the mover is first with a positive reward
                r_all = ch.rewards.astype(np.float64)
                r_me = r_all[np.arange(k), player[rows]]
                self._root_win = np.where(ch.terminated & (r_me > 0) & (r_me >= r_all.max(axis=1)),
                                          r_me, -np.inf)
            h = self._heuristic(ch, player[rows])
            if h is not None:
                term = ch.terminated
                live = ~ch.done
                w = live.astype(np.float64)
                cnt = np.bincount(rows, weights=w, minlength=n)
                mean = np.bincount(rows, weights=h * w, minlength=n) / np.maximum(cnt, 1)
                var = np.bincount(rows, weights=(h - mean[rows]) ** 2 * w, minlength=n) / np.maximum(cnt, 1)
                std = np.sqrt(var)
                spread = np.where(std > 1e-9, std, np.where(np.abs(mean) > 1e-9, np.abs(mean), 1.0))
                z = (h - mean[rows]) / spread[rows]
                z = np.clip(z, -3.0, 3.0)
                # finished children: their real outcome for the mover
                r_mover = ch.rewards[np.arange(k), player[rows]].astype(np.float64)
                z = np.where(term, np.sign(r_mover) * 6.0, np.where(ch.truncated, 0.0, z))
                if self.prior == "heuristic":
                    prior = _group_softmax(self.prior_beta * z, rows, n)
        T["prior"][sl] = prior
        T["esize"] = start + k
        return spread

    def _reserve(self, size):
        T = self._tree
        cap = T["action"].shape[0]
        if size <= cap:
            return
        new = max(size, 2 * cap)
        for key in ("action", "child", "N", "W", "prior", "noise", "player"):
            a = T[key]
            b = np.empty(new, dtype=a.dtype)
            b[:cap] = a
            T[key] = b

    # -- evaluation -------------------------------------------------------------
    def _evaluate(self, st: BatchState, salt: np.ndarray, scale: np.ndarray) -> np.ndarray:
        """(S, P) value of each state: rollout rewards plus squashed heuristic."""
        P = self.core.num_players
        S = st.batch_size
        ret = np.zeros((S, P), dtype=np.float64)
        self._rekey(st, salt)
        idx = np.arange(S)
        cur = st
        for t in range(self.max_rollout_steps):
            live = ~cur.done
            if not live.any():
                break
            if live.sum() * 2 < cur.batch_size:
                cur = cur.take(live)
                idx = idx[live]
            mask = self.core.legal_action_mask(cur)
            u = uniform01(self.seed, cur.seed, cur.ply.astype(np.uint64), salt[idx],
                          np.uint64(5))
            if self.rollout == "greedy":
                a = self._greedy_actions(cur, mask, u)
            else:
                a = np.empty(cur.batch_size, dtype=np.int64)
                sample_legal(np.ascontiguousarray(mask), u, a)
            a[cur.done] = -1
            self.core.step(cur, a)
            ret[idx] += cur.rewards
        live = ~cur.done
        if live.any():
            sub = cur.take(live) if not live.all() else cur
            rows = idx[live]
            for p in range(P):
                h = self._heuristic(sub, np.full(sub.batch_size, p, dtype=np.int8))
                if h is None:
                    break
                ret[rows, p] += np.tanh(h / scale[rows])
        return ret

    # -- the search ---------------------------------------------------------------
    def act(self, state: BatchState, mask: np.ndarray) -> np.ndarray:
        B = state.batch_size
        out = np.full(B, -1, dtype=np.int64)
        mask = self.legal_mask(state, mask)
        nlegal = mask.sum(axis=1)
        live = (~state.done) & (nlegal > 0)
        single = live & (nlegal == 1)
        if single.any():
            out[single] = np.argmax(mask[single], axis=1)
        search = np.flatnonzero(live & (nlegal > 1))
        if search.size:
            out[search] = self._search(state.take(search))
        return out

    def _search(self, root: BatchState) -> np.ndarray:
        core = self.core
        B = root.batch_size
        P = core.num_players
        sims = self.simulations
        C = sims + 1
        root = root.copy()
        root_salt = hash_u64(root.seed, root.ply.astype(np.uint64), np.uint64(1))
        self._rekey(root, root_salt)
        nodes_state = root.take(np.repeat(np.arange(B), C))
        est = 64 * B
        self._tree = T = {
            "edge0": np.zeros(B * C, np.int64), "nedge": np.zeros(B * C, np.int32),
            "N": np.zeros(est, np.int32), "nodeN": np.zeros(B * C, np.int32),
            "ready": np.zeros(B * C, np.bool_), "term": np.zeros(B * C, np.bool_),
            "reward": np.zeros((B * C, P), np.float64), "count": np.ones(B, np.int64),
            # edge pool: 22 bytes per edge
            "action": np.zeros(est, np.int32), "child": np.zeros(est, np.int32),
            "W": np.zeros(est, np.float32), "prior": np.zeros(est, np.float32),
            "noise": np.zeros(est, np.float32), "player": np.zeros(est, np.int16),
            "esize": 0,
        }
        roots = np.arange(B) * C
        self._root_win = np.full(0, -np.inf)
        spread = self._expand(roots, root, root=True)
        root_win = self._root_win if self._root_win.size else np.full(T["esize"], -np.inf)
        T["reward"][roots] = 0.0
        if self.value_scale is not None:
            scale = np.full(B, float(self.value_scale))
        else:
            scale = spread
        puct = self.prior == "heuristic"
        # a path has at most one edge per node and per step of the game
        max_depth = min(C, int(getattr(core, "max_game_length", C)) + 1)
        done_sims = 0
        while done_sims < sims:
            nsim = min(self.wave, sims - done_sims)
            S = B * nsim
            leaf = np.zeros(S, np.int64)
            is_new = np.zeros(S, np.bool_)
            parent = np.zeros(S, np.int64)
            action = np.zeros(S, np.int64)
            path = np.zeros((S, max_depth), np.int64)
            depth = np.zeros(S, np.int64)
            _select(nsim, C, T["edge0"], T["nedge"], T["nodeN"], T["ready"], T["term"],
                    T["count"], T["action"], T["child"], T["N"], T["W"], T["prior"], T["noise"],
                    self.c_uct, puct, leaf, is_new, parent, action, path, depth)
            new = np.flatnonzero(is_new)
            if new.size:
                ch = nodes_state.take(parent[new])
                core.step(ch, action[new])
                nodes_state.put(leaf[new], ch)
                self._expand(leaf[new], ch)
            # evaluate every simulation's leaf (finished leaves are worth 0 from there)
            value = np.zeros((S, P), np.float64)
            ev = np.flatnonzero(~T["term"][leaf])
            if ev.size:
                sim_id = (done_sims + np.arange(S) % nsim).astype(np.uint64)
                salt = hash_u64(root_salt[np.arange(S) // nsim], sim_id)
                value[ev] = self._evaluate(nodes_state.take(leaf[ev]), salt[ev],
                                           scale[ev // nsim])
            _backup(nsim, path, depth, value, T["child"], T["player"], T["reward"], T["W"])
            done_sims += nsim
        # decision: most visited root child, then best mean, then per-game noise
        acts = np.empty(B, np.int64)
        u = self.uniforms(root, salt=3)
        for r in range(B):
            e0 = T["edge0"][roots[r]]
            ne = T["nedge"][roots[r]]
            n = T["N"][e0:e0 + ne].astype(np.float64)
            q = T["W"][e0:e0 + ne] / np.maximum(n, 1)
            tie = (T["noise"][e0:e0 + ne] + u[r]) % 1.0
            win = root_win[e0:e0 + ne]
            best = np.lexsort((tie, q, n, win))[-1]
            acts[r] = T["action"][e0 + best]
        self.last_tree = T if self.keep_tree else None
        self._tree = None
        return acts
