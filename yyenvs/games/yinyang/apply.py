"""Yin Yang: applying one action, a player's or a chance outcome (``seeds/yinyang.md`` §2-6).

:func:`step_kernel` checks every row, applies the actions, runs the flow
when a round ends and, with sampled chance, draws each chance event the
step reaches (with explicit chance the row waits for the outcome instead).
"""
from __future__ import annotations

import numpy as np
from numba import prange

from yyenvs.core.kernels import batch_kernel, block_rows, num_blocks
from yyenvs.games.yinyang.chance import draw_outcome
from yyenvs.games.yinyang.flow import (
    add_cards,
    begin_actions,
    begin_round,
    divination_throw,
    end_game,
    gods_coins_fall,
    move_turn_order,
    post_chance,
    start_divination_turn,
    throw_divination_coins,
)
from yyenvs.games.yinyang.layout import (
    BESIDE, BOAT, CARRIAGE, CHANCE_PLAYER, COINS, FORFEIT_CARDS, GOODS_TILE, LUO_CARDS, SWAP_I,
    SWAP_J, TEMPLE_TILE, TRACK_MAX, Arrays, kernel, rule,
    PH_DIVINATION,
    EV_BAG, EV_DIVINATION, EV_GODS, EV_MORTAL_WILL, EV_NONE, EV_REROLL,
    F_BEFORE_THROW, F_CHANCE, F_CHANCE_N, F_PENDING, F_PHASE, F_SOLO_FLIPPED, F_SOLO_GAINS,
    F_SPLIT_DONE, F_TURN,
    Q_CARDS, Q_COINS_YANG, Q_COINS_YIN, Q_LUO_BONUS, Q_PAWN, Q_TEMPLES, Q_TILES, Q_TILES_USED,
    Q_YIN,
    C_DISASTER, C_GOOD, C_TEMPLE,
    T_STACK, T_TILE_TYPE, T_UPPER_BLOCK,
    G_BAG, G_YIN,
    L_NONE, L_TEMPLE,
    O_BAG, O_BOAT, O_CARD, O_COINS, O_DISASTER, O_END, O_FLIP, O_FORFEIT, O_GIFT, O_GODS, O_GOODS,
    O_MORTAL, O_PLACE, O_REROLL, O_ROAD, O_SOLO, O_SPLIT, O_SWAP, O_TEMPLE, O_THROW,
)
from yyenvs.games.yinyang.mask import anytime_mask, tile_left
from yyenvs.games.yinyang.parts import part
from yyenvs.games.yinyang.scoring import score_row


# -- effects ----------------------------------------------------------------------------------
@rule
def spend(players, i, p, t):
    """Use an unused tile of type t if any (never worse: coins are more flexible), else a coin pair."""
    if tile_left(players, i, p, t) > 0:
        players[i, p, Q_TILES_USED + t] += 1
    elif t == CARRIAGE:
        players[i, p, Q_COINS_YANG] -= 2
    elif t == BOAT:
        players[i, p, Q_COINS_YIN] -= 2
    else:
        players[i, p, Q_COINS_YANG] -= 1
        players[i, p, Q_COINS_YIN] -= 1


@rule
def place_good(development, beside_board, i, p, g, t):
    """A good of kind g to Development space t, or beside the board."""
    if t < BESIDE:
        development[i, p, t] = 1
    else:
        beside_board[i, p, g] += 1


@rule
def build_temple(cities, players, tb, i, p, c):
    cities[i, c, C_TEMPLE] = p
    players[i, p, Q_TEMPLES] -= 1


@rule
def flip_solo_tile(flow, solo_tiles, tb, i, c):
    """Solo: a temple in the kingdom of the leftmost unflipped solo tile flips it."""
    f = flow[i, F_SOLO_FLIPPED]
    if f < solo_tiles.shape[1] and solo_tiles[i, f] == tb.kingdom[c]:
        flow[i, F_SOLO_FLIPPED] = f + 1


@part
def found_temple(flow, cities, players, solo_tiles, tb, i, p, c):
    """A temple of p in city c; in the solo game it may flip a solo tile."""
    build_temple(cities, players, tb, i, p, c)
    if tb.solo:
        flip_solo_tile(flow, solo_tiles, tb, i, c)


# -- the action blocks, one rule each (apply_action dispatches) --------------------------------
@part
def place_pawn(flow, players, turn_order, current_player, i, turn, p, c):
    """Set-up: p's pawn to city c.  The placing goes backwards in turn order, so True once
    the first player in turn order has placed (the round begins)."""
    players[i, p, Q_PAWN] = c
    if turn == 0:
        return True
    flow[i, F_TURN] = turn - 1
    current_player[i] = turn_order[i, turn - 1]
    return False


