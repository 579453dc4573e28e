"""Yin Yang: which actions are legal (``seeds/yinyang.md`` §2-6, §10)."""
from __future__ import annotations

import numpy as np
from numba import prange

from yyenvs.core.kernels import batch_kernel, block_rows, num_blocks
from yyenvs.games.yinyang.chance import chance_mask_row
from yyenvs.games.yinyang.layout import (
    BESIDE, BOAT, CARRIAGE, GOODS_TILE, TEMPLE_TILE, TRACK_MAX, YANG_COUNT, Arrays, kernel, rule,
    PH_DIVINATION, PH_GODS, PH_OVER, PH_SETUP,
    EV_NONE,
    F_BEFORE_THROW, F_CHANCE, F_PENDING, F_PHASE, F_SOLO_GAINS, F_SPLIT_DONE, F_TURN,
    Q_CARDS, Q_COINS_YANG, Q_COINS_YIN, Q_PAWN, Q_TEMPLES, Q_TILES, Q_TILES_USED, Q_YANG, Q_YIN,
    C_DISASTER, C_GOOD, C_TEMPLE,
    T_LOWER_BLOCK, T_STACK, T_UPPER_BLOCK,
    G_YIN,
    L_BOAT, L_CARRIAGE, L_GOODS, L_TEMPLE,
    O_BOAT, O_CARD, O_DISASTER, O_END, O_FLIP, O_FORFEIT, O_GIFT, O_GOODS, O_MORTAL, O_PLACE,
    O_REROLL, O_ROAD, O_SOLO, O_SPLIT, O_SWAP, O_THROW, O_TEMPLE,
)


# -- what a player can do ---------------------------------------------------------------------
@rule
def tile_left(players, i, p, t):
    """Action tiles of type t that player p has not used this round."""
    return players[i, p, Q_TILES + t] - players[i, p, Q_TILES_USED + t]


@rule
def can_act(players, i, p, t):
    """Whether player p still has an action of type t: an unused tile or a coin pair."""
    if tile_left(players, i, p, t) > 0:
        return True
    yang = players[i, p, Q_COINS_YANG]
    yin = players[i, p, Q_COINS_YIN]
    if t == CARRIAGE:
        return yang >= 2
    if t == BOAT:
        return yin >= 2
    return yang >= 1 and yin >= 1


@rule
def can_build(cities, players, i, p, c, capital):
    return c != capital and cities[i, c, C_TEMPLE] < 0 and players[i, p, Q_TEMPLES] > 0


@rule
def has_move(cities, i, here, links, n):
    for c in range(n):
        if links[here, c] and cities[i, c, C_DISASTER] == 0:
            return True
    return False


@rule
def goods_target_ok(development, spaces, i, p, g, t):
    """Whether a good of kind g may go to target t (a space, or BESIDE the board)."""
    if t < BESIDE:
        return spaces[t] == g and development[i, p, t] == 0
    for s in range(spaces.shape[0]):  # beside the board only when every space of that kind is full
        if spaces[s] == g and development[i, p, s] == 0:
            return False
    return True


@rule
def lower_ok(taiji, cities, players, tb, i, p, l):
    """Whether lower trigram l is free and its immediate action can be carried out."""
    if taiji[i, l, T_LOWER_BLOCK] != 0:
        return False
    kind = tb.lower_actions[l, 0]
    here = np.int64(players[i, p, Q_PAWN])
    if kind == L_GOODS:
        return cities[i, here, C_GOOD] >= 0
    if kind == L_TEMPLE:
        return can_build(cities, players, i, p, here, tb.capital)
    if kind == L_CARRIAGE:
        return has_move(cities, i, here, tb.road, tb.num_cities)
    if kind == L_BOAT:
        return has_move(cities, i, here, tb.boat, tb.num_cities)
    return True


# -- the mask, by phase -------------------------------------------------------------------------
@rule
def divination_mask(taiji, cities, players, tb, i, p, m):
    """Phase Two before the split: every legal (upper, lower) pair, else the free reroll."""
    off = tb.action_start
    k = players[i, p, Q_COINS_YANG]
    any_split = False
    for u in range(8):
        if taiji[i, u, T_UPPER_BLOCK] != 0 or taiji[i, u, T_STACK] == 0:
            continue
        for l in range(8):
            if YANG_COUNT[u] + YANG_COUNT[l] == k and lower_ok(taiji, cities, players, tb, i, p, l):
                m[off[O_SPLIT] + u * 8 + l] = True
                any_split = True
    if not any_split:
        m[off[O_REROLL]] = True


@rule
def actions_mask(cities, development, players, tb, i, p, m):
    """Phase Three: moves, goods, temple and forfeits with the tiles and coins left."""
    off = tb.action_start
    spaces = tb.development_spaces
    N = tb.num_cities
    here = np.int64(players[i, p, Q_PAWN])
    for t in range(2):  # Carriage by road, Boat by river or ocean
        if can_act(players, i, p, t):
            links = tb.road if t == CARRIAGE else tb.boat
            first = off[O_ROAD] if t == CARRIAGE else off[O_BOAT]
            for c in range(N):
                if links[here, c] and cities[i, c, C_DISASTER] == 0:
                    m[first + c] = True
    g = np.int64(cities[i, here, C_GOOD])
    if g >= 0 and can_act(players, i, p, GOODS_TILE):
        for t in range(BESIDE + 1):
            if goods_target_ok(development, spaces, i, p, g, t):
                m[off[O_GOODS] + t] = True
    if can_act(players, i, p, TEMPLE_TILE) and can_build(cities, players, i, p, here, tb.capital):
        m[off[O_TEMPLE]] = True
    for t in range(4):
        if tile_left(players, i, p, t) > 0:
            m[off[O_FORFEIT] + t] = True
    yang = players[i, p, Q_COINS_YANG]
    yin = players[i, p, Q_COINS_YIN]
    m[off[O_FORFEIT] + 4] = yang >= 2
    m[off[O_FORFEIT] + 5] = yin >= 2
    m[off[O_FORFEIT] + 6] = yang >= 1 and yin >= 1
    m[off[O_END]] = True


