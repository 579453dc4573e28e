"""The search trees of a batch of roots, in flat arrays (one layout for every search).

Row ``r``'s tree owns nodes ``r * C`` to ``r * C + C - 1`` (``C`` =
``nodes_per_row``, the simulations + 1: a simulation adds at most one node),
its root first.  A node holds its parent, the action from it, the player to
move (``CHANCE_PLAYER`` at a chance node), whether the game is over there, its
visits and its value sum *per seat*, counted from the step into it (whose
rewards, ``reward``, are part of it).  Its edges, one per legal action (or
possible chance outcome), lie in a shared pool, ``first_edge[n]`` to
``first_edge[n] + num_edges[n] - 1``; edge ``e`` is action ``edge_action[e]``
and leads to node ``edge_child[e]`` (-1 until a simulation first takes it).
Node states are one ``BatchState`` of ``B * C`` rows.

The kernels take the arrays as named tuples (:class:`Nodes`, :class:`Edges`,
:class:`Walk`); a ``prange`` loop must hand them to a real call before writing
through them (see :mod:`yyenvs.core.kernels`).
"""
from __future__ import annotations

import dataclasses
from collections import namedtuple

import numpy as np
from numba import njit, prange

from yyenvs.core.contract import CHANCE_PLAYER, BatchState
from yyenvs.core.kernels import batch_kernel

#: the node arrays (:class:`Tree`'s fields of the same names)
Nodes = namedtuple("Nodes", "node_count parent action to_move terminal visits value_sum reward raw_value "
                            "first_edge num_edges")
#: the edge arrays (``edge_<name>`` of :class:`Tree`)
Edges = namedtuple("Edges", "action child prior logit noise")
#: per simulation: its leaf, whether the leaf is new, its path from the root and the path's length
Walk = namedtuple("Walk", "leaf is_new path depth")


