"""No command writes over its input, and none replaces a file the user did not name.

Every writing command is tried against every spelling of the same file (the same string, ``./``,
``sub/..``, absolute, a symbolic link, a hard link): each is refused with exit status 2 and the
input keeps its bytes.  ``--force`` replaces a default output; a file named as the output is
replaced without it.
"""
from __future__ import annotations

import json
import os

import pytest

from tests.agents.test_checkpoints import _cfg, exit_code, tiny_checkpoint
from yyenvs.games import make_core

SPELLINGS = ["same", "dot", "dotdot", "absolute", "symlink", "hardlink"]


def spelled(path, how, tmp_path):
    """Another name for ``path`` (relative names are relative to ``tmp_path``, the working directory)."""
    name = os.path.basename(path)
    if how == "same":
        return name
    if how == "dot":
        return "./" + name
    if how == "dotdot":
        os.makedirs(tmp_path / "sub", exist_ok=True)
        return os.path.join("sub", "..", name)
    if how == "absolute":
        return str(tmp_path / name)
    link = tmp_path / f"{how}-{name}"
    (os.symlink if how == "symlink" else os.link)(path, link)
    return str(link)


@pytest.fixture
def record(tmp_path, monkeypatch):
    """A Yoxii game record ``game.json`` in the working directory ``tmp_path``."""
    monkeypatch.chdir(tmp_path)
    assert exit_code(["play", "--game", "yoxii", "--agents", "random", "random", "--games", "2",
                      "--save-games", "games"]) == 0
    src = sorted((tmp_path / "games").glob("*.json"))[0]
    os.replace(src, tmp_path / "game.json")
    return tmp_path / "game.json"


@pytest.mark.parametrize("how", SPELLINGS)
def test_replay_never_writes_over_its_record(record, tmp_path, how, capsys):
    before = record.read_bytes()
    assert exit_code(["replay", "game.json", "-o", spelled(record, how, tmp_path)]) == 2
    assert record.read_bytes() == before
    assert "is also an input" in capsys.readouterr().err


def test_replay_default_output_is_never_the_record_or_an_unnamed_file(record, tmp_path, capsys):
    html_record = tmp_path / "game.html"  # a record whose default page name is itself
    html_record.write_bytes(record.read_bytes())
    before = html_record.read_bytes()
    assert exit_code(["replay", "game.html"]) == 2 and html_record.read_bytes() == before
    assert exit_code(["replay", "game.html", "--force"]) == 2 and html_record.read_bytes() == before
    page = tmp_path / "game.html"
    os.remove(page)
    assert exit_code(["replay", "game.json"]) == 0 and page.read_bytes().startswith(b"<!")
    page.write_text("mine")  # an existing page the user did not name is kept ...
    assert exit_code(["replay", "game.json"]) == 2 and page.read_text() == "mine"
    assert "--force" in capsys.readouterr().err
    assert exit_code(["replay", "game.json", "--force"]) == 0 and page.read_text() != "mine"
    page.write_text("mine")  # ... and one named by -o is replaced
    assert exit_code(["replay", "game.json", "-o", "game.html"]) == 0 and page.read_text() != "mine"


@pytest.mark.parametrize("how", SPELLINGS)
def test_checkpoint_export_never_writes_over_its_source(tmp_path, monkeypatch, how, capsys):
    monkeypatch.chdir(tmp_path)
    src = tmp_path / "ck.safetensors"
    tiny_checkpoint(make_core("yoxii"), src)
    before = src.read_bytes()
    assert exit_code(["checkpoint", "export", "ck.safetensors", spelled(src, how, tmp_path)]) == 2
    assert src.read_bytes() == before
    assert "is also an input" in capsys.readouterr().err
    assert exit_code(["checkpoint", "export", "ck.safetensors", "small.safetensors"]) == 0
    assert (tmp_path / "small.safetensors").stat().st_size < len(before)


def test_eval_keeps_earlier_results_unless_forced(tmp_path, capsys):
    out = tmp_path / "eval"
    argv = ["eval", "--game", "yoxii", "random", "greedy", "--games", "2", "--out", str(out)]
    assert exit_code(argv) == 0
    games = json.loads((out / "eval.json").read_text())["table"]
    (out / "eval.json").write_text("{}")
    assert exit_code(argv) == 2 and (out / "eval.json").read_text() == "{}"
    assert "--force" in capsys.readouterr().err
    assert exit_code(argv + ["--force"]) == 0 and json.loads((out / "eval.json").read_text())["table"] == games


def test_a_fresh_training_run_keeps_an_earlier_runs_final_policy(tmp_path):
    from yyenvs.training.config import ConfigError
    from yyenvs.training.train import Trainer
    run = tmp_path / "run"
    run.mkdir()
    tiny_checkpoint(make_core("yoxii"), run / "final.safetensors")
    before = (run / "final.safetensors").read_bytes()
    with pytest.raises(ConfigError, match="earlier run"):
        Trainer(_cfg(run), log=lambda m: None)
    assert (run / "final.safetensors").read_bytes() == before


def test_no_command_writes_through_a_link_it_was_not_given_or_into_a_fifo(tmp_path, record, capsys):
    """eval --force with eval.json (or ratings.png) linked to a checkpoint keeps the checkpoint; a FIFO
    as an output is refused at once instead of blocking."""
    src = tmp_path / "ck.safetensors"
    tiny_checkpoint(make_core("yoxii"), src)
    before = src.read_bytes()
    out = tmp_path / "eval"
    os.makedirs(out)
    argv = ["eval", "--game", "yoxii", "random", "greedy", "--games", "2", "--out", str(out), "--force"]
    for name in ("eval.json", "ratings.png"):
        os.symlink(src, out / name)
        assert exit_code(argv) == 2 and src.read_bytes() == before
        assert "is a link to" in capsys.readouterr().err
        os.remove(out / name)
    os.mkfifo(out / "eval.json")
    assert exit_code(argv) == 2 and "is not a regular file" in capsys.readouterr().err
    os.mkfifo(tmp_path / "page.html")
    assert exit_code(["replay", "game.json", "-o", "page.html"]) == 2
    assert "is not a regular file" in capsys.readouterr().err
    os.symlink(tmp_path / "mine.html", tmp_path / "game.html")  # the default output, a link: kept
    (tmp_path / "mine.html").write_text("mine")
    assert exit_code(["replay", "game.json", "--force"]) == 2 and (tmp_path / "mine.html").read_text() == "mine"
    assert exit_code(["replay", "game.json", "-o", "game.html"]) == 0  # a link the user named is written
    assert (tmp_path / "mine.html").read_text().startswith("<!")
