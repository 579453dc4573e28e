"""Per-game random streams (counter-based, so rows never share a stream).

A row's stream is a uint64 word stored in its state; each draw advances it by
the SplitMix64 increment and hashes it.  Numba kernels use
:func:`next_u64`/:func:`next_below`; numpy code uses the vectorised versions.
"""
from __future__ import annotations

import numpy as np
from numba import njit

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


@njit(cache=True)
def _hash_rows(words, out):
    for i in range(out.shape[0]):
        acc = np.uint64(0)
        for k in range(words.shape[0]):
            acc = mix64(acc ^ (words[k, i] + np.uint64(0x9E3779B97F4A7C15)))
        out[i] = acc


def hash_u64(*words) -> np.ndarray:
    """SplitMix64 hash of several uint64 words, broadcast against each other."""
    arrays = np.broadcast_arrays(*[np.asarray(w, dtype=np.uint64) for w in words])
    shape = arrays[0].shape
    stacked = np.empty((len(arrays), int(np.prod(shape))), dtype=np.uint64)
    for k, a in enumerate(arrays):
        stacked[k] = a.reshape(-1)
    out = np.empty(stacked.shape[1], dtype=np.uint64)
    _hash_rows(stacked, out)
    return out.reshape(shape)


def uniform01(*words) -> np.ndarray:
    """A float in [0, 1) per element, a pure function of the words."""
    return (hash_u64(*words) >> np.uint64(11)).astype(np.float64) * (1.0 / (1 << 53))


def seeds_from(seed: int | None, n: int) -> np.ndarray:
    """``n`` per-game seeds derived from one master seed (None: fresh entropy)."""
    if seed is None:
        seed = int(np.random.SeedSequence().entropy % (1 << 63))
    base = hash_u64(np.uint64(seed % (1 << 64)))
    return hash_u64(base, np.arange(n, dtype=np.uint64))
