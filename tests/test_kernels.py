"""The opt-in parallel kernels give exactly the serial results."""
import numpy as np
import pytest

from yyenvs.agents.base import sample_legal
from yyenvs.core import kernels
from yyenvs.core.rng import uniform01
from yyenvs.games import available_games, make_core


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
        kernels.set_parallel(False)


@pytest.mark.parametrize("game", available_games())
def test_parallel_kernels_match_serial(game):
    core = make_core(game)
    batch = kernels.PARALLEL_MIN_BATCH
    a, oa = play(core, batch, 12, False)
    b, ob = play(core, batch, 12, True)
    assert np.array_equal(oa, ob)
    for f in vars(a):
        assert np.array_equal(getattr(a, f), getattr(b, f)), f
