"""Search with a policy-value network: Gumbel at the root, PUCT below it, chance sampled.

:class:`GumbelSearch` searches every row of a batch at once; each of its
``simulations`` waves adds one node to the tree of every row, evaluates all
the new nodes in one network call and backs their values up.

* **Tree.**  :class:`Tree`: flat arrays allocated per search.  Row ``r``
  owns nodes ``r * C`` to ``r * C + C - 1`` (``C = simulations + 1``, the
  root first; a simulation adds at most one node).  A node holds its parent,
  the action from it, the player to move (``CHANCE_PLAYER`` at a chance
  node), whether the game is over there, its visits, its value sum *per
  player* counted from the step into it (whose rewards, ``reward``, are part
  of it) and the network's value of it (``raw_value``).  Its edges, one per
  legal action (or possible chance outcome), lie in a shared pool with their
  prior, their normalised logit and, at the roots, a Gumbel draw.  Node
  states are one ``BatchState`` of ``B * C`` rows.
* **Root** (Danihelka et al., *Policy improvement by planning with Gumbel*,
  ICLR 2022).  Sequential halving over the ``max_considered`` actions of
  highest ``gumbel + logit``: simulation ``s`` visits, among the actions whose
  visit count is the schedule's count for ``s``, the one of highest
  ``gumbel + logit + sigma(q)``, where ``q`` is the completed Q-value (the
  mean value for the mover of a visited child, else the mix of the network's
  value and the visited Q-values), rescaled to [0, 1] over the siblings, and
  ``sigma(q) = (maxvisit_init + max visits) * value_scale * q``.  The chosen
  action is the best of the most visited by the same score; the improved
  policy, the training target, is ``softmax(logit + sigma(q))``.
* **Below the root**: PUCT, ``Q + c_puct * prior * sqrt(N) / (1 + n)``, with
  an unvisited child valued at its parent's mean.
* **Chance** (games whose spec declares chance): the search runs on the
  core's ``chance="explicit"`` twin; a chance node's edges are its outcomes
  with their probabilities, and a simulation through it draws one with the
  search's own random numbers, never the game's stream.
* **Wins at once** (``find_wins``): every new node, and the root, also
  steps each legal move of its mover; a node whose mover can end the game
  with the top of ``core.reward_range`` is a finished game in the tree, worth
  that win, and a root that can plays the win, its policy the prior over the
  winning moves.
* **Proofs** (``solve_budget`` n > 0): after the search, every root is also
  searched exhaustively over the game's own rules, up to n positions
  (:func:`~yyenvs.agents.solver.prove`).  A root with a proven win, or with
  every move proven, plays its best proven moves (the policy is the prior
  over them, the value the proven result, discounted by its length as the
  game's final reward would be).  A root lost whatever it plays first keeps
  the moves with the least chance of that loss against opponents who pick
  their moves uniformly at random (:func:`~yyenvs.agents.solver.loss_odds`,
  with a second budget of n): an opponent that errs has the most ways to.
  Then the longest.  Elsewhere a move proven to give its mover the worst result is
  never played while another is left, and it gets no policy.  An option of
  the agents, off in training.
* **Rollouts** (``rollout_weight`` w > 0): a node the network evaluates is
  also played on by a rollout of :mod:`yyenvs.agents.rollout` (four greedy
  moves, then the game's heuristic squashed by the spread of the root's
  one-ply heuristics, as the MCTS baseline values its leaves), and its value
  is ``(1 - w) * network + w * rollout`` (AlphaGo's mixed evaluation).  It
  uses the game's heuristic, so it is an option of the agents, off in
  training.
* **Symmetric evaluation** (``average_symmetries``): the network sees each
  position in every transform the game declares (``core.symmetries()``) and
  the search takes the mean of its logits (moved back to the position's own
  actions) and values, so that its view of a position is the same in any
  transform (test-time augmentation; one network call of 8 times the
  positions on a square board).  An option of the agents, off in training.
* **Discount** (``discount`` d, 1 by default): a player's step is worth its
  reward plus d times the value after it (a chance outcome is not
  discounted), so a win sooner is worth more than a win later and a loss
  later less than a loss sooner: a seat that loses whatever it does still
  prefers the moves that hold the other off longest.  A network trained with
  a discount predicts discounted returns, and its agents search with the
  same discount (the network's description records it).
* **Values** are vectors, one entry per seat, so 1-4 players and a player
  moving several times in a row need nothing special: a node's value is read
  for the player who moves at its parent.  The network's values are relative
  to the seat it observes from (see :mod:`yyenvs.agents.search_network`); a chance
  node is observed from the seat of the last player who moved before it.

Random numbers are a pure function of (search seed, game seed, ply,
simulation), so a state gets the same search whatever batch it is in.
"""
from __future__ import annotations

import dataclasses
import math
import numbers
import time

from collections import namedtuple

import numpy as np
from numba import njit, prange

from yyenvs.agents.rollout import Rollouts
from yyenvs.agents.solver import loss_odds, prove
from yyenvs.core.contract import CHANCE_PLAYER, BatchState, GameCore
from yyenvs.core.kernels import batch_kernel, block_rows, num_blocks
from yyenvs.core.rng import hash_u64, uniform01, uniform3

#: random-number tags (one stream per use)
_TAG_GUMBEL, _TAG_CHANCE = 11, 13

