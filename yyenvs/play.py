"""``yyenvs play``: a batch of games between two agents, seats alternating.

Example: ``yyenvs play --game yoxii --agents greedy random --games 1000``.
"""
from __future__ import annotations

import sys
import time

from yyenvs.agents import BASELINES, make_agent
from yyenvs.agents.match import play_match
from yyenvs.cli import ArgumentParser, games_int, parse_options, run, seed_int
from yyenvs.core.contract import OptionError
from yyenvs.games import GAMES, make_core

__all__ = ["main", "play_match"]


def _agent(spec: str, core, seed: int):
    try:
        return make_agent(spec, core, seed=seed)
    except OptionError:
        raise
    except ValueError as e:  # a baseline's own settings check, e.g. mcts:0
        if spec.partition(":")[0] not in BASELINES:
            raise
        raise OptionError(f"agent {spec!r}: {e}") from None


def main(argv: list[str] | None = None) -> int:
    parser = ArgumentParser(prog="yyenvs play", description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="yoxii", choices=list(GAMES))
    parser.add_argument("--agents", nargs=2, default=["greedy", "random"], metavar=("A", "B"),
                        help="two agents: random, greedy, mcts[:n], az:<checkpoint>[:<n>] or a checkpoint path")
    parser.add_argument("--games", type=games_int, default=1000)
    parser.add_argument("--seed", type=seed_int, default=0)
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                        help="a game option, e.g. --option board_size=7 (repeatable)")
    args = parser.parse_args(argv)
    try:
        options = parse_options(args.option)
    except OptionError as e:
        parser.error(str(e))
    core = make_core(args.game, **options)
    if core.num_players != 2:
        parser.error(f"play needs a two-player game; {args.game} with these options has "
                     f"{core.num_players} players")
    a = _agent(args.agents[0], core, args.seed)
    b = _agent(args.agents[1], core, args.seed + 1)
    t = time.perf_counter()
    r = play_match(core, a, b, args.games, seed=args.seed)
    dt = time.perf_counter() - t
    n = args.games
    print(f"{args.game}: {args.agents[0]} vs {args.agents[1]}, {n} games, seats alternating")
    print(f"  {args.agents[0]} wins {r['wins']} ({r['wins'] / n:.1%}), draws {r['draws']}, "
          f"losses {r['losses']} ({r['losses'] / n:.1%})")
    for start, (w, d, l) in r["by_start"].items():
        print(f"  {args.agents[0]} seated {start}: {w}-{d}-{l} ({w / max(w + d + l, 1):.1%} wins)")
    print(f"  {r['plies']} plies in {dt:.1f}s ({r['plies'] / dt:,.0f} plies/s)")
    return 0


if __name__ == "__main__":
    sys.exit(run("play", main, sys.argv[1:]))
