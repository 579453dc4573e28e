"""Yin Yang: the flow of a round (``seeds/yinyang.md`` §3-4, §7).

Round start (Phase Four of the last round included), the god coins, each
player's Divination throw, the start of the action phase and the end of the
game.  The coins are chance events: the flow posts them (see
:mod:`~yyenvs.games.yinyang.chance`) and goes on in :func:`gods_coins_fall`
and :func:`divination_throw` once the outcome is known.

The step kernel calls :func:`begin_round` and :func:`end_game` itself, not
from inside the action that ends a round: each numba function is compiled
with all it calls, so a flat call graph compiles the big pieces once.
"""
from __future__ import annotations

from yyenvs.games.yinyang.layout import (
    C_DISASTER,
    COINS,
    EV_DIVINATION,
    EV_GODS,
    F_ARRIVALS,
    F_BEFORE_THROW,
    F_CHANCE,
    F_CHANCE_N,
    F_GODS_LOWER,
    F_GODS_UPPER,
    F_PENDING,
    F_PHASE,
    F_ROUND,
    F_SOLO_GAINS,
    F_SPLIT_DONE,
    F_TURN,
    HAND_MAX,
    PH_ACTIONS,
    PH_DIVINATION,
    PH_GODS,
    PH_OVER,
    Q_ARRIVAL,
    Q_CARDS,
    Q_COINS_YANG,
    Q_COINS_YIN,
    Q_LUO_BONUS,
    Q_SCORE,
    Q_TILES_USED,
    Q_TRACK,
    Q_YANG,
    Q_YIN,
    ROUNDS,
    T_LOWER_BLOCK,
    T_UPPER_BLOCK,
    TRACK_MAX,
    rule,
)
from yyenvs.games.yinyang.scoring import solo_level


@rule
def compute_order(players, turn_order, i, P):
    """Turn order now: the furthest token on the track first, on a shared space the one on top."""
    for r in range(P):
        turn_order[i, r] = r
    for a in range(1, P):  # insertion sort
        s = turn_order[i, a]
        b = a - 1
        while b >= 0:
            t = turn_order[i, b]
            if (players[i, t, Q_TRACK] > players[i, s, Q_TRACK]
                    or (players[i, t, Q_TRACK] == players[i, s, Q_TRACK]
                        and players[i, t, Q_ARRIVAL] > players[i, s, Q_ARRIVAL])):
                break
            turn_order[i, b + 1] = t
            b -= 1
        turn_order[i, b + 1] = s


@rule
def add_cards(players, i, p, n):
    players[i, p, Q_CARDS] = min(players[i, p, Q_CARDS] + n, HAND_MAX)


@rule
def post_chance(flow, i, kind, n):
    flow[i, F_CHANCE] = kind
    flow[i, F_CHANCE_N] = n


@rule
def start_divination_turn(flow, i):
    """The player at F_TURN starts their Divination turn: the window before the throw opens
    (the step throws at once when it offers nothing, see apply.throw_unless_choice)."""
    flow[i, F_SPLIT_DONE] = 0
    flow[i, F_PENDING] = 0
    flow[i, F_BEFORE_THROW] = 1


@rule
def throw_divination_coins(flow, i):
    """The window before the throw closes: the six coins are thrown."""
    flow[i, F_BEFORE_THROW] = 0
    post_chance(flow, i, EV_DIVINATION, COINS)


@rule
def move_turn_order(players, flow, tb, i, p, n):
    """Move p's token n spaces (to the end at most), on top of any token there."""
    old = players[i, p, Q_TRACK]
    new = min(old + n, tb.num_track_spaces - 1)
    if new == old:
        return
    players[i, p, Q_TRACK] = new
    flow[i, F_ARRIVALS] += 1
    players[i, p, Q_ARRIVAL] = flow[i, F_ARRIVALS]
    if tb.solo:  # each printed point gained is a choice of 2 Yin or 2 Yang
        gain = tb.turn_order_values[new] - tb.turn_order_values[old]
        if gain > 0:
            flow[i, F_SOLO_GAINS] += gain


