"""Yin Yang: the final scoring and the solo achievement level (``seeds/yinyang.md`` §8-9).
"""
from __future__ import annotations


from yyenvs.games.yinyang.layout import (
    C_TEMPLE,
    F_SOLO_FLIPPED,
    LINES,
    NUM_KINGDOMS,
    Q_GOODS_MISSION,
    Q_TEMPLE_MISSION,
    Q_TRACK,
    Q_YANG,
    Q_YIN,
    S_APPROVAL,
    S_PERIMETER,
    S_TEMPLE,
    S_TURN_ORDER,
    S_YANG,
    SOLO_SEAT,
    SPACES,
    TRI_SUM,
    Arrays,
    kernel,
    rule,
)
from yyenvs.games.yinyang.parts import part


@rule
def line_complete(development, line_spaces, i, p, ln):
    for s in range(SPACES):
        if line_spaces[ln, s] and development[i, p, s] == 0:
            return False
    return True


@part
def count_temples(cities, tb, i, temples, all_temples):
    """Row i's temples per player and kingdom into temples, per player into all_temples."""
    kingdom = tb.kingdom
    temples[:, :] = 0
    all_temples[:] = 0
    for c in range(tb.num_cities):
        o = cities[i, c, C_TEMPLE]
        if o >= 0:
            all_temples[o] += 1
            if kingdom[c] >= 0:  # the capital belongs to no kingdom
                temples[o, kingdom[c]] += 1


@part
def score_kingdom(temples, tb, k, out):
    """I. Kingdom k: most temples first prize, second most second prize; a tie for first
    shares both prizes, a tie for second the second prize, rounded down; added to out."""
    P = tb.num_players
    first = 0
    for p in range(P):
        first = max(first, temples[p, k])
    if first == 0:
        return
    n_first = 0
    for p in range(P):
        if temples[p, k] == first:
            n_first += 1
    if n_first > 1:
        share = (tb.kingdom_points[k, 0] + tb.kingdom_points[k, 1]) // n_first
        for p in range(P):
            if temples[p, k] == first:
                out[p] += share
        return
    second = 0
    for p in range(P):
        if second < temples[p, k] < first:
            second = temples[p, k]
    for p in range(P):
        if temples[p, k] == first:
            out[p] += tb.kingdom_points[k, 0]
            if second == 0:  # alone in the kingdom: both prizes
                out[p] += tb.kingdom_points[k, 1]
    if second > 0:
        n_second = 0
        for p in range(P):
            if temples[p, k] == second:
                n_second += 1
        for p in range(P):
            if temples[p, k] == second:
                out[p] += tb.kingdom_points[k, 1] // n_second


@part
def count_goods(development, beside_board, tb, i, p, owned):
    """p's goods per kind into owned (on the Development Area and beside the board);
    returns how many of p's spaces lie on the perimeter."""
    for g in range(4):
        owned[g] = beside_board[i, p, g]
    on_perimeter = 0
    for s in range(SPACES):
        if development[i, p, s]:
            owned[tb.development_spaces[s]] += 1
            if tb.perimeter[s]:
                on_perimeter += 1
    return on_perimeter


@part
def score_missions(players, tb, i, p, wk, out):
    """II. 6 points to out[p] for each of p's missions met (wk: owned filled for p; ranked
    is scratch)."""
    owned = wk.owned
    ranked = wk.ranked
    temples = wk.temples
    gm = players[i, p, Q_GOODS_MISSION]
    if gm >= 0:
        met = True
        for g in range(4):
            if owned[g] < tb.goods_missions[gm, g]:
                met = False
        if met:
            out[p] += 6
    tm = players[i, p, Q_TEMPLE_MISSION]
    if tm >= 0:
        # the largest requirement against the largest own count, and so on: sort descending
        for k in range(NUM_KINGDOMS):
            x = temples[p, k]
            j = k
            while j > 0 and ranked[j - 1] < x:
                ranked[j] = ranked[j - 1]
                j -= 1
            ranked[j] = x
        met = True
        for k in range(NUM_KINGDOMS):
            if ranked[k] < tb.temple_missions[tm, k]:
                met = False
        if met:
            out[p] += 6


