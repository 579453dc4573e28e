"""Other libraries' own PettingZoo wrappers over the AEC envs, used as they are: TorchRL and Tianshou.

Each wrapper plays whole games; every action it plays is legal by the mask it
passed on, that mask is the core's, and the rewards at the end are the game's
own result (replayed on the core from the same seed).
"""
from __future__ import annotations

import numpy as np
import pytest

import yyenvs
from yyenvs.games import make_core

GAMES = {"koi": {"board_size": 5, "directions": 4, "win_fry": 14}, "yoxii": {}, "yinyang": {"num_players": 3}}


def replay(game: str, options: dict, aec, actions: list[int]):
    """The core's masks before each action and its returns after them, in the game that AEC env played."""
    core = make_core(game, **options)
    state = core.init(aec.unwrapped.game_state.seed.copy())  # the game's seed (set-up and chance come from it)
    masks, returns = [], np.zeros(core.num_players)
    for a in actions:
        masks.append(core.legal_action_mask(state)[0].copy())
        core.step(state, np.array([a]))
        returns += state.rewards[0]
    return masks, returns, bool(state.done[0])


@pytest.mark.parametrize("game", list(GAMES))
def test_torchrl_pettingzoo_wrapper_plays_legal_games(game):
    pytest.importorskip("torchrl")
    from torchrl.envs import PettingZooWrapper
    options = GAMES[game]
    module = getattr(yyenvs, yyenvs.GAMES[game].pettingzoo_module)
    env = PettingZooWrapper(env=module.env(**options), use_mask=True, seed=7)
    td = env.rollout(5000)  # random actions from the action specs, which carry the masks
    groups = list(env.group_map)
    acting = np.stack([td[g]["mask"][:, 0].numpy() for g in groups], 1)  # (steps, seats)
    assert (acting.sum(1) == 1).all()  # one seat acts per step
    seat = acting.argmax(1)
    actions = [int(td[groups[s]]["action"][t, 0]) for t, s in enumerate(seat)]
    masks = [td[groups[s]]["action_mask"][t, 0].numpy() for t, s in enumerate(seat)]
    core_masks, returns, over = replay(game, options, env._env, actions)
    assert over and bool(td["next"]["done"][-1])
    for t, (a, m, cm) in enumerate(zip(actions, masks, core_masks)):
        assert m[a] and np.array_equal(m, cm), t
    final = [float(td["next"][g]["reward"][-1, 0]) for g in groups]
    np.testing.assert_array_equal(final, returns)


def test_torchrl_gymenv_builds_from_the_id():
    """TorchRL's ``GymEnv`` probes the constructor with ``frameskip`` and carries on after a
    ``TypeError`` naming the unexpected keyword; an unknown option is one (and an OptionError)."""
    pytest.importorskip("torchrl")
    from torchrl.envs import GymEnv
    from yyenvs.core.errors import OptionError
    with pytest.raises(TypeError, match="unexpected keyword argument 'frameskip'") as caught:
        make_core("koi", frameskip=4)
    assert isinstance(caught.value, OptionError)
    env = GymEnv(yyenvs.GAMES["koi"].gym_id, categorical_action_encoding=True)
    td = env.rollout(5)  # unmasked random actions: an illegal one ends the game, so it may stop early
    assert 1 <= td.batch_size[0] <= 5 and env.observation_spec["observation"].shape == (7, 7, 14)


def test_torchrl_masked_categorical_takes_the_bool_mask():
    """With ``mask_dtype="bool"`` the mask that TorchRL's GymWrapper passes on is bool, which
    ``MaskedCategorical`` requires (it refuses the int8 mask of PettingZoo's layout)."""
    pytest.importorskip("torchrl")
    import gymnasium as gym
    import torch
    from torchrl.envs import GymWrapper
    from torchrl.modules import MaskedCategorical
    vec = gym.make_vec(yyenvs.GAMES["koi"].gym_id, num_envs=4, vectorization_mode="vector_entry_point",
                       autoreset_mode="disabled", dict_observation=True, mask_dtype="bool")
    env = GymWrapper(vec, categorical_action_encoding=True)
    td = env.reset()
    for _ in range(20):
        mask = td["action_mask"]
        assert mask.dtype == torch.bool
        td["action"] = MaskedCategorical(logits=torch.zeros(mask.shape), mask=mask).sample()
        assert mask.gather(-1, td["action"].unsqueeze(-1)).all()
        td = env.step(td)["next"]
        if td["done"].any():
            td = env.reset(td.set("_reset", td["done"].clone()))


def test_torchrl_gym_wrapper_in_same_step_mode_is_refused_with_the_route_that_works():
    """TorchRL's same-step reader cannot read the nested ``info["game"]``: the env says so and names the
    documented ``"disabled"`` route, instead of TorchRL's ``generator raised StopIteration``."""
    pytest.importorskip("torchrl")
    import gymnasium as gym
    from torchrl.envs import GymWrapper
    from yyenvs.core.errors import OptionError
    vec = gym.make_vec(yyenvs.GAMES["koi"].gym_id, num_envs=2, vectorization_mode="vector_entry_point",
                       autoreset_mode="same_step")
    with pytest.raises(OptionError, match="autoreset_mode='disabled'"):
        GymWrapper(vec, categorical_action_encoding=True)
    vec.reset(seed=0)  # called directly, the mode works as documented


@pytest.mark.parametrize("game", list(GAMES))
def test_tianshou_pettingzoo_env_plays_legal_games(game):
    pytest.importorskip("tianshou")
    from tianshou.env import PettingZooEnv
    options = GAMES[game]
    module = getattr(yyenvs, yyenvs.GAMES[game].pettingzoo_module)
    env = PettingZooEnv(module.env(**options))
    obs, _ = env.reset(seed=3)
    rng = np.random.default_rng(0)
    actions, masks = [], []
    while True:
        legal = np.flatnonzero(obs["mask"])
        masks.append(np.asarray(obs["mask"], bool))
        actions.append(int(rng.choice(legal)))
        obs, reward, term, trunc, _ = env.step(actions[-1])
        if term or trunc:
            break
    core_masks, returns, over = replay(game, options, env.env, actions)
    assert over and all(np.array_equal(m, cm) for m, cm in zip(masks, core_masks))
    np.testing.assert_array_equal(reward, returns)


def test_tianshou_collector_runs_masked_random_policies():
    pytest.importorskip("tianshou")
    from tianshou.algorithm.multiagent.marl import MultiAgentPolicy
    from tianshou.algorithm.random import MARLRandomDiscreteMaskedOffPolicyAlgorithm as Random
    from tianshou.data import Collector, VectorReplayBuffer
    from tianshou.env import DummyVectorEnv, PettingZooEnv

    def make():
        return PettingZooEnv(yyenvs.koi_v1.env(board_size=5, win_fry=14))
    env = make()
    policy = MultiAgentPolicy({agent: Random(env.action_space).policy for agent in env.agents})
    collector = Collector(policy, DummyVectorEnv([make, make]), VectorReplayBuffer(4000, 2))
    collector.reset()
    result = collector.collect(n_episode=6)
    assert result.n_collected_episodes >= 6
    # each game has a winner (no illegal-move endings: the loser's -1 is the rules' result)
    np.testing.assert_array_equal(np.sort(result.returns, axis=1), np.tile([-1.0, 1.0], (len(result.returns), 1)))
