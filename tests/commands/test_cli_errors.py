"""User errors on the command line: one line ``yyenvs <cmd>: error: ...`` on stderr, exit status 2."""
from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from yyenvs.commands.cli import main
from yyenvs.games.yinyang.data import DEFAULT_DATA_FILE

from tests import ROOT


def run_cli(args, capsys):
    try:
        rc = main(list(args))
    except SystemExit as e:  # argparse exits by itself
        rc = e.code
    _, err = capsys.readouterr()
    return rc, err


def assert_one_line_error(rc, err, *mentions):
    lines = [line for line in err.splitlines() if line.strip()]
    assert rc == 2, err
    assert "Traceback" not in err
    assert len(lines) == 1, err
    assert re.match(r"yyenvs( [a-z]+)?: error: \S", lines[0]), err
    for m in mentions:
        assert m in lines[0], (m, err)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("cli")
    with open(DEFAULT_DATA_FILE, encoding="utf-8") as f:
        text = f.read()
    (d / "utf16.json").write_bytes(text.encode("utf-16"))
    (d / "typo.json").write_text(text.replace('"per_kind"', '"per_knd"', 1))
    (d / "bogus.zip").write_bytes(b"not a zip file")
    (d / "afile").write_text("x")
    (d / "utf16.yaml").write_bytes("game: koi\n".encode("utf-16"))
    (d / "list.yaml").write_text("- game\n- koi\n")
    (d / "deep.yaml").write_text("game_options: " + "[" * 100_000 + "]" * 100_000 + "\n")
    (d / "bomb.yaml").write_text("game_options:\n  a: &a [x, x, x, x, x, x, x, x, x]\n"
                                 + "".join(f"  {c}: &{c} [*{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}]\n"
                                           for p, c in zip("abcdefgh", "bcdefghi")))
    (d / "dup.yaml").write_text("seed: 1\nseed: 2\n")
    return d