@part
def interpret_throw(st, tb, i, turn, p, here, s):
    """Divination: p interprets the throw as upper trigram s // 8 (its tile taken) and lower
    trigram s % 8 (its turn-order steps, cards and action; here: the pawn's city)."""
    flow = st.flow
    players = st.players
    taiji = st.taiji
    u = s // 8
    l = s % 8
    taiji[i, u, T_STACK] -= 1
    players[i, p, Q_TILES + taiji[i, u, T_TILE_TYPE]] += 1
    if turn != tb.num_players - 1:  # the last player blocks nobody
        taiji[i, u, T_UPPER_BLOCK] = 2
    flow[i, F_SPLIT_DONE] = 1
    move_turn_order(players, flow, tb, i, p, tb.lower_actions[l, 1])
    add_cards(players, i, p, tb.lower_actions[l, 2])
    kind = tb.lower_actions[l, 0]
    if kind == L_TEMPLE:
        found_temple(flow, st.cities, players, st.solo_tiles, tb, i, p, here)
    elif kind != L_NONE:  # an immediate action: its target is the player's next choice
        flow[i, F_PENDING] = kind


@part
def move_pawn(flow, players, tb, i, p, c, by_road):
    """p's pawn to city c, by road or by river / ocean; the capital gives cards once a round."""
    if flow[i, F_PENDING] != 0:  # an immediate action costs nothing
        flow[i, F_PENDING] = 0
    else:
        spend(players, i, p, CARRIAGE if by_road else BOAT)
    players[i, p, Q_PAWN] = c
    if c == tb.capital and players[i, p, Q_LUO_BONUS] == 0:  # once a round
        players[i, p, Q_LUO_BONUS] = 1
        add_cards(players, i, p, LUO_CARDS)


@part
def take_good(st, i, p, here, t):
    """p takes the good of the pawn's city (here) to Development space t, or beside the board."""
    flow = st.flow
    g = np.int64(st.cities[i, here, C_GOOD])
    if flow[i, F_PENDING] != 0:  # an immediate action costs nothing
        flow[i, F_PENDING] = 0
    else:
        spend(st.players, i, p, GOODS_TILE)
    st.cities[i, here, C_GOOD] = -1
    place_good(st.development, st.beside_board, i, p, g, t)


@part
def forfeit(players, i, p, f):
    """p gives up one action for a card: f < 4 a tile of type f, 4 two Yang coins, 5 two
    Yin coins, 6 one coin of each."""
    if f < 4:
        players[i, p, Q_TILES_USED + f] += 1
    elif f == 4:
        players[i, p, Q_COINS_YANG] -= 2
    elif f == 5:
        players[i, p, Q_COINS_YIN] -= 2
    else:
        players[i, p, Q_COINS_YANG] -= 1
        players[i, p, Q_COINS_YIN] -= 1
    add_cards(players, i, p, FORFEIT_CARDS)


@part
def end_turn(st, tb, i, turn, p):
    """p (at position turn in turn order) ends their Divination or action turn; the next
    player follows.  True when this ends the action phase, so the round."""
    flow = st.flow
    players = st.players
    divination = flow[i, F_PHASE] == PH_DIVINATION
    if not divination:  # unused actions are forfeited, a card each
        left = (players[i, p, Q_COINS_YANG] + players[i, p, Q_COINS_YIN]) // 2
        for t in range(4):
            left += tile_left(players, i, p, t)
            players[i, p, Q_TILES_USED + t] = players[i, p, Q_TILES + t]
        players[i, p, Q_COINS_YANG] = 0
        players[i, p, Q_COINS_YIN] = 0
        add_cards(players, i, p, left)
    if turn + 1 < tb.num_players:
        flow[i, F_TURN] = turn + 1
        if divination:
            start_divination_turn(flow, i)
        else:
            st.current_player[i] = st.turn_order[i, turn + 1]
        return False
    if divination:  # the last throw is interpreted: the action phase begins
        begin_actions(st.flow, st.players, st.turn_order, st.current_player, tb, i)
        return False
    return True


@part
def gift_from_gods(st, tb, i, p, s):
    """Gift from the Gods, s = area * 20 + target: p's full track (area 0 Yin, 1 Yang) buys
    a good of that area, to Development space target or (target 16 + kind) beside the board."""
    area = s // 20
    t = s % 20
    g = tb.development_spaces[t] if t < BESIDE else t - BESIDE
    st.players[i, p, Q_YIN + area] = 0
    st.goods[i, G_YIN + area, g] -= 1
    place_good(st.development, st.beside_board, i, p, g, min(t, BESIDE))
    for h in range(4):
        if st.goods[i, G_BAG, h] > 0:  # the area is refilled from the bag, when not empty
            post_chance(st.flow, i, EV_BAG, area)
            break


