"""What a run shows while it runs: the opening line names every limit, a time-limited run's bar runs
over time, losses carry their names, and strength lines come on a time interval into strength.csv, with the
ladder rating in strength_curve.csv."""
from __future__ import annotations

import csv

from tests.training.test_az_trainer import tiny_config


def test_a_time_limited_ppo_run_shows_its_limits_and_time(tmp_path, capsys):
    from yyenvs.commands.train import main
    assert main(["--config", "configs/quick.yaml", "max_minutes=0.03", "total_timesteps=10000000", "num_envs=16",
                 "ppo.n_steps=8", "ppo.batch_size=64", "ppo.n_epochs=1", "ppo.net_arch=[16]", "eval.every=0",
                 "eval.every_minutes=0.01", "eval.games=4", "eval.final_games=0", "eval.table_games=0",
                 "log.tensorboard=false", f"run_dir={tmp_path / 'run'}", "--threads", "1"]) == 0
    err = capsys.readouterr().err
    assert "for 10,000,000 steps or 0.03 minutes, whichever comes first" in err
    assert "1 threads (torch 1)" in err
    assert " of 0:01 | " in err and "steps/s" in err  # elapsed of the 1.8 s limit
    assert "strength at " in err and "vs random" in err and "vs greedy" in err
    rows = list(csv.DictReader(open(tmp_path / "run" / "eval" / "strength.csv")))
    assert rows and {r["opponent"] for r in rows} == {"random", "greedy"}
    assert all(int(r["wins"]) + int(r["draws"]) + int(r["losses"]) == int(r["games"]) == 4 for r in rows)


def test_the_search_trainer_prints_strength_lines_on_a_time_interval(tmp_path, capsys):
    from yyenvs.training.az import AZTrainer
    from yyenvs.training.progress import opening_line
    cfg = tiny_config(tmp_path / "run", total_timesteps=10**7, max_minutes=0.05,
                      **{"eval.every_minutes": 0.012, "eval.games": 2, "log.progress": True,
                         "eval.opponents": ["greedy", "mcts:2"]})
    assert opening_line(cfg, "move", {"threads": 1, "torch": 1}).startswith(
        "training koi {'board_size': 7, 'directions': 4} for 10,000,000 moves or 0.05 minutes, whichever comes first")
    warm = AZTrainer(tiny_config(tmp_path / "warm"), log=lambda m: None)  # compiled before the clock runs
    try:
        warm.train()
    finally:
        warm.close()
    capsys.readouterr()
    t = AZTrainer(cfg, log=lambda m: None)
    try:
        t.train()
    finally:
        t.close()
    err = capsys.readouterr().err
    lines = [x for x in err.replace("\r", "\n").splitlines() if x.startswith("strength at ")]
    assert len(lines) >= 2 and all("vs greedy" in x and "vs mcts:2" in x for x in lines)
    assert "loss: policy " in err and " value " in err and "moves/s" in err and " of 0:03 " in err
    rows = list(csv.DictReader(open(tmp_path / "run" / "eval" / "strength.csv")))
    assert len(rows) == 2 * len(lines) and [r["opponent"] for r in rows[:2]] == ["greedy", "mcts:2"]
    assert float(rows[-1]["minutes"]) > float(rows[0]["minutes"]) and int(rows[-1]["step"]) > int(rows[0]["step"])
    # Koi's default pond has a measured ladder: each evaluation rates the network on it (greedy only here)
    from yyenvs.training.progress import CURVE_COLUMNS
    curve = list(csv.DictReader(open(tmp_path / "run" / "eval" / "strength_curve.csv")))
    assert tuple(curve[0]) == CURVE_COLUMNS and len(curve) == len(lines)
    assert all(int(r["games"]) == 2 for r in curve)  # mcts:2 is not on the ladder
    assert all(float(r["rating_low"]) <= float(r["rating"]) <= float(r["rating_high"]) for r in curve)
    assert all("; rating " in x for x in lines) and (tmp_path / "run" / "eval" / "strength.png").stat().st_size > 0


def test_strength_csv_is_never_written_through_a_link(tmp_path):
    import os

    import pytest

    from yyenvs.core.errors import OptionError
    from yyenvs.training.config import load_config
    from yyenvs.training.progress import StrengthLog
    victim = tmp_path / "victim.txt"
    victim.write_text("keep")
    os.symlink(victim, tmp_path / "strength.csv")
    log = StrengthLog(load_config(None, []), str(tmp_path), 0)
    result = {"step": 1, "greedy": {"wins": 1, "draws": 0, "losses": 1, "win_rate": 0.5, "ci95": [0.1, 0.9]}}
    with pytest.raises(OptionError, match="strength.csv"):
        log.record(result, lambda line: None)
    assert victim.read_text() == "keep"
