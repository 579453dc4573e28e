"""Batch kernels compiled twice: serial for small batches, parallel for large.

A parallel numba region costs a few microseconds and, when the other cores
are busy, can wait a whole scheduler slice for its slowest thread; one game
(the AEC env, search agents) should not pay that.  Write the kernel once with
``prange`` over the batch (the first argument's first axis) and decorate it
with :func:`batch_kernel`.  Both versions are cached on disk under distinct
names (numba's cache key ignores the ``parallel`` flag).
"""
from __future__ import annotations

import types

from numba import njit

#: batches at least this large use the parallel version
PARALLEL_MIN_BATCH = 256


def _renamed(fn, suffix: str):
    g = types.FunctionType(fn.__code__, fn.__globals__, fn.__name__ + suffix,
                           fn.__defaults__, fn.__closure__)
    g.__qualname__ = fn.__qualname__ + suffix
    g.__module__ = fn.__module__
    g.__doc__ = fn.__doc__
    return g


class BatchKernel:
    def __init__(self, fn):
        self.py_func = fn
        self.serial = njit(cache=True)(_renamed(fn, "_serial"))
        self.parallel = njit(cache=True, parallel=True)(_renamed(fn, "_parallel"))
        self.__doc__ = fn.__doc__
        self.__name__ = fn.__name__

    def __call__(self, *args):
        big = args[0].shape[0] >= PARALLEL_MIN_BATCH
        return (self.parallel if big else self.serial)(*args)


def batch_kernel(fn) -> BatchKernel:
    return BatchKernel(fn)