@part
def mortal_will(flow, cities, players, i, p, c):
    """Mortal Will: p's temple in city c back to the supply, p's unused coins thrown again."""
    cities[i, c, C_TEMPLE] = -1
    players[i, p, Q_TEMPLES] += 1
    n = players[i, p, Q_COINS_YANG] + players[i, p, Q_COINS_YIN]
    if n > 0:
        post_chance(flow, i, EV_MORTAL_WILL, np.int64(n))


@part
def turn_coin(players, i, p, to_yin):
    """Two cards: one of p's unused coins turns over, Yang to Yin (to_yin) or Yin to Yang."""
    players[i, p, Q_CARDS] -= 2
    if to_yin:
        players[i, p, Q_COINS_YANG] -= 1
        players[i, p, Q_COINS_YIN] += 1
    else:
        players[i, p, Q_COINS_YANG] += 1
        players[i, p, Q_COINS_YIN] -= 1


@part
def swap_scoring_tiles(players, scoring_tiles, i, p, s):
    """Three cards: p swaps the scoring tiles (both columns) of lines SWAP_I[s] and SWAP_J[s]."""
    x = SWAP_I[s]
    y = SWAP_J[s]
    players[i, p, Q_CARDS] -= 3
    for q in range(2):
        tmp = scoring_tiles[i, p, x, q]
        scoring_tiles[i, p, x, q] = scoring_tiles[i, p, y, q]
        scoring_tiles[i, p, y, q] = tmp


# -- one action -----------------------------------------------------------------------------
@rule
def apply_action(st, tb, i, a):
    """Apply player action a (legal) to row i; True when it ends the round (see begin_round).
    The blocks of ``Tables.action_start`` are tested in order: each test holds only once
    the earlier blocks are ruled out."""
    off = tb.action_start
    flow = st.flow
    players = st.players
    turn = flow[i, F_TURN]
    p = np.int64(st.turn_order[i, turn])
    if a < off[O_DISASTER]:  # set-up: place the pawn
        return place_pawn(flow, players, st.turn_order, st.current_player, i, turn, p, a - off[O_PLACE])
    if a < off[O_SPLIT]:  # Phase One: remove a disaster; the god coins follow
        st.cities[i, a - off[O_DISASTER], C_DISASTER] = 0
        post_chance(flow, i, EV_GODS, COINS)
        return False
    here = np.int64(players[i, p, Q_PAWN])
    if a < off[O_REROLL]:  # Phase Two: interpret the throw
        interpret_throw(st, tb, i, turn, p, here, a - off[O_SPLIT])
        return False
    if a == off[O_REROLL]:  # free reroll: no Yin / Yang gain this time
        post_chance(flow, i, EV_REROLL, COINS)
        return False
    if a < off[O_GOODS]:  # move by road or by river / ocean
        by_road = a < off[O_BOAT]
        move_pawn(flow, players, tb, i, p, a - (off[O_ROAD] if by_road else off[O_BOAT]), by_road)
        return False
    if a < off[O_TEMPLE]:  # take the good of the pawn's city
        take_good(st, i, p, here, a - off[O_GOODS])
        return False
    if a == off[O_TEMPLE]:
        spend(players, i, p, TEMPLE_TILE)
        found_temple(flow, st.cities, players, st.solo_tiles, tb, i, p, here)
        return False
    if a < off[O_END]:  # forfeit one action for a card
        forfeit(players, i, p, a - off[O_FORFEIT])
        return False
    if a == off[O_END]:  # end of the turn
        return end_turn(st, tb, i, turn, p)
    if a < off[O_MORTAL]:  # Gift from the Gods
        gift_from_gods(st, tb, i, p, a - off[O_GIFT])
        return False
    if a < off[O_CARD]:  # Mortal Will
        mortal_will(flow, st.cities, players, i, p, a - off[O_MORTAL])
        return False
    if a < off[O_FLIP]:  # one card: +1 Yin / Yang
        players[i, p, Q_YIN + a - off[O_CARD]] += 1
        players[i, p, Q_CARDS] -= 1
        return False
    if a < off[O_SWAP]:  # two cards: turn a coin over
        turn_coin(players, i, p, a == off[O_FLIP])
        return False
    if a < off[O_SOLO]:  # three cards: swap two lines' scoring tiles
        swap_scoring_tiles(players, st.scoring_tiles, i, p, a - off[O_SWAP])
        return False
    if a == off[O_THROW]:  # the window before the Divination throw closes
        throw_divination_coins(flow, i)
        return False
    # solo: a printed turn-order point becomes 2 Yin or 2 Yang
    w = a - off[O_SOLO]
    players[i, p, Q_YIN + w] = min(TRACK_MAX, players[i, p, Q_YIN + w] + 2)
    flow[i, F_SOLO_GAINS] -= 1
    return False


