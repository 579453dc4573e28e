"""Batch kernels compiled twice: serial for small batches, parallel for large.

A parallel numba region costs a few microseconds and, when the other cores
are busy, can wait a whole scheduler slice for its slowest thread; one game
(the AEC env, search agents) should not pay that.  Write the kernel once with
``prange`` over the batch (the first argument's first axis) and decorate it
with :func:`batch_kernel`.  Both versions are cached on disk under distinct
names (numba's cache key ignores the ``parallel`` flag).
"""
from __future__ import annotations

import os
import time
import types

from numba import njit

#: batches at least this large may use the parallel version
PARALLEL_MIN_BATCH = 256
#: ``YYENVS_PARALLEL``: ``auto`` (default), ``1`` (always for large batches) or ``0`` (never).
#: On a machine whose cores are all busy, a parallel region waits for descheduled
#: threads and becomes far slower than the serial loop (measured 20x on 2 cores at
#: load 5), so ``auto`` goes serial while the 1-minute load average exceeds 1.5x
#: the number of cores (checked at most every 2 seconds).
_mode = os.environ.get("YYENVS_PARALLEL", "auto")
if _mode not in ("auto", "0", "1"):
    raise ValueError(f"YYENVS_PARALLEL must be auto, 0 or 1, not {_mode!r}")
_checked_at = -1e9
_busy = False


def set_parallel(mode) -> None:
    """``True``/``"1"``: parallel for large batches; ``False``/``"0"``: serial; ``"auto"``."""
    global _mode, _checked_at
    _mode = {True: "1", False: "0"}.get(mode, mode)
    _checked_at = -1e9


def parallel_mode() -> str:
    return _mode


def _use_parallel() -> bool:
    global _checked_at, _busy
    if _mode != "auto":
        return _mode == "1"
    now = time.monotonic()
    if now - _checked_at > 2.0:
        _checked_at = now
        try:
            _busy = os.getloadavg()[0] > 1.5 * (os.cpu_count() or 1)
        except OSError:  # pragma: no cover - no load average on this platform
            _busy = False
    return not _busy


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
        if args[0].shape[0] >= PARALLEL_MIN_BATCH and _use_parallel():
            return self.parallel(*args)
        return self.serial(*args)


def batch_kernel(fn) -> BatchKernel:
    return BatchKernel(fn)