#: the most root actions a search may consider: more than any game's legal actions, it bounds the
#: halving table
MAX_CONSIDERED = 4096
#: the most positions an exhaustive search may step per root (``solve_budget``): two levels of
#: that many states must fit in memory
MAX_SOLVE_BUDGET = 10_000_000
#: the settings of a search that agent specs and training configs may give (GumbelSearch keywords),
#: each with its type and the closed interval it lies in; an infinite bound admits any finite number
SEARCH_SETTINGS = {"gumbel_scale": (float, 0.0, math.inf), "max_considered": (int, 1, MAX_CONSIDERED),
                   "c_puct": (float, 0.0, math.inf), "value_scale": (float, 0.0, math.inf),
                   "maxvisit_init": (float, 0.0, math.inf), "find_wins": (bool, 0, 1),
                   "rollout_weight": (float, 0.0, 1.0), "average_symmetries": (bool, 0, 1),
                   "discount": (float, 0.0, 1.0), "solve_budget": (int, 0, MAX_SOLVE_BUDGET)}


def setting_allows(name: str, value) -> bool:
    """Whether ``value`` lies in search setting ``name``'s interval (NaN never does; a flag takes
    a bool, a number never does)."""
    kind, low, high = SEARCH_SETTINGS[name]
    if kind is bool or isinstance(value, (bool, np.bool_)):
        return kind is bool and isinstance(value, (bool, np.bool_))
    if not isinstance(value, numbers.Real):
        return False
    return math.isfinite(value) and low <= value <= high and (kind is not int or float(value).is_integer())


def setting_range(name: str) -> str:
    """Search setting ``name``'s interval in words, for error messages."""
    kind, low, high = SEARCH_SETTINGS[name]
    if kind is bool:
        return "0 or 1"
    if kind is int:
        return f"an integer from {low:,} to {high:,}"
    return "a finite number >= 0" if high == math.inf else f"a number from {low:g} to {high:g}"


