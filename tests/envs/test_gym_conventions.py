"""Gymnasium's conventions as options: the vector env's autoreset mode and the Dict observation.

The reference for both autoreset modes is Gymnasium's own ``SyncVectorEnv``
over the single-game env: env 0 of the batched vector env must give the same
observations, rewards and flags step by step (both start env 0's games from
the same seeds).
"""
from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from gymnasium.vector import AutoresetMode, SyncVectorEnv

from yyenvs.core.errors import IllegalActionError, OptionError
from yyenvs.core.rng import derive_seeds
from yyenvs.envs.gym_env import GameEnv
from yyenvs.envs.vector import GameVectorEnv
from yyenvs.games import GAMES

OPTIONS = {"yoxii": {}, "koi": {"board_size": 7, "directions": 4}, "yinyang": {"num_players": 2}}
# where the first swim can win: some games end before the learner's first decision
KOI_EARLY_END = {"board_size": 17, "directions": 4, "win_fry": 14, "quick_start": True}
CASES = {**{game: (game, options) for game, options in OPTIONS.items()}, "koi-early-end": ("koi", KOI_EARLY_END)}
MODES = {"next_step": AutoresetMode.NEXT_STEP, "same_step": AutoresetMode.SAME_STEP,
         "disabled": AutoresetMode.DISABLED}
INFO_KEYS = {"action_mask", "learner_seat", "game", "_game"}


def pick(mask: np.ndarray, t: int) -> int:
    """A deterministic legal action (0 where there is none: the env ignores it then)."""
    legal = np.flatnonzero(mask)
    return int(legal[(7 * t) % legal.size]) if legal.size else 0


@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize("case", list(CASES))
def test_vector_env_resets_as_gymnasiums_own_vector_env(case, mode):
    game, options = CASES[case]
    ref = SyncVectorEnv([lambda: GameEnv(game, **options)], autoreset_mode=MODES[mode])
    ours = GameVectorEnv(game, num_envs=3, autoreset_mode=mode, **options)
    assert ours.metadata["autoreset_mode"] is MODES[mode] and GameVectorEnv.metadata["autoreset_mode"] is \
        AutoresetMode.NEXT_STEP
    obs_r, info_r = ref.reset(seed=5)
    obs_o, info_o = ours.reset(seed=5)
    assert np.array_equal(obs_r[0], obs_o[0])
    episodes, steps = 0, 300 if game == "yinyang" else 120
    for t in range(steps):
        a0 = pick(info_r["action_mask"][0], t)
        acts = [a0] + [pick(m, t + k) for k, m in enumerate(info_o["action_mask"][1:])]
        obs_r, r_r, term_r, trunc_r, info_r = ref.step(np.array([a0]))
        obs_o, r_o, term_o, trunc_o, info_o = ours.step(np.array(acts))
        assert np.array_equal(obs_r[0], obs_o[0]), t
        assert (r_r[0], term_r[0], trunc_r[0]) == (r_o[0], term_o[0], trunc_o[0]), t
        assert np.array_equal(info_r["action_mask"][0], info_o["action_mask"][0]), t
        if mode == "same_step" and term_r[0]:
            assert info_o["_final_obs"][0] and np.array_equal(info_r["final_obs"][0], info_o["final_obs"][0])
        episodes += int(term_o[0] or trunc_o[0])
        final = mode == "same_step" and bool((term_o | trunc_o).any())  # as Gymnasium: only where a game ended
        assert set(info_o) == INFO_KEYS | ({"final_obs", "_final_obs"} if final else set()), t
        assert (info_o["_game"] == (term_o | trunc_o)).all(), t
        if mode == "disabled" and (term_o | trunc_o).any():
            if term_r[0] or trunc_r[0]:
                obs_r, info_r = ref.reset(options={"reset_mask": np.array([True])})
            obs_o, info_o = ours.reset(options={"reset_mask": term_o | trunc_o})
            assert set(info_o) == INFO_KEYS and np.array_equal(obs_r[0], obs_o[0]), t
    assert episodes >= 2


