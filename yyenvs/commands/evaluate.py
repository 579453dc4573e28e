"""Matches between checkpoints and scripted baselines: cross-table, intervals, ratings, plot.

``yyenvs eval --game yoxii runs/yoxii/final.safetensors random greedy --games 1000``

* Every pair of entrants plays ``--games`` games, seats alternating (half the
  games each entrant starts; with 3-4 players the seats alternate A, B, A, B
  and B, A, B, A), all games of a pair batched in one core state; each
  entrant is called once per ply for all the rows where it is to move
  (:mod:`yyenvs.evaluation.matches`).
* The cross-table holds wins / draws / losses of the row entrant against the
  column entrant, with the 95% Wilson interval of the win rate (draws count
  as non-wins).  Multi-player games are scored pairwise from placements.
* Ratings: Bradley-Terry (Elo scale) fitted to the whole table by the MM
  algorithm (:mod:`yyenvs.evaluation.ratings`), ``random`` anchored at 0 when present.
* ``--equal-time`` (two entrants, the first a search): the first's simulations
  are scaled until it takes as long per move as the second, on CPU time by default
  (:mod:`yyenvs.evaluation.equal_time`); the table is the last match's, and a matching
  that ends outside its tolerance exits with status 1 (``--accept-unmatched``: 0).
* Outputs (``--out DIR``): ``eval.json`` (entrants, table, intervals, ratings)
  and ``ratings.png`` (rating of each snapshot against its training step,
  baselines as horizontal lines).
"""
from __future__ import annotations

import os
import sys

from yyenvs.agents.az import az_checkpoint_path
from yyenvs.commands.cli import ArgumentParser, add_threads_argument, games_int, refuse_unused, run, seed_int
from yyenvs.core.threads import set_threads
from yyenvs.evaluation.equal_time import BUSY_CORES
from yyenvs.evaluation.matches import make_entrants
from yyenvs.evaluation.tournament import format_table, output_paths, tournament, write_outputs
from yyenvs.games import GAMES, make_core
from yyenvs.networks.checkpoint import core_options, looks_like_checkpoint, read_metadata
from yyenvs.values import parse_options


