"""Sequential halving at the Gumbel root: the actions it considers and the visit schedule."""
from __future__ import annotations

import math

import numpy as np
from numba import njit


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


@njit(cache=True)
def consider(C, first_edge, num_edges, edge_logit, edge_noise, considered, n_considered):
    """Per root (row r's is node ``r * C``), its ``considered.shape[1]`` edges of highest gumbel +
    logit (``edge_noise`` holds the Gumbel draws), best first: the only edges sequential halving
    visits (an unvisited edge's score is its gumbel + logit plus the same sigma(q) for all)."""
    max_considered = considered.shape[1]
    for r in range(considered.shape[0]):
        node = r * C
        e0 = first_edge[node]
        m = 0
        for e in range(e0, e0 + num_edges[node]):
            score = edge_noise[e] + edge_logit[e]
            j = min(m, max_considered - 1)
            if m == max_considered and score <= edge_noise[considered[r, j]] + edge_logit[considered[r, j]]:
                continue
            while j > 0 and score > edge_noise[considered[r, j - 1]] + edge_logit[considered[r, j - 1]]:
                considered[r, j] = considered[r, j - 1]
                j -= 1
            considered[r, j] = e
            m = min(m + 1, max_considered)
        n_considered[r] = m
