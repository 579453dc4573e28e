"""The ladder's ratings: a round robin of ``greedy``, ``mcts:100`` and ``mcts:400`` per game.

Each pair plays ``--games`` games (seats alternating) on the game's default options;
Bradley-Terry ratings (Elo scale, one virtual draw per player, ``greedy`` = 0) are printed with
the cross-table and the hardware, and with ``--write`` stored in
``yyenvs/evaluation/ladder.json``, which training runs rate their networks against
(:mod:`yyenvs.evaluation.ladder`).

    .venv/bin/python benchmarks/ladder_ratings.py --games 200 --write
"""
from __future__ import annotations

import argparse
import json
import os
import sys

import numpy as np

from yyenvs.commands.bench import hardware
from yyenvs.evaluation.ladder import LADDER, ladder_table
from yyenvs.evaluation.matches import make_entrants
from yyenvs.evaluation.ratings import bradley_terry
from yyenvs.evaluation.tournament import format_table, tournament
from yyenvs.games import make_core

GAMES = ("yoxii", "koi", "yinyang")  # Yin Yang on its default 2 players: the ratings are pairwise


def measure(game: str, games: int, seed: int) -> dict:
    core = make_core(game)
    result = tournament(core, make_entrants(list(LADDER), core, seed), games, seed)
    print(format_table(result), flush=True)
    wins, draws = np.array(result["wins"], float), np.array(result["draws"], float)
    ratings = bradley_terry(wins, draws, prior=1.0, anchor=0)
    return {"options": core.options, "ratings": {name: round(float(r), 1) for name, r in zip(LADDER, ratings)},
            "games_per_pair": games, "seed": seed,
            "command": f"python benchmarks/ladder_ratings.py --games {games} --seed {seed} --write"}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--games", type=int, default=200, help="games per pair (even: seats alternate)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--only", nargs="+", choices=GAMES, default=list(GAMES), help="games to measure")
    p.add_argument("--write", action="store_true", help="store the ratings in yyenvs/evaluation/ladder.json")
    args = p.parse_args(argv)
    print("hardware:", hardware(), flush=True)
    table = ladder_table() if args.write else {}
    for game in args.only:
        table[game] = measure(game, args.games, args.seed)
        print(game, table[game]["ratings"], flush=True)
    if args.write:
        path = os.path.join(os.path.dirname(__file__), "..", "yyenvs", "evaluation", "ladder.json")
        with open(path, "w") as f:
            json.dump(table, f, indent=1)
            f.write("\n")
        print("wrote", os.path.normpath(path))
    return 0


if __name__ == "__main__":
    sys.exit(main())
