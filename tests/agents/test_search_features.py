"""The search network's per-action features path (Yoxii with ``action_features=True``): it reads the
same features the PPO policy reads, for the same positions, and its checkpoints record them."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from tests.agents.test_mcts import random_positions
from yyenvs.core.errors import NetworkError
from yyenvs.games import make_core
from yyenvs.networks.search_network import make_network, network_description, parameter_count

CORE = make_core("yoxii", action_features=True)
PLAIN = make_core("yoxii")


def _positions(n=24):
    plies = np.random.default_rng(5).integers(4, 30, n)
    states = random_positions(CORE, np.arange(n, dtype=np.uint64), plies, seed=5)
    states = states.take(np.flatnonzero(~states.done))
    return states, states.current_player.astype(np.int64)


@pytest.mark.parametrize("blocks", [0, 1])
def test_the_network_reads_the_features_and_planes_the_ppo_policy_reads(blocks):
    from gymnasium import spaces

    from yyenvs.networks.ppo_network import ActionFeatureExtractor
    states, seats = _positions(48)
    obs = CORE.observe(states, seats)
    net = make_network(CORE, network_description(CORE, (16,), channels=4 if blocks else 0, blocks=blocks))
    assert net.action_features == len(CORE.action_feature_names) == 5
    x = torch.from_numpy(obs)
    feats = net.action_features_of(x).numpy()
    np.testing.assert_array_equal(feats, CORE.action_features(states, seats))  # the core's own features
    ppo = ActionFeatureExtractor(spaces.Box(-np.inf, np.inf, obs.shape[1:]), CORE.num_actions, 5)
    np.testing.assert_array_equal(feats, ppo.action_features(x).numpy())
    # the planes before the features are the plain game's observation
    planes = obs[:, :net.planes_size].reshape(-1, *PLAIN.observation_shape)
    np.testing.assert_array_equal(planes, PLAIN.observe(states, seats))
    np.testing.assert_array_equal(feats[:, -1].astype(bool), CORE.legal_action_mask(states))


def test_each_features_weight_moves_the_logits_by_that_feature():
    states, seats = _positions()
    x = torch.from_numpy(CORE.observe(states, seats))
    net = make_network(CORE, network_description(CORE, (16,)))
    with torch.no_grad():
        before, value_before = net(x)
        net.feature_weights[:] = torch.tensor([0.5, 0.0, -0.25, 0.0, 0.0])
        after, value_after = net(x)
    feats = CORE.action_features(states, seats)
    expected = net.FEATURE_GAIN * (0.5 * feats[:, 0] - 0.25 * feats[:, 2])
    np.testing.assert_allclose((after - before).numpy(), expected, atol=1e-4)
    torch.testing.assert_close(value_before, value_after)


def test_descriptions_record_the_features_and_refuse_a_game_without_them():
    desc = network_description(CORE, (16,), channels=4, blocks=1)
    assert desc["action_features"] == 5 and "action_features" not in network_description(PLAIN, (16,))
    net = make_network(CORE, desc)
    assert parameter_count(CORE, desc) == sum(p.numel() for p in net.parameters())
    with pytest.raises(NetworkError, match="reads 5 per-action features; yoxii with these options observes 0"):
        make_network(PLAIN, desc)
    with pytest.raises(NetworkError, match="reads 0 per-action features"):
        make_network(CORE, network_description(PLAIN, (16,)))


def test_a_features_checkpoint_plays_through_the_az_agent(tmp_path):
    from yyenvs.agents import make_agent
    from yyenvs.networks.checkpoint import game_metadata, policy_tensors, write_checkpoint
    net = make_network(CORE, network_description(CORE, (16,)))
    with torch.no_grad():
        net.feature_weights[0] = 1.0  # wins at once first
    meta = {"kind": "final", **game_metadata(CORE), "policy": network_description(CORE, (16,)),
            "num_timesteps": 0, "algo": "GumbelAZ"}
    write_checkpoint(tmp_path / "net", policy_tensors(net), meta)
    agent = make_agent(f"az:{tmp_path / 'net.safetensors'}", CORE)
    states, seats = _positions()
    actions = agent.act(states, CORE.legal_action_mask(states))
    assert CORE.legal_action_mask(states)[np.arange(len(actions)), actions].all()
    wins = CORE.action_features(states, seats)[:, 0] > 0
    rows = wins.any(axis=1)
    assert rows.any() and wins[rows, actions[rows]].all()  # each row that can win at once does


def test_a_ppo_checkpoint_searches_as_the_az_agent_with_its_logits_and_value(tmp_path):
    """``az:<PPO checkpoint>``: the search's network is the PPO policy's actor and critic; a policy
    shipped without its critic is searched with rollout values only."""
    from yyenvs.agents import make_agent
    from yyenvs.agents.ppo import load_policy
    from yyenvs.core.errors import OptionError
    from yyenvs.networks.checkpoint import game_metadata, policy_tensors, write_checkpoint
    from yyenvs.networks.ppo_network import make_policy, network_spec
    spec = network_spec(CORE, [32])
    policy = make_policy(CORE, spec)
    write_checkpoint(tmp_path / "ppo", policy_tensors(policy), {"kind": "final", **game_metadata(CORE),
                                                                 "policy": spec, "num_timesteps": 0,
                                                                 "algo": "MaskablePPO"})
    path = tmp_path / "ppo.safetensors"
    policy, _ = load_policy(path, CORE)
    agent = make_agent(f"az:{path}:8", CORE)
    states, seats = _positions()
    x = torch.from_numpy(CORE.observe(states, seats))
    with torch.no_grad():
        logits, values = agent.net(x)
        torch.testing.assert_close(logits, policy.action_logits(x))
        own = policy.predict_values(x).clamp(-1, 1)[:, 0]
    assert own.abs().max() > 0
    torch.testing.assert_close(values[:, 0], own)
    torch.testing.assert_close(values[:, 1], -own)
    actions = agent.act(states, CORE.legal_action_mask(states))
    assert CORE.legal_action_mask(states)[np.arange(len(actions)), actions].all()
    with pytest.raises(Exception, match="action_features"):  # a policy that reads features needs them observed
        make_agent(f"az:{path}:8", PLAIN)
    shipped = "yyenvs/agents/pretrained/yoxii.safetensors"  # the actor alone
    with pytest.raises(OptionError, match="without its critic.*rollout_weight=1"):
        make_agent(f"az:{shipped}:8", CORE)
    agent = make_agent(f"az:{shipped}:8:rollout_weight=1", CORE)
    with torch.no_grad():
        assert not agent.net(x)[1].any()
    actions = agent.act(states, CORE.legal_action_mask(states))
    assert CORE.legal_action_mask(states)[np.arange(len(actions)), actions].all()
