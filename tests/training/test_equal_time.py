"""Equal-time matches: the search's simulations scaled until both sides take as long per move."""
import json

import pytest

from yyenvs.core.contract import OptionError
from yyenvs.games import make_core
from yyenvs.evaluation.equal_time import equal_time_match, search_budget, with_simulations


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
        mine = fixed + n * per_simulation
        return {"entrants": [{"name": entrants[0].name, "seconds_per_move": mine, "cpu_seconds_per_move": mine},
                             {"name": entrants[1].name, "seconds_per_move": theirs, "cpu_seconds_per_move": theirs}]}
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
    assert result["equal_time"]["matched"] and result["equal_time"]["clock"] == "cpu"
    # the rounds are a limit; a budget that cannot change ends the matching; neither is a match
    play, given = timed_play(0.001, 0.0001, 0.006)
    ended = equal_time_match(play, core, "mcts:4", "greedy", 2, rounds=2)["equal_time"]
    assert len(ended["matches"]) == 2 and not ended["matched"]
    play, given = timed_play(0.010, 0.0001, 0.001)  # slower than the opponent at one simulation
    assert not equal_time_match(play, core, "mcts:3", "greedy", 2, rounds=8)["equal_time"]["matched"]
    assert given == [3, 1]
    with pytest.raises(OptionError, match="the clock must be one of"):
        equal_time_match(play, core, "mcts:3", "greedy", 2, clock="gpu")
    with pytest.raises(OptionError, match="tolerance must lie between 0 and 1"):
        equal_time_match(play, core, "mcts:3", "greedy", 2, tolerance=0.0)


def test_eval_equal_time_reports_the_times_it_measured(tmp_path, capsys):
    from yyenvs.commands.evaluate import main
    assert main(["--game", "koi", "mcts:2", "greedy", "--equal-time", "--games", "2", "--out", str(tmp_path),
                 "--accept-unmatched"]) == 0
    result = json.loads((tmp_path / "eval.json").read_text())
    matches = result["equal_time"]["matches"]
    assert matches and result["equal_time"]["tolerance"] == 0.15
    # the table's times per move are the last match's, measured there
    assert [e["cpu_seconds_per_move"] for e in result["entrants"]] == matches[-1]["seconds_per_move"]
    assert all(t > 0 for m in matches for t in m["seconds_per_move"])
    err = capsys.readouterr().err
    shown = [line for line in err.splitlines() if line.startswith("  mcts:2 at ")]
    assert len(shown) == len(matches) and all(line.count("ms per move") == 2 for line in shown)
    with pytest.raises(SystemExit):
        main(["--game", "koi", "mcts:2", "greedy", "random", "--equal-time", "--games", "2"])
    assert "--equal-time takes exactly two entrants" in capsys.readouterr().err


def test_the_wall_clock_does_not_match_beside_other_work(monkeypatch):
    """On the wall clock a match is matched only if other processes kept the cores (almost) idle."""
    import yyenvs.evaluation.equal_time as et
    core = make_core("koi")
    for busy, matched in ((0.0, True), (0.9, False), (None, False)):
        monkeypatch.setattr(et, "others_busy", lambda before, busy=busy: busy)
        play, _ = timed_play(0.001, 0.0001, 0.0011)
        result = equal_time_match(play, core, "mcts:1", "greedy", 2, clock="wall")["equal_time"]
        assert result["matched"] is matched and result["matches"][-1]["other_processes_cores"] == busy
        play, _ = timed_play(0.001, 0.0001, 0.0011)  # the CPU clock does not ask
        assert equal_time_match(play, core, "mcts:1", "greedy", 2, clock="cpu")["equal_time"]["matched"]


def test_a_matching_outside_its_tolerance_is_reported_and_fails_the_command(tmp_path, capsys):
    from yyenvs.commands.evaluate import main
    args = ["--game", "koi", "mcts:2", "mcts:50", "--equal-time", "--games", "2", "--time-tolerance", "0.000001"]
    assert main(args + ["--out", str(tmp_path / "a")]) == 1
    result = json.loads((tmp_path / "a" / "eval.json").read_text())
    assert result["equal_time"]["matched"] is False and result["equal_time"]["clock"] == "cpu"
    err = capsys.readouterr().err
    assert "the equal-time matching ended unmatched" in err and "--accept-unmatched exits 0 anyway" in err
    assert main(args + ["--accept-unmatched", "--clock", "wall"]) == 0
    assert "(accepted: --accept-unmatched)" in capsys.readouterr().err


def test_others_busy_measures_the_other_processes():
    """A busy loop in a child process shows as (about) a core kept busy by others."""
    import subprocess
    import sys

    from yyenvs.evaluation.equal_time import busy_seconds, others_busy
    if busy_seconds() is None:
        pytest.skip("no /proc/stat here")
    assert others_busy(None) is None
    child = subprocess.Popen([sys.executable, "-c", "import time\nt = time.time()\nwhile time.time() < t + 1: pass"])
    before = busy_seconds()
    child.wait()
    assert others_busy(before) > 0.5


def test_a_search_scaled_onto_its_opponent_stays_a_simulation_apart():
    """mcts:2 against mcts:50 that asks for 50 simulations would be the opponent itself (the same
    entrant twice, refused): it plays 51 instead."""
    from yyenvs.evaluation.equal_time import equal_time_match
    played = []

    def play(core, entrants, games, seed):
        played.append(entrants[0].name)
        mine = 25.0 if len(played) == 1 else 1.0  # 25x too fast at first, then matched
        return {"entrants": [{"cpu_seconds_per_move": 1 / mine, "seconds_per_move": 1 / mine},
                             {"cpu_seconds_per_move": 1.0, "seconds_per_move": 1.0}]}
    result = equal_time_match(play, make_core("koi"), "mcts:2", "mcts:50", games=2)
    assert played == ["mcts:2", "mcts:51"] and result["equal_time"]["matched"]
