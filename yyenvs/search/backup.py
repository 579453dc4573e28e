"""A simulation's value added to every node of its path, per seat."""
from __future__ import annotations

import numpy as np
from numba import njit, prange

from yyenvs.core.contract import CHANCE_PLAYER
from yyenvs.core.kernels import batch_kernel, block_rows, num_blocks


@njit(cache=True)
def step_discount(parent_mover, discount):
    """The discount of a step from a node whose mover is ``parent_mover``: none after a chance outcome."""
    return 1.0 if parent_mover == CHANCE_PLAYER else discount


@njit(cache=True)
def step_discounts(parent_movers, discount):
    """:func:`step_discount` of each of ``parent_movers``."""
    out = np.empty(parent_movers.shape[0])
    for i in range(parent_movers.shape[0]):
        out[i] = step_discount(parent_movers[i], discount)
    return out


@batch_kernel(parallel_min_batch=64)
def backup(walk, value, nodes, discount, virtual_loss, per_row):
    """Add each simulation's leaf value (``value``, per seat), plus the rewards on the way, to every
    node of its path (``walk.path[s, :walk.depth[s]]``, its root first; ``per_row`` simulations
    per tree, consecutive).  Below the root a node's value is counted from the step into it: that
    step's reward plus the value after it times ``discount`` (1 after a chance outcome).

    ``virtual_loss`` 0: the backup counts the visits.  Above 0: the selection counted them and
    took that much from each node's value for the mover at its parent (so that simulations selected
    together spread out); it is given back here."""
    nb = nodes.node_count.shape[0]
    for k in prange(num_blocks(nb)):
        lo, hi = block_rows(k, nb)
        _backup_rows(walk, value, nodes, discount, virtual_loss, lo * per_row, hi * per_row)


@njit(cache=True)
def _backup_rows(walk, value, nodes, discount, virtual_loss, lo, hi):
    path, depth = walk.path, walk.depth
    to_move, reward, visits, value_sum = nodes.to_move, nodes.reward, nodes.visits, nodes.value_sum
    P = value.shape[1]
    G = np.empty(P)
    for s in range(lo, hi):
        for p in range(P):
            G[p] = value[s, p]
        for k in range(depth[s] - 1, -1, -1):
            n = path[s, k]
            if virtual_loss == 0:
                visits[n] += 1
            mover = CHANCE_PLAYER  # a root has no parent: no discount, no loss to give back
            if k > 0:
                mover = to_move[path[s, k - 1]]
            g = step_discount(mover, discount)
            for p in range(P):
                G[p] = reward[n, p] + g * G[p]  # a root's reward is 0
                value_sum[n, p] += G[p] + virtual_loss if p == mover else G[p]
