"""Batch kernels: written once with ``prange``, run serially or on numba's threads.

Decorate a kernel whose first argument's first axis is the batch with
:func:`batch_kernel`.  Small batches (one game for the AEC env, search
agents) always run the serial loop.  For batches of ``PARALLEL_MIN_BATCH``
rows or more (a kernel with costly rows may set a lower ``parallel_min_batch``),
the default mode ``auto`` measures both versions as it goes and uses the faster:

* on an idle 2-core machine the parallel version is about twice as fast;
* on a machine whose cores are busy (a learner's torch threads, a second job,
  the test runner) a parallel region waits for descheduled threads, and was
  measured 20x *slower* than the serial loop (Yoxii, batch 1024, load 2.3).

``auto`` times the preferred version on every call and the other one now and
then (every 16 calls at first, backing off to every 1024 while the choice
holds), so it follows the machine's load within a few calls.  It measures
each number of numba threads (``numba.set_num_threads``) on its own.  Set
``YYENVS_PARALLEL=0`` (serial) or ``1`` (parallel), or call
:func:`set_parallel`, to force a mode.  Both versions give identical results
and are cached on disk under distinct names (numba's cache key ignores the
``parallel`` flag); the parallel one compiles on first use.

A kernel takes the batch's arrays as its first argument: a plain tuple of the
fields of a named-tuple type (``state.arrays(KoiArrays)``), which it names at
its top (``state = KoiArrays(*arrays)``).  numba types a plain tuple at each
call faster than a named tuple (2.0 against 3.2 microseconds for Yin Yang's
15 arrays), which counts at batch size 1.
Its ``prange`` loop must write them only inside an ``@njit`` function
it calls (for a block of rows): numba's parallel loops drop writes made to a
named tuple's arrays in the loop body, even through names unpacked before it
or through a function inlined there (numba issues 5872 and 7135); reading them
there is safe.  That function takes the arrays out of the tuple once, at its
top: reading a field inside the row loop made Koi's step 1.8 times slower.
"""
from __future__ import annotations

import os
import time
import types

import numba
from numba import njit

#: batches at least this large may use the parallel version
PARALLEL_MIN_BATCH = 256
#: rows per call where a kernel's parallel loop runs over blocks of rows (see the note on named
#: tuples above); a call passes its arrays field by field, so one call per row would cost more
ROWS_PER_BLOCK = 64
_MODES = {"auto": "auto", "1": "parallel", "0": "serial", "parallel": "parallel", "serial": "serial"}
_env_mode = os.environ.get("YYENVS_PARALLEL", "auto").strip().lower()
if _env_mode not in _MODES:
    raise ValueError(f"YYENVS_PARALLEL must be auto, 1 or 0, not {_env_mode!r}")
_mode = _MODES[_env_mode]


def set_parallel(mode) -> None:
    """``True``/``"parallel"``, ``False``/``"serial"`` or ``"auto"``."""
    global _mode
    _mode = {True: "parallel", False: "serial"}.get(mode, _MODES.get(str(mode), None))
    if _mode is None:
        raise ValueError(f"parallel mode must be True, False or 'auto', not {mode!r}")


def parallel_mode() -> str:
    return _mode


def _renamed(fn, suffix: str):
    g = types.FunctionType(fn.__code__, fn.__globals__, fn.__name__ + suffix,
                           fn.__defaults__, fn.__closure__)
    g.__qualname__ = fn.__qualname__ + suffix
    g.__module__ = fn.__module__
    g.__doc__ = fn.__doc__
    return g


class _Choice:
    """What auto mode has measured of one kernel at one number of threads."""

    def __init__(self):
        self.cost = {"serial": None, "parallel": None}  # seconds per row (None: not measured yet)
        self.calls = 0
        self.explore_every = 16


class BatchKernel:
    def __init__(self, fn, parallel_min_batch: int = PARALLEL_MIN_BATCH):
        self.py_func = fn
        self.parallel_min_batch = int(parallel_min_batch)
        # nogil: other threads (a network evaluating a part of a search in flight) run meanwhile
        self.serial = njit(cache=True, nogil=True)(_renamed(fn, "_serial"))
        self._parallel = None  # compiled on first use only
        self.__doc__ = fn.__doc__
        self.__name__ = fn.__name__
        self._warm = {"serial": False, "parallel": False}
        self._choices: dict[int, _Choice] = {}  # auto mode's measurements, per number of numba threads

    @property
    def parallel(self):
        if self._parallel is None:
            self._parallel = njit(cache=True, parallel=True, nogil=True)(_renamed(self.py_func, "_parallel"))
        return self._parallel

    def __call__(self, *args):
        first = args[0][0] if isinstance(args[0], tuple) else args[0]  # a batch array, or a tuple of them
        rows = first.shape[0]
        if rows < self.parallel_min_batch or _mode == "serial":
            return self.serial(*args)
        if _mode == "parallel":
            return self.parallel(*args)
        return self._auto(rows, args)

    @property
    def _cost(self) -> dict:
        """Auto mode's seconds per row of each version at the present number of threads."""
        return self._choice().cost

    def _choice(self) -> _Choice:
        # a choice made on one thread holds nothing for two: each count is measured on its own
        return self._choices.setdefault(numba.get_num_threads(), _Choice())

    def _auto(self, rows, args):
        choice = self._choice()
        cost = choice.cost
        if cost["parallel"] is None:
            version = "parallel"
        elif cost["serial"] is None:
            version = "serial"
        else:
            best = "parallel" if cost["parallel"] <= cost["serial"] else "serial"
            choice.calls += 1
            explore = choice.calls % choice.explore_every == 0
            version = ("serial" if best == "parallel" else "parallel") if explore else best
        fn = self.parallel if version == "parallel" else self.serial
        start = time.perf_counter()
        out = fn(*args)  # a kernel may change its arguments: it runs exactly once
        per_row = (time.perf_counter() - start) / rows
        if not self._warm[version]:  # the first call may include compiling: not a measurement
            self._warm[version] = True
            return out
        old = cost[version]
        before = None if None in cost.values() else min(cost, key=cost.get)
        cost[version] = per_row if old is None else 0.7 * old + 0.3 * per_row
        if before is not None:
            after = min(cost, key=cost.get)
            # back off while the choice holds; look again soon after it changes
            choice.explore_every = 16 if after != before else min(choice.explore_every * 2, 1024)
        return out


@njit(cache=True, inline="always")
def num_blocks(rows):
    """How many blocks of :data:`ROWS_PER_BLOCK` rows cover ``rows``."""
    return (rows + ROWS_PER_BLOCK - 1) // ROWS_PER_BLOCK


@njit(cache=True, inline="always")
def block_rows(k, rows):
    """The rows ``lo, hi`` (``lo <= i < hi``) of block ``k`` of ``rows``."""
    return k * ROWS_PER_BLOCK, min(rows, (k + 1) * ROWS_PER_BLOCK)


def batch_kernel(fn=None, *, parallel_min_batch: int = PARALLEL_MIN_BATCH):
    """``@batch_kernel`` or ``@batch_kernel(parallel_min_batch=N)`` for a kernel
    whose rows are costly enough that threads pay off on smaller batches."""
    if fn is None:
        return lambda f: BatchKernel(f, parallel_min_batch)
    return BatchKernel(fn, parallel_min_batch)
