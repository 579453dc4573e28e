"""The ``yyenvs`` command: ``bench``, ``train``, ``eval``, ``play``.

``train`` and ``eval`` need the ``train`` extra (torch, stable-baselines3,
sb3-contrib); they live in the ``training`` package.
"""
from __future__ import annotations

import argparse
import sys


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    commands = {
        "bench": ("yyenvs.bench", "measure steps/s and memory of every game (random legal play)"),
        "play": ("yyenvs.play", "play a batch of games between two agents and print the result"),
        "train": ("training.train", "self-play training from a YAML config"),
        "eval": ("training.evaluate", "matches between checkpoints and baselines, with ratings"),
    }
    if not argv or argv[0] in ("-h", "--help") or argv[0] not in commands:
        parser = argparse.ArgumentParser(prog="yyenvs", description=__doc__.splitlines()[0])
        parser.add_argument("command", choices=sorted(commands),
                            help="; ".join(f"{k}: {v[1]}" for k, v in commands.items()))
        if argv and argv[0] not in ("-h", "--help"):
            parser.error(f"unknown command {argv[0]!r}")
        parser.print_help()
        return 0 if argv else 2
    import importlib
    module = importlib.import_module(commands[argv[0]][0])
    return int(module.main(argv[1:]) or 0)


if __name__ == "__main__":
    sys.exit(main())
