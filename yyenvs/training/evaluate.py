"""Matches between checkpoints and scripted baselines: cross-table, intervals, ratings, plot.

``yyenvs eval --game yoxii runs/yoxii/final.safetensors random greedy --games 1000``

* Every pair of entrants plays ``--games`` games, seats alternating (half the
  games each entrant starts; with 3-4 players the seats alternate A, B, A, B
  and B, A, B, A), all games of a pair batched in one core state; each
  entrant is called once per ply for all the rows where it is to move
  (:mod:`yyenvs.agents.match`).
* The cross-table holds wins / draws / losses of the row entrant against the
  column entrant, with the 95% Wilson interval of the win rate (draws count
  as non-wins).  Multi-player games are scored pairwise from placements.
* Ratings: Bradley-Terry (Elo scale) fitted to the whole table by the MM
  algorithm (:mod:`yyenvs.training.ratings`), ``random`` anchored at 0 when present.
* ``--equal-time`` (two entrants, the first a search): the first's simulations
  are scaled until it takes as long per move as the second, on CPU time by default
  (:mod:`yyenvs.training.equal_time`); the table is the last match's, and a matching
  that ends outside its tolerance exits with status 1 (``--accept-unmatched``: 0).
* Outputs (``--out DIR``): ``eval.json`` (entrants, table, intervals, ratings)
  and ``ratings.png`` (rating of each snapshot against its training step,
  baselines as horizontal lines).
"""
from __future__ import annotations

import itertools
import json
import os
import sys
import time

import numpy as np

from yyenvs.agents.az import az_checkpoint_path
from yyenvs.networks.checkpoint import core_options, looks_like_checkpoint, read_metadata
from yyenvs.cli import ArgumentParser, add_threads_argument, games_int, refuse_unused, run, seed_int
from yyenvs.core.threads import set_threads
from yyenvs.values import parse_options
from yyenvs.core.contract import OptionError
from yyenvs.core.files import check_output
from yyenvs.core.record import record_paths
from yyenvs.games import GAMES, make_core
from yyenvs.agents.match import TIMING
from yyenvs.training.equal_time import BUSY_CORES
from yyenvs.training.matches import Entrant, make_entrants, play_pair
from yyenvs.training.ratings import bradley_terry, wilson_interval


# --- the tournament ------------------------------------------------------------------
def tournament(core, entrants: list[Entrant], games: int, seed: int = 0, pairs=None,
               progress=None, ray_address: str | None = None, deterministic: bool = True,
               save_games=None) -> dict:
    """Round robin (or the given ``pairs`` of indices): the full result dict.

    ``games``: games per pair, or a dict ``{(i, j): games}`` (pairs missing from it
    are skipped).  With ``ray_address`` (``""``: a Ray started on this machine) each
    pair is a Ray task that builds the entrants again from their specs
    (:mod:`yyenvs.training.distributed`), giving the same table; ``deterministic`` is how
    those tasks build checkpoint policies.  ``save_games``: a directory for a record
    of every game (not with Ray)."""
    n = len(entrants)
    if n < 2:
        raise OptionError("evaluation needs at least two entrants")
    per_pair = games if isinstance(games, dict) else None
    if per_pair is not None:
        pairs = [p for p in (pairs if pairs is not None else per_pair) if per_pair.get(tuple(p), 0) > 0]
    for g in (per_pair.values() if per_pair is not None else [games]):
        if g < 2:
            raise OptionError(f"games must be >= 2 per pair (seats alternate), got {g}")
    wins = np.zeros((n, n))
    draws = np.zeros((n, n))
    timing = np.zeros((n, len(TIMING)))  # per entrant: wall and CPU seconds in act, moves made
    pairs = list(itertools.combinations(range(n), 2)) if pairs is None else list(pairs)
    jobs = [(i, j, per_pair[(i, j)] if per_pair is not None else games) for i, j in pairs]
    t0 = time.time()
    if save_games is not None and ray_address is not None:
        raise OptionError("--save-games is not available with --ray (the games are played on other machines)")
    if save_games is not None:  # refuse before playing, not after the first pair
        for i, j, g in jobs:
            record_paths(save_games, f"{i}-{j}", g)
    if ray_address is None:
        results = ((k, play_pair(core, entrants, i, j, g, seed, save_games)) for k, (i, j, g) in enumerate(jobs))
    else:
        from yyenvs.training.distributed import ray_pairs
        results = ray_pairs(core, entrants, jobs, seed, ray_address, deterministic)
    for done, (k, (w, d, t)) in enumerate(results):
        wins += w
        draws += d
        timing += t
        if progress:
            progress(done + 1, len(jobs), entrants[jobs[k][0]].name, entrants[jobs[k][1]].name)
    return result_dict(core, entrants, wins, draws, games if per_pair is None else "varies",
                       time.time() - t0, timing)


