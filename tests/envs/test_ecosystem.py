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


@pytest.mark.parametrize("game", list(GAMES))
def test_supersuit_vector_env_over_the_parallel_form_plays_legal_games(game):
    """turn_based_aec_to_parallel passes parallel_api_test; SuperSuit's vector envs over it play
    whole games with legal moves only, and every finished game pays its seats the game's result."""
    ss = pytest.importorskip("supersuit")
    from pettingzoo.test import parallel_api_test
    from pettingzoo.utils.conversions import turn_based_aec_to_parallel
    module = getattr(yyenvs, yyenvs.GAMES[game].pettingzoo_module)
    parallel_api_test(turn_based_aec_to_parallel(module.env(**GAMES[game])), num_cycles=50)
    seats = ss.pettingzoo_env_to_vec_env_v1(turn_based_aec_to_parallel(module.env(**GAMES[game])))
    players = seats.num_envs
    vec = ss.concat_vec_envs_v1(seats, 2, num_cpus=0, base_class="gymnasium")
    obs, _ = vec.reset(seed=0)
    rng = np.random.default_rng(0)
    finished = 0
    for _ in range(3000 if game == "yinyang" else 400):
        mask = obs["action_mask"].astype(bool)
        movers = mask.any(1)
        assert movers.reshape(2, players).sum(1).tolist() == [1, 1]  # one seat to move per game
        action = (rng.random(mask.shape) + mask).argmax(1)
        obs, reward, term, trunc, _ = vec.step(action)
        ended = (term | trunc).reshape(2, players)
        assert (ended.all(1) | ~ended.any(1)).all()  # a game ends for all its seats at once
        for g in np.flatnonzero(ended.all(1)):
            finished += 1
            assert not (reward.reshape(2, players)[g] == -1).all()  # a result, not an illegal move's -1s
    assert finished >= 2


@pytest.mark.parametrize("game", list(GAMES))
def test_pettingzoo_sb3_tutorial_wrapper_trains_maskable_ppo(game):
    """PettingZoo's SB3 action-masking tutorial, its wrapper also a gymnasium.Env (docs/integrations/
    pettingzoo.md): MaskablePPO learns through it, and every action it plays is legal."""
    pytest.importorskip("sb3_contrib")
    import gymnasium as gym
    import pettingzoo.utils
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.wrappers import ActionMasker

    class SelfPlay(pettingzoo.utils.BaseWrapper, gym.Env):
        def reset(self, seed=None, options=None):
            super().reset(seed, options)
            self.observation_space = super().observation_space(self.possible_agents[0])["observation"]
            self.action_space = super().action_space(self.possible_agents[0])
            return self.observe(self.agent_selection), {}

        def step(self, action):
            mover = self.agent_selection
            assert super().observe(mover)["action_mask"][action]  # the masks reached the policy
            super().step(action)
            return (self.observe(self.agent_selection), self._cumulative_rewards[mover],
                    self.terminations[mover], self.truncations[mover], self.infos[mover])

        def observe(self, agent):
            return super().observe(agent)["observation"]

        def legal_actions(self):
            return super().observe(self.agent_selection)["action_mask"]

    module = getattr(yyenvs, yyenvs.GAMES[game].pettingzoo_module)
    env = SelfPlay(module.env(**GAMES[game]))
    env.reset(seed=0)
    model = MaskablePPO("MlpPolicy", ActionMasker(env, lambda e: e.legal_actions()), n_steps=64, batch_size=64, seed=0, device="cpu",
                        policy_kwargs={"net_arch": [16]})
    model.learn(128)
    assert model.num_timesteps >= 128
