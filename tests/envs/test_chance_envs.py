"""Explicit chance through every env: the env draws each outcome from the game's own stream.

With ``chance="explicit"`` the Gymnasium, vector and PettingZoo envs never hand a chance node to
an agent or an opponent; they resolve it with :meth:`GameCore.resolve_chance`, so the games are
those of the sampled mode from the same seeds.  Agents handed a row at a chance node refuse it
by name.
"""
from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

from yyenvs.agents import make_agent
from yyenvs.core.contract import CHANCE_PLAYER
from yyenvs.envs.aec import aec_factories
from yyenvs.envs.vector import GameVectorEnv
from yyenvs.games import make_core

MODES = ("sampled", "explicit")


class NoChance:
    """An opponent that plays ``agent`` and fails the test if any row it is given is a chance node."""

    def __init__(self, agent):
        self.agent, self.rows = agent, 0

    def __call__(self, state, mask):
        assert not (state.current_player == CHANCE_PLAYER).any(), "an opponent was asked at a chance node"
        self.rows += state.batch_size
        return self.agent(state, mask)


def pick(mask, k, n):
    """The ``k``-th (mod the count) of the legal player actions, the first ``n`` columns of ``mask``;
    0 for a finished game (all False: the vector env ignores that action and restarts it)."""
    legal = np.flatnonzero(mask[:n])
    assert not mask[n:].any(), "an outcome action is legal for a player"
    return int(legal[k % legal.size]) if legal.size else 0


@pytest.mark.parametrize("opponent", ["random", "greedy", "mcts:4"])
def test_gym_env_draws_chance_itself_and_plays_the_sampled_games(opponent):
    envs, spies = [], []
    for mode in MODES:
        core = make_core("yinyang", chance=mode)
        spies.append(NoChance(make_agent(opponent, core, seed=5)))
        envs.append(gym.make("yyenvs/YinYang-v1", opponent=spies[-1], chance=mode))
    n = envs[0].action_space.n
    assert envs[1].action_space.n > n  # the outcome actions are in the explicit action space
    for episode in range(2):
        out = [e.reset(seed=11 + episode) for e in envs]
        for k in range(5000):
            assert np.array_equal(out[0][0], out[1][0]), f"episode {episode}, step {k}: observations differ"
            a = pick(out[1][1]["action_mask"], 7 * k + episode, n)
            assert a == pick(out[0][1]["action_mask"], 7 * k + episode, n)
            steps = [e.step(a) for e in envs]
            assert steps[0][1:4] == steps[1][1:4], f"episode {episode}, step {k}: rewards or ends differ"
            if steps[0][2] or steps[0][3]:
                break
            out = [(s[0], s[4]) for s in steps]
        else:
            pytest.fail("an episode did not end")
    assert spies[1].rows == spies[0].rows > 0  # the opponent was asked as often, never at chance


def test_vector_env_draws_chance_itself_and_plays_the_sampled_games():
    spies = [NoChance(make_agent("greedy", make_core("yinyang", chance=m), seed=3)) for m in MODES]
    vecs = [GameVectorEnv("yinyang", num_envs=5, opponent=s, chance=m) for s, m in zip(spies, MODES)]
    n = vecs[0].single_action_space.n
    obs = [v.reset(seed=4)[0] for v in vecs]
    ends = 0
    for k in range(400):
        assert np.array_equal(obs[0], obs[1]), f"step {k}: observations differ"
        masks = [v.action_masks() for v in vecs]
        actions = np.array([pick(masks[1][i], k + i, n) for i in range(5)])
        assert np.array_equal(actions, [pick(masks[0][i], k + i, n) for i in range(5)])
        steps = [v.step(actions) for v in vecs]
        for a, b in zip(steps[0][1:4], steps[1][1:4]):
            assert np.array_equal(a, b), f"step {k}: rewards or ends differ"
        ends += int(steps[0][2].sum() + steps[0][3].sum())
        obs = [s[0] for s in steps]
    assert ends >= 5  # whole games, restarts included
    assert spies[1].rows == spies[0].rows > 0


