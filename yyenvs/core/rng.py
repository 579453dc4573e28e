"""Per-game random streams (counter-based, so rows never share a stream).

A row's stream is a uint64 word stored in its state; each draw advances it by
the SplitMix64 increment and hashes it.  Numba kernels use
:func:`next_u64`/:func:`next_below`; numpy code uses the vectorised versions.
"""
from __future__ import annotations

import numpy as np
from numba import njit

_GAMMA = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)


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


def hash_u64(*words: np.ndarray) -> np.ndarray:
    """Vectorised SplitMix64 hash of several uint64 words (broadcast)."""
    with np.errstate(over="ignore"):
        acc = np.zeros(np.broadcast(*words).shape, dtype=np.uint64)
        for w in words:
            z = acc ^ (np.asarray(w, dtype=np.uint64) + _GAMMA)
            z = (z ^ (z >> np.uint64(30))) * _M1
            z = (z ^ (z >> np.uint64(27))) * _M2
            acc = z ^ (z >> np.uint64(31))
    return acc


def uniform01(*words: np.ndarray) -> np.ndarray:
    """A float in [0, 1) per element, a pure function of the words."""
    return (hash_u64(*words) >> np.uint64(11)).astype(np.float64) * (1.0 / (1 << 53))


def seeds_from(seed: int | None, n: int) -> np.ndarray:
    """``n`` per-game seeds derived from one master seed (None: fresh entropy)."""
    if seed is None:
        seed = int(np.random.SeedSequence().entropy % (1 << 63))
    base = hash_u64(np.uint64(seed % (1 << 64)))
    return hash_u64(base, np.arange(n, dtype=np.uint64))
