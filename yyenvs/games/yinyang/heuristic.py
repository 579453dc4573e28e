"""Yin Yang: a cheap position value for greedy play and search (not part of the rules).

Scores as if the game ended now plus small credits for goods, cards,
Yin / Yang and partly filled lines; the viewer's value minus the best other
player's.  Solo: the achievement level first, then the progress towards it.
Works at any position, chance nodes included.
"""
from __future__ import annotations

import numpy as np
from numba import prange

from yyenvs.core.kernels import batch_kernel, block_rows, num_blocks
from yyenvs.games.yinyang.flow import final_reward
from yyenvs.games.yinyang.layout import (
    C_DISASTER,
    C_TEMPLE,
    F_SOLO_FLIPPED,
    LINES,
    Q_CARDS,
    Q_PAWN,
    Q_SCORE,
    Q_YANG,
    Q_YIN,
    SOLO_SEAT,
    SPACES,
    Arrays,
    kernel,
    rule,
)
from yyenvs.games.yinyang.scoring import score_row, solo_level, solo_lines


@rule
def solo_distance(flow, solo_tiles, players, cities, tb, i, dist, queue):
    """Moves from the pawn to a free city of the next solo tile's kingdom (99: none);
    dist and queue: N int64 each, scratch."""
    f = flow[i, F_SOLO_FLIPPED]
    if f >= solo_tiles.shape[1]:
        return 0
    k = solo_tiles[i, f]
    N = tb.num_cities
    dist[:N] = 99
    a = players[i, 0, Q_PAWN]
    if a < 0:
        return 99
    dist[a] = 0
    queue[0] = a
    head = 0
    tail = 1
    while head < tail:  # breadth first over roads, rivers and ocean
        x = queue[head]
        head += 1
        if tb.kingdom[x] == k and cities[i, x, C_TEMPLE] < 0:
            return dist[x]
        for y in range(N):
            if ((tb.road[x, y] or tb.boat[x, y]) and cities[i, y, C_DISASTER] == 0
                    and dist[y] == 99):
                dist[y] = dist[x] + 1
                queue[tail] = y
                tail += 1
    return 99


@rule
def line_fill(development, tb, i, p, ln):
    """(spaces filled, spaces) of line ln of player p."""
    filled = 0
    total = 0
    for s in range(SPACES):
        if tb.line_spaces[ln, s]:
            total += 1
            filled += development[i, p, s]
    return filled, total


@batch_kernel
def heuristic_kernel(arrays, tables, seats, out, work):
    """In blocks of rows (``heuristic_rows``), each with its own scratch ``work[k]``."""
    nb = out.shape[0]
    for k in prange(num_blocks(nb)):
        lo, hi = block_rows(k, nb)
        heuristic_rows(arrays, tables, seats, out, work[k:k + 1], lo, hi)


@kernel
def heuristic_rows(arrays, tables, seats, out, work, lo, hi):
    st = Arrays(*arrays)
    tb = tables[0]
    P = tb.num_players
    pl = st.players
    wk = work[0]
    score = wk.score
    estimate = wk.estimate
    for i in range(lo, hi):
        v = np.int64(seats[i])
        if st.terminated[i]:  # the result (not the rewards: a later step may clear them), dominating
            out[i] = 1000.0 * final_reward(st.players, st.turn_order, st.flow, st.development, st.scoring_tiles, tb, i, v)
            if P == 1:
                out[i] += pl[i, 0, Q_SCORE]
            continue
        score_row(st.cities, st.players, st.development, st.beside_board, st.scoring_tiles, tb, i, score, wk)
        for q in range(P):
            e = float(score[q])
            goods = 0
            for s in range(SPACES):
                goods += st.development[i, q, s]
            for g in range(4):
                goods += st.beside_board[i, q, g]
            e += 1.0 * goods + 0.3 * pl[i, q, Q_CARDS] + 0.2 * (pl[i, q, Q_YIN] + pl[i, q, Q_YANG])
            for ln in range(LINES):  # partly filled lines: progress towards their tiles
                filled, total = line_fill(st.development, tb, i, q, ln)
                if filled < total:
                    e += 1.5 * filled * filled / (total * total) * 3.0
            estimate[q] = e
        if P == 1:
            part = 0.0
            for ln in range(LINES):
                if st.scoring_tiles[i, 0, ln, 1]:
                    filled, total = line_fill(st.development, tb, i, SOLO_SEAT, ln)
                    part += filled * filled / (total * total)
            d = solo_distance(st.flow, st.solo_tiles, st.players, st.cities, tb, i, wk.dist, wk.queue)
            out[i] = (60.0 * solo_level(st.flow, st.development, st.scoring_tiles, tb, i) + 15.0 * min(st.flow[i, F_SOLO_FLIPPED], 7)
                      + 12.0 * min(solo_lines(st.development, st.scoring_tiles, tb, i), 4) + 6.0 * part - 2.0 * min(d, 10)
                      + estimate[0] * 0.1)
        else:
            best = -1e18
            for q in range(P):
                if q != v and estimate[q] > best:
                    best = estimate[q]
            out[i] = estimate[v] - best
