"""``yyenvs play``: a batch of games between two agents, seats alternating.

Example: ``yyenvs play --game yoxii --agents greedy random --games 1000``.
"""
from __future__ import annotations

import sys
import time

import numpy as np

from yyenvs.agents import BASELINES, make_agent
from yyenvs.cli import ArgumentParser, games_int, parse_option, run, seed_int
from yyenvs.core.contract import OptionError
from yyenvs.core.rng import seeds_from
from yyenvs.games import GAMES, make_core


def play_match(core, agent_a, agent_b, num_games: int, seed: int = 0) -> dict:
    """Play ``num_games`` two-player games, ``agent_a`` taking seat 0 in even games.

    Returns counts of wins, draws and losses from ``agent_a``'s side and the plies played.
    """
    if core.num_players != 2:
        raise ValueError(f"play_match needs a two-player game; {core.name} has {core.num_players}")
    state = core.init(seeds_from(seed, num_games))
    seat_of_a = (np.arange(num_games) % 2).astype(np.int8)
    final = np.zeros(num_games, dtype=np.float32)
    steps = 0
    while not state.done.all():
        mask = core.legal_action_mask(state)
        actions = np.full(num_games, -1, dtype=np.int64)
        for agent, turn in ((agent_a, state.current_player == seat_of_a),
                            (agent_b, state.current_player != seat_of_a)):
            rows = np.flatnonzero(turn & ~state.done)
            if rows.size:
                actions[rows] = agent(state.take(rows), mask[rows])
        core.step(state, actions)
        stepped = actions >= 0
        final[stepped] = state.rewards[stepped, seat_of_a[stepped]]
        steps += int(stepped.sum())
    final[state.truncated] = 0.0
    return {"wins": int((final > 0).sum()), "draws": int((final == 0).sum()),
            "losses": int((final < 0).sum()), "plies": steps}


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
                        help="two agents: random, greedy, mcts[:n] or a checkpoint path")
    parser.add_argument("--games", type=games_int, default=1000)
    parser.add_argument("--seed", type=seed_int, default=0)
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                        help="a game option, e.g. --option board_size=7 (repeatable)")
    args = parser.parse_args(argv)
    options = {}
    for item in args.option:
        try:
            key, value = parse_option(item)
        except OptionError as e:
            parser.error(str(e))
        options[key] = value
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
    print(f"  {r['plies']} plies in {dt:.1f}s ({r['plies'] / dt:,.0f} plies/s)")
    return 0


if __name__ == "__main__":
    sys.exit(run("play", main, sys.argv[1:]))
