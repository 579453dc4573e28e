"""Evaluation on Ray (``yyenvs eval --ray``): a local Ray cluster gives the local table."""
from __future__ import annotations

import json
import os

import pytest

from training.distributed import check_address, portable_spec
from yyenvs.core.contract import OptionError

ray = pytest.importorskip("ray")


def test_ray_evaluation_gives_the_local_table(tmp_path):
    from training.evaluate import main
    args = ["random", "greedy", "mcts:4", "--game", "koi", "-o", "board_size=5", "-o", "directions=4",
            "--games", "6", "--seed", "3"]
    assert main(args + ["--out", str(tmp_path / "local")]) == 0
    try:
        assert main(args + ["--out", str(tmp_path / "ray"), "--ray"]) == 0
    finally:
        ray.shutdown()
    local, remote = (json.loads((tmp_path / d / "eval.json").read_text()) for d in ("local", "ray"))
    assert local["wins"] == remote["wins"] and local["draws"] == remote["draws"]
    assert local["table"] == remote["table"]
    assert [e["rating"] for e in local["entrants"]] == [e["rating"] for e in remote["entrants"]]
    assert sum(map(sum, local["wins"])) + sum(map(sum, local["draws"])) / 2 == 3 * 6  # every game counted


def test_ray_addresses_and_specs():
    for ok in ("", "auto", "10.0.0.2:6379", "ray://head.example:10001"):
        assert check_address(ok) == ok
    for bad in ("random", "host", "http://x:1", "a b:1"):
        with pytest.raises(OptionError, match="not a Ray address"):
            check_address(bad)
    here = os.path.abspath("README.md")
    assert portable_spec("README.md") == here and portable_spec("greedy") == "greedy"
    assert portable_spec("az:README.md:8") == f"az:{here}:8" and portable_spec("az:README.md") == f"az:{here}"
