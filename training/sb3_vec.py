"""A stable-baselines3 ``VecEnv`` over :class:`yyenvs.core.learner.LearnerBatch`.

All ``num_envs`` games live in one core state; one ``step_wait`` applies the
learner's actions to every row and then lets the opponents move for all rows
at once.  Finished games restart in the same step (SB3 semantics): the
returned observation is the new game's first and
``infos[i]["terminal_observation"]`` holds the last one.  ``infos[i]["episode"]``
carries ``r`` (return), ``l`` (length), ``outcome`` (+1/0/-1 for the learner),
``opponent`` and ``seat``.  ``env_method("action_masks")`` returns one mask
per env, as sb3-contrib's ``MaskablePPO`` expects.

The learner's seat is drawn per episode, so it plays every seat; its reward is
+1/-1/0 (per the core) at the end of each game, including games decided by an
opponent's move -- losses reach it as -1.
"""
from __future__ import annotations

import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env import VecEnv

from yyenvs.core.learner import LearnerBatch


class LearnerVecEnv(VecEnv):
    def __init__(self, core, num_envs: int, opponent, seed: int = 0, learner_seat="random"):
        self.core = core
        self.batch = LearnerBatch(core, num_envs, opponent, learner_seat)
        self.render_mode = None
        self.num_envs = int(num_envs)
        obs_space = spaces.Box(core.observation_low, core.observation_high, core.observation_shape,
                               core.observation_dtype)
        super().__init__(int(num_envs), obs_space, spaces.Discrete(core.num_actions))
        self.opponent = opponent
        self.returns = np.zeros(self.num_envs, dtype=np.float64)
        self.lengths = np.zeros(self.num_envs, dtype=np.int64)
        self.batch.seed(seed)
        self._actions = None
        self.episode_listeners = []  # callables f(env_ids, outcomes, seats)
        self.total_episodes = 0

    # -- SB3 VecEnv API -----------------------------------------------------------------
    def reset(self):
        if self._seeds[0] is not None:
            self.batch.seed(int(self._seeds[0]))
            self._reset_seeds()
        self.batch.reset()
        self.returns[:] = 0
        self.lengths[:] = 0
        return self.batch.observe()

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions).reshape(self.num_envs)

    def step_wait(self):
        b = self.batch
        reward, terminated, truncated, illegal = b.step(self._actions)
        self.returns += reward
        self.lengths += 1
        done = terminated | truncated
        infos = [{} for _ in range(self.num_envs)]
        idx = np.flatnonzero(done)
        if idx.size:
            last = self.core.observe(b.state.take(idx), b.learner_seat[idx])
            outcome = np.where(illegal[idx], -1.0, np.sign(self.returns[idx]))
            seats = b.learner_seat[idx].copy()
            names = (self.opponent.opponent_of(idx) if hasattr(self.opponent, "opponent_of")
                     else ["opponent"] * idx.size)
            for k, i in enumerate(idx):
                infos[i] = {"terminal_observation": last[k],
                            "episode": {"r": float(self.returns[i]), "l": int(self.lengths[i]),
                                        "outcome": float(outcome[k]), "opponent": names[k],
                                        "seat": int(seats[k])},
                            "TimeLimit.truncated": bool(truncated[i] and not terminated[i])}
                if illegal[i]:
                    infos[i]["illegal_action"] = True
            for listener in self.episode_listeners:
                listener(idx, outcome, seats)
            self.total_episodes += idx.size
            self.returns[idx] = 0
            self.lengths[idx] = 0
            # opponents open the new games; their (normally zero) rewards start the new return
            self.returns += b.reset_rows(idx)
        return b.observe(), reward.astype(np.float32), done, infos

    def action_masks(self) -> np.ndarray:
        """(num_envs, num_actions) legal-action mask of the learner's current position."""
        return self.batch.action_masks()

    def close(self) -> None:
        pass

    def _indices(self, indices):
        if indices is None:
            return range(self.num_envs)
        if isinstance(indices, int):
            return [indices]
        return indices

    def env_method(self, method_name, *method_args, indices=None, **method_kwargs):
        if method_name == "action_masks":
            m = self.batch.action_masks()
            return [m[i] for i in self._indices(indices)]
        attr = getattr(self, method_name)
        return [attr(*method_args, **method_kwargs) for _ in self._indices(indices)]

    def has_attr(self, attr_name: str) -> bool:
        return hasattr(self, attr_name)

    def get_attr(self, attr_name, indices=None):
        value = getattr(self, attr_name)
        return [value for _ in self._indices(indices)]

    def set_attr(self, attr_name, value, indices=None) -> None:
        setattr(self, attr_name, value)

    def env_is_wrapped(self, wrapper_class, indices=None):
        return [False for _ in self._indices(indices)]
