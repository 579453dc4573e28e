"""Yin Yang: thousands of random games with invariants at every step."""
import numpy as np
import pytest

from yyenvs.core.rng import uniform01
from yyenvs.games.yinyang import kernels as K
from yyenvs.games.yinyang.core import YinYangCore

GAMES = {1: 1000, 2: 1000, 3: 1000, 4: 1000}  # thousands in all, a thousand per player count


def pick(mask, seed, ply):
    """A legal action per row chosen by a per-game hash of (seed, ply); -1 for dead rows."""
    cnt = mask.sum(1)
    k = (uniform01(seed, ply.astype(np.uint64)) * np.maximum(cnt, 1)).astype(np.int64)
    first = (np.cumsum(mask, 1) > k[:, None]).argmax(1)
    return np.where(cnt > 0, first, -1)


def recount(c, s, i):
    """Final scores of row i, recomputed from the rule text independently of the kernels."""
    d = c.data
    P = c.num_players
    kp = d.kpoints
    temples = s.city[i, :, K.C_TEMPLE]
    cnt = np.zeros((P, 7), int)
    for x in range(c.N):
        if temples[x] >= 0 and d.kingdom[x] >= 0:
            cnt[temples[x], d.kingdom[x]] += 1
    score = [0] * P
    for k in range(7):
        col = cnt[:, k]
        if col.max() == 0:
            continue
        top = [p for p in range(P) if col[p] == col.max()]
        if len(top) > 1:
            for p in top:
                score[p] += (kp[k, 0] + kp[k, 1]) // len(top)
            continue
        rest = [col[p] for p in range(P) if p != top[0] and col[p] > 0]
        if not rest:
            score[top[0]] += kp[k, 0] + kp[k, 1]
            continue
        score[top[0]] += kp[k, 0]
        sec = [p for p in range(P) if p != top[0] and col[p] == max(rest)]
        for p in sec:
            score[p] += kp[k, 1] // len(sec)
    for p in range(P):
        owned = [int(s.over[i, p, g]) + int(sum(s.dev[i, p, x] for x in range(16) if d.dev_spaces[x] == g))
                 for g in range(4)]
        gm = s.pl[i, p, K.Q_GMIS]
        if gm >= 0 and all(owned[g] >= d.goods_missions[gm, g] for g in range(4)):
            score[p] += 6
        tm = s.pl[i, p, K.Q_TMIS]
        if tm >= 0:
            need = [int(x) for x in d.temple_missions[tm] if x > 0]
            have = sorted(cnt[p], reverse=True)
            if all(have[j] >= need[j] for j in range(len(need))):
                score[p] += 6
        pos = int(s.pl[i, p, K.Q_POS])
        score[p] += int(d.to_values[pos])
        for ln in range(10):
            if not all(s.dev[i, p, x] for x in np.flatnonzero(d.lines[ln])):
                continue
            t = s.lines[i, p, ln, 0]
            if t < 4:
                score[p] += [0, 1, 3, 6, 10, 15, 21][min(owned[t], 6)]
            elif t == 4:
                score[p] += 3 * (int((temples == p).sum()) // 2)
            elif t == 5:
                score[p] += 3 * (pos // 4)
            elif t == 6:
                score[p] += 3 * (int(sum(s.dev[i, p, x] for x in np.flatnonzero(d.perimeter))) // 2)
            elif t == 7:
                score[p] += 3 * int((cnt[p] > 0).sum())
            elif t == 8:
                score[p] += 3 * (int(s.pl[i, p, K.Q_YANG]) // 2)
            else:
                score[p] += 3 * (int(s.pl[i, p, K.Q_YIN]) // 2)
    return score


def check_invariants(c, s, prev_round):
    P = c.num_players
    B = s.batch_size
    onmap = np.stack([(s.city[:, :, K.C_GOOD] == g).sum(1) for g in range(4)], 1)
    dev = np.zeros((B, 4), int)
    for g in range(4):
        dev[:, g] = s.dev[:, :, c.devsp == g].sum((1, 2))
    total = s.goods.astype(int).sum(1) + onmap + dev + s.over.astype(int).sum(1)
    assert (total == 17).all(), "goods not conserved"
    assert (s.goods >= 0).all() and (s.over >= 0).all()
    for p in range(P):
        built = (s.city[:, :, K.C_TEMPLE] == p).sum(1)
        assert (built + s.pl[:, p, K.Q_TSUP] == 13).all(), "temples not conserved"
    assert not (s.city[:, c.data.capital, K.C_TEMPLE] >= 0).any()
    for q in (K.Q_YIN, K.Q_YANG, K.Q_HAND):
        assert ((s.pl[:, :, q] >= 0) & (s.pl[:, :, q] <= 8)).all()
    assert ((s.pl[:, :, K.Q_POS] >= 0) & (s.pl[:, :, K.Q_POS] <= len(c.tovals) - 1)).all()
    assert ((s.pl[:, :, K.Q_CYANG] >= 0) & (s.pl[:, :, K.Q_CYIN] >= 0)).all()
    assert (s.pl[:, :, K.Q_CYANG] + s.pl[:, :, K.Q_CYIN] <= 6).all()
    assert (s.pl[:, :, K.Q_USED:K.Q_USED + 4] <= s.pl[:, :, K.Q_TILE:K.Q_TILE + 4]).all()
    assert (s.pl[:, :, K.Q_TILE:K.Q_TILE + 4].sum(2) <= s.flow[:, K.F_ROUND, None]).all()
    assert ((s.taiji[:, :, K.T_N] >= 0) & (s.taiji[:, :, K.T_N] <= 5)).all()
    assert (s.city[:, :, K.C_DIS].sum(1) <= 5).all()
    rnd = s.flow[:, K.F_ROUND]
    assert (rnd <= 5).all() and (rnd >= prev_round).all()
    assert (s.terminated == (s.flow[:, K.F_PHASE] == K.PH_OVER)).all()


@pytest.mark.parametrize("P", [1, 2, 3, 4])
def test_random_games(P):
    c = YinYangCore(num_players=P)
    n = GAMES[P]
    s = c.init(np.arange(n) + 1000 * P)
    prev_round = s.flow[:, K.F_ROUND].copy()
    steps = 0
    while not s.terminated.all():
        m = c.legal_action_mask(s)
        live = ~s.terminated
        assert m[live].any(1).all(), "all-false mask for a live game"
        assert not m[~live].any()
        a = pick(m, s.seed, s.ply)
        acting = s.current_player.copy()
        obs = c.observe(s, acting)
        assert np.isfinite(obs).all() and obs.min() >= 0 and obs.max() <= 1
        was_round5 = s.flow[:, K.F_ROUND] == 5
        c.step(s, a)
        steps += 1
        assert steps < c.max_game_length
        # rewards only at the end of a game
        newly = s.terminated & live
        assert (s.rewards[live & ~newly] == 0).all()
        assert was_round5[newly].all(), "a game ended before round five"
        check_invariants(c, s, prev_round)
        prev_round = s.flow[:, K.F_ROUND].copy()
    assert (s.flow[:, K.F_ROUND] == 5).all()
    assert not s.truncated.any()
    for i in range(n):
        rc = recount(c, s, i)
        assert s.pl[i, :, K.Q_SCORE].tolist() == rc
        if P > 1:
            K.compute_order(s.pl, s.order, i, P)
            best = max(rc)
            winner = next(int(q) for q in s.order[i, :P] if rc[q] == best)
            assert s.rewards[i].tolist() == [1.0 if q == winner else -1.0 for q in range(P)]
        else:
            assert s.rewards[i, 0] == c.solo_level(s.take([i]))[0]
    if P == 1:
        assert s.rewards[:, 0].min() >= 0 and s.rewards[:, 0].max() <= 6


@pytest.mark.parametrize("P", [2, 4])
def test_batch_independence(P):
    c = YinYangCore(num_players=P)
    seeds = np.arange(24) * 7919 + 5
    big = c.init(seeds)
    while not big.terminated.all():
        c.step(big, pick(c.legal_action_mask(big), big.seed, big.ply))
    for j, sd in enumerate(seeds):
        one = c.init([sd])
        while not one.terminated[0]:
            c.step(one, pick(c.legal_action_mask(one), one.seed, one.ply))
        row = big.take([j])
        for f in ("city", "pl", "dev", "over", "lines", "goods", "taiji", "rewards", "ply", "rng"):
            assert (getattr(one, f) == getattr(row, f)).all(), f
