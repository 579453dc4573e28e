"""Board symmetries (yyenvs.core.symmetry, core.symmetries()): the rules really are unchanged by them.

For random positions and every transform g: the legal actions of g(state) are g
of the legal actions, the observation of g(state) is g of the observation, and
stepping g(state) with g(action) gives g of the stepped state.  g is applied
to the state arrays here, independently of the maps under test.
"""
from __future__ import annotations

import numpy as np
import pytest

from yyenvs.agents import RandomAgent
from yyenvs.core.symmetry import DIHEDRAL, direction_map, point_map
from yyenvs.games import GAMES, make_core
from yyenvs.games.yoxii.rules import CELL_RC, NUM_CELLS, SIZE


def turned_koi(core, s, sym):
    n = core.board_size
    moved = point_map(n, n, sym.k, sym.flip)
    t = s.copy()
    t.board[:, moved] = s.board
    t.koi[:] = np.where(s.koi >= 0, moved[np.maximum(s.koi, 0)], -1)
    return t


def turned_yoxii(core, s, sym):
    cell_of_point = np.full(SIZE * SIZE, -1)
    cell_of_point[CELL_RC[:, 0] * SIZE + CELL_RC[:, 1]] = np.arange(NUM_CELLS)
    moved = cell_of_point[point_map(SIZE, SIZE, sym.k, sym.flip)[CELL_RC[:, 0] * SIZE + CELL_RC[:, 1]]]
    t = s.copy()
    t.board[:, moved] = s.board
    t.totem[:] = moved[s.totem]
    return t


@pytest.mark.parametrize("game,options,turn", [
    ("koi", {}, turned_koi), ("koi", {"board_size": 7, "directions": 4}, turned_koi),
    ("koi", {"quick_start": True}, turned_koi), ("yoxii", {}, turned_yoxii)])
def test_rules_commute_with_every_symmetry(game, options, turn):
    core = make_core(game, **options)
    syms = core.symmetries()
    assert len(syms) == 8 and GAMES[game].symmetry == "D4"
    np.testing.assert_array_equal(syms[0].action, np.arange(core.num_actions))  # the identity first
    assert len({s.action.tobytes() for s in syms}) == 8  # eight different transforms
    for s in syms:
        np.testing.assert_array_equal(np.sort(s.action), np.arange(core.num_actions))  # a permutation
    state = core.init(np.arange(48))
    rnd = RandomAgent(core, 3)
    for _ in range(25):
        live = ~state.done
        mask = core.legal_action_mask(state)
        obs = core.observe(state, state.current_player)
        a = rnd.act(state, mask)
        after = state.copy()
        core.step(after, a)
        for sym in syms:
            g = turn(core, state, sym)
            np.testing.assert_array_equal(core.legal_action_mask(g)[live], sym.per_action(mask)[live])
            np.testing.assert_array_equal(core.observe(g, g.current_player)[live], sym.observations(obs)[live])
            core.step(g, np.where(a >= 0, sym.action[np.maximum(a, 0)], -1))
            expected = turn(core, after, sym)
            for name in vars(expected):
                np.testing.assert_array_equal(getattr(g, name), getattr(expected, name), err_msg=name)
        state = after


def test_maps_are_the_transform_of_the_grid():
    # a quarter turn (numpy's rot90: counter-clockwise) takes north to west and the top-left corner
    # to the bottom-left; the mirror swaps east and west
    eight = ((-1, 0), (-1, 1), (0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1))
    assert direction_map(eight, 1, False)[0] == 6 and direction_map(eight, 0, True)[2] == 6
    assert point_map(3, 3, 1, False)[0] == 6 and point_map(3, 3, 0, True)[0] == 2
    for k, flip in DIHEDRAL:  # directions stay a permutation, opposite directions stay opposite
        d = direction_map(eight, k, flip)
        assert sorted(d) == list(range(8)) and all((d[(i + 4) % 8] - d[i]) % 8 == 4 for i in range(8))


def test_games_without_symmetries():
    assert make_core("yoxii", action_features=True).symmetries() == ()  # a flat observation
    assert make_core("yinyang").symmetries() == () and GAMES["yinyang"].symmetry == ""