@rule
def apply_outcome(st, tb, i, a):
    """Settle row i's pending chance event with outcome action a; the flow goes on."""
    off = tb.action_start
    flow = st.flow
    kind = flow[i, F_CHANCE]
    n = flow[i, F_CHANCE_N]
    flow[i, F_CHANCE] = EV_NONE
    flow[i, F_CHANCE_N] = 0
    if kind == EV_GODS:
        o = a - off[O_GODS]
        gods_coins_fall(st.flow, st.taiji, st.players, st.turn_order, tb, i, o // 8, o % 8)  # posts the first Divination throw
        return
    if kind == EV_BAG:
        g = a - off[O_BAG]
        st.goods[i, G_BAG, g] -= 1
        st.goods[i, G_YIN + n, g] += 1
    else:
        k = a - off[O_COINS]
        if kind == EV_DIVINATION:
            divination_throw(st.players, st.turn_order[i, flow[i, F_TURN]], i, k)
        else:  # EV_REROLL, EV_MORTAL_WILL: the coins lie anew, no gain
            p = st.turn_order[i, flow[i, F_TURN]]
            st.players[i, p, Q_COINS_YANG] = k
            st.players[i, p, Q_COINS_YIN] = n - k
    st.current_player[i] = st.turn_order[i, flow[i, F_TURN]]


@rule
def throw_unless_choice(st, tb, i, m):
    """The window before a Divination throw stays open while the player has a Special
    Anytime Action (``seeds/yinyang.md`` §4, step 0); otherwise the coins are thrown at once,
    so no decision is asked where there is no choice.  m: a mask row, scratch."""
    flow = st.flow
    if flow[i, F_PHASE] != PH_DIVINATION or flow[i, F_BEFORE_THROW] == 0 or flow[i, F_CHANCE] != EV_NONE:
        return
    p = np.int64(st.turn_order[i, flow[i, F_TURN]])
    m[:] = False
    anytime_mask(st.cities, st.development, st.goods, st.players, tb, i, p, flow[i, F_BEFORE_THROW] != 0, m)
    for a in range(m.shape[0]):
        if m[a]:
            st.current_player[i] = p
            return
    throw_divination_coins(flow, i)


@batch_kernel
def step_kernel(arrays, tables, actions, legal, work):
    """Check every row against its ``legal`` mask first (nothing changes on an error: the
    first bad row), then apply, in blocks of rows (``step_rows``), each with its own scratch
    ``work[k]``.  The caller computes the mask: with the mask kernel outside, this kernel
    compiles without it."""
    nb = actions.shape[0]
    for i in range(nb):
        if actions[i] >= 0 and not legal[i, actions[i]]:
            return i
    for k in prange(num_blocks(nb)):
        lo, hi = block_rows(k, nb)
        step_rows(arrays, tables, actions, legal, work[k:k + 1], lo, hi)
    return -1


@kernel
def step_rows(arrays, tables, actions, legal, work, lo, hi):
    """Apply the (legal) actions of rows lo..hi-1; -1 is no action."""
    st = Arrays(*arrays)
    tb = tables[0]
    flow = st.flow
    wk = work[0]
    score = wk.score
    for i in range(lo, hi):
        a = actions[i]
        st.rewards[i, :] = 0.0  # on a skipped row too (the contract)
        if a < 0:
            continue
        if flow[i, F_CHANCE] != EV_NONE:
            apply_outcome(st, tb, i, a)  # not a ply: the states of both chance modes stay alike
        else:
            if apply_action(st, tb, i, a) and not begin_round(st.flow, st.players, st.taiji, st.turn_order, st.cities, st.current_player, tb, i):
                score_row(st.cities, st.players, st.development, st.beside_board, st.scoring_tiles, tb, i, score, wk)
                end_game(st, tb, i, score)
            st.ply[i] += 1
        while True:  # the flow runs on to the next decision, drawing chance on the way
            throw_unless_choice(st, tb, i, legal[i])  # row i's mask is spent: scratch now
            if flow[i, F_CHANCE] == EV_NONE:
                break
            if tb.explicit_chance:
                st.current_player[i] = CHANCE_PLAYER
                break
            apply_outcome(st, tb, i, draw_outcome(st.rng, st.flow, st.goods, tb, i))