@rule
def divination_throw(players, p, i, k):
    """Player p's throw gave k Yang faces: the Yin and Yang tracks rise (capped), the coins lie."""
    players[i, p, Q_YIN] = min(TRACK_MAX, players[i, p, Q_YIN] + COINS - k)
    players[i, p, Q_YANG] = min(TRACK_MAX, players[i, p, Q_YANG] + k)
    players[i, p, Q_COINS_YANG] = k
    players[i, p, Q_COINS_YIN] = COINS - k


@rule
def gods_coins_fall(flow, taiji, players, turn_order, tb, i, lower, upper):
    """The god coins show ``lower`` and ``upper``: both are blocked; Divination starts."""
    taiji[i, lower, T_LOWER_BLOCK] = 1
    taiji[i, upper, T_UPPER_BLOCK] = 1
    flow[i, F_GODS_LOWER] = lower
    flow[i, F_GODS_UPPER] = upper
    flow[i, F_PHASE] = PH_DIVINATION
    compute_order(players, turn_order, i, tb.num_players)
    flow[i, F_TURN] = 0
    start_divination_turn(flow, i)


@rule
def begin_actions(flow, players, turn_order, current_player, tb, i):
    flow[i, F_PHASE] = PH_ACTIONS
    flow[i, F_SPLIT_DONE] = 0
    flow[i, F_PENDING] = 0
    compute_order(players, turn_order, i, tb.num_players)
    flow[i, F_TURN] = 0
    current_player[i] = turn_order[i, 0]


@rule
def begin_round(flow, players, taiji, turn_order, cities, current_player, tb, i):
    """Phase Four of the last round, then a new round; False when five rounds are over."""
    for t in range(8):  # the Gods' Will tokens leave the boards
        taiji[i, t, T_UPPER_BLOCK] = 0
        taiji[i, t, T_LOWER_BLOCK] = 0
    if flow[i, F_ROUND] >= ROUNDS:
        return False
    flow[i, F_ROUND] += 1
    for p in range(tb.num_players):
        players[i, p, Q_LUO_BONUS] = 0
        for t in range(4):
            players[i, p, Q_TILES_USED + t] = 0
    compute_order(players, turn_order, i, tb.num_players)
    flow[i, F_PHASE] = PH_GODS
    for c in range(tb.num_cities):
        if cities[i, c, C_DISASTER]:  # the first player removes one first
            current_player[i] = turn_order[i, 0]
            return True
    post_chance(flow, i, EV_GODS, COINS)
    return True


@rule
def final_reward(players, turn_order, flow, development, scoring_tiles, tb, i, p):
    """Player p's reward for the finished game of row i, from the final scores and turn order:
    the winner (earlier in turn order on a tie) +1, the others -1; reward "score": own score
    minus the best other; solo: the level."""
    P = tb.num_players
    if P == 1:
        return float(solo_level(flow, development, scoring_tiles, tb, i))
    if tb.score_reward:
        others = -1000000
        for q in range(P):
            if q != p and players[i, q, Q_SCORE] > others:
                others = players[i, q, Q_SCORE]
        return float(players[i, p, Q_SCORE] - others)
    best = -1
    for r in range(P):
        q = turn_order[i, r]
        if best < 0 or players[i, q, Q_SCORE] > players[i, best, Q_SCORE]:
            best = q
    return 1.0 if p == best else -1.0


@rule
def end_game(st, tb, i, score):
    """The game is over with final scores ``score`` (see score_row)."""
    st.flow[i, F_PHASE] = PH_OVER
    st.terminated[i] = True
    for p in range(tb.num_players):
        st.players[i, p, Q_SCORE] = score[p]
    compute_order(st.players, st.turn_order, i, tb.num_players)
    for p in range(tb.num_players):
        st.rewards[i, p] = final_reward(st.players, st.turn_order, st.flow, st.development, st.scoring_tiles, tb, i, p)
