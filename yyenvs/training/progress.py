"""What a training run shows while it runs, for both trainers: the opening line, the progress bar
and the strength lines (with ``run_dir/eval/strength.csv``).

* The opening line names every limit: ``total_timesteps`` and, if set, ``max_minutes``.
* With ``max_minutes`` the bar runs over time (elapsed of the limit) and shows the moves and
  moves/s; without it, over ``total_timesteps``.
* A quick evaluation (the network against ``eval.opponents``, ``eval.games`` each) runs every
  ``eval.every`` moves and every ``eval.every_minutes`` minutes, whichever comes first; each prints a
  strength line and appends its rows to ``strength.csv``: minutes, step, opponent, wins, draws,
  losses, win rate and its 95% interval.
* Where the game has a measured ladder (:mod:`yyenvs.evaluation.ladder`) and opponents on it, the
  evaluation also rates the network on the ladder's scale: a row of ``strength_curve.csv``
  (minutes, step, rating and its 95% interval, games) and the plot ``strength.png``, the ratings
  against minutes beside the ladder's own.
"""
from __future__ import annotations

import csv
import math
import os
import sys
import time

from yyenvs.core.errors import OptionError
from yyenvs.core.files import check_output
from yyenvs.evaluation.ladder import rating_against

#: the columns of strength.csv
STRENGTH_COLUMNS = ("minutes", "step", "opponent", "games", "wins", "draws", "losses", "win_rate",
                    "ci95_low", "ci95_high")
#: the columns of strength_curve.csv
CURVE_COLUMNS = ("minutes", "step", "rating", "rating_low", "rating_high", "games")


def opening_line(cfg: dict, unit: str, threads: dict) -> str:
    """What the run will do, with every limit that can stop it."""
    limits = f"{cfg['total_timesteps']:,} {unit}s"
    if cfg["max_minutes"] > 0:
        limits += f" or {_minutes(cfg['max_minutes'])}, whichever comes first"
    options = f"{cfg['game_options']} " if cfg["game_options"] else ""
    return (f"training {cfg['game']} {options}for {limits}; {cfg['num_envs']} games at once; "
            f"{threads['threads']} threads (torch {threads['torch']}); run_dir {cfg['run_dir']}")


def _minutes(minutes: float) -> str:
    return f"{minutes:g} minute" + ("" if minutes == 1 else "s")


