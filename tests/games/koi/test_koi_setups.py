"""benchmarks/koi_setups.py: its games play on to their ends, and its counts of the second seat's
wins add up to the games it played."""
import importlib.util
import re

import numpy as np
import pytest

from yyenvs.agents import make_agent
from yyenvs.search.solver import prove
from yyenvs.games import make_core

from tests import ROOT

_PATH = ROOT / "benchmarks" / "koi_setups.py"
_spec = importlib.util.spec_from_file_location("koi_setups", _PATH)
koi_setups = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(koi_setups)


def _agents(core, seed):
    return [make_agent("random", core, seed=seed + 1), make_agent("greedy", core, seed=seed + 2)]


def test_play_moves_only_unfinished_games_and_sums_their_rewards():
    core = make_core("koi", board_size=9, directions=8)
    state = core.init(np.arange(6, dtype=np.uint64))
    agents = _agents(core, 0)
    returns = koi_setups.play(core, agents, state, core.max_game_length)
    assert state.done.all()
    np.testing.assert_array_equal(np.sort(returns, axis=1), np.tile([-1.0, 1.0], (6, 1)))  # one winner each
    ended = state.copy()
    assert not koi_setups.play(core, agents, state, 5).any()  # nothing left to play
    np.testing.assert_array_equal(state.ply, ended.ply)


def test_play_out_counts_add_up_to_the_games_played(capsys):
    games, seed = 12, 40
    koi_setups.main(["--first", "random", "--second", "greedy", "--play-out", "--games", str(games),
                     "--seed", str(seed), "--budget", "200000"])
    line = next(x for x in capsys.readouterr().out.splitlines() if "first swim" in x)
    lost, won_lost, rest, won_rest, won, of = map(int, re.findall(r"\d+", line))
    assert (lost + rest, won_lost + won_rest, of) == (games, won, games)
    assert won_lost <= lost and won_rest <= rest
    assert 0 < won_lost and 0 < won_rest  # both kinds of position, and wins in each
    # the same games played again, straight through: the second seat wins as many
    core = make_core("koi", board_size=9, directions=8)
    state = core.init(np.arange(seed, seed + games, dtype=np.uint64))
    agents = _agents(core, seed)
    koi_setups.play(core, agents, state, koi_setups.SETUP_PLIES + 1)
    assert not state.done.any() and (state.current_player == 1).all()  # the second seat's first swim
    # lost there: every legal move proven to lose, read move by move from a proof of 4 moves
    proof = prove(core, state, 200000, depth=4)
    legal = core.legal_action_mask(state)
    every_move_lost = ((proof.known & (proof.result[:, :, 1] <= -1)) | ~legal).all(axis=1)
    assert every_move_lost.sum() == lost
    returns = koi_setups.play(core, agents, state, core.max_game_length)
    assert (returns[:, 1] > 0).sum() == won


def test_the_two_measurements_are_asked_for_one_at_a_time():
    with pytest.raises(SystemExit):
        koi_setups.main(["--play-out", "--last-placement", "--games", "2"])
    with pytest.raises(SystemExit):
        koi_setups.main(["--play-out", "--depth", "1", "--games", "2"])


@pytest.mark.parametrize("option, value", [("--games", "0"), ("--seed", "-1"), ("--budget", "-1"),
                                           ("--depth", "-1")])
def test_out_of_range_options_are_refused_by_name_before_any_game(option, value, capsys):
    with pytest.raises(SystemExit) as stop:
        koi_setups.main(["--first", "mcts:1600", option, value])  # would take minutes if it played
    assert stop.value.code == 2 and option in capsys.readouterr().err