CASES = [  # (argv, words the error line must contain); "{d}" is the fixture directory
    (["play", "--agents", "foo", "random", "--games", "2"], ["foo"]),
    (["play", "--agents", "random", "mcts:0", "--games", "2"], ["mcts:0"]),
    (["play", "--agents", "mcts:x", "random", "--games", "2"], ["mcts:x"]),
    (["play", "--agents", "az:x.safetensors:8:gumbel_scale=nan", "random", "--games", "2"],
     ["gumbel_scale must be a finite number"]),
    (["play", "--agents", "az:x.safetensors:8:noise=0", "random", "--games", "2"], ["unknown search option 'noise'"]),
    (["play", "--agents", "{d}/missing.safetensors", "random", "--games", "2"], ["missing.safetensors"]),
    (["play", "--agents", "{d}/bogus.zip", "random", "--games", "2"], ["bogus.zip"]),
    (["play", "--games", "0"], ["--games", "'0'"]),
    (["play", "--games", "-4"], ["--games", "'-4'"]),
    (["play", "--games", "2.5"], ["--games", "'2.5'"]),
    (["play", "--seed", "-1"], ["--seed", "'-1'"]),
    (["play", "--seed", str(2**64)], ["--seed", str(2**64)]),
    (["play", "--game", "chess"], ["chess"]),
    (["play", "--option", "nosuch=1", "--games", "2"], ["nosuch"]),
    (["play", "--option", "action_features"], ["action_features"]),
    (["play", "--option", "=1"], ["'=1'"]),
    (["play", "--option", "action_features=[", "--games", "2"], ["action_features=["]),
    (["play", "--option", "action_features=maybe", "--games", "2"], ["action_features", "maybe"]),
    (["play", "--option", "action_features=" + "9" * 5000], ["--option"]),
    (["play", "--option", "action_features=" + "[" * 5000], ["--option"]),
    (["play", "--game", "koi", "--option", "board_size=4", "--games", "2"], ["board_size", "4"]),
    (["play", "--game", "yinyang", "--option", "num_players=3", "--games", "2"], ["3 players"]),
    (["play", "--game", "yinyang", "--option", "data_file=/dev/zero"], ["/dev/zero"]),
    (["play", "--game", "yinyang", "--option", "data_file={d}"], ["not a regular file"]),
    (["play", "--game", "yinyang", "--option", "data_file={d}/utf16.json"], ["utf16.json", "UTF-8"]),
    (["play", "--game", "yinyang", "--option", "data_file={d}/typo.json"], ["goods.per_knd", "per_kind"]),
    (["play", "--game", "yinyang", "--option", "data_file={d}/none.json"], ["none.json"]),
    (["play", "--frob"], ["--frob"]),
    (["play", "--games", "1000000000000"], ["--games", "10,000,000"]),
    (["play", "--agents", "mcts:99999999999999999999", "random", "--games", "2"], ["mcts", "1,000,000"]),
    (["play", "--option", "action_features=!!python/name:os.system"], ["--option", "tag"]),
    (["play", "--option", "action_features=&a [1]"], ["--option", "anchor"]),
    (["play", "--option", "action_features={a: 1, a: 2}"], ["--option", "duplicate"]),
    (["play", "--option", f"action_features={2**64}"], ["--option", "64 bits"]),
    (["play", "--option", "action_features=" + "[" * 100_000], ["--option", "64 levels"]),
    (["play", "--option", "action_features=" + "- " * 1000 + "1"], ["--option", "64 levels"]),
    (["bench", "--batches", "100000000000"], ["--batches", "1,048,576"]),
    (["bench", "--batches", "0"], ["--batches", "'0'"]),
    (["bench", "--batches", "64", "-1"], ["--batches", "'-1'"]),
    (["bench", "--batches", "1.5"], ["--batches", "'1.5'"]),
    (["bench", "--batches", "many"], ["--batches", "'many'"]),
    (["bench", "--batches"], ["--batches"]),
    (["bench", "--seconds", "0"], ["--seconds", "'0'"]),
    (["bench", "--seconds", "-1"], ["--seconds", "'-1'"]),
    (["bench", "--seconds", "nan"], ["--seconds", "'nan'"]),
    (["bench", "--seconds", "inf"], ["--seconds", "'inf'"]),
    (["bench", "--repeats", "0"], ["--repeats", "'0'"]),
    (["bench", "--repeats", "x"], ["--repeats", "'x'"]),
    (["bench", "--games", "chess"], ["chess"]),
    (["bench", "--threads", "0"], ["--threads", "'0'"]),
    (["bench", "--threads", "100000"], ["--threads", "NUMBA_NUM_THREADS"]),
    (["frob"], ["frob"]),
    # options that would have no effect in the command given
    (["eval", "--game", "koi", "random", "greedy", "--time-tolerance", "nan"], ["--time-tolerance", "--equal-time"]),
    (["eval", "--game", "koi", "random", "greedy", "--time-tolerance", "-5", "--clock", "wall"],
     ["--time-tolerance, --clock only work with --equal-time"]),
    (["eval", "--game", "koi", "random", "greedy", "--accept-unmatched"], ["--accept-unmatched", "--equal-time"]),
    (["play", "--game", "koi", "--terminal"], ["--terminal only works with --human"]),
    (["play", "--game", "koi", "--port", "8000", "--no-browser"], ["--port, --no-browser", "--human"]),
    (["eval", "--game", "koi", "random", "greedy", "--threads", "x"], ["--threads", "'x'"]),
    (["train", "--threads", "2000"], ["--threads", "1024"]),
    (["checkpoint", "convert", "--trust", "{d}/bogus.zip"], ["bogus.zip"]),  # refused before any unpickling
]


@pytest.mark.parametrize("argv, words", CASES, ids=[" ".join(c[0])[:60] for c in CASES])
def test_user_error_is_one_line(argv, words, files, capsys):
    argv = [a.replace("{d}", str(files)) for a in argv]
    assert_one_line_error(*run_cli(argv, capsys), *words)


