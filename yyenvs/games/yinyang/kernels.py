"""Yin Yang rules as numba kernels (rules in ``seeds/yinyang.md``).

Every kernel loops over the batch; a row's chance comes from its own stream
``rng[i]``.  State arrays (see ``core.YinYangState``) and data arrays (see
``data.YinYangData``) are passed explicitly; the field indices below name
the columns of the packed per-row arrays.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from yyenvs.core.rng import next_below

# --- indices ----------------------------------------------------------------
# flow (B, NF) int16
F_PHASE, F_SUB, F_ROUND, F_TURN, F_PEND, F_GAIN, F_STAMP, F_FLIP, F_GODLOW, F_GODUP = range(10)
NF = 10
PH_PLACE, PH_DISASTER, PH_DIVINE, PH_ACTION, PH_OVER = range(5)
# player fields pl (B, P, NQ) int16
(Q_YIN, Q_YANG, Q_POS, Q_STAMP, Q_HAND, Q_TSUP, Q_CYANG, Q_CYIN, Q_LUO, Q_GMIS, Q_TMIS,
 Q_PAWN, Q_SCORE) = range(13)
Q_TILE = 13  # 4 counts: carriage, boat, goods, temple
Q_USED = 17  # 4 counts used this round
NQ = 21
# city (B, N, 3) int8
C_GOOD, C_DIS, C_TEMPLE = range(3)
# taiji (B, 8, 4) int8: stack type, stack size, upper block (0 free, 1 god, 2 player), lower block
T_TYPE, T_N, T_UP, T_LOW = range(4)
# goods (B, 4, 4) int8 rows
G_BAG, G_YIN, G_YANG, G_OUT = range(4)
# tile types / lower kinds / scoring tiles
CARRIAGE, BOAT, GOODS_T, TEMPLE_T = range(4)
L_NONE, L_GOODS, L_TEMPLE, L_CARRIAGE, L_BOAT = range(5)
S_TEMPLE, S_TURN, S_PERIM, S_APPROVAL, S_YANG, S_YIN = 4, 5, 6, 7, 8, 9
ROUNDS = 5
TRACK_MAX = 8
HAND_MAX = 8
TEMPLES = 13
STACK_SIZE = 5

YANG_COUNT = np.array([3, 2, 2, 1, 2, 1, 1, 0], dtype=np.int64)  # Qian..Kun
TRI_OF_CODE = np.array([7, 3, 5, 1, 6, 2, 4, 0], dtype=np.int64)  # bits bottom=1 -> trigram
TRI_SUM = np.array([0, 1, 3, 6, 10, 15, 21], dtype=np.int64)
SWAP_I = np.array([i for i in range(10) for j in range(i + 1, 10)], dtype=np.int64)
SWAP_J = np.array([j for i in range(10) for j in range(i + 1, 10)], dtype=np.int64)

# action offsets: index into the ``off`` array
(O_PLACE, O_DISASTER, O_SPLIT, O_REROLL, O_ROAD, O_BOAT, O_GOODS, O_TEMPLE, O_FORFEIT, O_END,
 O_GIFT, O_MORTAL, O_CARD, O_FLIP, O_SWAP, O_SOLO, O_TOTAL) = range(17)
# cfg entries
K_CAP, K_PERKIND, K_BAGPER, K_STARTALL, K_SOLO, K_P, K_N, K_TOMAX = range(8)


def action_offsets(n):
    sizes = [n, n, 64, 1, n, n, 17, 1, 7, 1, 40, n, 2, 2, 45, 2]
    off = np.zeros(17, dtype=np.int64)
    off[1:] = np.cumsum(sizes)
    return off


# --- small helpers ------------------------------------------------------------
@njit(cache=True)
def throw(rng, i, n):
    """Throw n coins; return the number of Yang faces."""
    k = 0
    for _ in range(n):
        k += next_below(rng, i, 2)
    return k


@njit(cache=True)
def draw_bag(rng, i, goods):
    tot = 0
    for g in range(4):
        tot += goods[i, G_BAG, g]
    if tot == 0:
        return -1
    r = next_below(rng, i, tot)
    for g in range(4):
        if r < goods[i, G_BAG, g]:
            goods[i, G_BAG, g] -= 1
            return g
        r -= goods[i, G_BAG, g]
    return -1


@njit(cache=True)
def compute_order(pl, order, i, P):
    """Turn order: furthest right on the track first, top of a stack first."""
    for r in range(P):
        order[i, r] = r
    for a in range(1, P):  # insertion sort
        s = order[i, a]
        b = a - 1
        while b >= 0:
            t = order[i, b]
            if (pl[i, t, Q_POS] > pl[i, s, Q_POS]
                    or (pl[i, t, Q_POS] == pl[i, s, Q_POS] and pl[i, t, Q_STAMP] > pl[i, s, Q_STAMP])):
                break
            order[i, b + 1] = t
            b -= 1
        order[i, b + 1] = s


@njit(cache=True)
def add_cards(pl, i, p, n):
    h = pl[i, p, Q_HAND] + n
    pl[i, p, Q_HAND] = HAND_MAX if h > HAND_MAX else h


@njit(cache=True)
def move_turn_order(pl, flow, i, p, n, tovals, solo):
    old = pl[i, p, Q_POS]
    new = old + n
    tomax = tovals.shape[0] - 1
    if new > tomax:
        new = tomax
    if new == old:
        return
    pl[i, p, Q_POS] = new
    flow[i, F_STAMP] += 1
    pl[i, p, Q_STAMP] = flow[i, F_STAMP]  # on top of any stack there
    if solo:
        gain = tovals[new] - tovals[old]
        if gain > 0:
            flow[i, F_GAIN] += gain


@njit(cache=True)
def can_build(city, pl, i, p, c, cap):
    return c != cap and city[i, c, C_TEMPLE] < 0 and pl[i, p, Q_TSUP] > 0


@njit(cache=True)
def can_enter(city, i, a, c, adj):
    return adj[a, c] and city[i, c, C_DIS] == 0


@njit(cache=True)
def has_move(city, i, a, adj):
    for c in range(adj.shape[0]):
        if adj[a, c] and city[i, c, C_DIS] == 0:
            return True
    return False


@njit(cache=True)
def has_space(dev, devsp, i, p, g):
    for s in range(16):
        if devsp[s] == g and dev[i, p, s] == 0:
            return True
    return False


@njit(cache=True)
def goods_target_ok(dev, devsp, i, p, g, t):
    """Target t (0..15 a space, 16 overflow) for a good of kind g."""
    if t < 16:
        return devsp[t] == g and dev[i, p, t] == 0
    return not has_space(dev, devsp, i, p, g)


@njit(cache=True)
def place_good(dev, over, i, p, g, t):
    if t < 16:
        dev[i, p, t] = 1
    else:
        over[i, p, g] += 1


@njit(cache=True)
def build_temple(city, pl, flow, solo, kingdom, i, p, c, is_solo):
    city[i, c, C_TEMPLE] = p
    pl[i, p, Q_TSUP] -= 1
    if is_solo:
        f = flow[i, F_FLIP]
        if f < solo.shape[1] and solo[i, f] == kingdom[c]:
            flow[i, F_FLIP] = f + 1


@njit(cache=True)
def move_pawn(pl, i, p, c, cap):
    pl[i, p, Q_PAWN] = c
    if c == cap and pl[i, p, Q_LUO] == 0:
        pl[i, p, Q_LUO] = 1
        add_cards(pl, i, p, 2)


@njit(cache=True)
def tile_left(pl, i, p, t):
    return pl[i, p, Q_TILE + t] - pl[i, p, Q_USED + t]


@njit(cache=True)
def can_act(pl, i, p, t):
    """Whether player p still has an action of type t (tile or coin pair)."""
    if tile_left(pl, i, p, t) > 0:
        return True
    y = pl[i, p, Q_CYANG]
    n = pl[i, p, Q_CYIN]
    if t == CARRIAGE:
        return y >= 2
    if t == BOAT:
        return n >= 2
    return y >= 1 and n >= 1


@njit(cache=True)
def spend(pl, i, p, t):
    """Use an accumulated tile of type t if any (never worse), else a coin pair."""
    if tile_left(pl, i, p, t) > 0:
        pl[i, p, Q_USED + t] += 1
    elif t == CARRIAGE:
        pl[i, p, Q_CYANG] -= 2
    elif t == BOAT:
        pl[i, p, Q_CYIN] -= 2
    else:
        pl[i, p, Q_CYANG] -= 1
        pl[i, p, Q_CYIN] -= 1


@njit(cache=True)
def lower_ok(city, pl, taiji, i, p, l, lower, road, boat, cap):
    if taiji[i, l, T_LOW] != 0:
        return False
    kind = lower[l, 0]
    c = pl[i, p, Q_PAWN]
    if kind == L_GOODS:
        return city[i, c, C_GOOD] >= 0
    if kind == L_TEMPLE:
        return can_build(city, pl, i, p, c, cap)
    if kind == L_CARRIAGE:
        return has_move(city, i, c, road)
    if kind == L_BOAT:
        return has_move(city, i, c, boat)
    return True


@njit(cache=True)
def upper_ok(taiji, i, u):
    return taiji[i, u, T_UP] == 0 and taiji[i, u, T_N] > 0


# --- flow ---------------------------------------------------------------------
@njit(cache=True)
def start_div_turn(rng, flow, order, pl, cur, i):
    p = order[i, flow[i, F_TURN]]
    k = throw(rng, i, 6)
    pl[i, p, Q_YIN] = min(TRACK_MAX, pl[i, p, Q_YIN] + 6 - k)
    pl[i, p, Q_YANG] = min(TRACK_MAX, pl[i, p, Q_YANG] + k)
    pl[i, p, Q_CYANG] = k
    pl[i, p, Q_CYIN] = 6 - k
    flow[i, F_SUB] = 0
    flow[i, F_PEND] = 0
    cur[i] = p


@njit(cache=True)
def god_coins_and_divination(rng, flow, order, taiji, pl, cur, i, P):
    code = 0
    for b in range(3):
        code += next_below(rng, i, 2) << b
    low = TRI_OF_CODE[code]
    code = 0
    for b in range(3):
        code += next_below(rng, i, 2) << b
    up = TRI_OF_CODE[code]
    taiji[i, low, T_LOW] = 1
    taiji[i, up, T_UP] = 1
    flow[i, F_GODLOW] = low
    flow[i, F_GODUP] = up
    flow[i, F_PHASE] = PH_DIVINE
    compute_order(pl, order, i, P)
    flow[i, F_TURN] = 0
    start_div_turn(rng, flow, order, pl, cur, i)


@njit(cache=True)
def begin_actions(flow, order, pl, cur, i, P):
    flow[i, F_PHASE] = PH_ACTION
    flow[i, F_SUB] = 0
    flow[i, F_PEND] = 0
    compute_order(pl, order, i, P)
    flow[i, F_TURN] = 0
    cur[i] = order[i, 0]


@njit(cache=True)
def score_row(i, city, pl, dev, over, lines, kingdom, kpoints, tovals, devsp, perim, linem,
              gmis, tmis, P, out):
    """Final score of every player of row i into out[:P] (all four categories)."""
    K = kpoints.shape[0]
    N = kingdom.shape[0]
    cnt = np.zeros((P, K), dtype=np.int64)
    ntemp = np.zeros(P, dtype=np.int64)
    for c in range(N):
        o = city[i, c, C_TEMPLE]
        if o >= 0 and kingdom[c] >= 0:
            cnt[o, kingdom[c]] += 1
            ntemp[o] += 1
        elif o >= 0:
            ntemp[o] += 1
    for p in range(P):
        out[p] = 0
    # I. kingdoms
    for k in range(K):
        m1 = 0
        for p in range(P):
            if cnt[p, k] > m1:
                m1 = cnt[p, k]
        if m1 == 0:
            continue
        n1 = 0
        for p in range(P):
            if cnt[p, k] == m1:
                n1 += 1
        if n1 > 1:
            share = (kpoints[k, 0] + kpoints[k, 1]) // n1
            for p in range(P):
                if cnt[p, k] == m1:
                    out[p] += share
            continue
        m2 = 0
        for p in range(P):
            if cnt[p, k] < m1 and cnt[p, k] > m2:
                m2 = cnt[p, k]
        for p in range(P):
            if cnt[p, k] == m1:
                out[p] += kpoints[k, 0]
                if m2 == 0:
                    out[p] += kpoints[k, 1]
        if m2 > 0:
            n2 = 0
            for p in range(P):
                if cnt[p, k] == m2:
                    n2 += 1
            for p in range(P):
                if cnt[p, k] == m2:
                    out[p] += kpoints[k, 1] // n2
    owned = np.zeros(4, dtype=np.int64)
    srt = np.zeros(K, dtype=np.int64)
    for p in range(P):
        for g in range(4):
            owned[g] = over[i, p, g]
        nper = 0
        for s in range(16):
            if dev[i, p, s]:
                owned[devsp[s]] += 1
                if perim[s]:
                    nper += 1
        # II. missions
        gm = pl[i, p, Q_GMIS]
        if gm >= 0:
            ok = True
            for g in range(4):
                if owned[g] < gmis[gm, g]:
                    ok = False
            if ok:
                out[p] += 6
        tm = pl[i, p, Q_TMIS]
        if tm >= 0:
            for k in range(K):
                srt[k] = cnt[p, k]
            srt[::-1].sort()
            ok = True
            for k in range(K):
                if srt[k] < tmis[tm, k]:
                    ok = False
            if ok:
                out[p] += 6
        # III. turn order track
        out[p] += tovals[pl[i, p, Q_POS]]
        # IV. development
        nking = 0
        for k in range(K):
            if cnt[p, k] > 0:
                nking += 1
        for ln in range(10):
            full = True
            for s in range(16):
                if linem[ln, s] and dev[i, p, s] == 0:
                    full = False
            if not full:
                continue
            t = lines[i, p, ln, 0]
            if t < 4:
                out[p] += TRI_SUM[min(owned[t], 6)]
            elif t == S_TEMPLE:
                out[p] += 3 * (ntemp[p] // 2)
            elif t == S_TURN:
                out[p] += 3 * (pl[i, p, Q_POS] // 4)
            elif t == S_PERIM:
                out[p] += 3 * (nper // 2)
            elif t == S_APPROVAL:
                out[p] += 3 * nking
            elif t == S_YANG:
                out[p] += 3 * (pl[i, p, Q_YANG] // 2)
            else:
                out[p] += 3 * (pl[i, p, Q_YIN] // 2)


@njit(cache=True)
def solo_lines(i, dev, lines, linem):
    """Completed lines of the second colour (solo)."""
    n = 0
    for ln in range(10):
        if lines[i, 0, ln, 1] == 0:
            continue
        full = True
        for s in range(16):
            if linem[ln, s] and dev[i, 0, s] == 0:
                full = False
        if full:
            n += 1
    return n


@njit(cache=True)
def solo_level(i, flow, dev, lines, linem):
    nl = solo_lines(i, dev, lines, linem)
    f = flow[i, F_FLIP]
    if nl < 2 or f < 4:
        return 0
    return (nl - 2) + (f - 4) + 1


@njit(cache=True)
def end_game(flow, order, city, pl, dev, over, lines, cur, rew, term, i, kingdom, kpoints,
             tovals, devsp, perim, linem, gmis, tmis, P, score_mode):
    flow[i, F_PHASE] = PH_OVER
    term[i] = True
    sc = np.zeros(P, dtype=np.int64)
    score_row(i, city, pl, dev, over, lines, kingdom, kpoints, tovals, devsp, perim, linem,
              gmis, tmis, P, sc)
    for p in range(P):
        pl[i, p, Q_SCORE] = sc[p]
    compute_order(pl, order, i, P)
    if P == 1:
        rew[i, 0] = solo_level(i, flow, dev, lines, linem)
        return
    best = -1
    for r in range(P):  # earlier in turn order wins ties
        p = order[i, r]
        if best < 0 or sc[p] > sc[best]:
            best = p
    for p in range(P):
        if score_mode:
            m = -1000000
            for q in range(P):
                if q != p and sc[q] > m:
                    m = sc[q]
            rew[i, p] = sc[p] - m
        else:
            rew[i, p] = 1.0 if p == best else -1.0


@njit(cache=True)
def begin_round(rng, flow, order, city, taiji, pl, dev, over, lines, cur, rew, term, i,
                kingdom, kpoints, tovals, devsp, perim, linem, gmis, tmis, P, score_mode):
    # Phase Four of the previous round: all Gods' Will tokens leave the boards.
    for t in range(8):
        taiji[i, t, T_UP] = 0
        taiji[i, t, T_LOW] = 0
    if flow[i, F_ROUND] >= ROUNDS:
        end_game(flow, order, city, pl, dev, over, lines, cur, rew, term, i, kingdom, kpoints,
                 tovals, devsp, perim, linem, gmis, tmis, P, score_mode)
        return
    flow[i, F_ROUND] += 1
    for p in range(P):
        pl[i, p, Q_LUO] = 0
        for t in range(4):
            pl[i, p, Q_USED + t] = 0
    compute_order(pl, order, i, P)
    anyd = False
    for c in range(city.shape[1]):
        if city[i, c, C_DIS]:
            anyd = True
    if anyd:
        flow[i, F_PHASE] = PH_DISASTER
        cur[i] = order[i, 0]
    else:
        god_coins_and_divination(rng, flow, order, taiji, pl, cur, i, P)


# --- the mask -------------------------------------------------------------------
@njit(cache=True)
def mask_row(i, m, flow, order, city, taiji, goods, pl, dev, cfg, off, road, boat, lower, devsp):
    m[:] = False
    ph = flow[i, F_PHASE]
    N = cfg[K_N]
    cap = cfg[K_CAP]
    p = order[i, flow[i, F_TURN]]
    if ph == PH_PLACE:
        for c in range(N):
            if c != cap and (city[i, c, C_DIS] == 0 or cfg[K_SOLO] == 1):
                m[off[O_PLACE] + c] = True
        return
    if ph == PH_DISASTER:
        for c in range(N):
            if city[i, c, C_DIS]:
                m[off[O_DISASTER] + c] = True
        return
    if ph == PH_OVER:
        return
    if flow[i, F_GAIN] > 0:
        m[off[O_SOLO]] = True
        m[off[O_SOLO] + 1] = True
        return
    here = pl[i, p, Q_PAWN]
    pend = flow[i, F_PEND]
    if pend != 0:
        if pend == L_GOODS:
            g = city[i, here, C_GOOD]
            for t in range(17):
                if goods_target_ok(dev, devsp, i, p, g, t):
                    m[off[O_GOODS] + t] = True
        else:
            adj = road if pend == L_CARRIAGE else boat
            o = off[O_ROAD] if pend == L_CARRIAGE else off[O_BOAT]
            for c in range(N):
                if can_enter(city, i, here, c, adj):
                    m[o + c] = True
        return
    if ph == PH_DIVINE:
        if flow[i, F_SUB] == 0:
            k = pl[i, p, Q_CYANG]
            anys = False
            for u in range(8):
                if not upper_ok(taiji, i, u):
                    continue
                for l in range(8):
                    if YANG_COUNT[u] + YANG_COUNT[l] == k and lower_ok(
                            city, pl, taiji, i, p, l, lower, road, boat, cap):
                        m[off[O_SPLIT] + u * 8 + l] = True
                        anys = True
            if not anys:
                m[off[O_REROLL]] = True
        else:
            m[off[O_END]] = True
    else:  # action phase
        m[off[O_END]] = True
        if can_act(pl, i, p, CARRIAGE):
            for c in range(N):
                if can_enter(city, i, here, c, road):
                    m[off[O_ROAD] + c] = True
        if can_act(pl, i, p, BOAT):
            for c in range(N):
                if can_enter(city, i, here, c, boat):
                    m[off[O_BOAT] + c] = True
        if can_act(pl, i, p, GOODS_T):
            g = city[i, here, C_GOOD]
            if g >= 0:
                for t in range(17):
                    if goods_target_ok(dev, devsp, i, p, g, t):
                        m[off[O_GOODS] + t] = True
        if can_act(pl, i, p, TEMPLE_T) and can_build(city, pl, i, p, here, cap):
            m[off[O_TEMPLE]] = True
        for t in range(4):
            if tile_left(pl, i, p, t) > 0:
                m[off[O_FORFEIT] + t] = True
        y = pl[i, p, Q_CYANG]
        n = pl[i, p, Q_CYIN]
        m[off[O_FORFEIT] + 4] = y >= 2
        m[off[O_FORFEIT] + 5] = n >= 2
        m[off[O_FORFEIT] + 6] = y >= 1 and n >= 1
    # Special Anytime Actions (own turn in Phases Two and Three)
    hand = pl[i, p, Q_HAND]
    for a in range(2):
        if pl[i, p, Q_YIN + a] == TRACK_MAX:
            for t in range(20):
                g = devsp[t] if t < 16 else t - 16
                if goods[i, G_YIN + a, g] > 0 and goods_target_ok(dev, devsp, i, p, g, min(t, 16)):
                    m[off[O_GIFT] + a * 20 + t] = True
    for c in range(N):
        if city[i, c, C_TEMPLE] == p:
            m[off[O_MORTAL] + c] = True
    if hand >= 1:
        m[off[O_CARD]] = pl[i, p, Q_YIN] < TRACK_MAX
        m[off[O_CARD] + 1] = pl[i, p, Q_YANG] < TRACK_MAX
    if hand >= 2:
        m[off[O_FLIP]] = pl[i, p, Q_CYANG] >= 1
        m[off[O_FLIP] + 1] = pl[i, p, Q_CYIN] >= 1
    if hand >= 3:
        for s in range(45):
            m[off[O_SWAP] + s] = True


@njit(cache=True)
def mask_kernel(flow, order, city, taiji, goods, pl, dev, term, cfg, off, road, boat, lower, devsp,
                out):
    for i in range(out.shape[0]):
        if term[i]:
            out[i, :] = False
        else:
            mask_row(i, out[i], flow, order, city, taiji, goods, pl, dev, cfg, off, road, boat,
                     lower, devsp)


# --- applying an action ---------------------------------------------------------
@njit(cache=True)
def apply_row(i, a, rng, flow, order, city, taiji, goods, pl, dev, over, lines, solo, cur, rew,
              term, cfg, off, kingdom, road, boat, kpoints, lower, tovals, devsp, perim, linem,
              gmis, tmis, distart, score_mode):
    P = cfg[K_P]
    cap = cfg[K_CAP]
    is_solo = cfg[K_SOLO] == 1
    turn = flow[i, F_TURN]
    p = order[i, turn]
    ph = flow[i, F_PHASE]
    if a < off[O_DISASTER]:  # set-up: place the pawn
        pl[i, p, Q_PAWN] = a - off[O_PLACE]
        if turn > 0:
            flow[i, F_TURN] = turn - 1
            cur[i] = order[i, turn - 1]
        else:
            begin_round(rng, flow, order, city, taiji, pl, dev, over, lines, cur, rew, term, i,
                        kingdom, kpoints, tovals, devsp, perim, linem, gmis, tmis, P, score_mode)
        return
    if a < off[O_SPLIT]:  # Phase One: remove a disaster
        city[i, a - off[O_DISASTER], C_DIS] = 0
        god_coins_and_divination(rng, flow, order, taiji, pl, cur, i, P)
        return
    here = pl[i, p, Q_PAWN]
    if a < off[O_REROLL]:  # Phase Two: the split
        s = a - off[O_SPLIT]
        u = s // 8
        l = s % 8
        tt = taiji[i, u, T_TYPE]
        taiji[i, u, T_N] -= 1
        pl[i, p, Q_TILE + tt] += 1
        if turn != P - 1:
            taiji[i, u, T_UP] = 2
        flow[i, F_SUB] = 1
        move_turn_order(pl, flow, i, p, lower[l, 1], tovals, is_solo)
        add_cards(pl, i, p, lower[l, 2])
        kind = lower[l, 0]
        if kind == L_TEMPLE:
            build_temple(city, pl, flow, solo, kingdom, i, p, here, is_solo)
        elif kind != L_NONE:
            flow[i, F_PEND] = kind
        return
    if a == off[O_REROLL]:  # free reroll (no Yin/Yang gain)
        k = throw(rng, i, 6)
        pl[i, p, Q_CYANG] = k
        pl[i, p, Q_CYIN] = 6 - k
        return
    if a < off[O_GOODS]:  # move
        road_move = a < off[O_BOAT]
        c = a - (off[O_ROAD] if road_move else off[O_BOAT])
        if flow[i, F_PEND] != 0:
            flow[i, F_PEND] = 0
        else:
            spend(pl, i, p, CARRIAGE if road_move else BOAT)
        move_pawn(pl, i, p, c, cap)
        return
    if a < off[O_TEMPLE]:  # take the good of the pawn's city
        t = a - off[O_GOODS]
        g = city[i, here, C_GOOD]
        if flow[i, F_PEND] != 0:
            flow[i, F_PEND] = 0
        else:
            spend(pl, i, p, GOODS_T)
        city[i, here, C_GOOD] = -1
        place_good(dev, over, i, p, g, t)
        return
    if a == off[O_TEMPLE]:
        spend(pl, i, p, TEMPLE_T)
        build_temple(city, pl, flow, solo, kingdom, i, p, here, is_solo)
        return
    if a < off[O_END]:  # forfeit one action for a card
        f = a - off[O_FORFEIT]
        if f < 4:
            pl[i, p, Q_USED + f] += 1
        elif f == 4:
            pl[i, p, Q_CYANG] -= 2
        elif f == 5:
            pl[i, p, Q_CYIN] -= 2
        else:
            pl[i, p, Q_CYANG] -= 1
            pl[i, p, Q_CYIN] -= 1
        add_cards(pl, i, p, 1)
        return
    if a == off[O_END]:
        if ph == PH_DIVINE:
            if turn + 1 < P:
                flow[i, F_TURN] = turn + 1
                start_div_turn(rng, flow, order, pl, cur, i)
            else:
                begin_actions(flow, order, pl, cur, i, P)
            return
        # action phase: unused actions are forfeited, one card each
        left = (pl[i, p, Q_CYANG] + pl[i, p, Q_CYIN]) // 2
        for t in range(4):
            left += tile_left(pl, i, p, t)
            pl[i, p, Q_USED + t] = pl[i, p, Q_TILE + t]
        pl[i, p, Q_CYANG] = 0
        pl[i, p, Q_CYIN] = 0
        add_cards(pl, i, p, left)
        if turn + 1 < P:
            flow[i, F_TURN] = turn + 1
            cur[i] = order[i, turn + 1]
        else:
            begin_round(rng, flow, order, city, taiji, pl, dev, over, lines, cur, rew, term, i,
                        kingdom, kpoints, tovals, devsp, perim, linem, gmis, tmis, P, score_mode)
        return
    if a < off[O_MORTAL]:  # Gift from the Gods
        s = a - off[O_GIFT]
        ar = s // 20
        t = s % 20
        g = devsp[t] if t < 16 else t - 16
        pl[i, p, Q_YIN + ar] = 0
        goods[i, G_YIN + ar, g] -= 1
        place_good(dev, over, i, p, g, min(t, 16))
        h = draw_bag(rng, i, goods)
        if h >= 0:
            goods[i, G_YIN + ar, h] += 1
        return
    if a < off[O_CARD]:  # Mortal Will
        c = a - off[O_MORTAL]
        city[i, c, C_TEMPLE] = -1
        pl[i, p, Q_TSUP] += 1
        n = pl[i, p, Q_CYANG] + pl[i, p, Q_CYIN]
        k = throw(rng, i, n)
        pl[i, p, Q_CYANG] = k
        pl[i, p, Q_CYIN] = n - k
        return
    if a < off[O_FLIP]:  # one card: +1 Yin / Yang
        pl[i, p, Q_YIN + a - off[O_CARD]] += 1
        pl[i, p, Q_HAND] -= 1
        return
    if a < off[O_SWAP]:  # two cards: flip a coin
        pl[i, p, Q_HAND] -= 2
        if a == off[O_FLIP]:
            pl[i, p, Q_CYANG] -= 1
            pl[i, p, Q_CYIN] += 1
        else:
            pl[i, p, Q_CYANG] += 1
            pl[i, p, Q_CYIN] -= 1
        return
    if a < off[O_SOLO]:  # three cards: swap two scoring tiles
        s = a - off[O_SWAP]
        x = SWAP_I[s]
        y = SWAP_J[s]
        pl[i, p, Q_HAND] -= 3
        for q in range(2):
            tmp = lines[i, p, x, q]
            lines[i, p, x, q] = lines[i, p, y, q]
            lines[i, p, y, q] = tmp
        return
    # solo: a printed turn-order point becomes 2 Yin or 2 Yang
    w = a - off[O_SOLO]
    pl[i, p, Q_YIN + w] = min(TRACK_MAX, pl[i, p, Q_YIN + w] + 2)
    flow[i, F_GAIN] -= 1


@njit(cache=True)
def step_kernel(actions, rng, flow, order, city, taiji, goods, pl, dev, over, lines, solo, cur, rew,
                term, ply, cfg, off, kingdom, road, boat, kpoints, lower, tovals, devsp, perim,
                linem, gmis, tmis, distart, score_mode):
    """Validate every row first (nothing changes on an error), then apply."""
    B = actions.shape[0]
    buf = np.zeros(off[O_TOTAL], dtype=np.bool_)
    for i in range(B):
        a = actions[i]
        if a < 0:
            continue
        mask_row(i, buf, flow, order, city, taiji, goods, pl, dev, cfg, off, road, boat, lower, devsp)
        if not buf[a]:
            return i
    for i in range(B):
        a = actions[i]
        if a < 0:
            continue
        rew[i, :] = 0.0
        apply_row(i, a, rng, flow, order, city, taiji, goods, pl, dev, over, lines, solo, cur, rew,
                  term, cfg, off, kingdom, road, boat, kpoints, lower, tovals, devsp, perim, linem,
                  gmis, tmis, distart, score_mode)
        ply[i] += 1
    return -1


# --- set-up ------------------------------------------------------------------------
@njit(cache=True)
def shuffle(rng, i, arr, n):
    for a in range(n - 1, 0, -1):
        b = next_below(rng, i, a + 1)
        t = arr[a]
        arr[a] = arr[b]
        arr[b] = t


@njit(cache=True)
def init_kernel(rng, flow, order, city, taiji, goods, pl, dev, over, lines, solo, cur, cfg,
                colour, startc, distart, ngm, ntm):
    B = rng.shape[0]
    P = cfg[K_P]
    N = cfg[K_N]
    cap = cfg[K_CAP]
    is_solo = cfg[K_SOLO] == 1
    tmp = np.zeros(max(N, 64), dtype=np.int64)
    for i in range(B):
        flow[i, :] = 0
        order[i, :] = -1
        # Action tile stacks: two stacks of each type, at random on the 8 trigrams
        for t in range(8):
            tmp[t] = t // 2
        shuffle(rng, i, tmp, 8)
        for t in range(8):
            taiji[i, t, T_TYPE] = tmp[t]
            taiji[i, t, T_N] = STACK_SIZE
            taiji[i, t, T_UP] = 0
            taiji[i, t, T_LOW] = 0
        # starting tokens, one per eligible city
        nt = 0
        for q in range(5):
            for _ in range(startc[q]):
                tmp[nt] = q
                nt += 1
        shuffle(rng, i, tmp, nt)
        j = 0
        for c in range(N):
            city[i, c, C_GOOD] = -1
            city[i, c, C_DIS] = 0
            city[i, c, C_TEMPLE] = -1
            if c == cap or (cfg[K_STARTALL] == 0 and colour[c] != 0):
                continue
            if tmp[j] == 4:
                city[i, c, C_DIS] = 1
            else:
                city[i, c, C_GOOD] = tmp[j]
            j += 1
        for g in range(4):
            goods[i, G_BAG, g] = cfg[K_BAGPER]
            goods[i, G_YIN, g] = 0
            goods[i, G_YANG, g] = 0
            goods[i, G_OUT, g] = cfg[K_PERKIND] - cfg[K_BAGPER] - startc[g]
        for a in range(2):
            for _ in range(2):
                h = draw_bag(rng, i, goods)
                if h >= 0:
                    goods[i, G_YIN + a, h] += 1
        # players
        for t in range(ngm):
            tmp[t] = t
        shuffle(rng, i, tmp, ngm)
        for p in range(P):
            pl[i, p, :] = 0
            pl[i, p, Q_TSUP] = TEMPLES
            pl[i, p, Q_PAWN] = -1
            pl[i, p, Q_GMIS] = -1 if is_solo else tmp[p]
        for t in range(ntm):
            tmp[t] = t
        shuffle(rng, i, tmp, ntm)
        for p in range(P):
            pl[i, p, Q_TMIS] = -1 if is_solo else tmp[p]
        for p in range(P):
            dev[i, p, :] = 0
            over[i, p, :] = 0
            for t in range(10):
                tmp[t] = t
            shuffle(rng, i, tmp, 10)
            for t in range(10):
                lines[i, p, t, 0] = tmp[t]
                lines[i, p, t, 1] = 0
        if is_solo:
            # 4 tiles of a second colour drawn from the bag replace the same kinds
            for t in range(10):
                tmp[t] = t
            shuffle(rng, i, tmp, 10)
            for q in range(4):
                for t in range(10):
                    if lines[i, 0, t, 0] == tmp[q]:
                        lines[i, 0, t, 1] = 1
            for k in range(solo.shape[1]):
                tmp[k] = k
            shuffle(rng, i, tmp, solo.shape[1])
            for k in range(solo.shape[1]):
                solo[i, k] = tmp[k]
        else:
            solo[i, :] = -1
        # turn order: a random starting player, then clockwise (seat order)
        first = next_below(rng, i, P)
        for r in range(P):
            q = (first + r) % P
            order[i, r] = q
            pl[i, q, Q_STAMP] = P - r
            pl[i, q, Q_HAND] = distart[r]
        flow[i, F_STAMP] = P
        flow[i, F_PHASE] = PH_PLACE
        flow[i, F_TURN] = P - 1
        cur[i] = order[i, P - 1]


# --- observation -------------------------------------------------------------
@njit(cache=True)
def observe_kernel(viewer, flow, order, city, taiji, goods, pl, dev, over, lines, solo, cur, cfg,
                   kingdom, tovals, ngm, ntm, out):
    B = out.shape[0]
    P = cfg[K_P]
    N = cfg[K_N]
    cap = cfg[K_CAP]
    K = 7
    tomax = tovals.shape[0] - 1
    for i in range(B):
        o = out[i]
        o[:] = 0.0
        v = viewer[i]
        j = 0
        r = flow[i, F_ROUND]
        if 1 <= r <= 5:
            o[j + r - 1] = 1.0
        j += 5
        o[j + flow[i, F_PHASE]] = 1.0
        j += 5
        if flow[i, F_PHASE] == PH_DIVINE and flow[i, F_SUB] == 0:
            o[j] = 1.0
        pend = flow[i, F_PEND]
        if pend == L_GOODS:
            o[j + 1] = 1.0
        elif pend == L_CARRIAGE:
            o[j + 2] = 1.0
        elif pend == L_BOAT:
            o[j + 3] = 1.0
        o[j + 4] = flow[i, F_GAIN] / 4.0
        o[j + 5] = 1.0 if cur[i] == v else 0.0
        j += 6
        # cities
        for c in range(N):
            g = city[i, c, C_GOOD]
            if g >= 0:
                o[j + g] = 1.0
            o[j + 4] = city[i, c, C_DIS]
            t = city[i, c, C_TEMPLE]
            if t >= 0:
                o[j + 5 + (t - v) % P] = 1.0
            for q in range(P):
                if pl[i, q, Q_PAWN] == c:
                    o[j + 9 + (q - v) % P] = 1.0
            o[j + 13] = 1.0 if c == cap else 0.0
            j += 14
        # Tai Ji board
        for t in range(8):
            o[j + taiji[i, t, T_TYPE]] = 1.0
            o[j + 4] = taiji[i, t, T_N] / 5.0
            o[j + 5] = 1.0 if taiji[i, t, T_UP] == 1 else 0.0
            o[j + 6] = 1.0 if taiji[i, t, T_UP] == 2 else 0.0
            o[j + 7] = taiji[i, t, T_LOW]
            j += 8
        for g in range(4):
            o[j + g] = goods[i, G_YIN, g] / 2.0
            o[j + 4 + g] = goods[i, G_YANG, g] / 2.0
            o[j + 8 + g] = goods[i, G_BAG, g] / 6.0
        j += 12
        # players, rotated so the viewer comes first; absent seats stay zero
        for jj in range(4):
            if jj < P:
                q = (v + jj) % P
                o[j] = 1.0
                o[j + 1] = pl[i, q, Q_YIN] / 8.0
                o[j + 2] = pl[i, q, Q_YANG] / 8.0
                o[j + 3] = pl[i, q, Q_POS] / tomax
                o[j + 4] = tovals[pl[i, q, Q_POS]] / max(tovals[tomax], 1)
                for rr in range(P):
                    if order[i, rr] == q:
                        o[j + 5 + rr] = 1.0
                o[j + 9] = pl[i, q, Q_HAND] / 8.0
                o[j + 10] = pl[i, q, Q_TSUP] / 13.0
                for t in range(4):
                    o[j + 11 + t] = pl[i, q, Q_TILE + t] / 5.0
                    o[j + 15 + t] = (pl[i, q, Q_TILE + t] - pl[i, q, Q_USED + t]) / 5.0
                o[j + 19] = pl[i, q, Q_CYANG] / 6.0
                o[j + 20] = pl[i, q, Q_CYIN] / 6.0
                o[j + 21] = pl[i, q, Q_LUO]
                for s in range(16):
                    o[j + 22 + s] = dev[i, q, s]
                for g in range(4):
                    o[j + 38 + g] = over[i, q, g] / 13.0
                for ln in range(10):
                    o[j + 42 + ln * 10 + lines[i, q, ln, 0]] = 1.0
                    o[j + 142 + ln] = lines[i, q, ln, 1]
                for c in range(N):
                    if city[i, c, C_TEMPLE] == q and kingdom[c] >= 0:
                        o[j + 152 + kingdom[c]] = min(1.0, o[j + 152 + kingdom[c]] + 0.25)
            j += 152 + K
        # own missions
        gm = pl[i, v, Q_GMIS]
        if gm >= 0:
            o[j + gm] = 1.0
        j += ngm
        tm = pl[i, v, Q_TMIS]
        if tm >= 0:
            o[j + tm] = 1.0
        j += ntm
        # solo tiles: kingdom of each, flipped flags
        if P == 1:
            for k in range(K):
                o[j + k * K + solo[i, k]] = 1.0
                o[j + K * K + k] = 1.0 if k < flow[i, F_FLIP] else 0.0
        j += K * K + K


# --- heuristic ------------------------------------------------------------------
@njit(cache=True)
def solo_distance(i, city, pl, solo, flow, kingdom, road, boat):
    """Moves from the pawn to a free city of the next solo tile's kingdom (99: none)."""
    f = flow[i, F_FLIP]
    if f >= solo.shape[1]:
        return 0
    k = solo[i, f]
    N = kingdom.shape[0]
    dist = np.full(N, 99, dtype=np.int64)
    queue = np.zeros(N, dtype=np.int64)
    a = pl[i, 0, Q_PAWN]
    if a < 0:
        return 99
    dist[a] = 0
    queue[0] = a
    head = 0
    tail = 1
    while head < tail:
        x = queue[head]
        head += 1
        if kingdom[x] == k and city[i, x, C_TEMPLE] < 0:
            return dist[x]
        for y in range(N):
            if (road[x, y] or boat[x, y]) and city[i, y, C_DIS] == 0 and dist[y] == 99:
                dist[y] = dist[x] + 1
                queue[tail] = y
                tail += 1
    return 99


