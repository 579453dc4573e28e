"""The ladder a run is rated against: the rating from results against rated opponents, the stored
ladder, and the strength curve a run writes."""
from __future__ import annotations

import csv
import math

import pytest

from yyenvs.evaluation.ladder import LADDER, ladder_ratings, ladder_table, rating_against
from yyenvs.evaluation.ratings import expected_score
from yyenvs.games import make_core


def test_even_results_rate_an_agent_as_its_opponent():
    rating, low, high = rating_against({"a": (20, 0, 20)}, {"a": 137.0})
    assert rating == pytest.approx(137.0, abs=1e-6)
    assert low < 137.0 < high and high - 137.0 == pytest.approx(137.0 - low, abs=1e-6)


def test_the_rating_is_the_maximum_likelihood_one_after_a_virtual_draw():
    rating, _, _ = rating_against({"a": (30, 2, 8)}, {"a": 50.0})
    p = (30 + 1 + 0.5) / 41  # points over games, each with the virtual draw
    assert rating == pytest.approx(50.0 + 400 * math.log10(p / (1 - p)), abs=1e-6)
    # against several opponents the expected points equal the points taken
    results, ratings = {"a": (10, 0, 30), "b": (25, 5, 10)}, {"a": 300.0, "b": -100.0}
    rating, low, high = rating_against(results, ratings)
    expected = sum((sum(r) + 1) * expected_score(rating, ratings[k]) for k, r in results.items())
    assert expected == pytest.approx(10 + 0.5 + 27.5 + 0.5, abs=1e-6)
    assert low < rating < high


def test_more_games_narrow_the_interval_and_a_clean_sweep_stays_finite():
    _, low_few, high_few = rating_against({"a": (6, 0, 4)}, {"a": 0.0})
    _, low_many, high_many = rating_against({"a": (600, 0, 400)}, {"a": 0.0})
    assert high_many - low_many < (high_few - low_few) / 5
    rating, low, high = rating_against({"a": (40, 0, 0)}, {"a": 0.0})
    assert 400 < rating < 1000 and low < rating < high < 4000


def test_an_unrated_opponent_or_no_result_is_refused():
    with pytest.raises(ValueError, match="no rating for opponent 'b'"):
        rating_against({"b": (1, 0, 1)}, {"a": 0.0})
    with pytest.raises(ValueError, match="at least one"):
        rating_against({}, {"a": 0.0})


def test_the_stored_ladder_rises_from_greedy_on_each_game_default_options_only():
    table = ladder_table()
    assert {"yoxii", "koi"} <= set(table) <= {"yoxii", "koi", "yinyang"}
    for game, entry in table.items():
        ratings = ladder_ratings(make_core(game))
        assert list(ratings) == list(LADDER) and ratings["greedy"] == 0.0
        assert ratings["greedy"] < ratings["mcts:100"] < ratings["mcts:400"], game
        assert entry["games_per_pair"] >= 100 and entry["command"].startswith("python benchmarks/ladder_ratings.py")
    assert ladder_ratings(make_core("koi", board_size=9, directions=8)) is None
    assert ladder_ratings(make_core("yinyang", num_players=3)) is None
    assert ladder_ratings(make_core("yoxii", action_features=True)) is not None  # the same game, observed otherwise


def test_a_strength_log_with_a_ladder_writes_the_curve_and_its_plot(tmp_path):
    from yyenvs.training.config import load_config
    from yyenvs.training.progress import CURVE_COLUMNS, StrengthLog
    log = StrengthLog(load_config(None, []), str(tmp_path), 0, ladder={"greedy": 0.0, "mcts:100": 200.0})
    lines = []
    for step, (w, l) in enumerate([(2, 8), (6, 4)]):
        log.record({"step": step, "greedy": {"wins": w, "draws": 0, "losses": l, "win_rate": w / 10, "ci95": [0, 1]},
                    "random": {"wins": 10, "draws": 0, "losses": 0, "win_rate": 1.0, "ci95": [0.7, 1]}}, lines.append)
    rows = list(csv.DictReader(open(tmp_path / "strength_curve.csv")))
    assert tuple(rows[0]) == CURVE_COLUMNS and len(rows) == 2
    assert [int(r["games"]) for r in rows] == [10, 10]  # only the rated opponent counts
    assert float(rows[0]["rating"]) < 0 < float(rows[1]["rating"])
    assert all(float(r["rating_low"]) < float(r["rating"]) < float(r["rating_high"]) for r in rows)
    assert "; rating " in lines[-1] and (tmp_path / "strength.png").stat().st_size > 1000


def test_the_plot_skips_a_row_cut_short_by_a_killed_run(tmp_path):
    from yyenvs.training.progress import CURVE_COLUMNS, plot_curve
    curve = tmp_path / "strength_curve.csv"
    curve.write_text(",".join(CURVE_COLUMNS) + "\n1.0,10,100.0,50.0,150.0,40\n2.0,20,12")
    plot_curve(str(curve), {"greedy": 0.0}, str(tmp_path / "strength.png"))
    assert (tmp_path / "strength.png").stat().st_size > 1000
