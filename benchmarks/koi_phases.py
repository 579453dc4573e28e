"""Koi: does an agent win or lose its games in the set-up or in the play?

One seat (``--seat``, default the second) places its koi with the ``--setup``
agent and swims with the ``--play`` agent; the other seat is ``--opponent``
throughout.  Comparing, say, the same set-up agent with two play agents tells
which phase a weak seat loses in.  Prints the wins, draws and losses of the
split seat, each agent's milliseconds per move (per game: the wall time of a
batched ``act`` over the rows it moved) and the hardware.

    .venv/bin/python benchmarks/koi_phases.py --setup mcts:1600 --play az:runs/az_koi/final.safetensors:200
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from yyenvs.agents import make_agent
from yyenvs.bench import hardware
from yyenvs.core.rng import derive_seeds
from yyenvs.games import make_core
from yyenvs.games.koi.rules import SETUP


def play(core, setup, swim, opponent, seat: int, seeds):
    """Play the games of ``seeds`` at once.  Returns (W, D, L) of the split seat and
    {agent label: [seconds, moves]}."""
    state = core.init(seeds)
    total = np.zeros((state.batch_size, core.num_players))
    clock = {}
    while not state.done.all():
        mask = core.legal_action_mask(state)
        actions = np.full(state.batch_size, -1, np.int64)
        live = ~state.done
        mine = live & (state.current_player == seat)
        for label, agent, rows in (("setup", setup, mine & (state.phase == SETUP)),
                                   ("play", swim, mine & (state.phase != SETUP)),
                                   ("opponent", opponent, live & ~mine)):
            rows = np.flatnonzero(rows)
            if rows.size:
                t = time.perf_counter()
                actions[rows] = agent.act(state.take(rows), mask[rows])
                spent = clock.setdefault(label, [0.0, 0])
                spent[0] += time.perf_counter() - t
                spent[1] += rows.size
        core.step(state, actions)
        total += state.rewards
    me, other = total[:, seat], total[:, 1 - seat]
    return (int((me > other).sum()), int((me == other).sum()), int((me < other).sum())), clock


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--setup", required=True, help="agent spec placing the split seat's koi")
    ap.add_argument("--play", required=True, help="agent spec swimming for the split seat")
    ap.add_argument("--opponent", default="greedy", help="agent spec of the other seat (default greedy)")
    ap.add_argument("--seat", type=int, choices=(0, 1), default=1, help="the split seat (0 moves first)")
    ap.add_argument("--games", type=int, default=50)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                    help="a Koi option (default board_size=9 directions=8)")
    args = ap.parse_args(argv)
    if args.games < 1:
        ap.error("--games must be at least 1")
    options = {"board_size": 9, "directions": 8}
    for item in args.option:
        key, sep, value = item.partition("=")
        if not sep:
            ap.error(f"--option expects KEY=VALUE, got {item!r}")
        options[key] = int(value) if value.lstrip("-").isdigit() else value
    core = make_core("koi", **options)
    setup, swim, opponent = (make_agent(spec, core, args.seed + k + 1)
                             for k, spec in enumerate((args.setup, args.play, args.opponent)))
    seeds = derive_seeds(args.seed, 0, np.arange(args.games))
    (w, d, l), clock = play(core, setup, swim, opponent, args.seat, seeds)
    print("hardware:", hardware())
    print(f"koi {options}, seat {args.seat} set up by {args.setup}, played by {args.play}, "
          f"against {args.opponent}: {w}-{d}-{l} in {args.games} games ({100 * w / args.games:.1f}% wins)")
    for label, (seconds, moves) in clock.items():
        print(f"  {label:9s} {1e3 * seconds / max(moves, 1):8.2f} ms per move over {moves} moves")


if __name__ == "__main__":
    main()