@njit(cache=True)
def heuristic_kernel(viewer, flow, city, pl, dev, over, lines, solo, term, rew, cfg, kingdom,
                     kpoints, tovals, devsp, perim, linem, gmis, tmis, road, boat, out):
    B = out.shape[0]
    P = cfg[K_P]
    sc = np.zeros(P, dtype=np.int64)
    est = np.zeros(P, dtype=np.float64)
    for i in range(B):
        v = viewer[i]
        if term[i]:
            out[i] = 1000.0 * rew[i, v] if P > 1 else 1000.0 * rew[i, 0] + pl[i, 0, Q_SCORE]
            continue
        score_row(i, city, pl, dev, over, lines, kingdom, kpoints, tovals, devsp, perim, linem,
                  gmis, tmis, P, sc)
        for q in range(P):
            e = float(sc[q])
            ng = 0
            for s in range(16):
                ng += dev[i, q, s]
            for g in range(4):
                ng += over[i, q, g]
            e += 1.0 * ng + 0.3 * pl[i, q, Q_HAND] + 0.2 * (pl[i, q, Q_YIN] + pl[i, q, Q_YANG])
            # partial lines: progress towards the tiles
            for ln in range(10):
                f = 0
                tot = 0
                for s in range(16):
                    if linem[ln, s]:
                        tot += 1
                        f += dev[i, q, s]
                if f < tot:
                    e += 1.5 * f * f / (tot * tot) * 3.0
            est[q] = e
        if P == 1:
            nl = solo_lines(i, dev, lines, linem)
            part = 0.0
            for ln in range(10):
                if lines[i, 0, ln, 1]:
                    f = 0
                    tot = 0
                    for s in range(16):
                        if linem[ln, s]:
                            tot += 1
                            f += dev[i, 0, s]
                    part += f * f / (tot * tot)
            d = solo_distance(i, city, pl, solo, flow, kingdom, road, boat)
            out[i] = (60.0 * solo_level(i, flow, dev, lines, linem) + 15.0 * min(flow[i, F_FLIP], 7)
                      + 12.0 * min(nl, 4) + 6.0 * part - 2.0 * min(d, 10) + est[0] * 0.1)
        else:
            best = -1e18
            for q in range(P):
                if q != v and est[q] > best:
                    best = est[q]
            out[i] = est[v] - best
