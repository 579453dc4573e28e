"""Search agents (the ``az:`` spec): parsing, their settings, their checkpoints and networks, and
playing with and without search."""
from __future__ import annotations

import math

import numpy as np
import pytest

from tests.agents.test_mcts import random_positions
from yyenvs.agents import make_agent
from yyenvs.agents.az import AZAgent, az_spec, parse_az_spec
from yyenvs.search.gumbel import GumbelSearch
from yyenvs.search.settings import GumbelSettings
from yyenvs.core.contract import CHANCE_PLAYER, OptionError
from yyenvs.games import make_core
from yyenvs.games.yoxii.core import YoxiiCore
from yyenvs.training.config import DEFAULTS, ConfigError, load_config

from tests.agents.test_gumbel_search import flat_network, random_network


# -- agents -------------------------------------------------------------------------------------
def test_az_spec_parsing():
    assert parse_az_spec("az:runs/x/final.safetensors:200") == ("runs/x/final.safetensors", 200, {})
    assert parse_az_spec("az:runs/x/final.safetensors") == ("runs/x/final.safetensors", None, {})
    assert parse_az_spec("az:C:/x.safetensors:8") == ("C:/x.safetensors", 8, {})
    assert parse_az_spec("az:C:/x.safetensors:8:gumbel_scale=0") == ("C:/x.safetensors", 8, {"gumbel_scale": 0.0})
    assert parse_az_spec("az:x:200:max_considered=8,c_puct=2.5") == ("x", 200,
                                                                     {"max_considered": 8, "c_puct": 2.5})
    assert parse_az_spec("az:x:200:find_wins=1") == ("x", 200, {"find_wins": True})
    assert parse_az_spec("az:x:200:rollout_weight=0.5") == ("x", 200, {"rollout_weight": 0.5})
    for spec in ("az:x:200:gumbel_scale=0.25,max_considered=8", "az:x:8:c_puct=1.23456789,value_scale=1e-07",
                 "az:x:5", "az:x", "az:x:200:find_wins=1", "az:x:200:find_wins=0",
                 "az:x:200:find_wins=1,rollout_weight=0.5", "az:x:200:rollout_weight=1",
                 "az:x:200:average_symmetries=1"):
        assert az_spec(*parse_az_spec(spec)) == spec  # the written form reads back the same
    for bad in ("az:", "az::5", "az:x:0", "az:x:100001"):
        with pytest.raises(OptionError, match="az"):
            parse_az_spec(bad)
    for bad, named in (("az:x:8:gumbel=0", "unknown search option 'gumbel'"),
                       ("az:x:8:gumbel_scale=nan", "gumbel_scale must be a finite number"),
                       ("az:x:8:gumbel_scale=inf", "gumbel_scale must be"),
                       ("az:x:8:c_puct=-1", "c_puct must be"),
                       ("az:x:8:c_puct=", "c_puct must be"),
                       ("az:x:8:max_considered=0", "max_considered must be an integer from 1"),
                       ("az:x:8:max_considered=2.5", "max_considered must be"),
                       ("az:x:8:max_considered=99999", "max_considered must be"),
                       ("az:x:8:c_puct=1,c_puct=2", "given twice"),
                       ("az:x:8:find_wins=2", "find_wins must be 0 or 1"),
                       ("az:x:8:find_wins=true", "find_wins must be 0 or 1"),
                       ("az:x:8:rollout_weight=1.5", "rollout_weight must be a number from 0 to 1"),
                       ("az:x:8:rollout_weight=nan", "rollout_weight must be"),
                       ("az:x:8:rollout_weight=-0.5", "rollout_weight must be"),
                       ("az:x:gumbel_scale=0", "need a number of simulations")):
        with pytest.raises(OptionError, match=named):
            parse_az_spec(bad)


