"""Search with learning (Gumbel AlphaZero) on one game, the whole pipeline in one screen.

    python training/search_selfplay.py --config configs/az_koi.yaml [KEY=VALUE ...]

The same run as ``yyenvs train --algo az --config ...``: batched Gumbel search plays every game's
moves, a policy-value network learns from them (docs/training.md), then the final network with its
search plays the baselines.  Copy it to plug in another environment or network.
"""
import argparse

from yyenvs.training.az import AZTrainer
from yyenvs.training.config import load_config


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--config", required=True, help="a YAML config, e.g. configs/az_koi.yaml")
    p.add_argument("overrides", nargs="*", metavar="KEY=VALUE", help="e.g. max_minutes=5 run_dir=runs/try")
    args = p.parse_args()
    cfg = load_config(args.config, [*args.overrides, "algo=az"])
    trainer = AZTrainer(cfg)                        # resumes run_dir's newest checkpoint, if any
    try:
        info = trainer.train()                      # self-play and learning until the budget is spent
        print(f"trained to move {info['steps']} in {info['elapsed_s']:.0f} s: {info['final']}")
        trainer.final_evaluation()
    finally:
        trainer.close()


if __name__ == "__main__":
    main()