TRAIN_CASES = [  # config errors: the training extra must be importable
    (["train", "ppo.gamma=.nan"], ["ppo.gamma", "nan"]),
    (["train", "ppo.learning_rate=.inf"], ["ppo.learning_rate", "inf"]),
    (["train", "seed=-1"], ["seed", "-1"]),
    (["train", "eval.opponents=[foo]"], ["eval.opponents", "foo"]),
    (["train", "selfplay.baselines=[random, mcts:0]"], ["selfplay.baselines", "mcts:0"]),
    (["train", "selfplay.baselines=['az:x.safetensors:8:c_puct=-1']"], ["selfplay.baselines", "c_puct=-1"]),
    (["train", "game_options=3"], ["game_options", "3"]),
    (["train", "run_dir={d}/afile"], ["run_dir", "afile"]),
    (["train", "--config", "{d}/utf16.yaml"], ["utf16.yaml", "UTF-8"]),
    (["train", "--config", "{d}/list.yaml"], ["list.yaml", "mapping"]),
    (["train", "--config", "{d}/none.yaml"], ["none.yaml"]),
    (["train", "--config", "/dev/zero"], ["/dev/zero"]),
    (["train", "--config", "{d}/deep.yaml"], ["deep.yaml", "64 levels"]),
    (["train", "--config", "{d}/bomb.yaml"], ["bomb.yaml", "anchor"]),
    (["train", "--config", "{d}/dup.yaml"], ["dup.yaml", "duplicate", "seed"]),
    (["train", "game_options.board_size=" + "[" * 100_000], ["board_size", "64 levels"]),
    (["train", "num_envs=1000000000000"], ["num_envs", "1048576"]),
    (["train", "ppo.net_arch=[1000000000]"], ["ppo.net_arch", "65536"]),
    (["train", "ppo.net_arch=[65536, 65536]"], ["ppo.net_arch", "weights"]),
    (["train", "ppo.cnn_channels=[5000]"], ["ppo.cnn_channels", "4096"]),
    (["train", "selfplay.baselines=[mcts:99999999999999999999]"], ["selfplay.baselines", "1,000,000"]),
    (["train", "selfplay.baselines=[mcts:1000001]"], ["selfplay.baselines", "1,000,000"]),
    (["train", "eval.games=1000000000000"], ["eval.games", "10000000"]),
    (["train", "eval.final_games=1000000000000"], ["eval.final_games", "10000000"]),
    (["train", "ppo.n_steps=100000", "num_envs=100000"], ["ppo.n_steps", "num_envs", "16,777,216"]),
]


@pytest.mark.parametrize("argv, words", TRAIN_CASES, ids=[" ".join(c[0])[:60] for c in TRAIN_CASES])
def test_train_config_error_is_one_line(argv, words, files, capsys):
    pytest.importorskip("sb3_contrib")
    argv = [a.replace("{d}", str(files)) for a in argv]
    assert_one_line_error(*run_cli(argv, capsys), *words)


def test_deep_config_is_refused_quickly(files, capsys):
    pytest.importorskip("sb3_contrib")
    import time
    t = time.perf_counter()
    assert_one_line_error(*run_cli(["train", "--config", f"{files}/deep.yaml"], capsys), "64 levels")
    assert time.perf_counter() - t < 5


def test_bounds_still_accept_their_limits():
    from yyenvs.commands.cli import MAX_BATCH, MAX_GAMES, batch_int, bounded_int, games_int
    assert games_int(str(MAX_GAMES)) == MAX_GAMES and batch_int(str(MAX_BATCH)) == MAX_BATCH
    import argparse
    with pytest.raises(argparse.ArgumentTypeError, match="from 3 to 5"):
        bounded_int(3, 5)("6")


def test_eval_unknown_entrant_is_one_line(capsys):
    pytest.importorskip("sb3_contrib")
    assert_one_line_error(*run_cli(["eval", "random", "foo", "--game", "yoxii"], capsys), "foo")


