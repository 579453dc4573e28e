"""Batch kernels compiled serial, with an opt-in parallel version for large batches.

Write a kernel once with ``prange`` over the batch (the first argument's first
axis) and decorate it with :func:`batch_kernel`.  By default every call runs
the serial loop.  ``YYENVS_PARALLEL=1`` (or :func:`set_parallel`) runs batches
of at least ``PARALLEL_MIN_BATCH`` rows on numba's thread pool.

Why serial by default: a parallel region waits for its slowest thread, and on
a machine whose cores are busy (a learner's torch threads, a second job, the
test runner) that thread is often descheduled.  Measured on the 2-core
development machine at load average 2.3: Yoxii at batch 1024 ran 510k steps/s
serial and 22k parallel; on an idle machine parallel reached about 800k.
Both versions are cached on disk under distinct names (numba's cache key
ignores the ``parallel`` flag).
"""
from __future__ import annotations

import os
import types

from numba import njit

#: batches at least this large use the parallel version when it is enabled
PARALLEL_MIN_BATCH = 256
_parallel = os.environ.get("YYENVS_PARALLEL", "0") not in ("0", "", "false", "no")


def set_parallel(enabled: bool) -> None:
    """Use (or stop using) the parallel kernels for large batches."""
    global _parallel
    _parallel = bool(enabled)


def parallel_enabled() -> bool:
    return _parallel


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
        self._parallel = None  # compiled on first use only
        self.__doc__ = fn.__doc__
        self.__name__ = fn.__name__

    def __call__(self, *args):
        if _parallel and args[0].shape[0] >= PARALLEL_MIN_BATCH:
            if self._parallel is None:
                self._parallel = njit(cache=True, parallel=True)(_renamed(self.py_func, "_parallel"))
            return self._parallel(*args)
        return self.serial(*args)


def batch_kernel(fn) -> BatchKernel:
    return BatchKernel(fn)
