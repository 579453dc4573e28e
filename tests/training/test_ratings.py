"""Ratings, Wilson intervals, config validation, seat rewards."""
from __future__ import annotations

import math

import numpy as np
import pytest

from yyenvs.agents import RandomAgent
from yyenvs.evaluation.matches import pairwise_from_scores
from yyenvs.envs.opponent import Opponent
from yyenvs.games import GAMES, make_core
from yyenvs.training.config import ConfigError, load_config
from yyenvs.evaluation.ratings import bradley_terry, expected_score, wilson_interval

GAME_IDS = list(GAMES)


# --- Wilson intervals ------------------------------------------------------------------
@pytest.mark.parametrize("k, n, lo, hi", [
    (0, 10, 0.0, 0.2775),      # textbook values (Wilson 1927; Newcombe 1998 table)
    (5, 10, 0.2366, 0.7634),
    (95, 100, 0.8882, 0.9785),
    (10, 10, 0.7225, 1.0),
])
def test_wilson_known_values(k, n, lo, hi):
    a, b = wilson_interval(k, n)
    assert a == pytest.approx(lo, abs=1e-4)
    assert b == pytest.approx(hi, abs=1e-4)


def test_wilson_rejects_nonsense():
    with pytest.raises(ValueError):
        wilson_interval(11, 10)


# --- Bradley-Terry by MM ----------------------------------------------------------------
def test_bt_two_players_hand_computed():
    # A beats B 3 times, loses once: strengths 3:1, Elo gap 400*log10(3)
    r = bradley_terry(np.array([[0, 3], [1, 0]]))
    assert r[0] - r[1] == pytest.approx(400 * math.log10(3), abs=1e-6)
    assert r.mean() == pytest.approx(0, abs=1e-9)


def test_bt_three_players_hand_computed():
    # results exactly proportional to strengths 4:2:1 -> that is the MLE
    wins = np.array([[0, 2, 4],
                     [1, 0, 2],
                     [1, 1, 0]])
    r = bradley_terry(wins, anchor=2)
    assert r[0] == pytest.approx(400 * math.log10(4), abs=1e-6)
    assert r[1] == pytest.approx(400 * math.log10(2), abs=1e-6)
    assert r[2] == 0
    # the fit's score equations: expected wins = actual wins for every player
    games = wins + wins.T
    for i in range(3):
        exp = sum(games[i, j] * expected_score(r[i], r[j]) for j in range(3) if j != i)
        assert exp == pytest.approx(wins[i].sum(), abs=1e-6)


def test_bt_draws_count_half():
    # 1 win + 2 draws vs 0 wins + 2 draws = 2 points to 1: same as a 2-1 record
    a = bradley_terry(np.array([[0, 1], [0, 0]]), draws=np.array([[0, 2], [2, 0]]))
    b = bradley_terry(np.array([[0, 2], [1, 0]]))
    assert a == pytest.approx(b)
    assert a[0] - a[1] == pytest.approx(400 * math.log10(2), abs=1e-6)


def test_bt_prior_keeps_undefeated_finite():
    wins = np.array([[0, 10], [0, 0]])
    with pytest.raises(ValueError, match="prior"):
        bradley_terry(wins)
    r = bradley_terry(wins, prior=1.0, anchor=1)
    assert np.isfinite(r).all() and r[0] > 300


def test_pairwise_from_placements():
    # one 3-player game: seats held by entrants 0, 1, 0 with scores 1, 0, -1
    scores = np.array([[1.0, 0.0, -1.0]])
    seats = np.array([[0, 1, 0]])
    w, d = pairwise_from_scores(scores, seats, 2)
    # seat0 (entrant 0) beat seat1 (entrant 1); seat1 beat seat2 (entrant 0); seat0 vs seat2 same entrant
    assert w.tolist() == [[0, 1], [1, 0]]
    assert d.sum() == 0
    w, d = pairwise_from_scores(np.array([[0.5, 0.5]]), np.array([[1, 0]]), 2)
    assert w.sum() == 0 and d.tolist() == [[0, 1], [1, 0]]


