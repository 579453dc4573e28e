"""The shipped agents: each one loads through the specs ``pretrained`` and ``pretrained:fast`` for
its game and player count, all of them together are small and in the safe format, each plays legal
moves and has learned something (it beats ``random``); ``pretrained`` searches with its shipped
budget where a search network ships, ``pretrained:fast`` never searches; where none ships the spec is
refused by name."""
from __future__ import annotations

import os
from importlib import resources

import numpy as np
import pytest

from yyenvs.agents import PRETRAINED_SEARCH, make_agent, pretrained_path, pretrained_spec
from yyenvs.agents.az import AZAgent, parse_az_spec
from yyenvs.networks.checkpoint import CheckpointError, read_metadata
from yyenvs.agents.ppo import load_policy_agent
from yyenvs.evaluation.matches import play_games, play_match, seat_pattern
from yyenvs.core.errors import OptionError
from yyenvs.games import make_core

SHIPPED = [("yoxii", {}), ("koi", {}), ("koi", {"board_size": 9, "directions": 8, "win_fry": 14}),
           ("yinyang", {"num_players": 2}), ("yinyang", {"num_players": 3}), ("yinyang", {"num_players": 4})]
MAX_BYTES = 8 * 2**20  # every shipped file together
FOLDER = resources.files("yyenvs.agents").joinpath("pretrained")


def shipped_files(*sub) -> list[str]:
    return sorted(os.fspath(p) for p in FOLDER.joinpath(*sub).iterdir() if p.name.endswith(".safetensors"))


def beats_random(core, agent, n: int) -> bool:
    if core.num_players == 2:
        r = play_match(core, agent, make_agent("random", core, 1), n, seed=11)
        return r["wins"] >= 0.8 * n
    seats = np.ones((n, core.num_players), np.int64)  # one agent seat against random in the others
    seats[np.arange(n), np.arange(n) % core.num_players] = 0
    scores, _ = play_games(core, [agent, make_agent("random", core, 1)], seats, np.arange(n, dtype=np.uint64))
    won = scores[seats == 0] > np.where(seats == 1, scores, -np.inf).max(axis=1)
    return won.mean() >= 0.6


def test_the_shipped_files_are_small_safe_and_each_search_network_has_its_budget():
    files = shipped_files() + shipped_files("search")
    assert sum(os.path.getsize(f) for f in files) <= MAX_BYTES
    for f in files:
        meta = read_metadata(f)
        assert meta["kind"] == "policy" and meta["dtype"] == "float16", f
    networks = {os.path.basename(f) for f in shipped_files("search")}
    assert networks and networks == set(PRETRAINED_SEARCH)
    for name, budget in PRETRAINED_SEARCH.items():
        path, simulations, _ = parse_az_spec(f"az:{name}:{budget}")
        assert path == name and 1 <= simulations <= 1000, budget


@pytest.mark.parametrize("spec", ["pretrained", "pretrained:fast"])
@pytest.mark.parametrize("game,options", SHIPPED)
def test_a_shipped_agent_loads_and_beats_random(game, options, spec):
    core = make_core(game, **options)
    fast = spec == "pretrained:fast"
    target = pretrained_spec(core, fast)
    meta = read_metadata(parse_az_spec(target)[0] if target.startswith("az:") else target)
    assert meta["game"] == game and core.spec.reads_version(meta["game_version"])
    agent = make_agent(spec, core, seed=0)
    assert agent.name == spec
    searches = isinstance(agent, AZAgent) and agent.simulations is not None
    assert searches == (not fast and ships_search(core)), agent
    assert beats_random(core, agent, 20)


def ships_search(core) -> bool:
    try:
        return bool(pretrained_path(core, search=True))
    except OptionError:
        return False


def test_no_shipped_agent_is_refused_by_name():
    with pytest.raises(OptionError, match=r"no pretrained agent ships for yinyang with 1 player"):
        make_agent("pretrained", make_core("yinyang", num_players=1))
    with pytest.raises(OptionError, match=r"no pretrained agent ships for koi .*'board_size': 11.*koi-v0"):
        make_agent("pretrained", make_core("koi", board_size=11))
    with pytest.raises(OptionError, match="takes no argument other than 'fast'"):
        make_agent("pretrained:3", make_core("koi"))
    with pytest.raises(OptionError, match="no pretrained search network ships for yinyang with 1 player"):
        pretrained_path(make_core("yinyang", num_players=1), search=True)


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


def test_without_a_shipped_policy_fast_is_the_search_network_alone(monkeypatch):
    """Where only a search network ships, ``pretrained:fast`` plays that network without search."""
    import yyenvs.agents as agents
    core = make_core("yoxii")
    shipped = agents.pretrained_path

    def only_networks(core, search=False):
        if not search:
            raise OptionError("no pretrained agent ships")
        return shipped(core, search=True)
    monkeypatch.setattr(agents, "pretrained_path", only_networks)
    network = shipped(core, search=True)
    assert agents.pretrained_spec(core, fast=True) == network
    assert agents.pretrained_spec(core).startswith(f"az:{network}:")
    agent = make_agent("pretrained:fast", core)
    assert isinstance(agent, AZAgent) and agent.simulations is None and agent.name == "pretrained:fast"


def test_the_fast_agent_joins_a_ppo_pool():
    """``selfplay.baselines: [pretrained:fast]``: the PPO pool holds the shipped policy, which plays
    legal moves without search."""
    from yyenvs.training.pool import OpponentPool, PoolSettings
    core = make_core("yoxii")
    pool = OpponentPool(core, 4, None, PoolSettings(("pretrained:fast",), latest=0.2, window=100))
    agent = pool.entries[1].agent
    assert pool.entries[1].name == "pretrained:fast" and agent.name == "pretrained:fast"
    assert not isinstance(agent, AZAgent)
    state = core.init(np.arange(4, dtype=np.uint64))
    mask = core.legal_action_mask(state)
    moves = agent.act(state, mask)
    assert mask[np.arange(4), moves].all()
