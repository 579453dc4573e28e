"""Running a search under several kernel modes and thread counts, for the tests that compare them."""
import numba
import numpy as np

from yyenvs.core import kernels

#: the kernels' mode and numba's threads each comparison runs under
TWO = min(2, numba.config.NUMBA_NUM_THREADS)
SETTINGS = (("serial", 1), ("parallel", 1), ("parallel", TWO))


def assert_same_on_each(run, settings=SETTINGS):
    """``run(*extra)`` under each ``(mode, threads, *extra)`` of ``settings`` gives a tuple of arrays;
    every run's arrays equal the first's, bit for bit (the kernels' mode and threads restored)."""
    results = []
    try:
        for mode, threads, *extra in settings:
            kernels.set_parallel(mode)
            numba.set_num_threads(threads)
            results.append(run(*extra))
    finally:
        kernels.set_parallel("auto")
        numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    for other in results[1:]:
        for a, b in zip(results[0], other, strict=True):
            np.testing.assert_array_equal(a, b)
