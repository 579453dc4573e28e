"""PPO self-play on one game, the whole pipeline in one screen.

    python training/ppo_selfplay.py --config configs/koi.yaml [KEY=VALUE ...]

The same run as ``yyenvs train --config ...``: the config (every key in docs/training.md), the
trainer (MaskablePPO on the batched vector env against a pool of its own snapshots and the
scripted baselines), then the final evaluation.  Copy it to plug in another environment or
opponent pool.
"""
import argparse

from yyenvs.training.config import load_config
from yyenvs.training.train import Trainer


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--config", required=True, help="a YAML config, e.g. configs/koi.yaml")
    p.add_argument("overrides", nargs="*", metavar="KEY=VALUE", help="e.g. max_minutes=5 run_dir=runs/try")
    args = p.parse_args()
    cfg = load_config(args.config, args.overrides)   # checked: a bad key or value is one clear error
    trainer = Trainer(cfg)                          # resumes run_dir's newest checkpoint, if any
    try:
        info = trainer.train()                      # self-play until total_timesteps or max_minutes
        print(f"trained to step {info['steps']} in {info['elapsed_s']:.0f} s: {info['final']}")
        trainer.final_evaluation()                  # against random and greedy, and a snapshot table
    finally:
        trainer.close()


if __name__ == "__main__":
    main()
