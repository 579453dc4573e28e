"""Equal-time matches: the search's simulations scaled until both sides take as long per move."""
import json

import pytest

from yyenvs.core.contract import OptionError
from yyenvs.games import make_core
from yyenvs.training.equal_time import equal_time_match, search_budget, with_simulations


def test_a_search_spec_gets_a_new_budget_and_keeps_its_settings():
    assert search_budget("mcts")[0] == 100 and search_budget("mcts:7")[0] == 7
    assert with_simulations("mcts", 30) == "mcts:30"
    assert search_budget("az:runs/x/final.safetensors:50:gumbel_scale=0")[0] == 50
    assert with_simulations("az:runs/x/final.safetensors:50:gumbel_scale=0,device=cpu", 80) == \
        "az:runs/x/final.safetensors:80:gumbel_scale=0,device=cpu"
    for spec in ("greedy", "random", "az:runs/x/final.safetensors", "pretrained", "mcts:abc", "mcts:-3"):
        with pytest.raises(OptionError, match=f"must search a number of simulations.*got '{spec}'"):
            search_budget(spec)


def timed_play(fixed, per_simulation, theirs):
    """A stand-in for the tournament whose searcher takes ``fixed + simulations * per_simulation``
    seconds a move and whose opponent ``theirs``; it records the simulations it was given."""
    given = []

    def play(core, entrants, games, seed):
        n = entrants[0].agent.simulations
        given.append(n)
        return {"entrants": [{"name": entrants[0].name, "seconds_per_move": fixed + n * per_simulation},
                             {"name": entrants[1].name, "seconds_per_move": theirs}]}
    return play, given


def test_matching_scales_the_simulations_until_the_times_agree():
    core = make_core("koi")
    play, given = timed_play(0.001, 0.0001, 0.006)
    seen = []
    result = equal_time_match(play, core, "mcts:4", "greedy", games=2, tolerance=0.15, rounds=8,
                              progress=seen.append)
    # 4 -> 6/1.4 x 4 = 17 -> 6/2.7 x 17 = 38 -> 6/4.8 x 38 = 48, at 5.8 ms within 15% of 6 ms
    assert given == [4, 17, 38, 48]
    matches = result["equal_time"]["matches"]
    assert matches == seen and [m["simulations"] for m in matches] == given
    mine, theirs = matches[-1]["seconds_per_move"]
    assert abs(mine / theirs - 1) <= 0.15 and theirs == 0.006
    assert [e["seconds_per_move"] for e in result["entrants"]] == [mine, theirs]
    # the rounds are a limit; a budget that cannot change ends the matching
    play, given = timed_play(0.001, 0.0001, 0.006)
    assert len(equal_time_match(play, core, "mcts:4", "greedy", 2, rounds=2)["equal_time"]["matches"]) == 2
    play, given = timed_play(0.010, 0.0001, 0.001)  # slower than the opponent at one simulation
    equal_time_match(play, core, "mcts:3", "greedy", 2, rounds=8)
    assert given == [3, 1]
    with pytest.raises(OptionError, match="tolerance must lie between 0 and 1"):
        equal_time_match(play, core, "mcts:3", "greedy", 2, tolerance=0.0)


def test_eval_equal_time_reports_the_times_it_measured(tmp_path, capsys):
    from yyenvs.training.evaluate import main
    assert main(["--game", "koi", "mcts:2", "greedy", "--equal-time", "--games", "2", "--out", str(tmp_path)]) == 0
    result = json.loads((tmp_path / "eval.json").read_text())
    matches = result["equal_time"]["matches"]
    assert matches and result["equal_time"]["tolerance"] == 0.15
    # the table's times per move are the last match's, measured there
    assert [e["seconds_per_move"] for e in result["entrants"]] == matches[-1]["seconds_per_move"]
    assert all(t > 0 for m in matches for t in m["seconds_per_move"])
    err = capsys.readouterr().err
    assert err.count("ms per move") == 2 * len(matches)
    with pytest.raises(SystemExit):
        main(["--game", "koi", "mcts:2", "greedy", "random", "--equal-time", "--games", "2"])
    assert "--equal-time takes exactly two entrants" in capsys.readouterr().err
