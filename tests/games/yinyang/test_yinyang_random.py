"""Yin Yang: thousands of random games with invariants at every step."""
import numpy as np
import pytest

from yyenvs.core.rng import uniform01
from yyenvs.games.yinyang import layout as L
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
    temples = s.cities[i, :, L.C_TEMPLE]
    cnt = np.zeros((P, 7), int)
    for x in range(c.num_cities):
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
        owned = [int(s.beside_board[i, p, g]) + int(sum(s.development[i, p, x] for x in range(16) if d.dev_spaces[x] == g))
                 for g in range(4)]
        gm = s.players[i, p, L.Q_GOODS_MISSION]
        if gm >= 0 and all(owned[g] >= d.goods_missions[gm, g] for g in range(4)):
            score[p] += 6
        tm = s.players[i, p, L.Q_TEMPLE_MISSION]
        if tm >= 0:
            need = [int(x) for x in d.temple_missions[tm] if x > 0]
            have = sorted(cnt[p], reverse=True)
            if all(have[j] >= need[j] for j in range(len(need))):
                score[p] += 6
        pos = int(s.players[i, p, L.Q_TRACK])
        score[p] += int(d.to_values[pos])
        for ln in range(10):
            if not all(s.development[i, p, x] for x in np.flatnonzero(d.lines[ln])):
                continue
            t = s.scoring_tiles[i, p, ln, 0]
            if t < 4:
                score[p] += [0, 1, 3, 6, 10, 15, 21][min(owned[t], 6)]
            elif t == 4:
                score[p] += 3 * (int((temples == p).sum()) // 2)
            elif t == 5:
                score[p] += 3 * (pos // 4)
            elif t == 6:
                score[p] += 3 * (int(sum(s.development[i, p, x] for x in np.flatnonzero(d.perimeter))) // 2)
            elif t == 7:
                score[p] += 3 * int((cnt[p] > 0).sum())
            elif t == 8:
                score[p] += 3 * (int(s.players[i, p, L.Q_YANG]) // 2)
            else:
                score[p] += 3 * (int(s.players[i, p, L.Q_YIN]) // 2)
    return score


def check_invariants(c, s, prev_round):
    P = c.num_players
    B = s.batch_size
    onmap = np.stack([(s.cities[:, :, L.C_GOOD] == g).sum(1) for g in range(4)], 1)
    dev = np.zeros((B, 4), int)
    for g in range(4):
        dev[:, g] = s.development[:, :, c.tables.development_spaces == g].sum((1, 2))
    total = s.goods.astype(int).sum(1) + onmap + dev + s.beside_board.astype(int).sum(1)
    assert (total == 17).all(), "goods not conserved"
    assert (s.goods >= 0).all() and (s.beside_board >= 0).all()
    for p in range(P):
        built = (s.cities[:, :, L.C_TEMPLE] == p).sum(1)
        assert (built + s.players[:, p, L.Q_TEMPLES] == 13).all(), "temples not conserved"
    assert not (s.cities[:, c.data.capital, L.C_TEMPLE] >= 0).any()
    for q in (L.Q_YIN, L.Q_YANG, L.Q_CARDS):
        assert ((s.players[:, :, q] >= 0) & (s.players[:, :, q] <= 8)).all()
    assert ((s.players[:, :, L.Q_TRACK] >= 0) & (s.players[:, :, L.Q_TRACK] <= len(c.tables.turn_order_values) - 1)).all()
    assert ((s.players[:, :, L.Q_COINS_YANG] >= 0) & (s.players[:, :, L.Q_COINS_YIN] >= 0)).all()
    assert (s.players[:, :, L.Q_COINS_YANG] + s.players[:, :, L.Q_COINS_YIN] <= 6).all()
    assert (s.players[:, :, L.Q_TILES_USED:L.Q_TILES_USED + 4] <= s.players[:, :, L.Q_TILES:L.Q_TILES + 4]).all()
    assert (s.players[:, :, L.Q_TILES:L.Q_TILES + 4].sum(2) <= s.flow[:, L.F_ROUND, None]).all()
    assert ((s.taiji[:, :, L.T_STACK] >= 0) & (s.taiji[:, :, L.T_STACK] <= 5)).all()
    assert (s.cities[:, :, L.C_DISASTER].sum(1) <= 5).all()
    rnd = s.flow[:, L.F_ROUND]
    assert (rnd <= 5).all() and (rnd >= prev_round).all()
    assert (s.terminated == (s.flow[:, L.F_PHASE] == L.PH_OVER)).all()


@pytest.mark.parametrize("P", [1, 2, 3, 4])
def test_random_games(P):
    c = YinYangCore(num_players=P)
    n = GAMES[P]
    s = c.init(np.arange(n) + 1000 * P)
    prev_round = s.flow[:, L.F_ROUND].copy()
    final = np.zeros_like(s.rewards)  # a finished row's rewards: later steps skip it and clear them
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
        was_round5 = s.flow[:, L.F_ROUND] == 5
        c.step(s, a)
        steps += 1
        assert steps < c.max_game_length
        # rewards only at the end of a game
        newly = s.terminated & live
        assert (s.rewards[~newly] == 0).all()
        final[newly] = s.rewards[newly]
        assert was_round5[newly].all(), "a game ended before round five"
        check_invariants(c, s, prev_round)
        prev_round = s.flow[:, L.F_ROUND].copy()
    assert (s.flow[:, L.F_ROUND] == 5).all()
    assert not s.truncated.any()
    for i in range(n):
        rc = recount(c, s, i)
        assert s.players[i, :, L.Q_SCORE].tolist() == rc
        if P > 1:
            order = sorted(range(P), key=lambda q: (-int(s.players[i, q, L.Q_TRACK]),
                                                    -int(s.players[i, q, L.Q_ARRIVAL])))
            best = max(rc)
            winner = next(q for q in order if rc[q] == best)
            assert final[i].tolist() == [1.0 if q == winner else -1.0 for q in range(P)]
        else:
            assert final[i, 0] == c.solo_level(s.take([i]))[0]
    if P == 1:
        assert final[:, 0].min() >= 0 and final[:, 0].max() <= 6
