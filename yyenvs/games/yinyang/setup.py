"""Yin Yang: the set-up (``seeds/yinyang.md`` §2), drawn from each row's stream in ``init``.

Its draws (tile stacks, starting tokens, the first bag draws, missions,
scoring tiles, solo tiles, the starting player) are part of the seed in both
chance modes: a game starts at the pawn placement, never at a chance node.
"""
from __future__ import annotations

import numpy as np
from numba import prange

from yyenvs.core.kernels import batch_kernel, block_rows, num_blocks
from yyenvs.games.yinyang.chance import draw_below, draw_from_bag
from yyenvs.games.yinyang.layout import (
    C_DISASTER,
    C_GOOD,
    C_TEMPLE,
    F_ARRIVALS,
    F_PHASE,
    F_TURN,
    G_BAG,
    G_OUT,
    G_YANG,
    G_YIN,
    PH_SETUP,
    Q_ARRIVAL,
    Q_CARDS,
    Q_GOODS_MISSION,
    Q_PAWN,
    Q_TEMPLE_MISSION,
    Q_TEMPLES,
    STACK_SIZE,
    T_LOWER_BLOCK,
    T_STACK,
    T_TILE_TYPE,
    T_UPPER_BLOCK,
    TEMPLES,
    Arrays,
    kernel,
    rule,
)
from yyenvs.games.yinyang.parts import part


@rule
def shuffle(rng, i, arr, n):
    """Fisher-Yates on arr[:n] from row i's stream."""
    for a in range(n - 1, 0, -1):
        b = draw_below(rng, i, a + 1)
        t = arr[a]
        arr[a] = arr[b]
        arr[b] = t


@rule
def shuffled_range(rng, i, tmp, n):
    """tmp[:n] = a random order of 0..n-1."""
    for t in range(n):
        tmp[t] = t
    shuffle(rng, i, tmp, n)


@part
def deal_tile_stacks(rng, taiji, i, tmp):
    """Action tile stacks: two stacks of each type, at random on the 8 trigrams."""
    n_trigrams = taiji.shape[1]  # counts from shapes are int64: shuffle compiles once
    for t in range(n_trigrams):
        tmp[t] = t // 2
    shuffle(rng, i, tmp, n_trigrams)
    for t in range(n_trigrams):
        taiji[i, t, T_TILE_TYPE] = tmp[t]
        taiji[i, t, T_STACK] = STACK_SIZE
        taiji[i, t, T_UPPER_BLOCK] = 0
        taiji[i, t, T_LOWER_BLOCK] = 0


@part
def place_start_tokens(rng, cities, tb, i, tmp):
    """Empty cities, then the starting tokens (goods kinds 0..3, 4 a disaster) shuffled,
    one per eligible city: not the capital, and red cities only unless the option says all."""
    n_tokens = np.int64(0)  # not a literal 0: numba would compile shuffle for it too
    for q in range(5):
        for _ in range(tb.start_tokens[q]):
            tmp[n_tokens] = q
            n_tokens += 1
    shuffle(rng, i, tmp, n_tokens)
    j = 0
    for c in range(tb.num_cities):
        cities[i, c, C_GOOD] = -1
        cities[i, c, C_DISASTER] = 0
        cities[i, c, C_TEMPLE] = -1
        if c == tb.capital or (not tb.start_on_all_cities and tb.colour[c] != 0):
            continue
        if tmp[j] == 4:
            cities[i, c, C_DISASTER] = 1
        else:
            cities[i, c, C_GOOD] = tmp[j]
        j += 1


@part
def fill_goods(rng, goods, tb, i):
    """The bag, the rest out of the game (the starting tokens lie on the map), and two
    goods drawn into the Yin area, then two into the Yang area."""
    for g in range(4):
        goods[i, G_BAG, g] = tb.bag_per_kind
        goods[i, G_YIN, g] = 0
        goods[i, G_YANG, g] = 0
        goods[i, G_OUT, g] = tb.goods_per_kind - tb.bag_per_kind - tb.start_tokens[g]
    for area in range(2):
        for _ in range(2):
            g = draw_from_bag(rng, i, goods)
            if g >= 0:  # the bag may be empty
                goods[i, G_BAG, g] -= 1
                goods[i, G_YIN + area, g] += 1


