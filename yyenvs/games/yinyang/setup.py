"""Yin Yang: the set-up (``seeds/yinyang.md`` §2), drawn from each row's stream in ``init``.

Its draws (tile stacks, starting tokens, the first bag draws, missions,
scoring tiles, solo tiles, the starting player) are part of the seed in both
chance modes: a game starts at the pawn placement, never at a chance node.
"""
from __future__ import annotations

import numpy as np

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


@kernel
def init_kernel(arrays, tables, work):
    st = Arrays(*arrays)
    tb = tables[0]
    rng = st.rng
    P = tb.num_players
    N = tb.num_cities
    n_goods_missions = tb.num_goods_missions
    n_temple_missions = tb.num_temple_missions
    n_solo = st.solo_tiles.shape[1]
    n_trigrams = st.taiji.shape[1]  # counts from shapes are int64: shuffle compiles once
    n_lines = st.scoring_tiles.shape[2]
    tmp = work[0].order
    for i in range(rng.shape[0]):
        st.flow[i, :] = 0
        st.turn_order[i, :] = -1
        # Action tile stacks: two stacks of each type, at random on the 8 trigrams
        for t in range(n_trigrams):
            tmp[t] = t // 2
        shuffle(rng, i, tmp, n_trigrams)
        for t in range(n_trigrams):
            st.taiji[i, t, T_TILE_TYPE] = tmp[t]
            st.taiji[i, t, T_STACK] = STACK_SIZE
            st.taiji[i, t, T_UPPER_BLOCK] = 0
            st.taiji[i, t, T_LOWER_BLOCK] = 0
        # starting tokens (goods kinds 0..3, 4 a disaster), one per eligible city
        n_tokens = np.int64(0)  # not a literal 0: numba would compile shuffle for it too
        for q in range(5):
            for _ in range(tb.start_tokens[q]):
                tmp[n_tokens] = q
                n_tokens += 1
        shuffle(rng, i, tmp, n_tokens)
        j = 0
        for c in range(N):
            st.cities[i, c, C_GOOD] = -1
            st.cities[i, c, C_DISASTER] = 0
            st.cities[i, c, C_TEMPLE] = -1
            if c == tb.capital or (not tb.start_on_all_cities and tb.colour[c] != 0):
                continue
            if tmp[j] == 4:
                st.cities[i, c, C_DISASTER] = 1
            else:
                st.cities[i, c, C_GOOD] = tmp[j]
            j += 1
        for g in range(4):
            st.goods[i, G_BAG, g] = tb.bag_per_kind
            st.goods[i, G_YIN, g] = 0
            st.goods[i, G_YANG, g] = 0
            st.goods[i, G_OUT, g] = tb.goods_per_kind - tb.bag_per_kind - tb.start_tokens[g]
        for area in range(2):  # two goods drawn into the Yin area, then two into the Yang area
            for _ in range(2):
                g = draw_from_bag(rng, i, st.goods)
                if g >= 0:
                    st.goods[i, G_BAG, g] -= 1
                    st.goods[i, G_YIN + area, g] += 1
        # players: missions dealt, scoring tiles in random order
        shuffled_range(rng, i, tmp, n_goods_missions)
        for p in range(P):
            st.players[i, p, :] = 0
            st.players[i, p, Q_TEMPLES] = TEMPLES
            st.players[i, p, Q_PAWN] = -1
            st.players[i, p, Q_GOODS_MISSION] = -1 if tb.solo else tmp[p]
        shuffled_range(rng, i, tmp, n_temple_missions)
        for p in range(P):
            st.players[i, p, Q_TEMPLE_MISSION] = -1 if tb.solo else tmp[p]
        for p in range(P):
            st.development[i, p, :] = 0
            st.beside_board[i, p, :] = 0
            shuffled_range(rng, i, tmp, n_lines)
            for t in range(n_lines):
                st.scoring_tiles[i, p, t, 0] = tmp[t]
                st.scoring_tiles[i, p, t, 1] = 0
        if tb.solo:
            # 4 tiles of a second colour drawn from the bag replace the same kinds
            shuffled_range(rng, i, tmp, n_lines)
            for q in range(4):
                for t in range(n_lines):
                    if st.scoring_tiles[i, 0, t, 0] == tmp[q]:
                        st.scoring_tiles[i, 0, t, 1] = 1
            shuffled_range(rng, i, tmp, n_solo)
            for k in range(n_solo):
                st.solo_tiles[i, k] = tmp[k]
        else:
            st.solo_tiles[i, :] = -1
        # turn order: a random starting player, then clockwise (seat order), stacked first on top
        first = draw_below(rng, i, P)
        for r in range(P):
            q = (first + r) % P
            st.turn_order[i, r] = q
            st.players[i, q, Q_ARRIVAL] = P - r
            st.players[i, q, Q_CARDS] = tb.cards_at_start[r]
        st.flow[i, F_ARRIVALS] = P
        st.flow[i, F_PHASE] = PH_SETUP
        st.flow[i, F_TURN] = P - 1  # pawns are placed from the last player backwards
        st.current_player[i] = st.turn_order[i, P - 1]