def main(argv=None) -> int:
    p = ArgumentParser(prog="yyenvs eval", description=__doc__.splitlines()[0])
    p.add_argument("entrants", nargs="+",
                   help="checkpoint paths (.safetensors), az:<checkpoint>[:<n>[:<key>=<value>,...]] (a search "
                        "agent with n simulations per move and settings of its search), pretrained, pretrained:fast "
                        "and/or baselines: random, greedy, mcts[:n]")
    p.add_argument("--game", default=None, help=f"game name ({', '.join(list(GAMES))}); "
                   "default: the game of the first checkpoint")
    p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                   help="game option (default: the options of the first checkpoint)")
    p.add_argument("--games", type=games_int, default=200, help="games per pair (default 200)")
    p.add_argument("--seed", type=seed_int, default=0, help="the master seed of the matches (default 0)")
    p.add_argument("--sample", action="store_true",
                   help="checkpoints sample from their policy instead of taking the argmax")
    p.add_argument("--first-only", action="store_true",
                   help="only the first entrant against each other one (not a round robin)")
    p.add_argument("-o", "--out", default=None, help="directory for eval.json and ratings.png")
    p.add_argument("--force", action="store_true", help="replace eval.json and ratings.png in --out if they exist")
    p.add_argument("--save-games", default=None, metavar="DIR",
                   help="write every game as a JSON record to DIR (<i>-<j>-<k>.json: entrants i and j, "
                        "game k); watch one with yyenvs replay")
    p.add_argument("--equal-time", action="store_true",
                   help="two entrants, the first a search (mcts:<n> or az:<checkpoint>:<n>): its simulations "
                        "are scaled, match by match, until its time per move is the second's (within "
                        "--time-tolerance); each match's simulations and times are printed")
    p.add_argument("--time-tolerance", type=float, default=None, metavar="T",
                   help="with --equal-time: the largest relative difference of the times per move (default 0.15)")
    p.add_argument("--clock", choices=("cpu", "wall"), default=None,
                   help="with --equal-time: the time compared: cpu, the CPU time of each side's own calls, which "
                        "other processes do not change (default); wall, for a network on a GPU, with the "
                        "machine checked idle during each match")
    p.add_argument("--accept-unmatched", action="store_true",
                   help="with --equal-time: exit 0 even when the last match's times are not within the tolerance")
    p.add_argument("--ray", nargs="?", const="", default=None, metavar="ADDRESS",
                   help="play the pairs as Ray tasks: on the Ray cluster at ADDRESS, or, without one, on a "
                        "Ray started on this machine (needs the ray extra)")
    add_threads_argument(p)
    args = p.parse_intermixed_args(argv)
    refuse_unused(p, args, "--equal-time", args.equal_time, time_tolerance=None, clock=None, accept_unmatched=False)
    args.time_tolerance = 0.15 if args.time_tolerance is None else args.time_tolerance
    args.clock = args.clock or "cpu"
    set_threads(args.threads, torch_threads=1)  # a match's network calls are a few rows
    game = args.game
    if args.games < 2:
        p.error(f"--games must be at least 2 (seats alternate), got {args.games}")
    if args.out and os.path.exists(args.out) and not os.path.isdir(args.out):
        p.error(f"--out {args.out!r} is a file; give a directory")
    if args.out:  # refuse before playing, not after
        output_paths(args.out, args.force)
    given = parse_options(args.option)
    # game and options default to the first checkpoint's (a file option it names must be given again)
    named = ((az_checkpoint_path(spec), spec) for spec in args.entrants)
    meta = next((read_metadata(az or spec) for az, spec in named if az or looks_like_checkpoint(spec)), None)
    if game is None and meta is None:
        p.error("--game is required when no checkpoint is given")
    game = game or meta["game"]
    options = core_options(meta, given) if meta is not None and meta["game"] == game else given
    core = make_core(game, **options)
    if args.equal_time:
        result = _equal_time(p, args, core)
    else:
        entrants = make_entrants(args.entrants, core, args.seed, deterministic=not args.sample)
        pairs = [(0, j) for j in range(1, len(entrants))] if args.first_only else None
        result = tournament(core, entrants, args.games, args.seed, pairs,
                            progress=lambda k, n, a, b: print(f"  [{k}/{n}] {a} vs {b}",
                                                              file=sys.stderr, flush=True),
                            ray_address=args.ray, deterministic=not args.sample, save_games=args.save_games)
    print(format_table(result))
    if args.out:
        paths = write_outputs(result, args.out, args.force)
        print(f"wrote {paths['json']} and {paths['plot']}")
    matched = result.get("equal_time", {}).get("matched", True)
    if not matched:
        print(f"yyenvs eval: the equal-time matching ended unmatched ({_unmatched_reason(result)}); the table "
              "is not an equal-time result" + (" (accepted: --accept-unmatched)" if args.accept_unmatched else
                                               "; --accept-unmatched exits 0 anyway"), file=sys.stderr)
    return 0 if matched or args.accept_unmatched else 1


def _equal_time(p, args, core) -> dict:
    """``yyenvs eval A B --equal-time``: the last of the matches that match A's time per move to B's."""
    from yyenvs.evaluation.equal_time import equal_time_match
    if len(args.entrants) != 2 or args.ray is not None or args.save_games or args.sample:
        p.error("--equal-time takes exactly two entrants, without --ray, --save-games or --sample")

    def show_match(match):
        mine, theirs = match["seconds_per_move"]
        busy = match["other_processes_cores"]
        others = f"; other processes kept {busy:.2f} cores busy" if busy is not None else ""
        print(f"  {args.entrants[0]} at {match['simulations']} simulations: {1000 * mine:.2f} ms per move; "
              f"{args.entrants[1]}: {1000 * theirs:.2f} ms per move ({args.clock} time{others})",
              file=sys.stderr, flush=True)
    return equal_time_match(tournament, core, args.entrants[0], args.entrants[1], args.games, args.seed,
                            args.time_tolerance, progress=show_match, clock=args.clock)


def _unmatched_reason(result: dict) -> str:
    """Why an equal-time matching's last match is not matched, in words."""
    et = result["equal_time"]
    last = et["matches"][-1]
    mine, theirs = last["seconds_per_move"]
    why = (f"{1000 * mine:.2f} against {1000 * theirs:.2f} ms per move of {et['clock']} time after "
           f"{len(et['matches'])} matches, tolerance {et['tolerance']:g}")
    busy = last["other_processes_cores"]
    if et["clock"] == "wall" and (busy is None or busy > BUSY_CORES):
        why += ("; the machine's load could not be read" if busy is None else
                f"; other processes kept {busy:.2f} cores busy (the wall clock needs an idle machine)")
    return why


if __name__ == "__main__":
    sys.exit(run("eval", main, sys.argv[1:]))
