"""Yin Yang: the observation (layout in ``seeds/yinyang.md`` §11).

Seen from the viewer's seat, the seats rotated so that the viewer comes
first; other players' missions are hidden.  The same in both chance modes
(at a chance node nobody is "to act").
"""
from __future__ import annotations

import numpy as np
from numba import prange

from yyenvs.core.kernels import batch_kernel, block_rows, num_blocks
from yyenvs.games.yinyang.layout import (
    C_DISASTER,
    C_GOOD,
    C_TEMPLE,
    F_BEFORE_THROW,
    F_PENDING,
    F_PHASE,
    F_ROUND,
    F_SOLO_FLIPPED,
    F_SOLO_GAINS,
    F_SPLIT_DONE,
    G_BAG,
    G_YANG,
    G_YIN,
    L_BOAT,
    L_CARRIAGE,
    L_GOODS,
    LINES,
    NUM_KINGDOMS,
    PH_DIVINATION,
    Q_CARDS,
    Q_COINS_YANG,
    Q_COINS_YIN,
    Q_GOODS_MISSION,
    Q_LUO_BONUS,
    Q_PAWN,
    Q_TEMPLE_MISSION,
    Q_TEMPLES,
    Q_TILES,
    Q_TILES_USED,
    Q_TRACK,
    Q_YANG,
    Q_YIN,
    SPACES,
    T_LOWER_BLOCK,
    T_STACK,
    T_TILE_TYPE,
    T_UPPER_BLOCK,
    Arrays,
    kernel,
)
from yyenvs.games.yinyang.parts import part

SEAT_SIZE = 152 + NUM_KINGDOMS  # per seat block


@part
def observe_flow(o, fl, to_act, v):
    """The round, the phase and the state of the turn (to_act: the player to act, v: the
    viewer) into o[0:17]; returns where the next block starts."""
    j = 0
    r = fl[F_ROUND]
    if 1 <= r <= 5:  # 0 during the set-up: no round yet
        o[j + r - 1] = 1.0
    j += 5
    o[j + fl[F_PHASE]] = 1.0
    j += 5
    if fl[F_PHASE] == PH_DIVINATION and fl[F_SPLIT_DONE] == 0:
        o[j] = 1.0
    pending = fl[F_PENDING]
    if pending == L_GOODS:
        o[j + 1] = 1.0
    elif pending == L_CARRIAGE:
        o[j + 2] = 1.0
    elif pending == L_BOAT:
        o[j + 3] = 1.0
    o[j + 4] = fl[F_SOLO_GAINS] / 4.0
    o[j + 5] = 1.0 if to_act == v else 0.0
    o[j + 6] = fl[F_BEFORE_THROW]
    return j + 7


@part
def observe_cities(o, j, cities, players, tb, v):
    """14 values per city from o[j] (its good, disaster, temple owner and pawns, seats
    relative to the viewer v, and whether it is the capital); returns the next block's start."""
    P = tb.num_players
    for c in range(tb.num_cities):
        g = cities[c, C_GOOD]
        if g >= 0:
            o[j + g] = 1.0
        o[j + 4] = cities[c, C_DISASTER]
        t = cities[c, C_TEMPLE]
        if t >= 0:
            o[j + 5 + (t - v) % P] = 1.0
        for q in range(P):
            if players[q, Q_PAWN] == c:
                o[j + 9 + (q - v) % P] = 1.0
        o[j + 13] = 1.0 if c == tb.capital else 0.0
        j += 14
    return j


@part
def observe_board(o, j, taiji, goods):
    """The Tai Ji board (8 values per trigram) and the goods of the Yin and Yang areas and
    the bag, from o[j]; returns the next block's start."""
    for t in range(8):
        o[j + taiji[t, T_TILE_TYPE]] = 1.0
        o[j + 4] = taiji[t, T_STACK] / 5.0
        o[j + 5] = 1.0 if taiji[t, T_UPPER_BLOCK] == 1 else 0.0
        o[j + 6] = 1.0 if taiji[t, T_UPPER_BLOCK] == 2 else 0.0
        o[j + 7] = taiji[t, T_LOWER_BLOCK]
        j += 8
    for g in range(4):
        o[j + g] = goods[G_YIN, g] / 2.0
        o[j + 4 + g] = goods[G_YANG, g] / 2.0
        o[j + 8 + g] = goods[G_BAG, g] / 6.0
    return j + 12


