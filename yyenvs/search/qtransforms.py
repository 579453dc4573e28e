"""The Gumbel root's Q-values: completed (an unvisited child takes a value of the Q-transform's
choosing), rescaled to [0, 1] over the siblings, then scaled by the visits (sigma of Danihelka et al.).

The Q-transforms (:data:`QTRANSFORMS`, the search setting ``qtransform``):

* ``"mix_value"`` (the default): an unvisited child takes the node's network value mixed with the
  visited children's Q-values, weighted by their priors (Danihelka et al.'s completed Q-values);
* ``"parent"``: an unvisited child takes the node's own mean value (as mctx's transform by parent and
  siblings does).
"""
from __future__ import annotations

import numpy as np
from numba import njit

MIX_VALUE, PARENT = 0, 1
#: the Q-transforms by name, as the ``qtransform`` setting gives them
QTRANSFORMS = {"mix_value": MIX_VALUE, "parent": PARENT}


@njit(cache=True)
def sigma_q(node, player, edges, n_edges, all_edges, nodes, tree_edges, selection, out):
    """sigma(completed Q) for ``player`` of the edges ``edges[:n_edges]`` of ``node`` into
    ``out`` (``nodes``, ``tree_edges``: the tree's :class:`~.tree.Nodes` and
    :class:`~.tree.Edges`; ``selection``: the search's settings, its ``maxvisit_init`` and
    ``value_scale``, and ``qtransform``, a value of :data:`QTRANSFORMS`); ``all_edges``: those are every edge of the node (else the others
    are unvisited).
    The completed Q is a visited child's mean value, else the mix of the node's network value
    and the visited Q-values; it is rescaled to [0, 1] over all the node's edges.  Returns
    the largest visit count."""
    visits, value_sum, raw_value = nodes.visits, nodes.value_sum, nodes.raw_value
    edge_child, edge_prior = tree_edges.child, tree_edges.prior
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
    if selection.qtransform == PARENT:
        mixed = nodes.value_sum[node, player] / max(visits[node], 1)
    else:
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
    scale = (selection.maxvisit_init + top_n) * selection.value_scale / max(hi - lo, 1e-8)
    for j in range(n_edges):
        out[j] = (out[j] - lo) * scale
    return top_n