@pytest.mark.parametrize("name", [k for k in GumbelSettings.names() if GumbelSettings.allowed(k).kind in (int, float)])
def test_search_settings_have_one_range_for_search_specs_and_configs(name):
    """A search setting's bounds are accepted, and a value just past them refused, alike by
    GumbelSearch, by ``az:`` specs and (for the settings a config has) by training configs."""
    allowed = GumbelSettings.allowed(name)
    kind, low, high = allowed.kind, allowed.low, allowed.high
    core = make_core("koi", board_size=7, directions=4)
    net = flat_network(core)
    in_config = name in DEFAULTS["az"]
    inside = [low] + ([high] if math.isfinite(high) else [1e6])
    outside = [low - 1 if kind is int else low - 1e-3, float("nan"), "1", True, None]
    outside.append(high + 1 if kind is int else high + 1e-3 if math.isfinite(high) else math.inf)
    for v in inside:
        GumbelSearch(core, net, **{name: v})
        assert parse_az_spec(f"az:x:8:{name}={v!r}")[2] == {name: v}
        if in_config:
            assert load_config("configs/az_koi.yaml", [f"az.{name}={v!r}"])["az"][name] == v
    for v in outside:
        with pytest.raises(ValueError, match=f"{name} must be"):
            GumbelSearch(core, net, **{name: v})
        if not isinstance(v, (float, int)) or isinstance(v, bool):
            continue  # Python values a spec or config cannot spell
        with pytest.raises(OptionError, match=f"{name} must be"):
            parse_az_spec(f"az:x:8:{name}={v!r}")
        if in_config:
            with pytest.raises(ConfigError, match=f"az.{name}"):
                load_config("configs/az_koi.yaml", [f"az.{name}={v!r}"])


def search_checkpoint(core, directory):
    """The path of a search network's checkpoint for ``core`` (random weights) in ``directory``."""
    from yyenvs.networks.checkpoint import game_metadata, policy_tensors, write_checkpoint
    from yyenvs.networks.search_network import network_description
    meta = {"kind": "final", **game_metadata(core), "policy": network_description(core, (32,)),
            "num_timesteps": 0, "algo": "GumbelAZ"}
    write_checkpoint(directory / "net", policy_tensors(random_network(core)), meta)
    return directory / "net.safetensors"


def test_az_spec_search_options_reach_the_search(tmp_path):
    """``az:<checkpoint>:<n>:gumbel_scale=0`` searches without root noise: the same moves from
    any agent seed, where the noisy search's moves change with it."""
    core = make_core("koi", board_size=7, directions=4)
    path = search_checkpoint(core, tmp_path)
    state = random_positions(core, np.arange(32), [3] * 32)
    mask = core.legal_action_mask(state)

    def moves(spec, seed):
        return make_agent(spec, core, seed).act(state, mask)

    quiet = make_agent(f"az:{path}:8:gumbel_scale=0,max_considered=4", core)
    assert quiet.search.settings.gumbel_scale == 0 and quiet.search.settings.max_considered == 4
    assert quiet.name == "net:8:gumbel_scale=0,max_considered=4"
    assert make_agent(f"az:{path}:8:rollout_weight=0.5", core).search.settings.rollout_weight == 0.5
    np.testing.assert_array_equal(moves(f"az:{path}:8:gumbel_scale=0", 1), moves(f"az:{path}:8:gumbel_scale=0", 2))
    assert (moves(f"az:{path}:8", 1) != moves(f"az:{path}:8", 2)).any()