def test_disabled_mode_refuses_to_step_a_finished_game_until_its_reset():
    vec = GameVectorEnv("yoxii", num_envs=3, max_episode_steps=2, autoreset_mode="disabled")
    vec.reset(seed=4)
    with pytest.raises(ValueError, match="reset_mask"):
        vec.reset(options={"reset_mask": [True, False, True]})  # a list, not a bool array
    with pytest.raises(ValueError, match="seed"):
        vec.reset(seed=1, options={"reset_mask": np.ones(3, bool)})
    for _ in range(2):
        _, _, term, trunc, info = vec.step(vec.action_masks().argmax(1))
    assert trunc.all() and (info["game"]["l"] == 2).all() and info["_game"].all()
    ply = vec.batch.state.ply.copy()
    with pytest.raises(RuntimeError, match=r"envs \[0, 1, 2\] are over"):
        vec.step(np.zeros(3, np.int64))
    assert np.array_equal(vec.batch.state.ply, ply)  # refused: nothing moved
    obs, info = vec.reset(options={"reset_mask": np.array([True, False, False])})
    assert (vec.batch.state.ply[1:] == ply[1:]).all() and vec.batch.state.ply[0] < ply[0]
    assert vec.batch.state.seed[0] == derive_seeds(4, np.zeros(1, np.uint64), 1)[0]  # env 0's next game
    with pytest.raises(RuntimeError, match=r"envs \[1, 2\] are over"):
        vec.step(np.zeros(3, np.int64))


def test_gymnasiums_episode_statistics_wrapper_works_on_top():
    """CleanRL wraps vector envs in RecordEpisodeStatistics, which writes ``info["episode"]`` itself."""
    from gymnasium.wrappers.vector import RecordEpisodeStatistics
    vec = RecordEpisodeStatistics(GameVectorEnv("yoxii", num_envs=2, max_episode_steps=3))
    vec.reset(seed=0)
    for _ in range(3):
        _, _, _, trunc, info = vec.step(vec.unwrapped.action_masks().argmax(1))
    assert trunc.all() and (info["episode"]["l"] == 3).all() and info["_episode"].all()
    assert (info["game"]["l"] == 3).all()


def test_next_step_ignores_the_action_of_the_step_after_the_end():
    """The step after a game's end starts the new game whatever the action (even an illegal one)."""
    vec = GameVectorEnv("yoxii", num_envs=2, max_episode_steps=2)
    vec.reset(seed=3)
    for _ in range(2):
        obs, reward, term, trunc, info = vec.step(vec.action_masks().argmax(1))
    assert trunc.all() and info["_game"].all() and "final_obs" not in info
    ply, seeds = vec.batch.state.ply.copy(), vec.batch.state.seed.copy()
    with pytest.raises(IllegalActionError, match="nan"):  # refused before anything restarts
        vec.step(np.array([0.0, np.nan]))
    assert np.array_equal(vec.batch.state.seed, seeds)
    obs, reward, term, trunc, info = vec.step(np.array([0, 0]))  # action 0 is illegal at a game's start
    assert not (term | trunc).any() and (reward == 0).all() and not info["_game"].any()
    assert (vec.batch.state.ply < ply).all()  # new games, their learner still to move
    assert vec.batch.state.seed.tolist() == derive_seeds(3, np.arange(2, dtype=np.uint64), 1).tolist()
    assert (vec.batch.state.current_player == vec.batch.learner_seat).all()
    with pytest.raises(IllegalActionError, match="outside the action space"):  # this step is the game's own
        vec.step(np.array([-1, 0]))
    _, _, term, trunc, _ = vec.step(vec.action_masks().argmax(1))  # the restart step is not a learner step
    assert not (term | trunc).any()
    _, _, term, trunc, info = vec.step(vec.action_masks().argmax(1))
    assert trunc.all() and (info["game"]["l"] == 2).all()