@pytest.mark.parametrize("options", [{}, {"num_players": 3, "reward": "score"}])
def test_aec_env_never_gives_an_agent_a_chance_node_and_plays_the_sampled_games(options):
    envs = [aec_factories("yinyang")[0](chance=mode, **options) for mode in MODES]
    n = envs[0].action_space(envs[0].possible_agents[0]).n
    for game in range(2):
        for e in envs:
            e.reset(seed=21 + game)
        decisions = 0
        while envs[0].agents:
            assert envs[1].agents and envs[0].agent_selection == envs[1].agent_selection
            last = [e.last() for e in envs]
            assert np.array_equal(last[0][0]["observation"], last[1][0]["observation"])
            assert last[0][1:4] == last[1][1:4]
            if last[0][2] or last[0][3]:
                for e in envs:
                    e.step(None)
                continue
            assert envs[1].game_state.current_player[0] != CHANCE_PLAYER
            a = pick(last[1][0]["action_mask"], decisions, n)
            for e in envs:
                e.step(a)
            decisions += 1
        assert not envs[1].agents and decisions > 20


def chance_rows(P=2):
    """A batch of explicit-chance Yin Yang states with some rows at chance nodes and some not."""
    core = make_core("yinyang", num_players=P, chance="explicit")
    state = core.init(np.arange(8, dtype=np.uint64))
    for ply in range(500):  # rows play different moves, so they reach chance nodes at different plies
        chance = core.is_chance_node(state)
        if chance.any() and (~chance & ~state.done).any():
            return core, state
        mask = core.legal_action_mask(state)
        actions = [pick(m, ply + 3 * i, m.size) if not d else -1 for i, (m, d) in enumerate(zip(mask, state.done))]
        core.step(state, np.array(actions))
    pytest.fail("no batch with chance rows and player rows at once")


def policy_agent(core):
    from yyenvs.agents.ppo import PolicyAgent
    from yyenvs.networks.ppo_network import make_policy
    spec = {"class": "FastMaskablePolicy", "net_arch": [8], "activation": "relu", "cnn_channels": [],
            "action_features": 0, "value_net": True}
    return PolicyAgent(core, make_policy(core, spec))


def az_agent(core):
    from yyenvs.agents.az import AZAgent
    from yyenvs.networks.search_network import make_network, network_description
    return AZAgent(core, make_network(core, network_description(core, (16,))), simulations=4)


@pytest.mark.parametrize("make", [lambda c: make_agent("random", c), lambda c: make_agent("greedy", c),
                                  lambda c: make_agent("mcts:4", c), policy_agent, az_agent],
                         ids=["random", "greedy", "mcts", "checkpoint", "az"])
def test_agents_refuse_chance_rows_by_name(make):
    pytest.importorskip("torch")
    core, state = chance_rows()
    agent = make(core)
    mask = core.legal_action_mask(state)
    first = int(np.flatnonzero(core.is_chance_node(state))[0])
    with pytest.raises(ValueError, match=f"row {first} waits for a chance outcome"):
        agent(state, mask)
    players = np.flatnonzero(~core.is_chance_node(state) & ~state.done)
    sub = state.take(players)
    acts = agent(sub, mask[players])
    assert mask[players, acts].all()  # the players' rows alone are answered


def test_resolve_chance_plays_the_sampled_game():
    sampled = make_core("yinyang", num_players=3)
    explicit = sampled.with_options(chance="explicit")
    a, b = sampled.init(np.arange(6, dtype=np.uint64)), explicit.init(np.arange(6, dtype=np.uint64))
    assert explicit.resolve_chance(b).shape == (6, 3)
    drawn = 0
    for ply in range(5000):
        for f in vars(a):
            if f not in ("rewards", "_layout"):
                assert np.array_equal(getattr(a, f), getattr(b, f)), f"ply {ply}: {f} differs"
        if a.done.all():
            break
        mask = sampled.legal_action_mask(a)
        actions = np.array([-1 if d else pick(m, ply + i, m.size) for i, (m, d) in enumerate(zip(mask, a.done))])
        sampled.step(a, actions)
        explicit.step(b, actions)
        drawn += int(explicit.is_chance_node(b).sum())
        rewards = b.rewards.copy()  # the chance steps rewrite b.rewards
        rewards += explicit.resolve_chance(b)
        assert not explicit.is_chance_node(b).any()
        assert np.array_equal(a.rewards, rewards), f"ply {ply}: rewards differ"
    assert a.done.all() and drawn > 0
    assert not sampled.resolve_chance(a).any()  # nothing to draw without explicit chance
