"""How much Python one environment step runs: a Koi learner move and the opponent's reply.

The envs check each action once for type and range and once for legality, and hand the core's
kernels arrays that need no second look; the count of Python-level calls (``sys.setprofile``) keeps
that so.
"""
from __future__ import annotations

import collections
import sys

import gymnasium as gym
import numpy as np

import yyenvs  # noqa: F401  (registers the environments)

MOST_CALLS = 87


def profile_one_step(env, action) -> collections.Counter:
    """Python-level calls made by ``env.step(action)``, by qualified function name."""
    calls = collections.Counter()

    def count(frame, event, arg):
        if event == "call":
            calls[frame.f_code.co_qualname] += 1
    sys.setprofile(count)
    try:
        env.step(action)
    finally:
        sys.setprofile(None)
    return calls


def test_a_koi_step_checks_each_action_once_in_few_python_calls():
    env = gym.make("yyenvs/Koi-v1", learner_seat=0, opponent="random")
    _, info = env.reset(seed=0)
    for _ in range(3):  # into the game, every kernel compiled
        _, _, _, _, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
    calls = profile_one_step(env, int(np.flatnonzero(info["action_mask"])[0]))
    # type and range: the learner's action and the opponent's answer, once each
    assert calls["GameCore.coerce_actions"] == 2 and calls["LearnerBatch.check_actions"] == 1
    # legality: the learner's mask, the opponent's check; the core steps without checking again
    assert calls["LearnerBatch._check_opponent"] == 1 and calls["GameCore.step_checked"] == 2
    assert calls["GameCore.step"] == 0 and calls["GameCore.check_actions"] == 0
    assert sum(calls.values()) <= MOST_CALLS, calls.most_common(12)
