"""Yoxii's optional lookahead features (game option ``action_features``),
checked against brute force: every legal action stepped on a copy, and every
reply of the opponent after it; the trap feature (3) one level deeper, with
features 0-2 (checked here first) judging the mover's turns after each reply."""
import numpy as np
import pytest

from yyenvs.agents import make_agent
from yyenvs.core.contract import OptionError
from yyenvs.games import make_core

CORE = make_core("yoxii", action_features=True)


def brute_force(state, g):
    """(actions, win_now, ends_without_win, opponent_can_win_next) for row g."""
    p = int(state.current_player[g])
    acts = np.flatnonzero(CORE.legal_action_mask(state.take(np.array([g])))[0])
    after = state.take(np.full(acts.size, g))
    CORE.step(after, acts)
    ended = after.terminated.copy()
    win = ended & (after.rewards[:, p] > 0)
    opp = np.zeros(acts.size, dtype=bool)
    for k in np.flatnonzero(~ended):
        one = after.take(np.array([k]))
        replies = np.flatnonzero(CORE.legal_action_mask(one)[0])
        nxt = one.take(np.zeros(replies.size, dtype=np.int64))
        CORE.step(nxt, replies)
        opp[k] = np.any(nxt.terminated & (nxt.rewards[:, 1 - p] > 0))
    return acts, win, ended & ~win, opp


def test_features_match_brute_force():
    seen = np.zeros(3, dtype=int)
    for player in ("random", "greedy"):
        seen += _check_games(make_agent(player, CORE, 11), np.arange(16) + (0 if player == "random" else 50))
    assert (seen > 0).all()  # each feature was seen set somewhere


def _check_games(agent, seeds):
    s = CORE.init(seeds)
    seen = np.zeros(3, dtype=int)
    while not s.done.all():
        feats = CORE.action_features(s, s.current_player).transpose(0, 2, 1)  # (B, actions, features)
        mask = CORE.legal_action_mask(s)
        assert np.array_equal(feats[:, :, 4] > 0, mask)
        assert not feats[s.done].any()
        for g in np.flatnonzero(~s.done)[:4]:
            acts, win, ends, opp = brute_force(s, g)
            assert np.array_equal(feats[g, acts, 0] > 0, win)
            assert np.array_equal(feats[g, acts, 1] > 0, ends)
            assert np.array_equal(feats[g, acts, 2] > 0, opp)
            assert not feats[g, ~mask[g]].any()
            seen += [win.sum(), ends.sum(), opp.sum()]
        a = agent(s, mask)
        a[s.done] = -1
        CORE.step(s, a)
    return seen


def brute_force_traps(state, g):
    """(actions, trap) for row g: the action is safe (features 0-2 all 0) and the
    opponent, placing its largest piece, has a reply that does not end the game
    after which the mover has no winning turn and no safe turn."""
    p, q = int(state.current_player[g]), 1 - int(state.current_player[g])
    root = state.take(np.array([g]))
    feats = CORE.action_features(root, [p])[0].T  # (actions, features)
    acts = np.flatnonzero(feats[:, 4])
    safe_now = ~feats[acts, :3].any(axis=1)
    after = root.take(np.zeros(acts.size, dtype=np.int64))
    CORE.step(after, acts)
    trap = np.zeros(acts.size, dtype=bool)
    for k in np.flatnonzero(safe_now & ~after.terminated):
        one = after.take(np.array([k]))
        largest = np.flatnonzero(one.stock[0, q])[-1]
        replies = np.flatnonzero(CORE.legal_action_mask(one)[0])
        replies = replies[replies % 4 == largest]
        nxt = one.take(np.zeros(replies.size, dtype=np.int64))
        CORE.step(nxt, replies)
        nxt = nxt.take(np.flatnonzero(~nxt.terminated))
        f = CORE.action_features(nxt, np.full(nxt.batch_size, p)).transpose(0, 2, 1)
        has_good = f[:, :, 0].any(axis=1) | ((f[:, :, 4] > 0) & ~f[:, :, 1:3].any(axis=2)).any(axis=1)
        trap[k] = not has_good.all()
    return acts, trap


def test_trap_feature_matches_brute_force():
    """Traps need a crowded board, so positions from the middle game on are
    checked, first those where the opponent's largest value is its last piece
    of that value (its second piece in the lookahead is then smaller)."""
    seen = 0
    for player, seeds in (("random", np.arange(32) + 300), ("greedy", np.arange(32) + 400)):
        agent = make_agent(player, CORE, 5)
        s = CORE.init(seeds)
        while not s.done.all():
            feats = CORE.action_features(s, s.current_player).transpose(0, 2, 1)  # (B, actions, features)
            rows = np.flatnonzero(~s.done & (s.ply >= 12))
            q = 1 - s.current_player[rows].astype(np.int64)
            top = np.array([s.stock[r, o][np.flatnonzero(s.stock[r, o])[-1]] if s.stock[r, o].any() else 0
                            for r, o in zip(rows, q)], dtype=np.int64)
            for g in rows[np.argsort(top != 1, kind="stable")][:5]:
                acts, trap = brute_force_traps(s, g)
                assert np.array_equal(feats[g, acts, 3] > 0, trap), (player, int(s.ply[g]))
                seen += trap.sum()
            mask = CORE.legal_action_mask(s)
            a = agent(s, mask)
            a[s.done] = -1
            CORE.step(s, a)
    assert seen > 0


def test_observation_layout():
    plain = make_core("yoxii")
    s = CORE.init(np.arange(6))
    rng = np.random.default_rng(0)
    for _ in range(9):
        mask = CORE.legal_action_mask(s)
        a = np.array([rng.choice(np.flatnonzero(m)) if m.any() else -1 for m in mask])
        CORE.step(s, a)
    seats = np.array([0, 1, 0, 1, 1, 0])
    obs = CORE.observe(s, seats)
    assert obs.shape == (6, 7 * 7 * 18 + 1184 * 5) == (6, *CORE.observation_shape)
    assert np.array_equal(obs[:, :882], plain.observe(s, seats).reshape(6, -1))
    assert np.array_equal(obs[:, 882:].reshape(6, 5, 1184), CORE.action_features(s, seats))
    assert CORE.observation_ends_with_action_features and not plain.observation_ends_with_action_features
    assert len(CORE.action_feature_names) == 5 and CORE.action_feature_names[-1] == "legal"


def test_option_must_be_boolean():
    with pytest.raises(OptionError, match="action_features"):
        make_core("yoxii", action_features="yes")