@part
def deal_players(st, tb, i, tmp):
    """Players' boards emptied, missions dealt (none in solo), scoring tiles in random order."""
    rng = st.rng
    P = tb.num_players
    n_lines = st.scoring_tiles.shape[2]
    shuffled_range(rng, i, tmp, tb.num_goods_missions)
    for p in range(P):
        st.players[i, p, :] = 0
        st.players[i, p, Q_TEMPLES] = TEMPLES
        st.players[i, p, Q_PAWN] = -1
        st.players[i, p, Q_GOODS_MISSION] = -1 if tb.solo else tmp[p]
    shuffled_range(rng, i, tmp, tb.num_temple_missions)
    for p in range(P):
        st.players[i, p, Q_TEMPLE_MISSION] = -1 if tb.solo else tmp[p]
    for p in range(P):
        st.development[i, p, :] = 0
        st.beside_board[i, p, :] = 0
        shuffled_range(rng, i, tmp, n_lines)
        for t in range(n_lines):
            st.scoring_tiles[i, p, t, 0] = tmp[t]
            st.scoring_tiles[i, p, t, 1] = 0


@part
def deal_solo(rng, scoring_tiles, solo_tiles, tb, i, tmp):
    """Solo: the second colour on 4 scoring tiles, and the solo tiles in random order
    (-1 outside the solo game)."""
    if not tb.solo:
        solo_tiles[i, :] = -1
        return
    n_lines = scoring_tiles.shape[2]
    n_solo = solo_tiles.shape[1]
    # 4 tiles of a second colour drawn from the bag replace the same kinds
    shuffled_range(rng, i, tmp, n_lines)
    for q in range(4):
        for t in range(n_lines):
            if scoring_tiles[i, 0, t, 0] == tmp[q]:
                scoring_tiles[i, 0, t, 1] = 1
    shuffled_range(rng, i, tmp, n_solo)
    for k in range(n_solo):
        solo_tiles[i, k] = tmp[k]


@part
def seat_players(st, tb, i):
    """Turn order: a random starting player, then clockwise (seat order), stacked first on
    top; the set-up phase begins with the last player placing their pawn."""
    P = tb.num_players
    first = draw_below(st.rng, i, P)
    for r in range(P):
        q = (first + r) % P
        st.turn_order[i, r] = q
        st.players[i, q, Q_ARRIVAL] = P - r
        st.players[i, q, Q_CARDS] = tb.cards_at_start[r]
    st.flow[i, F_ARRIVALS] = P
    st.flow[i, F_PHASE] = PH_SETUP
    st.flow[i, F_TURN] = P - 1  # pawns are placed from the last player backwards
    st.current_player[i] = st.turn_order[i, P - 1]


@batch_kernel
def init_kernel(arrays, tables, work):
    """Set up every row, in blocks of rows (``init_rows``), each with its own scratch ``work[k]``."""
    nb = arrays[0].shape[0]
    for k in prange(num_blocks(nb)):
        lo, hi = block_rows(k, nb)
        init_rows(arrays, tables, work[k:k + 1], lo, hi)


@kernel
def init_rows(arrays, tables, work, lo, hi):
    """Set up rows lo..hi-1 from their own random streams; the draws come in a fixed order (tile
    stacks, tokens, bag, missions, scoring tiles, solo, first player): the seed's game."""
    st = Arrays(*arrays)
    tb = tables[0]
    rng = st.rng
    tmp = work[0].order
    for i in range(lo, hi):
        st.flow[i, :] = 0
        st.turn_order[i, :] = -1
        deal_tile_stacks(rng, st.taiji, i, tmp)
        place_start_tokens(rng, st.cities, tb, i, tmp)
        fill_goods(rng, st.goods, tb, i)
        deal_players(st, tb, i, tmp)
        deal_solo(rng, st.scoring_tiles, st.solo_tiles, tb, i, tmp)
        seat_players(st, tb, i)
