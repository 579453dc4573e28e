"""stable-baselines3's two ways in, timed in one run: ``make_vec_env`` over the Gymnasium env
(one game per sub-env, stepped in Python) and ``yyenvs.integrations.sb3.LearnerVecEnv`` (every
game in one batched core state).

Two figures per path, each the median of ``--repeats`` timings, in learner steps per second:

* ``env``: the ``VecEnv`` alone, random legal actions from ``env_method("action_masks")``;
* ``MaskablePPO``: sb3-contrib's ``MaskablePPO.learn`` (an MLP 64 x 64, ``n_steps`` 64 per env),
  the environment together with the learning.

The ratio is ``LearnerVecEnv`` over ``make_vec_env`` of the same figure in the same run.

    .venv/bin/python benchmarks/sb3_paths.py
    .venv/bin/python benchmarks/sb3_paths.py --game yoxii --num-envs 16 --repeats 3
"""
from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from yyenvs.commands.bench import hardware


def make_envs(game: str, num_envs: int):
    import gymnasium as gym
    from stable_baselines3.common.env_util import make_vec_env

    import yyenvs
    from yyenvs.integrations.sb3 import LearnerVecEnv
    gym_id = yyenvs.GAMES[game].gym_id
    return {"make_vec_env": make_vec_env(lambda: gym.make(gym_id), n_envs=num_envs, seed=0),
            "LearnerVecEnv": LearnerVecEnv(game, num_envs, seed=0)}


def env_rate(env, steps: int) -> float:
    rng = np.random.default_rng(0)
    env.reset()
    t0 = time.perf_counter()
    for _ in range(steps):
        masks = np.stack(env.env_method("action_masks"))
        scores = rng.random(masks.shape) + masks  # a legal action has the largest score
        env.step(scores.argmax(1))
    return steps * env.num_envs / (time.perf_counter() - t0)


def ppo_rate(env, steps: int) -> float:
    from sb3_contrib import MaskablePPO
    model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=256, n_epochs=1, seed=0,
                        policy_kwargs={"net_arch": [64, 64]}, device="cpu")
    t0 = time.perf_counter()
    model.learn(steps)
    return steps / (time.perf_counter() - t0)


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--game", default="koi")
    p.add_argument("--num-envs", type=int, default=16)
    p.add_argument("--env-steps", type=int, default=300, help="vector steps per env timing")
    p.add_argument("--ppo-steps", type=int, default=8192, help="learner steps per MaskablePPO timing")
    p.add_argument("--repeats", type=int, default=3)
    args = p.parse_args(argv)
    for name, value in (("--num-envs", args.num_envs), ("--env-steps", args.env_steps),
                        ("--ppo-steps", args.ppo_steps), ("--repeats", args.repeats)):
        if value < 1:
            p.error(f"{name} must be at least 1, got {value}")
    import torch
    torch.set_num_threads(1)
    print(f"# {hardware()}; torch threads 1")
    print(f"# {args.game}, {args.num_envs} envs, median of {args.repeats}")
    envs = make_envs(args.game, args.num_envs)
    rates = {}
    for figure, run, n in (("env", env_rate, args.env_steps), ("MaskablePPO", ppo_rate, args.ppo_steps)):
        for name, env in envs.items():
            rates[figure, name] = statistics.median(run(env, n) for _ in range(args.repeats))
        slow, fast = rates[figure, "make_vec_env"], rates[figure, "LearnerVecEnv"]
        print(f"{figure:12s} make_vec_env {slow:10,.0f} steps/s | LearnerVecEnv {fast:10,.0f} steps/s "
              f"| ratio {fast / slow:.2f}x")


if __name__ == "__main__":
    main()
