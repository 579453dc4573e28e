"""RLlib's PPO on the package's envs: environment steps per second of ``algo.train()``, both ways in.

Run in the RLlib environment, then the project's own trainer on the same config for the reference
(one after the other, on an otherwise idle machine):

    .venv-rllib/bin/python benchmarks/rllib_throughput.py [--config configs/koi.yaml] [--iterations 3]
    .venv/bin/python benchmarks/train_throughput.py --config configs/koi.yaml

For each mode (``selfplay``: the multi-agent env with the league recipe, one
env runner; ``vector``: the batched single-agent env against ``random``, one
env runner of ``num_envs`` games) it builds the algorithm from the config's
``ppo.*`` keys as ``yyenvs train --backend rllib`` does, trains one iteration
to warm up, then times ``--iterations`` more and prints the median env steps
per second (all agents' steps in the multi-agent env; learner steps in the
vector env), with the hardware.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main(argv=None) -> None:
    import ray

    from yyenvs.training.config import load_config
    from yyenvs.training.rllib_train import build_algo
    from yyenvs.commands.bench import hardware
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--config", default="configs/koi.yaml")
    p.add_argument("--iterations", type=int, default=3)
    p.add_argument("--modes", nargs="+", default=["selfplay", "vector"], choices=["selfplay", "vector"])
    args = p.parse_args(argv)
    print(hardware())
    ray.init(num_cpus=os.cpu_count(), include_dashboard=False, log_to_driver=False)
    for mode in args.modes:
        cfg = load_config(args.config, [("rllib.mode", mode), ("eval.opponents", ["random"])])
        algo = build_algo(cfg)
        try:
            def steps():
                return int(algo.train()["env_runners"]["num_env_steps_sampled_lifetime"])
            before = steps()  # warm-up: actors, numba compile, first batch
            rates = []
            for _ in range(args.iterations):
                t = time.perf_counter()
                after = steps()
                rates.append((after - before) / (time.perf_counter() - t))
                before = after
            print(f"{cfg['game']} {mode:8} {statistics.median(rates):8,.0f} env steps/s "
                  f"(median of {args.iterations} iterations of "
                  f"{cfg['ppo']['n_steps'] * cfg['num_envs']} steps; {[round(r) for r in rates]})", flush=True)
        finally:
            algo.stop()


if __name__ == "__main__":
    main()