@pytest.mark.parametrize("mask_dtype", [None, "bool"])
@pytest.mark.parametrize("game", list(OPTIONS))
def test_dict_observation_carries_the_mask(game, mask_dtype):
    """int8 as in PettingZoo's classic games, or bool (``mask_dtype="bool"``, what torch's masked
    distributions take)."""
    dtype = np.int8 if mask_dtype is None else np.bool_
    env = GameEnv(game, dict_observation=True, mask_dtype=mask_dtype, **OPTIONS[game])
    check_env(env, skip_render_check=True)
    obs, info = env.reset(seed=1)
    assert set(obs) == {"observation", "action_mask"} and env.observation_space.contains(obs)
    assert np.array_equal(obs["action_mask"], info["action_mask"]) and obs["action_mask"].dtype == dtype
    assert env.observation_space["action_mask"].dtype == dtype
    plain = GameEnv(game, **OPTIONS[game])
    assert np.array_equal(plain.reset(seed=1)[0], obs["observation"])
    for mode in MODES:
        vec = GameVectorEnv(game, num_envs=4, dict_observation=True, autoreset_mode=mode, max_episode_steps=2,
                            mask_dtype=mask_dtype, **OPTIONS[game])
        obs, info = vec.reset(seed=2)
        for _ in range(3):
            assert vec.observation_space.contains(obs) and obs["action_mask"].dtype == dtype
            assert np.array_equal(obs["action_mask"], vec.action_masks())
            obs, _, term, trunc, info = vec.step(vec.action_masks().argmax(1))
            if mode == "disabled" and (term | trunc).any():
                obs, info = vec.reset(options={"reset_mask": term | trunc})
            if "final_obs" in info:
                for i in np.flatnonzero(info["_final_obs"]):
                    assert vec.single_observation_space.contains(info["final_obs"][i])
    made = gym.make(GAMES[game].gym_id, dict_observation=True, **OPTIONS[game])
    assert isinstance(made.observation_space, gym.spaces.Dict)


@pytest.mark.parametrize("bad", ["later", 1, None, "DISABLED_"])
def test_bad_autoreset_modes_are_refused_by_name(bad):
    with pytest.raises(OptionError, match="autoreset_mode"):
        GameVectorEnv("yoxii", autoreset_mode=bad)


@pytest.mark.parametrize("bad", ["yes", 1, None])
def test_dict_observation_must_be_a_bool(bad):
    with pytest.raises(OptionError, match="dict_observation"):
        GameEnv("yoxii", dict_observation=bad)
    with pytest.raises(OptionError, match="dict_observation"):
        GameVectorEnv("yoxii", dict_observation=bad)


@pytest.mark.parametrize("bad", ["uint8", np.bool_, True, 1])
def test_mask_dtype_is_int8_or_bool_and_needs_the_dict_observation(bad):
    for make in (GameEnv, GameVectorEnv):
        with pytest.raises(OptionError, match=r"mask_dtype must be one of \['int8', 'bool'\]"):
            make("yoxii", dict_observation=True, mask_dtype=bad)
        with pytest.raises(OptionError, match="mask_dtype='bool' applies to the dict observation only"):
            make("yoxii", mask_dtype="bool")


@pytest.mark.parametrize("mode", ["rgb_array", "ansi"])
def test_vector_render_is_a_tuple_of_frames_as_in_sync_vector_env(mode):
    """Gymnasium types a vector env's render() as a tuple of frames (RecordVideo asserts it)."""
    import yyenvs
    gym_id = yyenvs.GAMES["koi"].gym_id
    vec = gym.make_vec(gym_id, num_envs=3, vectorization_mode="vector_entry_point", render_mode=mode)
    sync = gym.make_vec(gym_id, num_envs=3, vectorization_mode="sync", render_mode=mode)
    vec.reset(seed=0)
    sync.reset(seed=0)
    ours, theirs = vec.render(), sync.render()
    assert type(ours) is tuple and type(theirs) is tuple and len(ours) == len(theirs) == 3
    for a, b in zip(ours, theirs):
        assert type(a) is type(b)
        if mode == "rgb_array":
            assert a.dtype == np.uint8 and a.ndim == 3 and a.shape == b.shape