def _clock(seconds: float) -> str:
    seconds = int(seconds)
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}" if seconds >= 3600 \
        else f"{seconds // 60}:{seconds % 60:02d}"


def _timed_bar(**kwargs):
    """A tqdm bar whose text after the bar is :attr:`info` (tqdm's postfix would begin with a comma)."""
    from tqdm import tqdm

    class TimedBar(tqdm):
        info = ""

        @property
        def format_dict(self):
            return {**super().format_dict, "info": self.info}
    return TimedBar(bar_format="{desc}: {percentage:3.0f}%|{bar}| {info}", **kwargs)


class ProgressBar:
    """tqdm's bar over time (a run with ``max_minutes``) or over steps (one without)."""

    def __init__(self, cfg: dict, step: int, unit: str, desc: str):
        from tqdm import tqdm
        self.unit, self.step0, self.t0 = unit, step, time.time()
        self.limit = 60.0 * cfg["max_minutes"] if cfg["max_minutes"] > 0 else None
        if self.limit is not None:
            self.bar = _timed_bar(total=round(self.limit), initial=0, dynamic_ncols=True, file=sys.stderr, desc=desc)
        else:
            self.bar = tqdm(total=cfg["total_timesteps"], initial=step, unit=unit, unit_scale=True,
                            dynamic_ncols=True, file=sys.stderr, mininterval=1.0, smoothing=0.1, desc=desc)
        self.shown = 0.0

    def due(self) -> bool:
        """Whether a second has passed since the bar was last drawn."""
        return time.time() - self.shown > 1.0

    def show(self, step: int, parts: list[str]) -> None:
        """Draw the bar at ``step`` with ``parts`` after it."""
        self.shown = now = time.time()
        run = now - self.t0
        rate = (step - self.step0) / run if run > 0 else 0.0
        if self.limit is not None:
            self.bar.n = min(round(run), self.bar.total)
            self.bar.info = " | ".join([f"{_clock(run)} of {_clock(self.limit)}", f"{step:,} {self.unit}s",
                                        f"{rate:,.0f} {self.unit}s/s"] + parts)
        else:
            self.bar.n = min(step, self.bar.total)
            self.bar.set_postfix_str(" | ".join(parts), refresh=False)
        self.bar.refresh()

    def write(self, line: str) -> None:
        """A line of the run's log on stderr, above the bar."""
        self.bar.write(line, file=sys.stderr)

    def close(self) -> None:
        self.bar.close()


class StrengthLog:
    """The quick evaluations' schedule (moves and minutes), their lines and ``strength.csv``."""

    def __init__(self, cfg: dict, eval_dir: str, step: int, elapsed_before: float = 0.0,
                 ladder: dict[str, float] | None = None):
        """``ladder``: the ratings of the opponents on the game's ladder (None: no ratings)."""
        ev = cfg["eval"]
        self.every_steps = ev["every"] or math.inf
        self.every_seconds = 60.0 * ev["every_minutes"] if ev["every_minutes"] > 0 else math.inf
        self.next_step = (step // self.every_steps + 1) * self.every_steps if self.every_steps != math.inf \
            else math.inf
        self.t0, self.elapsed_before = time.time(), elapsed_before
        self.next_time = self.t0 + self.every_seconds
        self.path = os.path.join(eval_dir, "strength.csv")
        self.curve_path = os.path.join(eval_dir, "strength_curve.csv")
        self.plot_path = os.path.join(eval_dir, "strength.png")
        self.ladder = ladder or {}

    def due(self, step: int) -> bool:
        return step >= self.next_step or time.time() >= self.next_time

    def record(self, result: dict, log) -> None:
        """Schedule the next evaluation, print ``result`` (:meth:`~.run.TrainingRun.quick_eval`) as one
        line and append its rows to strength.csv."""
        step = result["step"]
        if self.every_steps != math.inf:
            self.next_step = (step // self.every_steps + 1) * self.every_steps
        now = time.time()
        if now >= self.next_time:  # on the run's cadence (every_minutes after the last was due), unless that has passed
            self.next_time = max(self.next_time + self.every_seconds, now + self.every_seconds / 2)
        minutes = (self.elapsed_before + time.time() - self.t0) / 60
        rows = [(name, r) for name, r in result.items() if isinstance(r, dict)]
        rated = {name: (r["wins"], r["draws"], r["losses"]) for name, r in rows if name in self.ladder}
        rating = rating_against(rated, self.ladder) if rated else None
        log(f"strength at {_clock(60 * minutes)}, step {step:,}: " + "; ".join(
            f"vs {name} {r['wins']}-{r['draws']}-{r['losses']} ({100 * r['win_rate']:.0f}% "
            f"[{100 * r['ci95'][0]:.0f}-{100 * r['ci95'][1]:.0f}])" for name, r in rows)
            + (f"; rating {rating[0]:.0f} [{rating[1]:.0f} to {rating[2]:.0f}]" if rating else ""))
        _append_rows(self.path, STRENGTH_COLUMNS, [
            [f"{minutes:.2f}", step, name, r["wins"] + r["draws"] + r["losses"], r["wins"], r["draws"],
             r["losses"], f"{r['win_rate']:.4f}", f"{r['ci95'][0]:.4f}", f"{r['ci95'][1]:.4f}"] for name, r in rows])
        if rating:
            _append_rows(self.curve_path, CURVE_COLUMNS, [[f"{minutes:.2f}", step, *(f"{x:.1f}" for x in rating),
                                                           sum(map(sum, rated.values()))]])
            plot_curve(self.curve_path, self.ladder, self.plot_path)


def _append_rows(path: str, columns: tuple[str, ...], rows: list[list]) -> None:
    """Append ``rows`` to the CSV file ``path``, with ``columns`` first in a new file; never through a
    link (the run directory's own file, as its lock file)."""
    new = not os.path.exists(path)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW, 0o644)
    except OSError as e:
        raise OptionError(f"cannot write {path!r}: {e.strerror or e}") from None
    with os.fdopen(fd, "a", newline="") as f:
        out = csv.writer(f)
        if new:
            out.writerow(columns)
        out.writerows(rows)


def _numbers(row: dict, columns) -> bool:
    """Whether every one of ``columns`` in a CSV row holds a finite number."""
    try:
        return all(math.isfinite(float(row[c])) for c in columns)
    except (TypeError, ValueError, KeyError):
        return False


def plot_curve(curve_path: str, ladder: dict[str, float], out_path: str) -> str:
    """The ratings of ``strength_curve.csv`` against minutes, with their intervals and the ladder's
    ratings as levels, as a PNG at ``out_path``."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    with open(curve_path, newline="") as f:
        rows = [r for r in csv.DictReader(f) if _numbers(r, CURVE_COLUMNS)]  # a run killed mid-row leaves a cut one
    minutes = [float(r["minutes"]) for r in rows]
    rating = [float(r["rating"]) for r in rows]
    below = [r - float(row["rating_low"]) for r, row in zip(rating, rows)]
    above = [float(row["rating_high"]) - r for r, row in zip(rating, rows)]
    fig, ax = plt.subplots(figsize=(7, 4), layout="constrained")
    for name, level in ladder.items():
        ax.axhline(level, color="0.6", linewidth=1, linestyle="--")
        ax.annotate(name, (0, level), xycoords=("axes fraction", "data"), xytext=(4, 3),
                    textcoords="offset points", color="0.35", fontsize=9)
    ax.errorbar(minutes, rating, yerr=[below, above], marker="o", capsize=3, color="tab:blue")
    ax.set_xlim(left=0)
    ax.set_xlabel("minutes of training")
    ax.set_ylabel("rating (Elo scale, greedy = 0)")
    ax.set_title("the network's rating on the ladder, with 95% intervals")
    fig.savefig(check_output(out_path, named=False, force=True))
    plt.close(fig)
    return out_path
