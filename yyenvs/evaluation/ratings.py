"""Win-rate intervals and ratings fitted from a whole cross-table.

* :func:`wilson_interval` -- the Wilson score interval of a binomial proportion.
* :func:`bradley_terry` -- Bradley-Terry strengths by Hunter's MM algorithm
  (the minorise-maximise iteration OpenSpiel and Hunter (2004) use), a draw
  counting half a win for each side; returned as Elo-scale ratings
  (``400 * log10(strength)``).

3-4 player games are rated from pairwise results
(:func:`yyenvs.evaluation.matches.pairwise_from_scores`).
"""
from __future__ import annotations

import math

import numpy as np

Z95 = 1.959963984540054


def wilson_interval(successes: float, n: float, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval for ``successes`` out of ``n`` (default 95%)."""
    if n < 0 or successes < 0 or successes > n:
        raise ValueError(f"need 0 <= successes <= n, got successes={successes}, n={n}")
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z / (1 + z2 / n) * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


def bradley_terry(wins: np.ndarray, draws: np.ndarray | None = None, *, prior: float = 0.0,
                  anchor: int | None = None, max_iter: int = 10000, tol: float = 1e-10) -> np.ndarray:
    """Elo-scale ratings from a table of results by the MM algorithm.

    Args:
        wins: (n, n) array; ``wins[i, j]`` = games ``i`` won against ``j``.
        draws: (n, n) symmetric array of draws between ``i`` and ``j`` (half a win each).
        prior: virtual draws of every player against a fixed reference player of
            rating 0; a small value (e.g. 1) keeps ratings finite for an
            undefeated or winless player.  0 gives the plain maximum-likelihood fit.
        anchor: the player whose rating is 0; None centres the ratings on mean 0
            (with ``prior > 0`` the reference player is the zero instead).

    Returns an (n,) array of ratings: ``P(i beats j) = 1 / (1 + 10 ** ((r_j - r_i) / 400))``.

    MM update (Hunter 2004): ``g_i <- W_i / sum_j N_ij / (g_i + g_j)`` with
    ``W_i`` the (half-draw) wins of ``i`` and ``N_ij`` the games between i and j.
    """
    wins = np.asarray(wins, dtype=np.float64)
    n = wins.shape[0]
    if wins.shape != (n, n):
        raise ValueError(f"wins must be square, got shape {wins.shape}")
    draws = np.zeros_like(wins) if draws is None else np.asarray(draws, dtype=np.float64)
    score = wins + 0.5 * draws  # score[i, j]: points i took from j
    games = score + score.T
    np.fill_diagonal(games, 0.0)
    np.fill_diagonal(score, 0.0)
    w = score.sum(axis=1) + 0.5 * prior
    if prior <= 0 and np.any(w <= 0):
        raise ValueError("a player without any win or draw has no finite rating; use prior > 0")
    g = np.ones(n)
    for _ in range(max_iter):
        denom = (games / (g[:, None] + g[None, :])).sum(axis=1) + prior / (g + 1.0)
        new = w / denom
        if prior <= 0:
            new /= np.exp(np.mean(np.log(new)))  # fix the scale (the fit is up to a factor)
        if np.max(np.abs(np.log(new) - np.log(g))) < tol:
            g = new
            break
        g = new
    r = 400.0 * np.log10(g)
    if anchor is not None:
        r = r - r[anchor]
    elif prior <= 0:
        r = r - r.mean()
    return r


def expected_score(r_i: float, r_j: float) -> float:
    """P(i beats j) (draws as half) under the Elo-scale Bradley-Terry model."""
    return 1.0 / (1.0 + 10.0 ** ((r_j - r_i) / 400.0))

