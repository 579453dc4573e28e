"""Per-game random streams (counter-based, so rows never share a stream).

A row's stream is a uint64 word stored in its state; each draw advances it by
the SplitMix64 increment and hashes it.  Numba kernels use
:func:`next_u64`/:func:`next_below`; numpy code uses the vectorised versions.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from yyenvs.core.errors import show


@njit(cache=True, inline="always")
def mix64(z):
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(cache=True, inline="always")
def next_u64(rng, i):
    """Advance stream ``rng[i]`` and return a uniform uint64."""
    rng[i] = rng[i] + np.uint64(0x9E3779B97F4A7C15)
    return mix64(rng[i])


@njit(cache=True, inline="always")
def next_below(rng, i, n):
    """Uniform integer in [0, n) from stream ``rng[i]`` (n > 0)."""
    return np.int64(next_u64(rng, i) % np.uint64(n))


@njit(cache=True, inline="always")
def uniform3(a, b, c):
    """A U[0, 1) from three uint64 words inside a kernel (the hash :func:`hash_u64` makes)."""
    golden = np.uint64(0x9E3779B97F4A7C15)
    acc = mix64(np.uint64(0) ^ (a + golden))
    acc = mix64(acc ^ (b + golden))
    acc = mix64(acc ^ (c + golden))
    return np.float64(acc >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(cache=True)
def _hash_rows(words, out):
    for i in range(out.shape[0]):
        acc = np.uint64(0)
        for k in range(words.shape[0]):
            acc = mix64(acc ^ (words[k, i] + np.uint64(0x9E3779B97F4A7C15)))
        out[i] = acc


def hash_u64(*words) -> np.ndarray:
    """SplitMix64 hash of several uint64 words, broadcast against each other."""
    arrays = [np.asarray(w, dtype=np.uint64) for w in words]
    shape = np.broadcast(*arrays).shape
    stacked = np.empty((len(arrays),) + shape, dtype=np.uint64)
    for k, a in enumerate(arrays):
        stacked[k] = a  # broadcast by the assignment (numpy's own, no Python-level helpers)
    flat = stacked.reshape(len(arrays), -1)
    out = np.empty(flat.shape[1], dtype=np.uint64)
    _hash_rows(flat, out)
    return out.reshape(shape)


def uniform01(*words) -> np.ndarray:
    """A float in [0, 1) per element, a pure function of the words."""
    return (hash_u64(*words) >> np.uint64(11)).astype(np.float64) * (1.0 / (1 << 53))


def _int_like(x) -> bool:
    return isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))


def check_seed(seed, what: str = "seed"):
    """``seed`` as a Python int (None stays None); an integer in [0, 2**64), as
    Gymnasium asks.  Anything else (bools, floats, strings, negatives, 2**64
    or more, which would wrap onto a smaller seed) raises TypeError /
    ValueError naming it."""
    if seed is None:
        return None
    if not _int_like(seed):
        raise TypeError(f"{what} must be a non-negative integer or None, got {show(seed)} "
                        f"({type(seed).__name__})")
    if seed < 0:
        raise ValueError(f"{what} must be a non-negative integer or None, got {show(seed)}")
    if seed >= 1 << 64:
        raise ValueError(f"{what} must be an integer in [0, 2**64) or None, got {show(seed)}")
    return int(seed)


def _seed_ok(x) -> bool:
    if isinstance(x, (float, np.floating)):
        return bool(np.isfinite(x)) and x == int(x) and 0 <= x < 2.0 ** 64
    return _int_like(x) and 0 <= x < 1 << 64


def game_seeds(seeds, who: str = "init") -> np.ndarray:
    """``seeds`` (an integer or integers in [0, 2**64)) as a flat uint64 array.

    Integral floats are taken; NaN, fractions, negatives, bools, strings,
    objects and values of 2**64 or more raise ValueError naming the first one.
    """
    if type(seeds) is np.ndarray and seeds.dtype == np.uint64:  # noqa: E721  (the usual case)
        return seeds.reshape(-1).copy()
    try:
        a = np.asarray(seeds)
    except Exception:  # ragged nesting and the like
        raise ValueError(f"{who}: seeds must be integers in [0, 2**64), got {show(seeds)}") from None
    flat = a.reshape(-1)
    # a flat list value by value: numpy turns [True, 2] into ints, [2**62 + 1, 2.0] into floats
    listed = isinstance(seeds, (list, tuple)) and a.ndim == 1
    given = seeds if listed else flat  # the values as passed, to name one
    kind = a.dtype.kind
    if listed or kind == "O":
        bad = np.array([not _seed_ok(x) for x in given], bool)
    elif kind in "iu":
        bad = flat < 0
    elif kind == "f":
        f = flat.astype(np.float64)  # float16 cannot hold 2**64
        bad = ~(np.isfinite(f) & (f == np.round(f)) & (f >= 0) & (f < 2.0 ** 64))
    else:  # bool, strings, complex ...
        bad = np.ones(flat.shape, bool)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(f"{who}: seeds must be integers in [0, 2**64), got {show(given[i])}"
                         + (f" (seed {i})" if a.ndim else ""))
    if listed or kind == "O":
        return np.array([int(x) for x in given], dtype=np.uint64)
    return flat.astype(np.uint64)


def fresh_seed() -> int:
    """A master seed from fresh entropy (for ``reset(seed=None)`` on an env never seeded)."""
    return int(np.random.SeedSequence().entropy % (1 << 64))


def derive_seeds(master_seed: int, stream, index) -> np.ndarray:
    """The game seeds of game ``index`` of stream ``stream`` under ``master_seed``.

    The one place where game seeds are derived: a stream is an env row (the
    vector env, the Gymnasium and AEC envs are stream 0) or an entrant pairing
    (matches, see :func:`yyenvs.evaluation.matches.pair_stream`); an index counts the
    stream's games (episodes).  ``stream`` and ``index`` are integers or arrays
    of them in [0, 2**64), broadcast against each other; the result is a uint64
    array of their broadcast shape.  A pure function of its three words, so a
    seed gives the same games at any batch size and in any process, and env
    ``i``'s ``k``-th game does not depend on the number of envs.

    ``master_seed`` is an integer in [0, 2**64) (see :func:`check_seed`).
    """
    master = check_seed(master_seed, "master seed")
    if master is None:
        raise TypeError("master seed must be an integer in [0, 2**64), got None")
    return hash_u64(np.uint64(master), stream, index)
