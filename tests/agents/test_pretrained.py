"""The shipped agents: each one loads through the spec ``pretrained`` for its game and player count,
is small and in the safe format, plays legal moves and has learned something (it beats ``random``);
where none ships the spec is refused by name."""
from __future__ import annotations

import os

import numpy as np
import pytest

from yyenvs.agents import make_agent, pretrained_path
from yyenvs.agents.checkpoint import CheckpointError, read_metadata
from yyenvs.agents.ppo import load_policy_agent
from yyenvs.agents.match import play_games, play_match, seat_pattern
from yyenvs.core.errors import OptionError
from yyenvs.games import make_core

SHIPPED = [("yoxii", {}), ("koi", {}), ("koi", {"board_size": 9, "directions": 8, "win_fry": 14}), ("yinyang", {"num_players": 2}), ("yinyang", {"num_players": 3}),
           ("yinyang", {"num_players": 4})]
MAX_BYTES = 4 * 2**20


@pytest.mark.parametrize("game,options", SHIPPED)
def test_a_shipped_agent_loads_is_small_and_beats_random(game, options):
    core = make_core(game, **options)
    path = pretrained_path(core)
    assert os.path.getsize(path) <= MAX_BYTES
    meta = read_metadata(path)
    assert meta["game"] == game and core.spec.reads_version(meta["game_version"]) and meta["kind"] == "policy"
    agent = make_agent("pretrained", core, seed=0)
    assert agent.name == "pretrained"
    n = 20
    if core.num_players == 2:
        r = play_match(core, agent, make_agent("random", core, 1), n, seed=11)
        assert r["wins"] >= 0.8 * n, r
    else:  # one pretrained seat against random in the others, the seat moving round
        seats = np.ones((n, core.num_players), np.int64)
        seats[np.arange(n), np.arange(n) % core.num_players] = 0
        scores, _ = play_games(core, [agent, make_agent("random", core, 1)], seats,
                               np.arange(n, dtype=np.uint64))
        won = scores[seats == 0] > np.where(seats == 1, scores, -np.inf).max(axis=1)
        assert won.mean() >= 0.6, won.mean()


def test_no_shipped_agent_is_refused_by_name():
    with pytest.raises(OptionError, match=r"no pretrained agent ships for yinyang with 1 player"):
        make_agent("pretrained", make_core("yinyang", num_players=1))
    with pytest.raises(OptionError, match=r"no pretrained agent ships for koi .*'board_size': 11.*koi-v0"):
        make_agent("pretrained", make_core("koi", board_size=11))
    with pytest.raises(OptionError, match="takes no argument"):
        make_agent("pretrained:3", make_core("koi"))


def test_options_that_change_only_observations_may_differ():
    """The Yoxii agent was trained with action_features=True and plays the plain game; an option
    that changes the rules may not differ."""
    path = pretrained_path(make_core("yoxii"))
    assert read_metadata(path)["options"]["action_features"] is True
    plain = make_core("yoxii")
    agent = load_policy_agent(path, plain)
    assert agent.core.options["action_features"] and not plain.options["action_features"]
    seats = seat_pattern(0, 1, 2, 4)
    scores, _ = play_games(plain, [agent, make_agent("random", plain, 1)], seats, np.arange(4, dtype=np.uint64))
    assert scores.shape == (4, 2)
    with pytest.raises(CheckpointError, match="num_players"):
        load_policy_agent(pretrained_path(make_core("yinyang")), make_core("yinyang", num_players=3))
