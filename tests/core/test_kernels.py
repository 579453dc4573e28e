"""The opt-in parallel kernels give exactly the serial results."""
import numpy as np
import pytest

from yyenvs.core.moves import sample_legal
from yyenvs.core import kernels
from yyenvs.core.rng import uniform01
from yyenvs.games import GAMES, make_core


def play(core, batch, steps, parallel):
    kernels.set_parallel(parallel)
    try:
        s = core.init(np.arange(batch, dtype=np.uint64))
        acts = np.empty(batch, dtype=np.int64)
        obs = []
        for _ in range(steps):
            mask = core.legal_action_mask(s)
            obs.append(core.observe(s, s.current_player).sum())
            sample_legal(mask, uniform01(s.seed, s.ply.astype(np.uint64)), acts)
            core.step(s, acts)
            if s.done.all():
                break
        return s, np.array(obs)
    finally:
        kernels.set_parallel("auto")


# Koi with a cap inside 60 plies: truncation is a write at the end of a row's step
CASES = [(game, {}) for game in GAMES] + [("koi", dict(max_plies=25))]


@pytest.mark.parametrize("game, options", CASES, ids=lambda c: c if isinstance(c, str) else "-".join(map(str, c.values())))
@pytest.mark.parametrize("mode", [True, "auto"])
def test_parallel_kernels_match_serial(game, options, mode):
    core = make_core(game, **options)
    batch = kernels.PARALLEL_MIN_BATCH
    steps = 60  # past Koi's ten set-up placements, into swims, wins and ends
    a, oa = play(core, batch, steps, False)
    b, ob = play(core, batch, steps, mode)
    assert np.array_equal(oa, ob)
    assert a.done.any() or game == "yinyang"  # Yin Yang games last about 114 plies
    for f in vars(a):
        assert np.array_equal(getattr(a, f), getattr(b, f)), f


def test_auto_mode_moves_to_the_faster_version(monkeypatch):
    import time as _time

    from numba import prange

    @kernels.batch_kernel
    def double(x, out):
        for i in prange(x.shape[0]):
            out[i] = 2 * x[i]

    calls = []

    def slow_parallel(x, out):  # stands for a parallel region stalled by a busy machine
        calls.append("parallel")
        _time.sleep(0.01)
        out[:] = 2 * x

    double._parallel = slow_parallel
    monkeypatch.setattr(kernels, "_mode", "auto")
    x = np.arange(kernels.PARALLEL_MIN_BATCH, dtype=np.float64)
    out = np.empty_like(x)
    for _ in range(200):
        double(x, out)
        assert np.array_equal(out, 2 * x)
    assert double._cost["serial"] < double._cost["parallel"]
    # after the first measurements, parallel only runs as an occasional re-check
    assert 2 <= len(calls) <= 20
    small = np.arange(3, dtype=np.float64)
    double(small, np.empty_like(small))  # small batches never go parallel
    assert len(calls) <= 20


def test_auto_mode_measures_each_number_of_threads_on_its_own(monkeypatch):
    """A choice made on one thread (parallel slower) does not hold on two (parallel faster): the
    kernel goes parallel within a few calls of the change, not after its 1024-call back-off."""
    import time as _time

    from numba import prange

    @kernels.batch_kernel
    def double(x, out):
        for i in prange(x.shape[0]):
            out[i] = 2 * x[i]
    threads, calls = [1], []

    def parallel(x, out):  # slow alone, quick with company
        calls.append(threads[0])
        _time.sleep(0.004 if threads[0] == 1 else 0.0)
        out[:] = 2 * x

    def serial(x, out):
        _time.sleep(0.002)
        out[:] = 2 * x
    double._parallel, double.serial = parallel, serial
    monkeypatch.setattr(kernels, "_mode", "auto")
    monkeypatch.setattr(kernels.numba, "get_num_threads", lambda: threads[0])
    x = np.arange(kernels.PARALLEL_MIN_BATCH, dtype=np.float64)
    out = np.empty_like(x)
    for _ in range(300):  # long enough for the back-off to reach its longest
        double(x, out)
    assert double._cost["serial"] < double._cost["parallel"]
    threads[0] = 2
    for _ in range(6):
        double(x, out)
    assert calls[-3:] == [2, 2, 2]  # parallel, on two threads
    threads[0] = 1
    double(x, out)
    assert calls[-1] == 2  # back on one thread: serial again, as measured there


def test_kernel_with_its_own_parallel_threshold(monkeypatch):
    """``batch_kernel(parallel_min_batch=N)``: batches of N rows or more may go parallel."""
    from numba import prange

    @kernels.batch_kernel(parallel_min_batch=4)
    def triple(x, out):
        for i in prange(x.shape[0]):
            out[i] = 3 * x[i]

    calls = []
    triple._parallel = lambda x, out: (calls.append(len(x)), triple.serial(x, out))
    monkeypatch.setattr(kernels, "_mode", "parallel")
    for n in (3, 4, 8):
        x = np.arange(n, dtype=np.float64)
        out = np.empty_like(x)
        triple(x, out)
        assert np.array_equal(out, 3 * x)
    assert calls == [4, 8] and triple.parallel_min_batch == 4


def test_yoxii_features_parallel_match_serial():
    core = make_core("yoxii", action_features=True)
    s = core.init(np.arange(32, dtype=np.uint64))
    acts = np.empty(32, dtype=np.int64)
    try:
        for _ in range(14):
            got = []
            for mode in (False, True):
                kernels.set_parallel(mode)
                got.append(core.observe(s, s.current_player))
            assert np.array_equal(got[0], got[1])
            sample_legal(core.legal_action_mask(s), uniform01(s.seed, s.ply.astype(np.uint64)), acts)
            core.step(s, acts)
    finally:
        kernels.set_parallel("auto")


def test_yinyang_blocks_of_rows_have_their_own_scratch():
    """Yin Yang's set-up, step and heuristic use a scratch record per block of rows: with many blocks
    on every thread at once, the parallel kernels give the serial results."""
    import numba
    core = make_core("yinyang", num_players=4)
    seeds = np.arange(4096, dtype=np.uint64)
    runs = []
    try:
        for mode in (False, True):
            kernels.set_parallel(mode)
            numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
            s = core.init(seeds)
            heur = [core.heuristic(s, s.current_player)]
            acts = np.empty(s.batch_size, dtype=np.int64)
            for _ in range(12):
                sample_legal(core.legal_action_mask(s), uniform01(s.seed, s.ply.astype(np.uint64)), acts)
                core.step(s, acts)
                heur.append(core.heuristic(s, s.current_player))
            runs.append((s, np.array(heur)))
    finally:
        kernels.set_parallel("auto")
    (a, ha), (b, hb) = runs
    np.testing.assert_array_equal(ha, hb)
    for f in vars(a):
        assert np.array_equal(getattr(a, f), getattr(b, f)), f


def test_a_state_hands_its_arrays_to_a_kernel_by_their_own_names():
    """``state.arrays(Tuple)``: a plain tuple of the named tuple type's fields in its order, the very
    arrays (no copies), one field too; a kernel names it again with ``Tuple(*arrays)``."""
    from collections import namedtuple

    from yyenvs.games import make_core
    state = make_core("koi").init(np.arange(3))
    Two = namedtuple("Two", "current_player board")
    One = namedtuple("One", "ply")
    two, one = state.arrays(Two), state.arrays(One)
    assert type(two) is tuple and type(one) is tuple  # numba types a plain tuple faster per call
    assert two[0] is state.current_player and two[1] is state.board
    assert Two(*two).board is state.board
    assert one[0] is state.ply and len(one) == 1