def considered_visits(max_considered: int, simulations: int) -> tuple[int, ...]:
    """Sequential halving's schedule: the visit count of the action simulation s visits.

    The considered actions are visited in rounds, each round giving every one
    of them the same number of visits, then the better half goes on.
    """
    if max_considered <= 1:
        return tuple(range(simulations))
    log2max = int(math.ceil(math.log2(max_considered)))
    sequence: list[int] = []
    visits = [0] * max_considered
    n = max_considered
    while len(sequence) < simulations:
        extra = max(1, int(simulations / (log2max * n)))
        for _ in range(extra):
            sequence.extend(visits[:n])
            for i in range(n):
                visits[i] += 1
        n = max(2, n // 2)
    return tuple(sequence[:simulations])


def considered_table(max_considered: int, simulations: int) -> np.ndarray:
    """(max_considered + 1, simulations) int32: row m is the schedule with m actions considered."""
    table = np.zeros((max_considered + 1, max(simulations, 1)), np.int32)
    for m in range(max_considered + 1):
        table[m, :simulations] = considered_visits(m, simulations)
    return table


@dataclasses.dataclass
class Tree:
    """The search trees of a batch of roots (see the module docstring)."""

    nodes_per_row: int
    node_count: np.ndarray  # (B,) int64
    parent: np.ndarray  # (N,) int64, -1 at a root
    action: np.ndarray  # (N,) int64 the action from the parent, -1 at a root
    to_move: np.ndarray  # (N,) int8, CHANCE_PLAYER at a chance node
    observer: np.ndarray  # (N,) int8 the seat the network sees the node from: the mover, at a
    #                       chance node the nearest ancestor's mover
    terminal: np.ndarray  # (N,) bool
    visits: np.ndarray  # (N,) int32
    value_sum: np.ndarray  # (N, P) float64
    reward: np.ndarray  # (N, P) float64 rewards of the step into the node
    raw_value: np.ndarray  # (N, P) float64 the network's value (absolute seats)
    first_edge: np.ndarray  # (N,) int64
    num_edges: np.ndarray  # (N,) int32
    states: BatchState  # (N rows)
    edge_action: np.ndarray  # (E,) int32
    edge_child: np.ndarray  # (E,) int64, -1 until a simulation takes the edge
    edge_prior: np.ndarray  # (E,) float64 policy prior, or the outcome's probability
    edge_logit: np.ndarray  # (E,) float64 logit minus its node's largest
    edge_gumbel: np.ndarray  # (E,) float64 at the roots' edges, else 0
    num_used_edges: int = 0

    @classmethod
    def allocate(cls, root: BatchState, nodes_per_row: int, num_players: int, edges: int) -> Tree:
        B, C, P = root.batch_size, nodes_per_row, num_players
        N = B * C
        states = root.take(np.repeat(np.arange(B), C))
        return cls(C, np.ones(B, np.int64), np.full(N, -1, np.int64), np.full(N, -1, np.int64),
                   np.zeros(N, np.int8), np.zeros(N, np.int8), np.zeros(N, np.bool_), np.zeros(N, np.int32),
                   np.zeros((N, P)), np.zeros((N, P)), np.zeros((N, P)), np.zeros(N, np.int64),
                   np.zeros(N, np.int32), states, np.empty(edges, np.int32), np.empty(edges, np.int64),
                   np.empty(edges), np.empty(edges), np.empty(edges))

    @property
    def roots(self) -> np.ndarray:
        return np.arange(self.node_count.shape[0]) * self.nodes_per_row

    def reserve_edges(self, size: int) -> None:
        """Room for ``size`` edges (the pool doubles when full)."""
        cap = self.edge_action.shape[0]
        if size <= cap:
            return
        new = max(size, 2 * cap)
        for name in ("edge_action", "edge_child", "edge_prior", "edge_logit", "edge_gumbel"):
            old = getattr(self, name)
            grown = np.empty(new, old.dtype)  # an edge's fields are written when its node is expanded
            grown[:cap] = old
            setattr(self, name, grown)


# --------------------------------------------------------------------------
# tree kernels
# --------------------------------------------------------------------------
#: the node arrays the selection reads and writes (:class:`Tree`'s fields of the same names)
Nodes = namedtuple("Nodes", "node_count parent action to_move terminal visits value_sum reward raw_value "
                            "first_edge num_edges")
#: the edge arrays (``edge_<name>`` of :class:`Tree`)
Edges = namedtuple("Edges", "action child prior logit gumbel")
#: per root: its considered edges (their count) and schedule, and its chance key
Roots = namedtuple("Roots", "considered n_considered table chance_key")
#: the settings the selection reads
Selection = namedtuple("Selection", "c_puct maxvisit_init value_scale discount")
#: per row, what a simulation's walk gives: the leaf, whether it is new, the path and its depth
Walk = namedtuple("Walk", "leaf is_new path depth")


@batch_kernel(parallel_min_batch=64)
def _expand(nodes, mask, logits, first, first_edge, num_edges, edge_action, edge_child, edge_logit):
    """Edges for ``nodes``, one per legal action, with its logit minus the node's largest
    (actions past the logits' width, chance outcomes, get 0); node ``s``'s edges start at
    ``first[s]`` (the running count of the legal actions before it), so nodes fill their
    edges independently."""
    A = logits.shape[1]
    for s in prange(nodes.shape[0]):
        e0 = first[s]
        e = e0
        ms = mask[s]
        for a in range(ms.shape[0]):
            if ms[a]:
                edge_action[e] = a
                edge_logit[e] = logits[s, a] if a < A else 0.0
                edge_child[e] = -1
                e += 1
        top = -np.inf
        for k in range(e0, e):
            top = max(top, edge_logit[k])
        for k in range(e0, e):
            edge_logit[k] -= top
        first_edge[nodes[s]] = e0
        num_edges[nodes[s]] = e - e0


@batch_kernel(parallel_min_batch=64)
def _normalise(nodes, first_edge, num_edges, edge_prior):
    """Each node's edge priors divided by their sum (they hold exp(logit))."""
    for j in prange(nodes.shape[0]):
        n = nodes[j]
        e0 = first_edge[n]
        total = 0.0
        for e in range(e0, e0 + num_edges[n]):
            total += edge_prior[e]
        for e in range(e0, e0 + num_edges[n]):
            edge_prior[e] /= total


@njit(cache=True)
def _consider(B, C, first_edge, num_edges, edge_logit, edge_gumbel, max_considered, considered, n_considered):
    """Per root, its ``max_considered`` edges of highest gumbel + logit, best first: the only
    edges that sequential halving visits (an unvisited edge's score is its gumbel + logit
    plus the same sigma(q) for all)."""
    for r in range(B):
        node = r * C
        e0 = first_edge[node]
        m = 0
        for e in range(e0, e0 + num_edges[node]):
            score = edge_gumbel[e] + edge_logit[e]
            j = min(m, max_considered - 1)
            if m == max_considered and score <= edge_gumbel[considered[r, j]] + edge_logit[considered[r, j]]:
                continue
            while j > 0 and score > edge_gumbel[considered[r, j - 1]] + edge_logit[considered[r, j - 1]]:
                considered[r, j] = considered[r, j - 1]
                j -= 1
            considered[r, j] = e
            m = min(m + 1, max_considered)
        n_considered[r] = m


@njit(cache=True)
def _sigma_q(node, player, edges, n_edges, all_edges, edge_child, edge_prior, visits, value_sum,
             raw_value, maxvisit_init, value_scale, out):
    """sigma(completed Q) for ``player`` of the edges ``edges[:n_edges]`` of ``node`` into
    ``out``; ``all_edges``: those are every edge of the node (else the others are unvisited).
    The completed Q is a visited child's mean value, else the mix of the node's network value
    and the visited Q-values; it is rescaled to [0, 1] over all the node's edges.  Returns
    the largest visit count."""
    sum_n = 0
    sum_p = 0.0
    weighted = 0.0
    top_n = 0
    for j in range(n_edges):
        e = edges[j]
        ch = edge_child[e]
        if ch >= 0 and visits[ch] > 0:
            n = visits[ch]
            p = max(edge_prior[e], 1e-30)
            sum_n += n
            sum_p += p
            weighted += p * value_sum[ch, player] / n
            top_n = max(top_n, n)
    mixed = raw_value[node, player]
    if sum_n > 0:
        mixed = (mixed + sum_n * weighted / sum_p) / (sum_n + 1)
    lo = np.inf if all_edges else mixed
    hi = -np.inf if all_edges else mixed
    for j in range(n_edges):
        ch = edge_child[edges[j]]
        q = value_sum[ch, player] / visits[ch] if ch >= 0 and visits[ch] > 0 else mixed
        out[j] = q
        lo = min(lo, q)
        hi = max(hi, q)
    scale = (maxvisit_init + top_n) * value_scale / max(hi - lo, 1e-8)
    for j in range(n_edges):
        out[j] = (out[j] - lo) * scale
    return top_n


@njit(cache=True)
def _step_discount(parent_mover, discount):
    """The discount of a step from a node whose mover is ``parent_mover``: none after a chance outcome."""
    return 1.0 if parent_mover == CHANCE_PLAYER else discount


@njit(cache=True)
def _step_discounts(parent_movers, discount):
    """:func:`_step_discount` of each of ``parent_movers``."""
    out = np.empty(parent_movers.shape[0])
    for i in range(parent_movers.shape[0]):
        out[i] = _step_discount(parent_movers[i], discount)
    return out


@njit(cache=True)
def _puct_edge(node, player, first_edge, num_edges, edge_child, edge_prior, visits, value_sum, reward,
               c_puct, into):
    """PUCT among ``node``'s edges for ``player``; an unvisited child is valued at the node's mean
    (its value counted from the step into it, whose discount is ``into``, less that step)."""
    e0 = first_edge[node]
    after = value_sum[node, player] / max(visits[node], 1) - reward[node, player]
    fpu = after / into if into > 0 else 0.0
    c = c_puct * math.sqrt(max(visits[node], 1))
    best = e0
    best_score = -np.inf
    for e in range(e0, e0 + num_edges[node]):
        ch = edge_child[e]
        score = fpu + c * edge_prior[e]
        if ch >= 0:
            n = visits[ch]
            score = value_sum[ch, player] / n + c * edge_prior[e] / (1 + n)
        if score > best_score:
            best = e
            best_score = score
    return best


@njit(cache=True)
def _sample_edge(first_edge, num_edges, edge_prior, node, u):
    """A chance node's outcome edge drawn by its probability with the uniform ``u``."""
    e0 = first_edge[node]
    e1 = e0 + num_edges[node]
    acc = 0.0
    for e in range(e0, e1):
        acc += edge_prior[e]
        if acc > u:
            return e
    return e1 - 1  # rounding


@batch_kernel(parallel_min_batch=64)
def _select(walk, nodes, edges, roots, selection, sim, C, q):
    """Simulation ``sim`` of every row, in blocks of rows (each with its scratch row of ``q``); the
    walks into ``walk`` (its arrays' first axis is the batch's rows)."""
    nb = nodes.node_count.shape[0]
    for k in prange(num_blocks(nb)):
        lo, hi = block_rows(k, nb)
        _select_rows(sim, C, nodes, edges, roots, selection, walk, q[k], lo, hi)


@njit(cache=True)
def _select_rows(sim, C, nodes, edges, roots, selection, walk, q, lo, hi):
    """Simulation ``sim`` of rows lo..hi-1: from the root (sequential halving over its considered
    edges) down by PUCT, through chance nodes by their probabilities, to an edge no
    simulation has taken (its new child is the leaf) or to a finished game."""
    node_count, parent, action, to_move, terminal = (nodes.node_count, nodes.parent, nodes.action,
                                                     nodes.to_move, nodes.terminal)
    visits, value_sum, reward, raw_value = nodes.visits, nodes.value_sum, nodes.reward, nodes.raw_value
    first_edge, num_edges = nodes.first_edge, nodes.num_edges
    edge_action, edge_child, edge_prior, edge_logit, edge_gumbel = edges
    considered, n_considered, table, chance_key = roots
    c_puct, maxvisit_init, value_scale, discount = selection
    leaf, is_new, path, depth = walk
    for r in range(lo, hi):
        node = r * C
        path[r, 0] = node
        d = 1
        is_new[r] = False
        while not terminal[node]:
            if d == 1:
                m = n_considered[r]
                target = table[m, sim]
                _sigma_q(node, to_move[node], considered[r], m, m == num_edges[node], edge_child, edge_prior,
                         visits, value_sum, raw_value, maxvisit_init, value_scale, q)
                e = -1
                best = -np.inf
                for j in range(m):
                    c = considered[r, j]
                    ch = edge_child[c]
                    n = visits[ch] if ch >= 0 else 0
                    score = edge_gumbel[c] + edge_logit[c] + q[j]
                    if n == target and (e < 0 or score > best):
                        e = c
                        best = score
                if e < 0:  # nothing at the scheduled count: the best considered
                    e = considered[r, 0]
            elif to_move[node] == CHANCE_PLAYER:
                e = _sample_edge(first_edge, num_edges, edge_prior, node,
                                 uniform3(chance_key[r], np.uint64(sim), np.uint64(d)))
            else:
                e = _puct_edge(node, to_move[node], first_edge, num_edges, edge_child, edge_prior, visits,
                               value_sum, reward, c_puct, _step_discount(to_move[parent[node]], discount))
            ch = edge_child[e]
            if ch < 0:  # a new node, the leaf
                ch = r * C + node_count[r]
                node_count[r] += 1
                parent[ch] = node
                action[ch] = edge_action[e]
                visits[ch] = 0
                value_sum[ch, :] = 0.0
                edge_child[e] = ch
                path[r, d] = ch
                d += 1
                is_new[r] = True
                node = ch
                break
            node = ch
            path[r, d] = node
            d += 1
        leaf[r] = node
        depth[r] = d


@batch_kernel(parallel_min_batch=64)
def _record_children(new, rewards, done, current_player, parent, reward, terminal, to_move, observer):
    """The stepped states' rewards, end and player to move into the new nodes ``new``; a chance
    node is observed from its parent's observer (made in an earlier wave)."""
    for j in prange(new.shape[0]):
        n = new[j]
        reward[n, :] = rewards[j]
        terminal[n] = done[j]
        to_move[n] = current_player[j]
        observer[n] = observer[parent[n]] if current_player[j] == CHANCE_PLAYER else current_player[j]


@batch_kernel(parallel_min_batch=64)
def _record_values(nodes, rows, relative, viewer, raw_value, value):
    """The network's values (relative to ``viewer``) per absolute seat, into ``raw_value`` of
    ``nodes`` and ``value`` of the simulation ``rows``."""
    P = relative.shape[1]
    for j in prange(nodes.shape[0]):
        for k in range(P):
            seat = (viewer[j] + k) % P
            raw_value[nodes[j], seat] = relative[j, k]
            value[rows[j], seat] = relative[j, k]


@batch_kernel(parallel_min_batch=64)
def _backup(path, depth, value, reward, to_move, discount, visits, value_sum):
    """Add each row's leaf value, plus the rewards on the way, to every node of its path: below
    the root a node's value is counted from the step into it, that step's reward plus the
    value after it times ``discount`` (1 after a chance outcome); the root's is its own."""
    nb = path.shape[0]
    for k in prange(num_blocks(nb)):
        lo, hi = block_rows(k, nb)
        _backup_rows(path, depth, value, reward, to_move, discount, visits, value_sum, lo, hi)


@njit(cache=True)
def _backup_rows(path, depth, value, reward, to_move, discount, visits, value_sum, lo, hi):
    P = value.shape[1]
    G = np.empty(P)
    for r in range(lo, hi):
        for p in range(P):
            G[p] = value[r, p]
        for k in range(depth[r] - 1, -1, -1):
            n = path[r, k]
            visits[n] += 1
            g = _step_discount(to_move[path[r, k - 1]], discount) if k > 0 else 1.0
            for p in range(P):
                G[p] = reward[n, p] + g * G[p]  # a root's reward is 0
                value_sum[n, p] += G[p]


@njit(cache=True)
def _root_results(C, to_move, first_edge, num_edges, edge_action, edge_child, edge_prior, edge_logit,
                  edge_gumbel, visits, value_sum, raw_value, maxvisit_init, value_scale, only, barred, policy,
                  chosen, edges, q):
    """Per root: the improved policy softmax(logit + sigma(q)) into ``policy`` (B, A) and the
    chosen action, the best of the most visited by gumbel + logit + sigma(q).  A root with
    actions in ``only`` (B, A) plays the one of best gumbel + logit among them instead, and its
    policy is the prior over them alone.  Actions in ``barred`` are left out of both, unless
    every action is."""
    for r in range(policy.shape[0]):
        node = r * C
        e0 = first_edge[node]
        k = num_edges[node]
        for j in range(k):
            edges[j] = e0 + j
        top_n = _sigma_q(node, to_move[node], edges, k, True, edge_child, edge_prior, visits, value_sum,
                         raw_value, maxvisit_init, value_scale, q)
        has_only = False
        all_barred = True
        for j in range(k):
            has_only = has_only or only[r, edge_action[e0 + j]]
            all_barred = all_barred and barred[r, edge_action[e0 + j]]
        if has_only:  # only these count, by the prior alone
            for j in range(k):
                q[j] = 0.0 if only[r, edge_action[e0 + j]] else -np.inf
        elif not all_barred:
            top_n = -1
            for j in range(k):
                if barred[r, edge_action[e0 + j]]:
                    q[j] = -np.inf
                else:
                    ch = edge_child[e0 + j]
                    top_n = max(top_n, visits[ch] if ch >= 0 else 0)
        hi = -np.inf
        for j in range(k):
            hi = max(hi, edge_logit[e0 + j] + q[j])
        total = 0.0
        for j in range(k):
            total += math.exp(edge_logit[e0 + j] + q[j] - hi)
        policy[r, :] = 0.0
        best = -1
        best_score = -np.inf
        for j in range(k):
            a = edge_action[e0 + j]
            policy[r, a] = math.exp(edge_logit[e0 + j] + q[j] - hi) / total
            ch = edge_child[e0 + j]
            n = visits[ch] if ch >= 0 else 0
            score = edge_gumbel[e0 + j] + edge_logit[e0 + j] + q[j]
            if has_only:
                eligible = only[r, a]
            else:
                eligible = n == top_n and (all_barred or not barred[r, a])
            if eligible and (best < 0 or score > best_score):
                best = a
                best_score = score
        chosen[r] = best


# --------------------------------------------------------------------------
# the search
# --------------------------------------------------------------------------
class SymmetricEvaluator:
    """``evaluate`` averaged over board ``symmetries`` (the identity among them): a position's
    logits and values are the mean of the network's over its transforms, the logits taken back to
    the position's own actions."""

    def __init__(self, evaluate, symmetries):
        self.evaluate = evaluate
        self.symmetries = tuple(symmetries)

    def __call__(self, obs: np.ndarray):
        S, n = obs.shape[0], len(self.symmetries)
        logits, values = self.evaluate(np.concatenate([sym.observations(obs) for sym in self.symmetries]))
        mean = np.zeros((S, logits.shape[1]), np.float32)
        for g, sym in enumerate(self.symmetries):  # transformed action sym.action[a] is a's
            mean += logits[g * S:(g + 1) * S, sym.action]
        return mean / n, values.reshape(n, S, -1).mean(axis=0)


@dataclasses.dataclass
class SearchResult:
    """What one search gives per root."""

    action: np.ndarray  # (B,) int64 the chosen action
    policy: np.ndarray  # (B, A) float32 the improved policy over the player actions
    value: np.ndarray  # (B, P) float64 the root's mean value per seat (absolute seats)
    tree: Tree


class GumbelSearch:
    """Batched search with a network (see the module docstring).

    ``evaluate(obs) -> (logits (S, A), values (S, P))`` is the network (see
    :class:`~yyenvs.agents.search_network.NetworkEvaluator`): logits of the
    ``core.num_actions`` player actions and values relative to the observing
    seat.  ``seed`` salts the Gumbel and chance draws.
    """

    def __init__(self, core: GameCore, evaluate, simulations: int = 32, max_considered: int = 16,
                 gumbel_scale: float = 1.0, c_puct: float = 1.25, value_scale: float = 0.1,
                 maxvisit_init: float = 50.0, seed: int = 0, find_wins: bool = False,
                 rollout_weight: float = 0.0, average_symmetries: bool = False, discount: float = 1.0,
                 solve_budget: int = 0):
        if simulations < 1:
            raise ValueError(f"simulations must be at least 1, got {simulations!r}")
        for name, v in (("max_considered", max_considered), ("gumbel_scale", gumbel_scale), ("c_puct", c_puct),
                        ("value_scale", value_scale), ("maxvisit_init", maxvisit_init),
                        ("rollout_weight", rollout_weight), ("discount", discount),
                        ("solve_budget", solve_budget)):
            if not setting_allows(name, v):
                raise ValueError(f"{name} must be {setting_range(name)}, got {v!r}")
        self.core = core
        self.search_core = core.with_options(chance="explicit") if core.spec.chance else core
        if average_symmetries:
            symmetries = core.symmetries()
            if len(symmetries) < 2:
                raise ValueError(f"average_symmetries: {core.name} with options {core.options} declares no "
                                 "board symmetries for its observations")
            evaluate = SymmetricEvaluator(evaluate, symmetries)
        self.evaluate = evaluate
        self.simulations = int(simulations)
        self.max_considered = int(max_considered)
        self.gumbel_scale = float(gumbel_scale)
        self.c_puct = float(c_puct)
        self.value_scale = float(value_scale)
        self.maxvisit_init = float(maxvisit_init)
        self.seed = np.uint64(seed % (1 << 64))
        self.find_wins = bool(find_wins)
        self.rollout_weight = float(rollout_weight)
        self.discount = float(discount)
        self.solve_budget = int(solve_budget)
        self.rollouts = Rollouts(self.search_core, self.seed) if self.rollout_weight > 0 else None
        self._rollout_scale = np.ones(0)  # per root, set by each search that rolls out
        self._table = considered_table(self.max_considered, self.simulations)
        self._tree: Tree | None = None
        #: seconds spent so far in the network, the core (step, mask, observe, state copies) and
        #: the tree kernels; the rest of a search's time is its Python glue
        self.timings = {"network": 0.0, "core": 0.0, "tree": 0.0}

    def _children(self, st: BatchState, mask: np.ndarray | None = None):
        """Every legal move of every row of ``st`` whose mover is a player, stepped as one batch:
        (rows, actions, the children's states, each child's mover).  ``mask``: ``st``'s legal
        actions, where the caller has them."""
        core = self.search_core
        if mask is None:
            mask = core.legal_action_mask(st)
        player = st.current_player != CHANCE_PLAYER
        rows, acts = np.nonzero(mask[:, :self.core.num_actions] & player[:, None])
        children = st.take(rows)
        core.step(children, acts)
        return rows, acts, children, st.current_player[rows].astype(np.int64)

    def _wins_at_once(self, S: int, children):
        """Per row of the ``S`` whose ``children`` (:meth:`_children`) are given, whether its
        mover can end the game at once with the best reward a seat can get: (S,) bool, the (S, A)
        bool mask of those actions and the (S, P) rewards of one of them."""
        A, P = self.core.num_actions, self.search_core.num_players
        wins = np.zeros((S, A), np.bool_)
        rewards = np.zeros((S, P))
        rows, acts, ch, mover = children
        if rows.size:
            win = ch.done & (ch.rewards[np.arange(rows.size), mover] >= self.search_core.reward_range[1])
            wins[rows[win], acts[win]] = True
            rewards[rows[win]] = ch.rewards[win]
        return wins.any(axis=1), wins, rewards

    def _root_spread(self, root: BatchState, children) -> np.ndarray:
        """(B,) the spread of the one-ply heuristics of each root's moves for its mover
        (``children``: ``self._children(root)``): the scale of the rollouts' heuristic, as in the
        MCTS baseline."""
        rows, _, ch, mover = children
        one_ply = self.rollouts.one_ply(ch, mover, rows, root.batch_size)
        return np.ones(root.batch_size) if one_ply is None else one_ply[2]

    def _mix_rollouts(self, tree: Tree, nodes: np.ndarray, st: BatchState, value: np.ndarray,
                      rows: np.ndarray) -> None:
        """Mix a rollout's value from each of ``nodes`` into the network's (``raw_value`` and
        ``value[rows]``), clipped to the reward range."""
        C = tree.nodes_per_row
        salt = (nodes % C).astype(np.uint64)  # the node's place in its row's tree: batch-independent
        played = self.rollouts.values(st.take(np.arange(st.batch_size)), salt,
                                      self._rollout_scale[nodes // C])
        w = self.rollout_weight
        mixed = np.clip((1 - w) * tree.raw_value[nodes] + w * played, *self.search_core.reward_range)
        tree.raw_value[nodes] = mixed
        value[rows] = mixed

    def _evaluate_new(self, tree: Tree, nodes: np.ndarray, st: BatchState, viewer: np.ndarray,
                      value: np.ndarray, rows: np.ndarray, mask: np.ndarray | None = None) -> None:
        """Evaluate and expand ``nodes`` (their states ``st``, none finished, and their legal-action
        mask where the caller has it); their values per absolute seat go into ``value[rows]``."""
        core, clock = self.search_core, self.timings
        t0 = time.perf_counter()
        obs = core.observe(st, viewer)
        if mask is None:
            mask = core.legal_action_mask(st)
        t1 = time.perf_counter()
        logits, rel = self.evaluate(obs)
        t2 = time.perf_counter()
        _record_values(nodes, rows, np.ascontiguousarray(rel, np.float32), viewer, tree.raw_value, value)
        start = tree.num_used_edges
        counts = np.count_nonzero(mask, axis=1)
        first = start + np.cumsum(counts) - counts  # each node's first edge
        end = start + int(counts.sum())
        tree.reserve_edges(end)
        _expand(nodes, mask, np.ascontiguousarray(logits, np.float32), first, tree.first_edge, tree.num_edges,
                tree.edge_action, tree.edge_child, tree.edge_logit)
        np.exp(tree.edge_logit[start:end], out=tree.edge_prior[start:end])
        _normalise(nodes, tree.first_edge, tree.num_edges, tree.edge_prior)
        clock["core"] += t1 - t0
        clock["network"] += t2 - t1
        clock["tree"] += time.perf_counter() - t2
        if self.rollouts is not None:
            t3 = time.perf_counter()
            self._mix_rollouts(tree, nodes, st, value, rows)
            clock["core"] += time.perf_counter() - t3
        chance = np.flatnonzero(st.current_player == CHANCE_PLAYER)
        if chance.size:  # a chance node's edges are its outcomes: their probabilities, not a policy
            probs = core.chance_probabilities(st.take(chance))
            for k, n in enumerate(nodes[chance]):
                e = slice(tree.first_edge[n], tree.first_edge[n] + tree.num_edges[n])
                p = probs[k, tree.edge_action[e]]
                tree.edge_prior[e] = p
                with np.errstate(divide="ignore"):
                    tree.edge_logit[e] = np.log(p)
        tree.num_used_edges = end

    def run(self, root: BatchState) -> SearchResult:
        """Search from every row of ``root`` (games in progress with a player to move; not changed)."""
        core = self.search_core
        core.check_state(root)
        if root.done.any() or (root.current_player == CHANCE_PLAYER).any():
            bad = int(np.flatnonzero(root.done | (root.current_player == CHANCE_PLAYER))[0])
            raise ValueError(f"search: row {bad} is a finished game or a chance node; search rows where "
                             "a player is to move")
        B = root.batch_size
        P = core.num_players
        C = self.simulations + 1
        tree = self._tree
        if tree is None or tree.node_count.shape[0] != B or type(tree.states) is not type(root):
            # kept for the next search: fresh pages cost more than the search's writes to them
            tree = self._tree = Tree.allocate(root, C, P, edges=max(64 * B, 1))
        else:
            tree.states.put(tree.roots, root)
        roots = tree.roots
        tree.node_count[:] = 1
        tree.num_used_edges = 0
        tree.parent[roots] = -1
        tree.action[roots] = -1
        tree.terminal[roots] = False
        tree.reward[roots] = 0.0
        tree.to_move[roots] = root.current_player
        tree.observer[roots] = root.current_player
        value = np.zeros((B, P))
        t0 = time.perf_counter()
        # the roots' children, stepped once for both the rollouts' scale and the wins at once
        root_children = self._children(root) if self.find_wins or self.rollouts is not None else None
        if self.rollouts is not None:
            self._rollout_scale = self._root_spread(root, root_children)
        self.timings["core"] += time.perf_counter() - t0
        self._evaluate_new(tree, roots, root, root.current_player.astype(np.int64), value, np.arange(B))
        tree.visits[roots] = 1
        tree.value_sum[roots] = value
        tree.reserve_edges(int(1.5 * tree.num_used_edges * C))  # one doubling at most, usually none
        # Gumbel noise on the roots' edges, a pure function of the game and the action
        n_root = int(tree.num_edges[roots].sum())
        rows = np.repeat(np.arange(B), tree.num_edges[roots])
        tree.edge_gumbel[:n_root] = 0.0
        if self.gumbel_scale > 0 and n_root:
            u = uniform01(self.seed, root.seed[rows], root.ply[rows].astype(np.uint64),
                          tree.edge_action[:n_root].astype(np.uint64), np.uint64(_TAG_GUMBEL))
            tree.edge_gumbel[:n_root] = -np.log(-np.log(np.maximum(u, 1e-300))) * self.gumbel_scale
        M = self.max_considered
        considered = np.zeros((B, M), np.int64)
        n_considered = np.zeros(B, np.int64)
        _consider(B, C, tree.first_edge, tree.num_edges, tree.edge_logit, tree.edge_gumbel, M, considered,
                  n_considered)
        chance_key = hash_u64(self.seed, root.seed, root.ply.astype(np.uint64), np.uint64(_TAG_CHANCE))
        leaf = np.zeros(B, np.int64)
        is_new = np.zeros(B, np.bool_)
        path = np.zeros((B, C), np.int64)
        depth = np.zeros(B, np.int64)
        q = np.zeros(core.num_actions, np.float64)  # scratch: a node has at most that many edges
        q_blocks = np.zeros((num_blocks(B), core.num_actions))  # the same, per block of rows
        nodes = Nodes(tree.node_count, tree.parent, tree.action, tree.to_move, tree.terminal, tree.visits,
                      tree.value_sum, tree.reward, tree.raw_value, tree.first_edge, tree.num_edges)
        roots_t = Roots(considered, n_considered, self._table, chance_key)
        selection = Selection(self.c_puct, self.maxvisit_init, self.value_scale, self.discount)
        walk = Walk(leaf, is_new, path, depth)
        clock = self.timings
        for sim in range(self.simulations):
            t0 = time.perf_counter()
            # rebuilt every wave: expanding nodes may grow the edge arrays
            edges = Edges(tree.edge_action, tree.edge_child, tree.edge_prior, tree.edge_logit, tree.edge_gumbel)
            _select(walk, nodes, edges, roots_t, selection, sim, C, q_blocks)
            value = np.zeros((B, P))
            new = leaf[is_new]
            t1 = time.perf_counter()
            clock["tree"] += t1 - t0
            if new.size:
                ch = tree.states.take(tree.parent[new])
                core.step(ch, tree.action[new])
                tree.states.put(new, ch)
                clock["core"] += time.perf_counter() - t1
                _record_children(new, ch.rewards, ch.done, ch.current_player, tree.parent, tree.reward,
                                 tree.terminal, tree.to_move, tree.observer)
                rows = np.flatnonzero(is_new)
                if ch.done.any():  # finished games are valued by their rewards alone
                    live = np.flatnonzero(~ch.done)
                    ch, new, rows = ch.take(live), new[live], rows[live]
                mask = None
                if self.find_wins and new.size:  # a node whose mover wins at once counts as that win
                    t3 = time.perf_counter()
                    mask = core.legal_action_mask(ch)
                    won, _, rewards = self._wins_at_once(ch.batch_size, self._children(ch, mask))
                    clock["core"] += time.perf_counter() - t3
                    tree.terminal[new[won]] = True
                    after = _step_discounts(tree.to_move[tree.parent[new[won]]], self.discount)  # the win, a step later
                    tree.reward[new[won]] += after[:, None] * rewards[won]
                    if won.any():
                        keep = np.flatnonzero(~won)
                        ch, new, rows, mask = ch.take(keep), new[keep], rows[keep], mask[keep]
                if new.size:
                    self._evaluate_new(tree, new, ch, tree.observer[new].astype(np.int64), value, rows, mask)
            t2 = time.perf_counter()
            _backup(path, depth, value, tree.reward, tree.to_move, self.discount, tree.visits, tree.value_sum)
            clock["tree"] += time.perf_counter() - t2
        A = self.core.num_actions
        only = np.zeros((B, A), np.bool_)  # a root with any plays one of these
        barred = np.zeros((B, A), np.bool_)  # never played while another action is left
        exact = np.zeros(B, np.bool_)  # roots whose value is known, in exact_value
        exact_value = np.zeros((B, P))
        if self.find_wins:  # a win at once is played; the policy is the prior over the wins
            exact, only, exact_value = self._wins_at_once(B, root_children)
        if self.solve_budget:
            t0 = time.perf_counter()
            self._proven(root, only, barred, exact, exact_value)
            clock["core"] += time.perf_counter() - t0
        policy = np.zeros((B, A), np.float32)
        chosen = np.zeros(B, np.int64)
        _root_results(C, tree.to_move, tree.first_edge, tree.num_edges, tree.edge_action, tree.edge_child,
                      tree.edge_prior, tree.edge_logit, tree.edge_gumbel, tree.visits, tree.value_sum,
                      tree.raw_value, self.maxvisit_init, self.value_scale, only, barred, policy, chosen,
                      np.zeros(core.num_actions, np.int64), q)
        root_value = tree.value_sum[roots] / tree.visits[roots][:, None]
        root_value[exact] = exact_value[exact]
        return SearchResult(chosen, policy, root_value, tree)

    def _proven(self, root: BatchState, only: np.ndarray, barred: np.ndarray, exact: np.ndarray,
                exact_value: np.ndarray) -> None:
        """What an exhaustive search of ``solve_budget`` positions per root proves
        (:func:`~yyenvs.agents.solver.prove`), written into the arrays of :meth:`run`: a root
        with a proven win, or with every move proven, plays its best proven moves (``only``;
        where every move loses, those of least chance against uniform opponents by
        :func:`~yyenvs.agents.solver.loss_odds`, then the
        longest) and is valued by them (``exact``); elsewhere the moves proven to lose are
        ``barred``.
        Roots that already have wins at once keep them."""
        A = self.core.num_actions
        low, top = self.search_core.reward_range
        open_rows = np.flatnonzero(~exact)  # a root that wins at once needs no proof
        if open_rows.size == 0:
            return
        roots = root.take(open_rows)
        proof = prove(self.search_core, roots, self.solve_budget)
        mover = roots.current_player.astype(np.int64)
        legal = proof.legal[:, :A]
        known = proof.known[:, :A]
        mine = proof.result[np.arange(open_rows.size), :A, mover]  # each action's proven result for the mover
        plies = proof.plies[:, :A]
        for i, r in enumerate(open_rows):
            k = known[i]
            wins = k & (mine[i] >= top)
            if wins.any():  # all of the shortest length: a proof stops at the level of its first win
                best = wins
            elif not (legal[i] & ~k).any():
                v = mine[i][legal[i]].max()  # the best result, then the longest game to it
                best = legal[i] & (mine[i] == v)
                if v <= low:  # lost whatever it plays: first the moves an erring opponent least often wins after
                    chance = loss_odds(self.search_core, roots.take([i]), self.solve_budget).chance[:A]
                    best &= chance <= chance[best].min() + 1e-12  # equal up to rounding
                best &= plies[i] == plies[i][best].max()
            else:
                barred[r] = k & (mine[i] <= low)
                continue
            only[r] = best
            exact[r] = True
            a = int(np.flatnonzero(best)[0])  # equal results and lengths: any one gives the value
            exact_value[r] = proof.result[i, a] * self.discount ** (plies[i, a] - 1)