@part
def score_lines(development, players, scoring_tiles, tb, i, p, wk, on_perimeter, out):
    """IV. Each of p's complete Development lines scores its tile, added to out[p] (wk:
    owned filled for p, temples and all_temples for row i)."""
    owned = wk.owned
    track = players[i, p, Q_TRACK]
    kingdoms = 0
    for k in range(NUM_KINGDOMS):
        if wk.temples[p, k] > 0:
            kingdoms += 1
    for ln in range(LINES):
        if not line_complete(development, tb.line_spaces, i, p, ln):
            continue
        t = scoring_tiles[i, p, ln, 0]
        if t < 4:
            out[p] += TRI_SUM[min(owned[t], 6)]
        elif t == S_TEMPLE:
            out[p] += 3 * (wk.all_temples[p] // 2)
        elif t == S_TURN_ORDER:
            out[p] += 3 * (track // 4)
        elif t == S_PERIMETER:
            out[p] += 3 * (on_perimeter // 2)
        elif t == S_APPROVAL:
            out[p] += 3 * kingdoms
        elif t == S_YANG:
            out[p] += 3 * (players[i, p, Q_YANG] // 2)
        else:
            out[p] += 3 * (players[i, p, Q_YIN] // 2)


@rule
def score_row(cities, players, development, beside_board, scoring_tiles, tb, i, out, wk):
    """The score of every player of row i as if the game ended now, into out[:P]
    (wk: the work record, its temples, all_temples, owned and ranked)."""
    P = tb.num_players
    count_temples(cities, tb, i, wk.temples, wk.all_temples)
    for p in range(P):
        out[p] = 0
    for k in range(NUM_KINGDOMS):  # I. kingdoms
        score_kingdom(wk.temples, tb, k, out)
    for p in range(P):
        on_perimeter = count_goods(development, beside_board, tb, i, p, wk.owned)
        score_missions(players, tb, i, p, wk, out)  # II.
        out[p] += tb.turn_order_values[players[i, p, Q_TRACK]]  # III. turn order track
        score_lines(development, players, scoring_tiles, tb, i, p, wk, on_perimeter, out)  # IV.


@rule
def solo_lines(development, scoring_tiles, tb, i):
    """Complete lines of the second colour (solo)."""
    n = 0
    for ln in range(LINES):
        if scoring_tiles[i, 0, ln, 1] and line_complete(development, tb.line_spaces, i, SOLO_SEAT, ln):
            n += 1
    return n


#: the solo game's achievement levels by number (its reward), 0 for a lost game
ACHIEVEMENT_LEVELS = ("lost", "Trainee", "Layman", "Expert", "Master", "Immortal", "Deity")


@rule
def solo_level(flow, development, scoring_tiles, tb, i):
    """0 (lost) or 1 Trainee .. 6 Deity, from the lines and solo tiles now."""
    lines = solo_lines(development, scoring_tiles, tb, i)
    flipped = flow[i, F_SOLO_FLIPPED]
    if lines < 2 or flipped < 4:
        return 0
    return (lines - 2) + (flipped - 4) + 1


@kernel
def scores_kernel(arrays, tables, out, work):
    """out (B, P) int64: every player's score as if the game ended now."""
    st = Arrays(*arrays)
    tb = tables[0]
    wk = work[0]
    for i in range(out.shape[0]):
        score_row(st.cities, st.players, st.development, st.beside_board, st.scoring_tiles, tb, i, out[i], wk)


@kernel
def solo_level_kernel(arrays, tables, out):
    """out (B,) int64: the solo level from the state now."""
    st = Arrays(*arrays)
    tb = tables[0]
    for i in range(out.shape[0]):
        out[i] = solo_level(st.flow, st.development, st.scoring_tiles, tb, i)
