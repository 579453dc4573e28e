"""A cross-table between entrants: every pair's games, intervals, ratings, the table as text, and
``eval.json`` / ``ratings.png`` (the ``yyenvs eval`` command, :mod:`yyenvs.commands.evaluate`,
prints and writes them).

* Every pair of entrants plays its games, seats alternating (half the games each entrant starts;
  with 3-4 players the seats alternate A, B, A, B and B, A, B, A), all games of a pair batched in
  one core state; each entrant is called once per ply for all the rows where it is to move
  (:mod:`yyenvs.evaluation.matches`).
* The cross-table holds wins / draws / losses of the row entrant against the column entrant, with
  the 95% Wilson interval of the win rate (draws count as non-wins).  Multi-player games are
  scored pairwise from placements.
* Ratings: Bradley-Terry (Elo scale) fitted to the whole table by the MM algorithm
  (:mod:`yyenvs.evaluation.ratings`), ``random`` anchored at 0 when present.
"""
from __future__ import annotations

import itertools
import json
import os
import time

import numpy as np

from yyenvs.core.contract import OptionError
from yyenvs.core.files import check_output
from yyenvs.core.record import record_paths
from yyenvs.evaluation.matches import TIMING, Entrant, play_pair
from yyenvs.evaluation.ratings import bradley_terry, wilson_interval


# --- the tournament ------------------------------------------------------------------
def tournament(core, entrants: list[Entrant], games: int, seed: int = 0, pairs=None,
               progress=None, ray_address: str | None = None, deterministic: bool = True,
               save_games=None) -> dict:
    """Round robin (or the given ``pairs`` of indices): the full result dict.

    ``games``: games per pair, or a dict ``{(i, j): games}`` (pairs missing from it
    are skipped).  With ``ray_address`` (``""``: a Ray started on this machine) each
    pair is a Ray task that builds the entrants again from their specs
    (:mod:`yyenvs.evaluation.cluster`), giving the same table; ``deterministic`` is how
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
        from yyenvs.evaluation.cluster import ray_pairs
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
