"""Training throughput: yyenvs self-play vs PettingZoo's SB3 Connect Four tutorial.

    python benchmarks/train_throughput.py [--steps 20480] [--repeats 3] [--config configs/yoxii.yaml] [KEY=VALUE ...]

Measures, in the same process and one after the other, environment steps per
second of ``MaskablePPO.learn`` for

1. **the tutorial setup** -- PettingZoo's "SB3: Action Masked PPO for Connect
   Four" (``tutorials/SB3/connect_four/sb3_connect_four_action_mask.py``):
   the AEC env wrapped by ``SB3ActionMaskWrapper`` so one agent plays both
   sides, ``ActionMasker``, a single-env ``DummyVecEnv`` (what SB3 builds from
   one env), ``MaskablePPO(MaskableActorCriticPolicy, env)`` with its default
   hyper-parameters;
2. **yyenvs training** -- :class:`yyenvs.training.train.Trainer` on the given config
   (default ``configs/yoxii.yaml``): the batched vector env, the opponent pool
   (latest policy, snapshots, random and greedy), the config's PPO settings.

Both learn a fixed number of timesteps (default 20,480 each, rounded up to
whole rollouts by SB3) with the same torch thread count, ``--repeats`` times
in alternation (the same two models learning on), so both see the same
machine; set-up and imports are not timed.  Prints each repeat, the medians
and the ratio of the medians.  A yyenvs timestep is one learner decision (the opponent's reply
is extra work not counted); a tutorial timestep is one move.  Prints steps/s,
the ratio and the hardware.
"""
from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def cpu_name() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def tutorial_model(seed: int = 0):
    import gymnasium
    import pettingzoo.utils
    from pettingzoo.classic import connect_four_v3
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
    from sb3_contrib.common.wrappers import ActionMasker

    class SB3ActionMaskWrapper(pettingzoo.utils.BaseWrapper, gymnasium.Env):
        """The tutorial's wrapper: a PettingZoo AEC env as a Gymnasium env, one agent playing both sides."""

        def reset(self, seed=None, options=None):
            super().reset(seed, options)
            self.observation_space = super().observation_space(self.possible_agents[0])["observation"]
            self.action_space = super().action_space(self.possible_agents[0])
            return self.observe(self.agent_selection), {}

        def step(self, action):
            current_agent = self.agent_selection
            super().step(action)
            next_agent = self.agent_selection
            return (self.observe(next_agent), self._cumulative_rewards[current_agent],
                    self.terminations[current_agent], self.truncations[current_agent],
                    self.infos[current_agent])

        def observe(self, agent):
            return super().observe(agent)["observation"]

        def action_mask(self):
            return super().observe(self.agent_selection)["action_mask"]

    def mask_fn(env):
        return env.action_mask()

    env = connect_four_v3.env()
    env = SB3ActionMaskWrapper(env)
    env.reset(seed=seed)
    env = ActionMasker(env, mask_fn)
    model = MaskablePPO(MaskableActorCriticPolicy, env, verbose=0)
    model.set_random_seed(seed)
    return model


def yyenvs_trainer(steps: int, config: str, overrides: list[str], run_dir: str):
    from yyenvs.training.config import load_config
    from yyenvs.training.train import Trainer
    cfg = load_config(config, list(overrides) + [("run_dir", run_dir), ("total_timesteps", steps),
                                                 ("eval.every", 0), ("log.progress", False),
                                                 ("log.tensorboard", False)])
    return Trainer(cfg, log=lambda m: None), cfg


def steps_per_second(model, steps: int) -> tuple[float, int]:
    """Learn ``steps`` more timesteps; (steps/s, timesteps done)."""
    before = model.num_timesteps
    t0 = time.perf_counter()
    model.learn(total_timesteps=steps, reset_num_timesteps=False)
    dt = time.perf_counter() - t0
    return (model.num_timesteps - before) / dt, model.num_timesteps - before


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=20_480, help="timesteps for each side per repeat (default 20480)")
    p.add_argument("--repeats", type=int, default=3, help="alternating measurements of each side (default 3)")
    p.add_argument("--config", default="configs/yoxii.yaml")
    p.add_argument("--threads", type=int, default=2, help="torch threads for both sides")
    p.add_argument("--skip-tutorial", action="store_true")
    p.add_argument("overrides", nargs="*", metavar="KEY=VALUE")
    args = p.parse_args(argv)
    if args.steps < 1 or args.repeats < 1:
        p.error("--steps and --repeats must be positive")
    import torch
    torch.set_num_threads(args.threads)
    overrides = list(args.overrides) + [f"threads={args.threads}"]
    print(f"hardware: {cpu_name()}, {os.cpu_count()} logical CPUs, torch {torch.__version__} "
          f"({args.threads} threads), Python {platform.python_version()}, {platform.system()}", flush=True)
    run_dir = tempfile.mkdtemp(prefix="yyenvs-bench-")
    try:
        trainer, cfg = yyenvs_trainer(args.steps, args.config, overrides, run_dir)
        tutorial = None if args.skip_tutorial else tutorial_model()
        ours, tut = [], []
        for r in range(args.repeats):
            torch.set_num_threads(args.threads)
            rate, n = steps_per_second(trainer.model, args.steps)
            ours.append(rate)
            line = f"repeat {r + 1}: yyenvs {n} steps, {rate:,.0f} steps/s"
            if tutorial is not None:
                torch.set_num_threads(args.threads)
                rate, n = steps_per_second(tutorial, args.steps)
                tut.append(rate)
                line += f"; tutorial {n} steps, {rate:,.0f} steps/s"
            print(line, flush=True)
    finally:
        shutil.rmtree(run_dir, ignore_errors=True)
    print(f"yyenvs {cfg['game']} self-play MaskablePPO ({args.config}, game options {cfg['game_options']}; "
          f"{cfg['num_envs']} envs, n_steps {cfg['ppo']['n_steps']}, batch {cfg['ppo']['batch_size']}, epochs "
          f"{cfg['ppo']['n_epochs']}, net {cfg['ppo']['net_arch']}): median {statistics.median(ours):,.0f} steps/s",
          flush=True)
    if tut:
        print(f"PettingZoo SB3 tutorial, Connect Four (1 env, MaskablePPO defaults): median "
              f"{statistics.median(tut):,.0f} steps/s", flush=True)
        print(f"ratio of the medians: {statistics.median(ours) / statistics.median(tut):.1f}x", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
