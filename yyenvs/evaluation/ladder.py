"""The fixed ladder a training run is measured against, and a rating on the ladder's scale.

The ladder is three scripted agents, ``greedy``, ``mcts:100`` and ``mcts:400``, whose Elo-scale
ratings (``greedy`` = 0) were measured once per game on its default options by a round robin
(``benchmarks/ladder_ratings.py``, stored in ``ladder.json`` beside this module).  An agent's
results against the ladder then give it a rating on the same scale
(:func:`rating_against`), so that ratings from different runs and different minutes compare.
"""
from __future__ import annotations

import json
import math
from importlib import resources

from yyenvs.evaluation.ratings import expected_score

#: the ladder's agents, weakest first
LADDER = ("greedy", "mcts:100", "mcts:400")
#: the drop in log-likelihood that bounds a 95% interval (half the chi-squared quantile, 1 degree)
_HALF_CHI2_95 = 1.920729410347062
#: ratings are searched in this range (Elo points)
_LOW, _HIGH = -4000.0, 4000.0


def ladder_table() -> dict:
    """The stored ladder: per game, the options it was measured on, the ratings, games per pair and
    the command that measured it."""
    return json.loads(resources.files("yyenvs.evaluation").joinpath("ladder.json").read_text())


def ladder_ratings(core) -> dict[str, float] | None:
    """The ladder's ratings for ``core``'s game, or None where ``core``'s options decide another game
    than the one measured (the ratings hold on the options they were measured on only)."""
    entry = ladder_table().get(core.name)
    if entry is None or rules_options(core, core.options) != rules_options(core, entry["options"]):
        return None
    return {name: float(r) for name, r in entry["ratings"].items()}


def rules_options(core, options: dict) -> dict:
    """Of ``options`` (the others at their defaults), those that make ``core``'s game what it is."""
    options = core.spec.check_options(options)
    return core.spec.deciding({o.name: options[o.name] for o in core.spec.options if o.rules})


def _log_likelihood(r: float, games: list[tuple[float, float, float]]) -> float:
    """Of rating ``r`` given (opponent rating, points, games) triples (points: wins + draws / 2)."""
    total = 0.0
    for opponent, points, n in games:
        e = min(max(expected_score(r, opponent), 1e-300), 1.0 - 1e-16)
        total += points * math.log(e) + (n - points) * math.log1p(-e)
    return total


def _bisect(f, lo: float, hi: float, steps: int = 80) -> float:
    """Where ``f``, negative at ``lo`` and positive at ``hi`` and changing sign once between, crosses 0."""
    for _ in range(steps):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if f(mid) < 0 else (lo, mid)
    return 0.5 * (lo + hi)


def rating_against(results: dict[str, tuple[int, int, int]], ratings: dict[str, float]) -> tuple[float, float, float]:
    """An agent's rating and its 95% interval from its ``(wins, draws, losses)`` against opponents of
    known ``ratings`` (Elo scale).  The maximum-likelihood rating under the Elo model, after one virtual
    draw against each opponent (so that winning or losing every game still gives a finite rating);
    the interval is where the log-likelihood lies within 1.92 of its maximum."""
    games = []
    for name, (w, d, l) in results.items():
        if name not in ratings:
            raise ValueError(f"no rating for opponent {name!r}; rated: {sorted(ratings)}")
        if min(w, d, l) < 0:
            raise ValueError(f"results against {name!r} must not be negative, got {(w, d, l)}")
        games.append((float(ratings[name]), w + 0.5 * d + 0.5, w + d + l + 1.0))
    if not games:
        raise ValueError("a rating needs results against at least one rated opponent")
    slope = lambda r: sum(n * expected_score(r, o) - p for o, p, n in games)  # noqa: E731  (-dL/dr, up to a factor)
    best = _bisect(slope, _LOW, _HIGH)
    top = _log_likelihood(best, games)
    drop = lambda r: top - _log_likelihood(r, games) - _HALF_CHI2_95  # noqa: E731
    low = _bisect(lambda r: -drop(r), _LOW, best) if drop(_LOW) > 0 else _LOW
    high = _bisect(drop, best, _HIGH) if drop(_HIGH) > 0 else _HIGH
    return best, low, high
