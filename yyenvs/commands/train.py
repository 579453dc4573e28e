"""``yyenvs train``: self-play training, MaskablePPO (the default) or search with learning.

``yyenvs train --config configs/yoxii.yaml [KEY=VALUE ...]`` (or ``python -m yyenvs.commands.train ...``);
the trainers are :mod:`yyenvs.training.train` and :mod:`yyenvs.training.az`.
"""
from __future__ import annotations

import os
import sys

from yyenvs.commands.cli import ArgumentParser, add_threads_argument
from yyenvs.core.contract import OptionError
from yyenvs.training.config import ConfigError, load_config
from yyenvs.training.progress import opening_line
from yyenvs.training.train import Trainer
from yyenvs.values import one_line


def main(argv=None) -> int:
    p = ArgumentParser(prog="yyenvs train", description=__doc__.splitlines()[0])
    p.add_argument("--config", "-c", default=None, help="YAML config (e.g. configs/yoxii.yaml)")
    p.add_argument("--run-dir", default=None, help="shortcut for run_dir=...")
    p.add_argument("--algo", choices=("ppo", "az"), default=None,
                   help="shortcut for algo=...: ppo (MaskablePPO self-play, the default) or az "
                        "(Gumbel AlphaZero: search with a policy-value network)")
    p.add_argument("--backend", choices=("local", "rllib"), default="local",
                   help="local: the project's trainers (default); rllib: PPO on RLlib (yyenvs/training/rllib_train.py, "
                        "in the RLlib environment)")
    p.add_argument("--ray-address", default=None, metavar="ADDRESS",
                   help="with --backend rllib, or --algo az with az.workers > 0: the Ray cluster to run on "
                        "(default: start Ray on this machine)")
    p.add_argument("--quick", action="store_true",
                   help="the short demo run: configs/quick.yaml settings on top of --config")
    p.add_argument("overrides", nargs="*", metavar="KEY=VALUE",
                   help="config overrides, e.g. ppo.learning_rate=1e-4 total_timesteps=200000")
    add_threads_argument(p)
    args = p.parse_args(argv)
    overrides = list(args.overrides)
    if args.threads is not None:
        overrides.append(("threads", args.threads))
    try:
        if args.quick:
            overrides = _quick_overrides(args.config) + overrides
        if args.run_dir:
            overrides.append(("run_dir", args.run_dir))
        if args.algo:
            overrides.append(("algo", args.algo))
        cfg = load_config(args.config, overrides)
        if args.ray_address is not None and args.backend != "rllib" and not (
                cfg["algo"] == "az" and cfg["az"]["workers"] > 0):
            raise ConfigError("--ray-address needs --backend rllib, or algo az with az.workers > 0")
        if args.backend == "rllib":
            return _train_on_rllib(cfg, args.ray_address)
        if cfg["algo"] == "az":
            from yyenvs.training.az import AZTrainer
            trainer = AZTrainer(cfg, ray_address=args.ray_address)
        else:
            trainer = Trainer(cfg)
    except OptionError as e:  # ConfigError, CheckpointError and game OptionError
        print(f"yyenvs train: error: {one_line(e)}", file=sys.stderr)
        return 2
    try:
        trainer.log(opening_line(cfg, "move" if cfg["algo"] == "az" else "step", trainer.threads))
        info = trainer.train()
        sps = (info["steps"]) / max(info["elapsed_s"], 1e-9)
        trainer.log(f"trained to step {info['steps']} in {info['elapsed_s']:.0f}s ({sps:.0f} steps/s); "
                    f"final policy {info['final']}")
        trainer.final_evaluation()
    except OptionError as e:  # e.g. a checkpoint that could not be written (disk full)
        print(f"yyenvs train: error: {one_line(e)}", file=sys.stderr)
        return 2
    finally:
        trainer.close()
    return 0


def _train_on_rllib(cfg: dict, address) -> int:
    if cfg["algo"] != "ppo":
        raise ConfigError(f"--backend rllib trains PPO only, not algo {cfg['algo']!r}")
    try:
        import ray.rllib  # noqa: F401
    except ImportError as e:
        raise ConfigError(f"--backend rllib needs RLlib ({e}): pip install -e '.[rllib]' in an environment "
                          f"of its own (ray[rllib] pins gymnasium 1.2.2), e.g. ./dev test makes .venv-rllib") from None
    from yyenvs.training.rllib_train import run
    run(cfg, address, log=lambda m: print(m, flush=True))
    return 0


def _quick_overrides(config_path) -> list:
    """The quick demo's settings, from configs/quick.yaml next to the given config."""
    from yyenvs.training.config import flat_config, read_config_file
    base = os.path.dirname(config_path) if config_path else "configs"
    path = os.path.join(base, "quick.yaml")
    if not os.path.exists(path):
        raise ConfigError(f"--quick needs {path!r}")
    data = read_config_file(path)
    data.pop("game", None)
    data.pop("game_options", None)  # those belong to the quick file's own game
    return list(flat_config(data).items())


if __name__ == "__main__":
    sys.exit(main())
