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
from yyenvs.evaluation.matches import play_games
from yyenvs.commands.bench import hardware
from yyenvs.commands.cli import run
from yyenvs.values import parse_options
from yyenvs.core.rng import derive_seeds
from yyenvs.games import make_core
from yyenvs.games.koi.rules import SETUP


class PhaseSplit:
    """One seat's agent: ``setup`` places the koi, ``swim`` plays the rest; ``clock`` holds
    each one's [seconds, moves]."""

    def __init__(self, setup, swim):
        self.parts = (("setup", setup, True), ("play", swim, False))
        self.clock = {"setup": [0.0, 0], "play": [0.0, 0]}

    def __call__(self, state, mask):
        out = np.full(state.batch_size, -1, np.int64)
        for label, agent, in_setup in self.parts:
            rows = np.flatnonzero((state.phase == SETUP) == in_setup)
            if rows.size:
                t = time.perf_counter()
                out[rows] = agent(state.take(rows), mask[rows])
                self.clock[label][0] += time.perf_counter() - t
                self.clock[label][1] += rows.size
        return out


def play(core, setup, swim, opponent, seat: int, seeds):
    """Play the games of ``seeds`` at once (:func:`~yyenvs.evaluation.matches.play_games`).  Returns
    (W, D, L) of the split seat and {agent label: [seconds, moves]}."""
    split = PhaseSplit(setup, swim)
    seats = np.zeros((len(seeds), 2), np.int64)
    seats[:, 1 - seat] = 1
    timing = np.zeros((2, 3))
    scores, _ = play_games(core, [split, opponent], seats, seeds, timing)
    me, other = scores[:, seat], scores[:, 1 - seat]
    return ((int((me > other).sum()), int((me == other).sum()), int((me < other).sum())),
            {**split.clock, "opponent": list(timing[1, [0, 2]])})


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
    if not 1 <= args.games <= 100_000:
        ap.error(f"--games must be from 1 to 100,000, got {args.games}")
    options = {"board_size": 9, "directions": 8, **parse_options(args.option)}
    core = make_core("koi", **options)
    setup, swim, opponent = (make_agent(spec, core, args.seed + k + 1)
                             for k, spec in enumerate((args.setup, args.play, args.opponent)))
    seeds = derive_seeds(args.seed, 0, np.arange(args.games))
    (w, d, l), clock = play(core, setup, swim, opponent, args.seat, seeds)
    print("hardware:", hardware())
    print(f"koi {options}, seat {args.seat} set up by {args.setup}, played by {args.play}, "
          f"against {args.opponent}: {w}-{d}-{l} in {args.games} games ({100 * w / args.games:.1f}% wins)")
    for label, (seconds, moves) in clock.items():
        print(f"  {label:9s} {1e3 * seconds / max(moves, 1):8.2f} ms per move over {int(moves)} moves")


if __name__ == "__main__":
    raise SystemExit(run("koi_phases", main, None))