def result_dict(core, entrants, wins, draws, games, seconds, timing=None) -> dict:
    n = len(entrants)
    names = [e.name for e in entrants]
    anchor = names.index("random") if "random" in names else None
    played = wins + wins.T + draws
    connected = _connected(played > 0)
    ratings = (bradley_terry(wins, draws, prior=1.0, anchor=anchor) if connected
               else np.full(n, np.nan))
    table = []
    for i in range(n):
        for j in range(n):
            if i == j or played[i, j] == 0:
                continue
            N = played[i, j]
            lo, hi = wilson_interval(wins[i, j], N)
            table.append({"player": names[i], "opponent": names[j], "games": int(N),
                          "wins": int(wins[i, j]), "draws": int(draws[i, j]),
                          "losses": int(wins[j, i]), "win_rate": wins[i, j] / N,
                          "win_rate_ci95": [lo, hi],
                          "score": (wins[i, j] + 0.5 * draws[i, j]) / N})
    return {"game": core.name, "options": core.options, "num_players": core.num_players,
            "games_per_pair": games, "seconds": round(seconds, 2),
            "entrants": [{"name": e.name, "kind": e.kind, "step": e.step,
                          "rating": None if np.isnan(ratings[k]) else round(float(ratings[k]), 1),
                          # batched: the time of its act calls over the moves it made in them
                          **_per_move(timing, k)}
                         for k, e in enumerate(entrants)],
            "wins": wins.astype(int).tolist(), "draws": draws.astype(int).tolist(),
            "table": table,
            "rating_method": "Bradley-Terry (Elo scale) by MM, draws as half wins, 1 virtual draw "
                             "per player vs a 0-rated reference" + (", random = 0" if anchor is not None else "")}


def _per_move(timing, k: int) -> dict:
    """Entrant ``k``'s wall and CPU seconds per move (None where it made no move)."""
    moves = timing[k, 2] if timing is not None else 0
    return {"seconds_per_move": float(timing[k, 0] / moves) if moves else None,
            "cpu_seconds_per_move": float(timing[k, 1] / moves) if moves else None}


def _connected(adj: np.ndarray) -> bool:
    n = adj.shape[0]
    seen = {0}
    todo = [0]
    while todo:
        i = todo.pop()
        for j in np.flatnonzero(adj[i]):
            if j not in seen:
                seen.add(int(j))
                todo.append(int(j))
    return len(seen) == n