# --- config validation -------------------------------------------------------------------
@pytest.mark.parametrize("override, words", [
    ("ppo.learnig_rate=1e-3", ["ppo.learnig_rate", "ppo.learning_rate"]),
    ("num_envs=0", ["num_envs"]),
    ("num_envs=many", ["num_envs", "integer"]),
    ("ppo.gamma=1.5", ["ppo.gamma"]),
    ("ppo.activation=gelu", ["ppo.activation", "relu"]),
    ("selfplay.baselines=random", ["selfplay.baselines", "list"]),
    ("resume=maybe", ["resume", "true or false"]),
])
def test_bad_config_refused(override, words):
    with pytest.raises(ConfigError) as e:
        load_config(None, [override])
    for w in words:
        assert w in str(e.value)


def test_bad_config_file_key_refused(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text("game: yoxii\nppo:\n  n_stpes: 8\n")
    with pytest.raises(ConfigError, match="ppo.n_stpes"):
        load_config(str(path))


def test_config_files_load():
    import glob
    files = sorted(glob.glob("configs/*.yaml"))
    assert files, "no configs"
    for f in files:
        cfg = load_config(f)
        assert cfg["game"] in ("yoxii", "koi", "yinyang")


def test_overrides_apply():
    cfg = load_config("configs/yoxii.yaml", ["ppo.learning_rate=1e-4", "selfplay.baselines=[random]"])
    assert cfg["ppo"]["learning_rate"] == pytest.approx(1e-4)
    assert cfg["selfplay"]["baselines"] == ["random"]


# --- the vector env's seats and rewards ---------------------------------------------------
class LoggingOpponent(Opponent):
    """Random moves, logging every (env, action) so games can be replayed."""

    def __init__(self, core, log):
        self.agent = RandomAgent(core, 3)
        self.log = log

    def __call__(self, state, mask, env_ids):
        a = self.agent(state, mask)
        for i, x in zip(env_ids, a):
            self.log[int(i)].append(int(x))
        return a


@pytest.mark.parametrize("game", GAME_IDS)
def test_vec_env_rewards_each_seat(game):
    """Replaying every finished game from its seed and moves, the learner's
    episode return equals the core's final reward for the learner's seat."""
    from yyenvs.integrations.sb3 import LearnerVecEnv
    core = make_core(game)
    n = 16
    log = {i: [] for i in range(n)}
    opponent = LoggingOpponent(core, log)
    env = LearnerVecEnv(core, n, opponent, seed=5)
    finished = []

    def listener(idx, outcome, seats):
        for k, i in enumerate(idx):
            finished.append((int(env.batch.state.seed[i]), list(log[int(i)]), int(seats[k]),
                             float(outcome[k])))
            log[int(i)].clear()

    opponent.on_episode_end = listener  # the vector env calls it before the rows restart
    env.reset()
    learner = RandomAgent(core, 11)
    returns = np.zeros(n)
    ep_returns = []
    for _ in range(core.max_game_length * 3):
        mask = np.stack(env.env_method("action_masks"))
        a = learner(env.batch.state, mask)
        for i in range(n):
            log[i].append(int(a[i]))
        _, r, done, infos = env.step(a)
        returns += r
        for i in np.flatnonzero(done):
            assert infos[i]["episode"]["r"] == pytest.approx(returns[i])
            assert "terminal_observation" in infos[i]
            ep_returns.append(returns[i])
            returns[i] = 0
        if len(finished) >= 40:
            break
    assert len(finished) >= 20
    seats_seen = set()
    for (seed, moves, seat, outcome), ret in zip(finished, ep_returns):
        s = core.init(np.array([seed], dtype=np.uint64))
        total = np.zeros(core.num_players)
        for m in moves:
            core.step(s, np.array([m]))
            total += s.rewards[0]
        assert s.done[0]
        assert ret == pytest.approx(total[seat])
        assert outcome == np.sign(total[seat])
        seats_seen.add(seat)
    assert seats_seen == set(range(core.num_players))
    assert min(ep_returns) < 0 < max(ep_returns)  # losses and wins both reach the learner
