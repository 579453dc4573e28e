"""Yoxii's optional lookahead features (game option ``action_features``),
checked against brute force: every legal action stepped on a copy, and every
reply of the opponent after it."""
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
        feats = CORE.action_features(s, s.current_player)
        mask = CORE.legal_action_mask(s)
        assert np.array_equal(feats[:, :, 3] > 0, mask)
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
    assert obs.shape == (6, 7 * 7 * 18 + 1184 * 4) == (6, *CORE.observation_shape)
    assert np.array_equal(obs[:, :882], plain.observe(s, seats).reshape(6, -1))
    assert np.array_equal(obs[:, 882:].reshape(6, 4, 1184), CORE.action_features(s, seats).transpose(0, 2, 1))
    assert CORE.num_action_features == 4 and plain.num_action_features == 0


def test_option_must_be_boolean():
    with pytest.raises(OptionError, match="action_features"):
        make_core("yoxii", action_features="yes")