@part
def observe_seat(o, j, st, tb, i, q):
    """Player q's public block (SEAT_SIZE values from o[j]): tracks, turn order, hand,
    supply, tiles, coins, Development Area, scoring tiles and temples per kingdom."""
    values = tb.turn_order_values
    last_space = tb.num_track_spaces - 1
    cities = st.cities[i]
    me = st.players[i, q]
    o[j] = 1.0
    o[j + 1] = me[Q_YIN] / 8.0
    o[j + 2] = me[Q_YANG] / 8.0
    o[j + 3] = me[Q_TRACK] / last_space
    o[j + 4] = values[me[Q_TRACK]] / max(values[last_space], 1)
    for rr in range(tb.num_players):
        if st.turn_order[i, rr] == q:
            o[j + 5 + rr] = 1.0
    o[j + 9] = me[Q_CARDS] / 8.0
    o[j + 10] = me[Q_TEMPLES] / 13.0
    for t in range(4):
        o[j + 11 + t] = me[Q_TILES + t] / 5.0
        o[j + 15 + t] = (me[Q_TILES + t] - me[Q_TILES_USED + t]) / 5.0
    o[j + 19] = me[Q_COINS_YANG] / 6.0
    o[j + 20] = me[Q_COINS_YIN] / 6.0
    o[j + 21] = me[Q_LUO_BONUS]
    for s in range(SPACES):
        o[j + 22 + s] = st.development[i, q, s]
    for g in range(4):
        o[j + 38 + g] = st.beside_board[i, q, g] / 13.0
    for ln in range(LINES):
        o[j + 42 + ln * 10 + st.scoring_tiles[i, q, ln, 0]] = 1.0
        o[j + 142 + ln] = st.scoring_tiles[i, q, ln, 1]
    for c in range(tb.num_cities):
        k = tb.kingdom[c]
        if cities[c, C_TEMPLE] == q and k >= 0:  # a quarter per temple, capped at 1
            o[j + 152 + k] = min(1.0, o[j + 152 + k] + 0.25)


@part
def observe_private(o, j, st, tb, i, v):
    """The viewer v's own missions (the others' stay hidden) and, in the solo game, the
    solo tiles: the kingdom of each, flipped or not; from o[j]."""
    K = NUM_KINGDOMS
    gm = st.players[i, v, Q_GOODS_MISSION]
    if gm >= 0:
        o[j + gm] = 1.0
    j += tb.num_goods_missions
    tm = st.players[i, v, Q_TEMPLE_MISSION]
    if tm >= 0:
        o[j + tm] = 1.0
    j += tb.num_temple_missions
    if tb.num_players == 1:
        for k in range(K):
            o[j + k * K + st.solo_tiles[i, k]] = 1.0
            o[j + K * K + k] = 1.0 if k < st.flow[i, F_SOLO_FLIPPED] else 0.0


@batch_kernel
def observe_kernel(arrays, tables, seats, out):
    """out[i]: row i's observation seen by seat seats[i], in blocks of rows (``observe_rows``)."""
    nb = out.shape[0]
    for k in prange(num_blocks(nb)):
        lo, hi = block_rows(k, nb)
        observe_rows(arrays, tables, seats, out, lo, hi)


@kernel
def observe_rows(arrays, tables, seats, out, lo, hi):
    """Rows lo..hi-1 of :func:`observe_kernel`, part after part."""
    st = Arrays(*arrays)
    tb = tables[0]
    P = tb.num_players
    for i in range(lo, hi):
        o = out[i]
        o[:] = 0.0
        v = np.int64(seats[i])
        j = observe_flow(o, st.flow[i], st.current_player[i], v)
        j = observe_cities(o, j, st.cities[i], st.players[i], tb, v)
        j = observe_board(o, j, st.taiji[i], st.goods[i])
        for jj in range(4):  # players, the viewer first; absent seats stay zero
            if jj < P:
                observe_seat(o, j, st, tb, i, (v + jj) % P)
            j += SEAT_SIZE
        observe_private(o, j, st, tb, i, v)