@dataclasses.dataclass
class Tree:
    """A batch of search trees (see the module docstring).

    ``stats`` is the dtype of the visit statistics (value sums, priors and
    noise): float64 for the Gumbel search, float32 for the MCTS baseline.
    """

    nodes_per_row: int
    node_count: np.ndarray  # (B,) int64 nodes used by each row's tree
    parent: np.ndarray  # (N,) int64, -1 at a root
    action: np.ndarray  # (N,) int64 the action (or chance outcome) from the parent, -1 at a root
    to_move: np.ndarray  # (N,) int8, CHANCE_PLAYER at a chance node
    observer: np.ndarray  # (N,) int8 the seat a network sees the node from: the mover, at a chance
    #                       node the nearest ancestor's mover (the Gumbel search's)
    terminal: np.ndarray  # (N,) bool the game is over (or truncated) there
    visits: np.ndarray  # (N,) int32
    value_sum: np.ndarray  # (N, P) stats
    reward: np.ndarray  # (N, P) float64 rewards of the step into the node
    raw_value: np.ndarray  # (N, P) float64 the network's value, per seat (the Gumbel search's)
    first_edge: np.ndarray  # (N,) int64
    num_edges: np.ndarray  # (N,) int32, 0 until the node is expanded
    states: BatchState  # (N rows) the game state of each expanded node
    edge_action: np.ndarray  # (E,) int32
    edge_child: np.ndarray  # (E,) int64, -1 until a simulation takes the edge
    edge_prior: np.ndarray  # (E,) stats: the policy's prior, or the outcome's probability
    edge_logit: np.ndarray  # (E,) float64 the network's logit minus its node's largest
    edge_noise: np.ndarray  # (E,) stats: a random number per edge (a Gumbel draw at the Gumbel
    #                         search's roots; the MCTS baseline's tie-break)
    num_used_edges: int = 0

    @classmethod
    def allocate(cls, root: BatchState, nodes_per_row: int, num_players: int, edges: int,
                 stats=np.float64) -> Tree:
        B, C, P = root.batch_size, nodes_per_row, num_players
        N = B * C
        return cls(C, np.ones(B, np.int64), np.full(N, -1, np.int64), np.full(N, -1, np.int64),
                   np.zeros(N, np.int8), np.zeros(N, np.int8), np.zeros(N, np.bool_), np.zeros(N, np.int32),
                   np.zeros((N, P), stats), np.zeros((N, P)), np.zeros((N, P)), np.zeros(N, np.int64),
                   np.zeros(N, np.int32), root.take(np.repeat(np.arange(B), C)),
                   np.empty(edges, np.int32), np.empty(edges, np.int64), np.empty(edges, stats),
                   np.empty(edges), np.empty(edges, stats))

    @property
    def roots(self) -> np.ndarray:
        return np.arange(self.node_count.shape[0]) * self.nodes_per_row

    @property
    def is_chance(self) -> np.ndarray:
        """(N,) bool: the node waits for a chance outcome (of the nodes in use)."""
        return (self.to_move == CHANCE_PLAYER) & ~self.terminal

    def edges(self, node: int) -> slice:
        """The edges of ``node`` (a slice of the edge arrays)."""
        e0 = int(self.first_edge[node])
        return slice(e0, e0 + int(self.num_edges[node]))

    def node_arrays(self) -> Nodes:
        return Nodes(self.node_count, self.parent, self.action, self.to_move, self.terminal, self.visits,
                     self.value_sum, self.reward, self.raw_value, self.first_edge, self.num_edges)

    def edge_arrays(self) -> Edges:
        """The edge arrays now (adding edges may grow them: take them again after)."""
        return Edges(self.edge_action, self.edge_child, self.edge_prior, self.edge_logit, self.edge_noise)

    def reserve_edges(self, size: int) -> None:
        """Room for ``size`` edges (the pool doubles when full)."""
        cap = self.edge_action.shape[0]
        if size <= cap:
            return
        new = max(size, 2 * cap)
        for name in ("edge_action", "edge_child", "edge_prior", "edge_logit", "edge_noise"):
            old = getattr(self, name)
            grown = np.empty(new, old.dtype)  # an edge's fields are written when its node is expanded
            grown[:cap] = old
            setattr(self, name, grown)

    def add_edges(self, nodes: np.ndarray, mask: np.ndarray) -> tuple[slice, np.ndarray]:
        """Give each of ``nodes`` one edge per action of its row of ``mask``, in order, no child yet;
        returns the new edges (a slice, in the order of ``nodes``) and each node's count of them."""
        start = self.num_used_edges
        counts = np.empty(mask.shape[0], np.int64)
        _count_legal(mask, counts)
        first = start + np.cumsum(counts) - counts  # each node's first edge
        end = start + int(counts.sum())
        self.reserve_edges(end)
        _fill_edges(nodes, mask, first, self.first_edge, self.num_edges, self.edge_action, self.edge_child)
        self.num_used_edges = end
        return slice(start, end), counts


@batch_kernel(parallel_min_batch=64)
def _count_legal(mask, counts):
    """The actions of each row of ``mask`` (numpy's count_nonzero along an axis is 3-5x slower)."""
    for s in prange(mask.shape[0]):
        total = 0
        row = mask[s]
        for a in range(row.shape[0]):
            total += row[a]
        counts[s] = total


@batch_kernel(parallel_min_batch=64)
def _fill_edges(nodes, mask, first, first_edge, num_edges, edge_action, edge_child):
    """Node ``nodes[s]``'s edges from ``first[s]`` on, one per action of ``mask[s]``: each node
    fills its own, so the rows run independently."""
    for s in prange(nodes.shape[0]):
        e = first[s]
        ms = mask[s]
        for a in range(ms.shape[0]):
            if ms[a]:
                edge_action[e] = a
                edge_child[e] = -1
                e += 1
        first_edge[nodes[s]] = first[s]
        num_edges[nodes[s]] = e - first[s]


@njit(cache=True, inline="always")
def follow_edge(nodes, edges, r, C, node, e):
    """The step of a simulation down edge ``e`` of ``node`` (row ``r``'s tree): ``(child, new)``,
    the child made first, with no visits and no value, if no simulation has taken ``e`` yet."""
    ch = edges.child[e]
    if ch >= 0:
        return ch, False
    node_count = nodes.node_count
    ch = r * C + node_count[r]
    node_count[r] += 1
    nodes.parent[ch] = node
    nodes.action[ch] = edges.action[e]
    nodes.visits[ch] = 0
    nodes.value_sum[ch, :] = 0.0
    edges.child[e] = ch
    return ch, True