@rule
def anytime_mask(cities, development, goods, players, tb, i, p, before_throw, m):
    """The Special Anytime Actions (own turn, Phases Two and Three); before the Divination
    throw not Mortal Will, which the text allows only once the throw's gain is made."""
    off = tb.action_start
    spaces = tb.development_spaces
    for area in range(2):
        if players[i, p, Q_YIN + area] == TRACK_MAX:
            for t in range(BESIDE + 4):
                g = np.int64(spaces[t] if t < BESIDE else t - BESIDE)
                if goods[i, G_YIN + area, g] > 0 and goods_target_ok(development, spaces, i, p, g,
                                                                         min(t, BESIDE)):
                    m[off[O_GIFT] + area * 20 + t] = True
    for c in range(tb.num_cities):
        if cities[i, c, C_TEMPLE] == p and not before_throw:
            m[off[O_MORTAL] + c] = True
    cards = players[i, p, Q_CARDS]
    if cards >= 1:
        m[off[O_CARD]] = players[i, p, Q_YIN] < TRACK_MAX
        m[off[O_CARD] + 1] = players[i, p, Q_YANG] < TRACK_MAX
    if cards >= 2:
        m[off[O_FLIP]] = players[i, p, Q_COINS_YANG] >= 1
        m[off[O_FLIP] + 1] = players[i, p, Q_COINS_YIN] >= 1
    if cards >= 3:
        m[off[O_SWAP]:off[O_SOLO]] = True


@rule
def pending_mask(cities, development, flow, players, tb, i, p, m):
    """The target of an immediate action: a Development space, or a city to move to."""
    off = tb.action_start
    here = np.int64(players[i, p, Q_PAWN])
    pending = flow[i, F_PENDING]
    if pending == L_GOODS:
        g = np.int64(cities[i, here, C_GOOD])
        for t in range(BESIDE + 1):
            if goods_target_ok(development, tb.development_spaces, i, p, g, t):
                m[off[O_GOODS] + t] = True
    else:  # a Carriage or Boat move
        links = tb.road if pending == L_CARRIAGE else tb.boat
        first = off[O_ROAD] if pending == L_CARRIAGE else off[O_BOAT]
        for c in range(tb.num_cities):
            if links[here, c] and cities[i, c, C_DISASTER] == 0:
                m[first + c] = True


@batch_kernel
def mask_kernel(arrays, tables, out):
    """Fill every entry of ``out`` (B, A), in blocks of rows (``mask_rows``)."""
    nb = out.shape[0]
    for k in prange(num_blocks(nb)):
        lo, hi = block_rows(k, nb)
        mask_rows(arrays, tables, out, lo, hi)


@kernel
def mask_rows(arrays, tables, out, lo, hi):
    st = Arrays(*arrays)
    tb = tables[0]
    flow = st.flow
    off = tb.action_start
    cities = st.cities
    for i in range(lo, hi):
        m = out[i]
        m[:] = False
        phase = flow[i, F_PHASE]
        p = np.int64(st.turn_order[i, flow[i, F_TURN]])
        if st.terminated[i]:
            pass
        elif flow[i, F_CHANCE] != EV_NONE:
            chance_mask_row(st.flow, st.goods, tb, i, m)
        elif phase == PH_SETUP:  # a pawn: not the capital, nor a disaster city (solo: any)
            for c in range(tb.num_cities):
                if c != tb.capital and (cities[i, c, C_DISASTER] == 0 or tb.solo):
                    m[off[O_PLACE] + c] = True
        elif phase == PH_GODS:
            for c in range(tb.num_cities):
                if cities[i, c, C_DISASTER]:
                    m[off[O_DISASTER] + c] = True
        elif phase == PH_OVER:
            pass
        elif flow[i, F_SOLO_GAINS] > 0:
            m[off[O_SOLO]] = True
            m[off[O_SOLO] + 1] = True
        elif flow[i, F_PENDING] != 0:
            pending_mask(st.cities, st.development, st.flow, st.players, tb, i, p, m)
        else:
            if phase != PH_DIVINATION:
                actions_mask(st.cities, st.development, st.players, tb, i, p, m)
            elif flow[i, F_BEFORE_THROW]:  # the window before the throw (see apply.throw_unless_choice)
                m[off[O_THROW]] = True
            elif flow[i, F_SPLIT_DONE] == 0:
                divination_mask(st.taiji, st.cities, st.players, tb, i, p, m)
            else:
                m[off[O_END]] = True
            anytime_mask(st.cities, st.development, st.goods, st.players, tb, i, p, flow[i, F_BEFORE_THROW] != 0, m)