def test_eval_sample_reaches_every_policy_played_without_search(tmp_path):
    """``yyenvs eval --sample`` (``make_entrants(..., deterministic=False)``) makes the shipped
    policy, a PPO checkpoint and a search network played alone (as a path or ``az:<checkpoint>``)
    draw their moves: over copies of one position they play several moves, where without it each
    plays one.  A search agent's spec is unchanged by it."""
    from yyenvs.evaluation.matches import make_entrants
    from yyenvs.agents import pretrained_path
    from yyenvs.networks.checkpoint import game_metadata, policy_tensors, write_checkpoint
    from yyenvs.networks.search_network import network_description
    core = make_core("koi", board_size=9, directions=8, win_fry=14)
    meta = {"kind": "final", **game_metadata(core), "policy": network_description(core, (32,)),
            "num_timesteps": 0, "algo": "GumbelAZ"}
    write_checkpoint(tmp_path / "net", policy_tensors(random_network(core)), meta)
    net = str(tmp_path / "net.safetensors")
    state = random_positions(core, np.array([7]), [11]).take(np.zeros(256, np.int64))  # swimming
    state.seed[:] = np.arange(256)  # one position, in 256 games that draw their own random numbers
    mask = core.legal_action_mask(state)
    specs = ["pretrained", pretrained_path(core), net, f"az:{net}"]
    for deterministic in (True, False):
        for entrant in make_entrants(specs, core, seed=1, deterministic=deterministic):
            moves = entrant.agent.act(state, mask)
            assert mask[np.arange(256), moves].all()
            assert (np.unique(moves).size == 1) == deterministic, (entrant.name, deterministic)
    searched = make_entrants([f"az:{net}:4"], core, deterministic=False)[0].agent
    assert searched.simulations == 4 and not searched.sample


def test_agent_plays_legal_moves_with_and_without_search():
    core = make_core("yinyang")
    net = random_network(core)
    state = random_positions(core, np.arange(4), [0, 3, 6, 40])
    mask = core.legal_action_mask(state)
    for sims in (None, 6):
        a = AZAgent(core, net, seed=1, simulations=sims).act(state, mask)
        live = ~state.done
        assert mask[np.flatnonzero(live), a[live]].all()
        assert (a[~live] == -1).all()
    explicit = core.with_options(chance="explicit")
    s = explicit.init(np.arange(8))
    while not (s.current_player == CHANCE_PLAYER).any():
        m = explicit.legal_action_mask(s)
        explicit.step(s, np.argmax(m, axis=1))
    agent = AZAgent(explicit, random_network(explicit), simulations=4)
    with pytest.raises(ValueError, match="az: row .* waits for a chance outcome"):  # the caller draws chance
        agent.act(s, explicit.legal_action_mask(s))
    players = s.take(np.flatnonzero(s.current_player != CHANCE_PLAYER))
    a = agent.act(players, explicit.legal_action_mask(players))
    assert explicit.legal_action_mask(players)[np.arange(players.batch_size), a].all()


def test_network_alone_draws_its_moves_by_its_policy():
    """AZAgent(sample=True): legal moves spread by the policy's weights, the same at any batch size."""
    import torch
    core = make_core("koi", board_size=7, directions=4)
    net = random_network(core)
    with torch.no_grad():  # a policy of known weights: logit 0 for action 3, log(3) for 5, the rest far below
        for p in net.parameters():
            p.zero_()
        net.head.bias[:core.num_actions] = -30.0  # the head: the policy's logits, then the values
        net.head.bias[3], net.head.bias[5] = 0.0, float(np.log(3.0))
    state = core.init(np.arange(2000))
    mask = core.legal_action_mask(state)
    assert mask[:, [3, 5]].all()  # every cell is free at the start
    a = AZAgent(core, net, seed=4, sample=True).act(state, mask)
    assert set(np.unique(a)) == {3, 5} and abs((a == 5).mean() - 0.75) < 0.04
    np.testing.assert_array_equal(AZAgent(core, net, seed=4, sample=True).act(state.take(np.arange(9)), mask[:9]),
                                  a[:9])
    assert (AZAgent(core, net, seed=5, sample=True).act(state, mask) != a).any()  # the seed matters
    np.testing.assert_array_equal(AZAgent(core, net, seed=4).act(state, mask), 5)  # the most probable
    mask[:, 5] = False  # never an illegal move, however likely
    assert (AZAgent(core, net, seed=4, sample=True).act(state, mask) == 3).all()
    with pytest.raises(ValueError, match="network alone"):
        AZAgent(core, net, simulations=8, sample=True)


