"""Every registered game variant passes the conformance check, and the check catches broken cores."""
from __future__ import annotations

import numpy as np
import pytest

from yyenvs.core.conformance import ConformanceError, check_core
from yyenvs.games import make_core, variants

CASES = variants()
IDS = [f"{g}-" + ("-".join(f"{k}={v}" for k, v in o.items()) or "default") for g, o in CASES]


@pytest.mark.parametrize("game, options", CASES, ids=IDS)
def test_variant_conforms(game, options):
    check_core(make_core(game, **options), num_games=12)


def _broken(game, **methods):
    """The core of ``game`` with some methods replaced (to show the check fails)."""
    cls = type(make_core(game))
    return type(f"Broken{cls.__name__}", (cls,), methods)()


def test_a_batch_dependent_game_is_caught():
    def _step(self, state, actions):  # the first row's game depends on the batch size
        bad = type(self).__mro__[1]._step(self, state, actions)
        if state.batch_size > 1 and not state.done[0]:
            state.ply[0] += 0 if state.ply[0] < 3 else 1
        return bad
    with pytest.raises(ConformanceError, match="alone differs"):
        check_core(_broken("koi", _step=_step), num_games=4)


def test_a_refusal_that_changes_the_state_is_caught():
    def _step(self, state, actions):
        state.ply[:] += 0
        bad = type(self).__mro__[1]._step(self, state, actions)
        if bad >= 0:
            state.rewards[0, 0] = 0.5  # a half-applied batch
        return bad
    with pytest.raises(ConformanceError, match="changed field rewards"):
        check_core(_broken("yoxii", _step=_step), num_games=4)


def test_an_empty_mask_in_a_live_game_is_caught():
    def _mask(self, state, out):
        type(self).__mro__[1]._mask(self, state, out)
        out[state.ply == 5] = False
    with pytest.raises(ConformanceError, match="no legal action"):
        check_core(_broken("yoxii", _mask=_mask), num_games=4)


def test_observations_out_of_range_are_caught():
    def _observe(self, state, seats, out):
        type(self).__mro__[1]._observe(self, state, seats, out)
        out[state.ply == 4] = 2.0
    with pytest.raises(ConformanceError, match="observation of seat"):
        check_core(_broken("koi", _observe=_observe), num_games=4)


def test_random_play_is_a_function_of_seed_and_ply():
    from yyenvs.core.conformance import random_actions
    core = make_core("koi")
    s = core.init(np.arange(5))
    m = core.legal_action_mask(s)
    a = random_actions(m, s)
    assert m[np.arange(5), a].all()
    assert np.array_equal(random_actions(m[2:3], s.take([2])), a[2:3])
