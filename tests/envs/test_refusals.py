"""Small refusals a user meets first: actions in numpy's 0-d form, stepping a finished PettingZoo
game, out-of-range training seeds, a saving directory that is a file, a Ray address nobody serves."""
from __future__ import annotations

import logging
import re
import socket
import time
import warnings

import gymnasium as gym
import numpy as np
import pytest

from tests.agents.test_checkpoints import exit_code
from yyenvs.envs.aec import aec_factories
from yyenvs.envs.vector import GameVectorEnv

INT_DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]


@pytest.mark.parametrize("dtype", INT_DTYPES)
def test_zero_d_integer_arrays_are_actions_at_every_layer(dtype):
    """``np.array(3)`` is what SB3's ``predict`` returns for one observation."""
    env = gym.make("yyenvs/Koi-v1")
    _, info = env.reset(seed=0)
    a = np.array(int(np.flatnonzero(info["action_mask"])[0]), dtype)
    assert a.ndim == 0 and (env.action_space.contains(a) or dtype is np.uint64)  # Discrete refuses uint64
    assert "illegal_action" not in env.step(a)[4]
    aec = aec_factories("koi")[0]()
    aec.reset(seed=0)
    aec.step(np.array(int(np.flatnonzero(aec.observe(aec.agent_selection)["action_mask"])[0]), dtype))
    assert not any(aec.terminations.values())
    vec = GameVectorEnv("koi", num_envs=2)
    vec.reset(seed=0)
    mask = vec.action_masks()
    infos = vec.step(np.array([np.flatnonzero(m)[0] for m in mask], dtype))[4]  # arrays of any int dtype
    assert not np.any(infos.get("illegal_action", False))


def test_aec_step_after_the_game_warns_and_does_nothing(caplog):
    env = aec_factories("yoxii")[0]()
    env.reset(seed=1)
    while env.agents:
        _, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(np.flatnonzero(env.last()[0]["action_mask"])[0]))
    with caplog.at_level(logging.WARNING):
        env.step(0)
    assert "called after all agents are terminated or truncated" in caplog.text
    assert env.agents == []


@pytest.mark.parametrize("seed,ok", [(2**32 - 1, True), (2**32, False), (2**40, False), (-1, False)])
def test_training_seeds_are_checked_against_numpys_range(seed, ok):
    from yyenvs.training.config import ConfigError, load_config
    if ok:
        assert load_config(None, [("seed", seed)])["seed"] == seed
    else:
        with pytest.raises(ConfigError, match=r"seed.*\[0, 4294967296\)"):
            load_config(None, [("seed", seed)])


def test_human_play_refuses_a_file_as_its_saving_directory_before_serving(tmp_path, capsys):
    taken = tmp_path / "games"
    taken.write_text("mine")
    t0 = time.monotonic()
    assert exit_code(["play", "--human", "--agents", "human", "greedy", "--no-browser",
                      "--save-games", str(taken)]) == 2
    assert time.monotonic() - t0 < 20 and taken.read_text() == "mine"
    assert "--save-games" in capsys.readouterr().err


def test_eval_on_a_closed_ray_port_fails_within_seconds(capsys):
    pytest.importorskip("ray")
    with socket.socket() as s:  # a port that was free a moment ago: nobody listens there
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    t0 = time.monotonic()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        code = exit_code(["eval", "--game", "yoxii", "random", "greedy", "--games", "2",
                          "--ray", f"127.0.0.1:{port}"])
    assert code == 2 and time.monotonic() - t0 < 30
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no Ray cluster answers there" in err[0]


@pytest.mark.parametrize("game", ["yoxii", "koi", "yinyang"])
def test_every_call_before_reset_says_call_reset_first(game):
    """The single env's masks and picture, the vector env's masks, observation and picture, and
    LearnerVecEnv's masks, before any reset(): one message, naming the call."""
    import gymnasium as gym

    import yyenvs
    from yyenvs.integrations.sb3 import LearnerVecEnv
    gym_id = yyenvs.GAMES[game].gym_id
    single = gym.make(gym_id, render_mode="ansi").unwrapped
    vec = gym.make_vec(gym_id, num_envs=2, vectorization_mode="vector_entry_point", render_mode="ansi").unwrapped
    calls = {"action_masks()": [single.action_masks, vec.action_masks, LearnerVecEnv(game, 2).action_masks],
             "render()": [single.render, vec.render], "observe()": [vec.batch.observe]}
    for what, fns in calls.items():
        for fn in fns:
            with pytest.raises(RuntimeError, match=rf"^call reset\(\) before {re.escape(what)}$"):
                fn()


def test_learner_vec_env_names_the_argument_it_refuses():
    from yyenvs.integrations.sb3 import LearnerVecEnv
    for game in (5, None, b"koi"):
        with pytest.raises(ValueError, match="LearnerVecEnv: game must be a game id"):
            LearnerVecEnv(game, 2)
    for key, value in (("shaping", float("nan")), ("shaping", float("inf")), ("shaping", "0.1"), ("shaping", -1),
                       ("gamma", float("nan")), ("gamma", 1.5), ("gamma", True)):
        with pytest.raises(ValueError, match=f"LearnerVecEnv: {key} must be a finite number"):
            LearnerVecEnv("koi", 2, **{key: value})
    env = LearnerVecEnv("koi", 4, shaping=0.1, gamma=0.99)
    env.reset()
    for shape in ((2, 2), (1, 4), (3,)):
        with pytest.raises(ValueError, match=r"expected 4 actions, shape \(4,\), got shape"):
            env.step_async(np.zeros(shape, np.int64))
    env.step_async(env.action_masks().argmax(1).reshape(4, 1))  # SB3 may hand (n, 1)
    env.step_wait()
    for bad in ([7], [-1], [True], ["0"]):
        with pytest.raises(IndexError, match="env indices must be integers from 0 to 3"):
            env.get_attr("render_mode", indices=bad)
    assert env.get_attr("render_mode", indices=[0, 3]) == [None, None]
    assert len(env.env_method("action_masks", indices=np.int64(2))) == 1