def test_az_spec_refuses_what_is_not_a_search_network(tmp_path):
    core = make_core("koi", board_size=7, directions=4)
    with pytest.raises(OptionError, match="does not exist"):
        make_agent(f"az:{tmp_path}/missing.safetensors:4", core)
    with pytest.raises(OptionError, match="az"):
        make_agent("az:", core)


def test_search_checkpoints_are_checked_like_every_checkpoint(tmp_path):
    """A file holding NaN weights, or a description far larger than its tensors, is refused by name."""
    import torch
    from yyenvs.networks.checkpoint import CheckpointError, game_metadata, policy_tensors, write_checkpoint
    from yyenvs.networks.search_network import network_description
    core = make_core("koi", board_size=7, directions=4)
    net = random_network(core)
    desc = network_description(core, (32,))
    meta = {"kind": "final", **game_metadata(core), "policy": desc, "num_timesteps": 0, "algo": "GumbelAZ"}
    tensors = policy_tensors(net)
    write_checkpoint(tmp_path / "good", tensors, meta)
    assert isinstance(make_agent(f"az:{tmp_path / 'good.safetensors'}:2", core), AZAgent)
    bad = dict(tensors)
    bad["policy/head.bias"] = torch.full_like(bad["policy/head.bias"], float("nan"))
    write_checkpoint(tmp_path / "nan", bad, meta)
    with pytest.raises(CheckpointError, match="head.bias.*NaN"):
        make_agent(f"az:{tmp_path / 'nan.safetensors'}:2", core)
    write_checkpoint(tmp_path / "huge", tensors, {**meta, "policy": {**desc, "hidden": [65536, 65536]}})
    with pytest.raises(CheckpointError, match="needs .* parameters"):
        make_agent(f"az:{tmp_path / 'huge.safetensors'}", core)


def test_convolutions_wrap_where_the_board_wraps(tmp_path):
    """Koi's pond is a torus: its tower pads circularly, so turning the pond's rows and columns
    round turns the feature maps alike; Yoxii's board pads with zeros.  A description without
    ``padding`` (older checkpoints) means zeros; an unknown one is refused by name."""
    import torch
    from yyenvs.networks.checkpoint import CheckpointError, game_metadata, policy_tensors, write_checkpoint
    from yyenvs.networks.search_network import make_network, network_description
    from yyenvs.core.errors import NetworkError
    koi, yoxii = make_core("koi", board_size=7, directions=4), YoxiiCore()
    assert network_description(koi, (8,), 4, 1)["padding"] == "circular"
    assert network_description(yoxii, (8,), 4, 1)["padding"] == "zeros"
    torch.manual_seed(0)
    x = torch.rand(2, *koi.observation_shape)
    for core, wraps in ((koi, True), (make_core("koi", board_size=7, directions=4), False)):
        desc = network_description(core, (8,), 4, 2)
        if not wraps:
            desc = {k: v for k, v in desc.items() if k != "padding"}
        tower = make_network(core, desc).tower
        with torch.no_grad():
            a = tower(x.roll((2, 3), (1, 2)).permute(0, 3, 1, 2))
            b = tower(x.permute(0, 3, 1, 2)).roll((2, 3), (2, 3))
        assert torch.allclose(a, b, atol=1e-5) == wraps
    with pytest.raises(NetworkError, match="padding must be one of"):
        make_network(koi, {**network_description(koi, (8,), 4, 1), "padding": "reflect"})
    desc = network_description(koi, (8,), 4, 1)
    meta = {"kind": "final", **game_metadata(koi), "policy": {**desc, "padding": "mirror"}, "num_timesteps": 0,
            "algo": "GumbelAZ"}
    with pytest.raises(CheckpointError, match="'policy.padding': expected one of"):  # what reading checks too
        write_checkpoint(tmp_path / "bad", policy_tensors(make_network(koi, desc)), meta)


