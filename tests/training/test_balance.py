"""benchmarks/balance.py: wins are counted for the turn-order position that earned them, and its
games are those of the match code from the same seeds."""
import importlib.util
import re

import numpy as np
import pytest

from yyenvs.agents import make_agent
from yyenvs.evaluation.matches import pair_seeds, play_games
from yyenvs.games import make_core

from tests import ROOT

_PATH = ROOT / "benchmarks" / "balance.py"
_spec = importlib.util.spec_from_file_location("balance", _PATH)
balance = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(balance)


def test_tally_counts_each_win_for_the_position_of_its_seat():
    scores = np.array([[1, -1], [1, -1], [0, 0], [-1, 1], [1, -1], [-1, -1]], float)
    first = np.array([0, 1, 0, 1, 0, 0])  # game 1: seat 1 moved first, so seat 0 is position 2
    truncated = np.array([False, False, False, False, True, False])
    t = balance.tally(scores, first, truncated)
    assert t["wins"].tolist() == [2, 1]  # games 0 and 3 for the first mover, game 1 for the second
    assert (t["draws"], t["truncated"], t["games"]) == (3, 1, 6)  # a tie, a truncated game, no sole winner
    three = balance.tally(np.array([[-1, -1, 1], [-1, 1, -1]], float), np.array([2, 2]), np.zeros(2, bool))
    assert three["wins"].tolist() == [1, 0, 1]  # seat 2 moved first; seat 1 is the third to move


@pytest.mark.parametrize("game,options", [("koi", {}), ("yinyang", {"num_players": 3})])
def test_self_play_games_are_the_match_codes_games(game, options):
    core = make_core(game, **options)
    seeds = pair_seeds(3, 0, 1, 8)
    ours = balance.play_variant(core, make_agent("greedy", core, 3), seeds, prove_at=None)
    scores, plies = play_games(core, [make_agent("greedy", core, 3)], np.zeros((8, core.num_players)), seeds)
    np.testing.assert_array_equal(ours["scores"], scores)
    assert ours["plies"].sum() == plies == ours["decisions"].sum()  # no chance moves: every ply a decision
    assert ours["legal_per_decision"] >= 1
    state = core.init(seeds)
    np.testing.assert_array_equal(ours["first"], state.current_player)
    t = balance.tally(ours["scores"], ours["first"], ours["truncated"])
    assert t["wins"].sum() + t["draws"] == 8


def test_main_prints_one_line_per_variant_and_repeats_itself(capsys):
    argv = ["--game", "koi", "--agent", "random", "--games", "6", "--variant", "directions=4",
            "--variant", "quick_start=true", "--prove", "0", "--depth", "2", "--budget", "2000"]
    runs = []
    for _ in range(2):
        balance.main(argv)
        lines = [x for x in capsys.readouterr().out.splitlines() if not x.startswith("#")]
        runs.append([re.sub(r" \| \d+ s$", "", x) for x in lines])
    assert runs[0] == runs[1] and len(runs[0]) == 2
    assert runs[0][0].startswith("directions=4 | position 1 wins") and "proven won for the mover" in runs[0][1]
    with pytest.raises(SystemExit):
        balance.main(["--games", "0"])