# --- reporting -----------------------------------------------------------------------
def format_table(result: dict) -> str:
    """A text cross-table: W-D-L and win rate [95% CI] of each row vs each column, then ratings."""
    names = [e["name"] for e in result["entrants"]]
    cells = {(r["player"], r["opponent"]): r for r in result["table"]}
    width = max(16, max(len(n) for n in names) + 1)
    colw = 26
    lines = [f"{result['game']} ({result['num_players']} players), {result['games_per_pair']} games "
             f"per pair, seats alternating; cell = row's W-D-L vs column, win rate [95% Wilson]"]
    lines.append(" " * width + "".join(n[:colw - 1].rjust(colw) for n in names))
    for a in names:
        row = a.ljust(width)
        for b in names:
            r = cells.get((a, b))
            if a == b or r is None:
                row += "-".rjust(colw)
            else:
                lo, hi = r["win_rate_ci95"]
                row += (f"{r['wins']}-{r['draws']}-{r['losses']} {100 * r['win_rate']:.0f}%"
                        f"[{100 * lo:.0f},{100 * hi:.0f}]").rjust(colw)
        lines.append(row)
    lines.append("ratings (" + result["rating_method"] + "):")
    for e in sorted(result["entrants"], key=lambda e: -(e["rating"] if e["rating"] is not None else -1e9)):
        step = f"  step {e['step']}" if e["step"] is not None else ""
        rating = "n/a" if e["rating"] is None else f"{e['rating']:7.1f}"
        spm, cpu = e.get("seconds_per_move"), e.get("cpu_seconds_per_move")
        per_move = f"  {1000 * spm:.2f} ms per move" if spm is not None else ""
        per_move += f" ({1000 * cpu:.2f} ms CPU)" if cpu is not None else ""
        lines.append(f"  {e['name'].ljust(width)} {rating}{step}{per_move}")
    return "\n".join(lines)


def ratings_figure(result: dict):
    """Each checkpoint's rating against its training step (baselines as lines); without
    checkpoints of a run (no training steps), each entrant's rating as a bar."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    ents = [e for e in result["entrants"] if e["rating"] is not None]
    snaps = sorted((e for e in ents if e["step"] is not None), key=lambda e: e["step"])
    fig, ax = plt.subplots(figsize=(7, 4.2), dpi=110)
    if not snaps:
        ranked = sorted(ents, key=lambda e: e["rating"])
        ax.barh([e["name"] for e in ranked], [e["rating"] for e in ranked], color="C0")
        ax.set_xlabel("rating (Elo scale)")
        ax.set_title(f"{result['game']}: ratings")
        ax.grid(alpha=0.3, axis="x")
        fig.tight_layout()
        return fig
    ax.plot([e["step"] for e in snaps], [e["rating"] for e in snaps], "o-", label="checkpoints")
    for k, e in enumerate(e for e in ents if e["step"] is None):
        ax.axhline(e["rating"], ls="--", lw=1, color=f"C{k + 1}", label=e["name"])
    ax.set_xlabel("training steps")
    ax.set_ylabel("rating (Elo scale)")
    ax.set_title(f"{result['game']}: rating of each snapshot")
    ax.grid(alpha=0.3)
    ax.legend(loc="best", fontsize=8)
    fig.tight_layout()
    return fig


def plot_ratings(result: dict, path: str) -> str:
    """:func:`ratings_figure` as a PNG at ``path``."""
    import matplotlib.pyplot as plt
    fig = ratings_figure(result)
    fig.savefig(path)
    plt.close(fig)
    return path


def output_paths(out_dir: str, force: bool = False) -> dict:
    """The files :func:`write_outputs` writes in ``out_dir``; OptionError if one exists and not ``force``."""
    paths = {"json": os.path.join(out_dir, "eval.json"), "plot": os.path.join(out_dir, "ratings.png")}
    for path in paths.values():
        check_output(path, named=False, force=force)
    return paths


def write_outputs(result: dict, out_dir: str, force: bool = True) -> dict:
    paths = output_paths(out_dir, force)
    try:
        os.makedirs(out_dir, exist_ok=True)
        with open(paths["json"], "w") as f:
            json.dump(result, f, indent=1, default=lambda x: x.item() if hasattr(x, "item") else str(x))
        plot_ratings(result, paths["plot"])
    except OSError as e:
        raise OptionError(f"cannot write to {out_dir!r}: {e.strerror or e}") from None
    return paths


# --- the command ---------------------------------------------------------------------
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
    meta = next((read_metadata(az_checkpoint_path(spec) or spec) for spec in args.entrants
                 if az_checkpoint_path(spec) or looks_like_checkpoint(spec)), None)
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
    from yyenvs.training.equal_time import equal_time_match
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