@pytest.mark.parametrize("module, argv, word", [
    ("yyenvs.commands.play", ["--games", "0"], "--games"),
    ("yyenvs.commands.play", ["--agents", "foo", "random", "--games", "2"], "foo"),
    ("yyenvs.commands.bench", ["--batches", "0"], "--batches"),
])
def test_module_entry_points_behave_the_same(module, argv, word):
    r = subprocess.run([sys.executable, "-m", module, *argv], capture_output=True, text=True,
                       timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert_one_line_error(r.returncode, r.stderr, word)


def test_a_bug_keeps_its_traceback(monkeypatch):
    import yyenvs.commands.play

    def broken(argv):
        raise KeyError("a bug")
    monkeypatch.setattr(yyenvs.commands.play, "main", broken)
    with pytest.raises(KeyError):
        main(["play"])


def test_a_valid_command_still_runs(capsys):
    assert main(["play", "--game", "koi", "--games", "2", "--agents", "random", "random"]) == 0
    assert "koi" in capsys.readouterr().out


def test_top_level_help_lists_every_command_in_plain_words(capsys):
    from yyenvs.commands.cli import COMMANDS
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    for command in COMMANDS:
        assert re.search(rf"^  {command} +\S", out, re.M), command  # each command with its line
    assert "``" not in out
    assert main(["--version"]) == 0
    assert re.fullmatch(r"yyenvs \d+\.\d+\.\d+\S*\n", capsys.readouterr().out)


@pytest.mark.parametrize("command", ["play", "bench", "replay", "eval"])
def test_every_option_has_help_and_o_means_out(command, capsys):
    """``-o`` is ``--out`` wherever a command has it; no option is left without a help line."""
    if command == "eval":
        pytest.importorskip("sb3_contrib")
    with pytest.raises(SystemExit):
        main([command, "--help"])
    out = capsys.readouterr().out
    assert "``" not in out  # plain words, not reST markup
    lines = out.split("options:")[1].splitlines()
    bare = [line.strip() for k, line in enumerate(lines) if line.startswith("  -")
            and not re.search(r"\S  +\S", line.strip())  # the help on the same line ...
            and not (k + 1 < len(lines) and lines[k + 1].startswith(" " * 10))]  # ... or on the next
    assert not bare, f"options without help: {bare}"
    short = re.search(r"^  -o (\S+)?, (--\S+)", out, re.M)
    assert short is None or short.group(2) == "--out", short.group(0)


def test_an_agent_name_with_a_typo_gets_a_suggestion(capsys):
    assert_one_line_error(*run_cli(["play", "--agents", "gredy", "random", "--games", "2"], capsys),
                          "did you mean 'greedy'?")


def test_the_solo_result_names_the_achievement_level():
    from yyenvs.web.pages import result_text
    from yyenvs.games import make_core
    levels = make_core("yinyang", num_players=1).solo_levels
    assert result_text(["greedy"], [0.0], True, levels) == "greedy reached achievement level 0 (lost)"
    assert result_text(["me"], [4.0], True, levels) == "me reached achievement level 4 (Master)"


def test_a_ratings_plot_without_checkpoints_shows_bars_not_training_steps():
    pytest.importorskip("matplotlib")
    from yyenvs.evaluation.tournament import ratings_figure
    scripted = {"game": "koi", "entrants": [{"name": "random", "rating": 0.0, "step": None},
                                            {"name": "greedy", "rating": 300.0, "step": None}]}
    ax = ratings_figure(scripted).axes[0]
    assert ax.get_xlabel() == "rating (Elo scale)" and [t.get_text() for t in ax.get_yticklabels()] == ["random", "greedy"]
    run = {**scripted, "entrants": scripted["entrants"] + [{"name": "ck", "rating": 100.0, "step": 5}]}
    assert ratings_figure(run).axes[0].get_xlabel() == "training steps"


def test_every_user_error_is_caught_once_by_the_command_line(capsys):
    """RecordError, CheckpointError and ConfigError are all OptionErrors: ``cli.run`` prints any of
    them as one line with status 2, whichever command raised it."""
    from yyenvs.networks.checkpoint import CheckpointError
    from yyenvs.commands.cli import run
    from yyenvs.core.errors import RecordError
    from yyenvs.training.config import ConfigError
    for error in (RecordError("bad record"), CheckpointError("bad checkpoint"), ConfigError("bad config")):
        def fail(argv, error=error):
            raise error
        assert run("replay", fail, []) == 2
        assert_one_line_error(2, capsys.readouterr().err, str(error))


def test_bench_times_the_kernels_on_each_thread_count(capsys):
    """``yyenvs bench --threads 1 2``: a row per thread count at large batches, each with its ratio
    to the first (1.00x for the first), none at small batches."""
    import numba
    counts = ["1", str(min(2, numba.config.NUMBA_NUM_THREADS))]  # a test worker may have one thread
    assert main(["bench", "--games", "koi", "--batches", "4", "256", "--threads", *counts,
                 "--seconds", "0.01", "--repeats", "1"]) == 0
    rows = [line for line in capsys.readouterr().out.splitlines() if "threads" in line and "koi" in line]
    assert [r.split("core ")[1].split()[0] for r in rows] == counts * 2  # two Koi variants
    assert all(" 256 " in r for r in rows) and all(r.endswith("x the first thread count") for r in rows)
    for one, two in (rows[0:2], rows[2:4]):
        rate = {r: float(r.split(" 256 ")[1].split()[0].replace(",", "")) for r in (one, two)}
        assert one.split()[-5] == "1.00x"
        assert float(two.split()[-5][:-1]) == pytest.approx(rate[two] / rate[one], abs=0.006)
