"""Which edge a simulation takes at a node: PUCT or UCT below the root, a chance outcome by its
probability, and the Gumbel root's choice among its considered actions."""
from __future__ import annotations

import math

import numpy as np
from numba import njit


@njit(cache=True, inline="always")
def sample_edge(edge_prior, e0, e1, u):
    """The edge of ``e0..e1-1`` drawn with probability ``edge_prior`` (normalised) from the
    uniform ``u``: a chance node's outcome."""
    total = 0.0
    for e in range(e0, e1):
        total += edge_prior[e]
    x = u * total
    acc = 0.0
    for e in range(e0, e1):
        acc += edge_prior[e]
        if acc > x and edge_prior[e] > 0:
            return e
    for e in range(e1 - 1, e0 - 1, -1):  # rounding: the last possible outcome
        if edge_prior[e] > 0:
            return e
    return e1 - 1


@njit(cache=True, inline="always")
def uct_edge(e0, e1, nodes, edges, player, c_uct, puct):
    """The MCTS baseline's choice among edges ``e0..e1-1`` (of the tree's :class:`~.tree.Nodes` and
    :class:`~.tree.Edges`) for ``player``: PUCT
    (``Q + c * prior * sqrt(N) / (1 + n)``, an unvisited child's Q 0) or, without priors, UCT
    with every unvisited child first in the order of ``edge_noise``."""
    edge_child, edge_prior, edge_noise = edges.child, edges.prior, edges.noise
    visits, value_sum = nodes.visits, nodes.value_sum
    total = 0
    for e in range(e0, e1):
        ch = edge_child[e]
        if ch >= 0:
            total += visits[ch]
    total = max(total, 1)
    sq = math.sqrt(total)
    lg = math.log(total)
    best = e0
    bestv = -1e300
    for e in range(e0, e1):
        ch = edge_child[e]
        k = 0
        w = 0.0
        if ch >= 0:
            k = visits[ch]
            w = value_sum[ch, player]
        if puct:
            q = w / k if k > 0 else 0.0
            v = q + c_uct * edge_prior[e] * sq / (1.0 + k) + 1e-9 * edge_noise[e]
        elif k == 0:
            v = 1e9 + edge_noise[e]
        else:
            v = w / k + c_uct * math.sqrt(lg / k)
        if v > bestv:
            bestv = v
            best = e
    return best


@njit(cache=True, inline="always")
def puct_edge(node, player, nodes, edges, c_puct, into):
    """The Gumbel search's choice below the root: PUCT among ``node``'s edges for ``player``, an
    unvisited child valued at the node's mean (its value counted from the step into it, whose
    discount is ``into``, less that step).  ``nodes``, ``edges``: the tree's
    :class:`~.tree.Nodes` and :class:`~.tree.Edges`."""
    visits, value_sum, reward = nodes.visits, nodes.value_sum, nodes.reward
    edge_child, edge_prior = edges.child, edges.prior
    e0 = nodes.first_edge[node]
    after = value_sum[node, player] / max(visits[node], 1) - reward[node, player]
    fpu = after / into if into > 0 else 0.0
    c = c_puct * math.sqrt(max(visits[node], 1))
    best = e0
    best_score = -np.inf
    for e in range(e0, e0 + nodes.num_edges[node]):
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
def gumbel_root_edge(considered, m, target, sigma, edge_child, edge_logit, edge_noise, visits):
    """The Gumbel root's choice for one simulation: among its ``m`` ``considered`` edges whose
    child has the schedule's visit count ``target``, the one of highest gumbel + logit +
    ``sigma`` (sigma(q) of each, :func:`~.qtransforms.sigma_q`); the best considered edge when
    none has that count."""
    e = -1
    best = -np.inf
    for j in range(m):
        c = considered[j]
        ch = edge_child[c]
        n = visits[ch] if ch >= 0 else 0
        score = edge_noise[c] + edge_logit[c] + sigma[j]
        if n == target and (e < 0 or score > best):
            e = c
            best = score
    return considered[0] if e < 0 else e
