"""A game the opponents finish before the learner's first decision: a Koi quick start on a pond where
the first swim can reach ``win_fry``.  The learner still takes one step and is paid its result, the
result the AEC env pays that seat in the same game (docs/api.md, "The game over before the learner moves").
"""
from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from yyenvs import koi_v1
from yyenvs.agents import make_agent
from yyenvs.envs.gym_env import GameEnv
from yyenvs.envs.vector import GameVectorEnv
from yyenvs.games import make_core

# every pond where the opening swim can win (found by trying every first swim of 2,000 quick starts on each
# size, direction set and win_fry 14/16/20): the game can end before the second seat moves
EARLY_END = [dict(board_size=n, directions=d, win_fry=w, quick_start=True)
             for n, d, w in [(17, 4, 14), (17, 8, 14), (19, 4, 14), (19, 4, 16), (19, 8, 14), (19, 8, 16)]]
IDS = [f"{o['board_size']}x{o['board_size']}-d{o['directions']}-fry{o['win_fry']}" for o in EARLY_END]


class Recorder:
    """An opponent that plays ``random`` and writes down every action, so the AEC env can replay them."""

    def __init__(self, core):
        self.agent = make_agent("random", core)
        self.actions: list[int] = []

    def __call__(self, state, mask):
        action = self.agent(state, mask)
        self.actions.append(int(np.asarray(action)[0]))
        return action


def aec_return(options, seed, games, opponent_moves, learner_moves, seat):
    """The AEC env's cumulative reward for ``seat`` in each game, replaying the given moves."""
    env = koi_v1.raw_env(**options)
    env.reset(seed=seed)
    returns, opp, me = [], iter(opponent_moves), iter(learner_moves)
    for k in range(games):
        if k:
            env.reset()
        got = 0.0
        for agent in env.agent_iter():
            _, reward, term, trunc, _ = env.last()
            if agent == env.possible_agents[seat]:
                got += reward
            env.step(None if term or trunc else next(me if agent == env.possible_agents[seat] else opp))
        returns.append(got)
    return returns


@pytest.mark.parametrize("options", EARLY_END, ids=IDS)
def test_the_learner_is_paid_what_the_aec_env_pays_its_seat(options):
    core = make_core("koi", **options)
    recorder = Recorder(core)
    env = GameEnv("koi", opponent=recorder, learner_seat=1, **options)
    returns, learner_moves, early = [], [], 0
    for k in range(12):
        obs, info = env.reset(seed=3) if k == 0 else env.reset()
        unplayed = bool(env.state.done[0])
        if unplayed:  # one step left: action 0 alone is offered, and any action is ignored
            early += 1
            assert info["action_mask"].tolist() == [True] + [False] * (core.num_actions - 1)
            assert np.array_equal(env.action_masks(), info["action_mask"])
            assert env.observation_space.contains(obs)
        total, over, steps = 0.0, False, 0
        while not over:
            mask = info["action_mask"]
            action = 5 if unplayed else int(np.flatnonzero(mask)[steps % mask.sum()])
            if not unplayed:
                learner_moves.append(action)
            obs, reward, term, trunc, info = env.step(action)
            total, over, steps = total + reward, term or trunc, steps + 1
            assert "illegal_action" not in info
        assert steps >= 1 and (steps == 1 or not unplayed)
        assert not unplayed or (total == -1.0 and term and not info["action_mask"].any())
        returns.append(total)
    assert early >= 1
    assert returns == aec_return(options, 3, 12, recorder.actions, learner_moves, seat=1)


@pytest.mark.parametrize("mode", ["next_step", "same_step", "disabled"])
def test_the_vector_env_pays_the_result_inside_the_game_it_belongs_to(mode):
    """Every game's return and outcome are its own, also when a game ends before its learner moves and
    autoreset started it (next-step mode used to pay its -1 in the following game)."""
    options = EARLY_END[0]
    vec = GameVectorEnv("koi", num_envs=4, learner_seat=1, autoreset_mode=mode, **options)
    _, info = vec.reset(seed=1)
    finished, early = 0, 0
    for t in range(60):
        mask = info["action_mask"]
        early += int(vec.batch.unplayed.sum())
        _, reward, term, trunc, info = vec.step(mask.argmax(1))
        ended = term | trunc
        assert (info["_game"] == ended).all()
        game = info["game"]
        assert np.array_equal(game["outcome"][ended], np.sign(game["r"][ended]))
        assert (game["r"][ended] != 0).all()  # Koi has no draws: a result, not a lost one
        assert (reward[~ended] == 0).all()
        finished += int(ended.sum())
        if mode == "disabled" and ended.any():
            _, info = vec.reset(options={"reset_mask": ended})
    assert finished >= 20 and early >= 5


def test_check_env_passes_where_the_first_swim_can_win():
    env = gym.make("yyenvs/Koi-v1", learner_seat=1, opponent="greedy", **EARLY_END[4])
    env.reset(seed=0)
    assert env.unwrapped.state.done[0]  # greedy takes the winning swim
    check_env(env.unwrapped, skip_render_check=True)
