"""stable-baselines3's fast path: ``LearnerVecEnv``, an SB3 ``VecEnv`` over the batched vector env
(``pip install -e ".[train]"`` for stable-baselines3 and sb3-contrib).

``make_vec_env`` over the Gymnasium env steps one game per sub-env in Python; ``LearnerVecEnv``
keeps all ``num_envs`` games in one core state (:class:`yyenvs.envs.vector.GameVectorEnv`): one
``step_wait`` applies the learner's actions to every row, then lets the opponents move for all rows
at once.  Finished games restart in the same step (SB3's semantics): the returned observation is the
new game's first and ``infos[i]["terminal_observation"]`` holds the last one.  ``infos[i]["episode"]``
(only where a game ended) carries ``r`` (return), ``l`` (length), ``outcome`` (+1/0/-1 for the
learner), ``opponent`` and ``seat``.  ``action_masks()`` and ``env_method("action_masks")`` give the
legal-action masks that sb3-contrib's ``MaskablePPO`` asks for.

The learner's seat is drawn per episode, so it plays every seat; its reward is +1/-1/0 at the end of
each game, including games decided by an opponent's move.

Optional potential-based reward shaping (Ng, Harada & Russell 1999): with ``shaping > 0`` the reward
of each learner step gains ``gamma * phi(s') - phi(s)``, where ``phi = shaping * core.heuristic`` of
the learner's position at its decisions and ``phi = 0`` once the game is over.  The shaping terms
telescope, so the best policy is unchanged; the episode statistics stay the game's own result.
"""
from __future__ import annotations

import numpy as np
from stable_baselines3.common.vec_env import VecEnv

from yyenvs.core.errors import finite_number, show
from yyenvs.envs.vector import GameVectorEnv
from yyenvs.games import GAMES


class LearnerVecEnv(VecEnv):
    """SB3's ``VecEnv`` face of :class:`yyenvs.envs.vector.GameVectorEnv` (no logic of its own)."""

    def __init__(self, game, num_envs: int, opponent="random", seed: int = 0, learner_seat="random",
                 shaping: float = 0.0, gamma: float = 1.0, **options):
        """``game``: a game id (with its ``options``) or a core; ``opponent``: any opponent spec of
        :func:`yyenvs.agents.make_agent`; ``seed``: the master seed of the first ``reset``."""
        if isinstance(game, str):
            name = game
        elif isinstance(getattr(game, "name", None), str) and isinstance(getattr(game, "options", None), dict):
            name, options = game.name, {**game.options, **options}
        else:
            raise ValueError(f"LearnerVecEnv: game must be a game id ({', '.join(GAMES)}) or a core, got {show(game)}")
        shaping, gamma = finite_number(shaping, "LearnerVecEnv: shaping", 0.0), \
            finite_number(gamma, "LearnerVecEnv: gamma", 0.0, 1.0)
        self.venv = GameVectorEnv(name, num_envs=num_envs, opponent=opponent,
                                  learner_seat=learner_seat, autoreset_mode="same_step", **options)
        self.core = self.venv.core
        self.batch = self.venv.batch
        self.render_mode = None
        super().__init__(int(num_envs), self.venv.single_observation_space, self.venv.single_action_space)
        self._first_seed = seed
        self._actions = None
        self.episode_listeners = []  # callables f(env_ids, outcomes, seats)
        self.shaping = float(shaping)
        self.gamma = float(gamma)
        self._phi = np.zeros(self.num_envs)

    # -- SB3 VecEnv API -----------------------------------------------------------------
    def reset(self):
        seed = self._seeds[0] if self._seeds[0] is not None else self._first_seed
        self._reset_seeds()
        self._first_seed = None
        obs, _ = self.venv.reset(seed=seed)
        self._phi = self._potential()
        return obs

    def _potential(self) -> np.ndarray:
        """shaping * heuristic of each learner position (0 for finished games)."""
        if not self.shaping:
            return np.zeros(self.num_envs)
        s = self.batch.state
        return np.where(s.done, 0.0, self.shaping * self.core.heuristic(s, self.batch.learner_seat))

    def step_async(self, actions: np.ndarray) -> None:
        actions = np.asarray(actions)
        if actions.shape not in ((self.num_envs,), (self.num_envs, 1)):
            raise ValueError(f"LearnerVecEnv: expected {self.num_envs} actions, shape ({self.num_envs},), "
                             f"got shape {actions.shape}")
        self._actions = actions.reshape(self.num_envs)

    def step_wait(self):
        obs, reward, terminated, truncated, info = self.venv.step(self._actions)
        done = terminated | truncated
        if self.shaping:
            phi_next = self._potential()  # of the new games' first positions where done
            reward = reward + self.gamma * np.where(done, 0.0, phi_next) - self._phi
            self._phi = phi_next
        infos = [{} for _ in range(self.num_envs)]
        if info["_game"].any():
            idx = np.flatnonzero(info["_game"])
            ep = info["game"]
            names = ep["opponent"][idx]
            for k, i in enumerate(idx):
                infos[i] = {"terminal_observation": info["final_obs"][i],
                            "episode": {"r": float(ep["r"][i]), "l": int(ep["l"][i]),
                                        "outcome": float(ep["outcome"][i]), "opponent": names[k],
                                        "seat": int(ep["learner_seat"][i])},
                            "TimeLimit.truncated": bool(truncated[i] and not terminated[i])}
                if ep["illegal_action"][i]:
                    infos[i]["illegal_action"] = True
            for listener in self.episode_listeners:
                listener(idx, ep["outcome"][idx], ep["learner_seat"][idx])
        return obs, reward.astype(np.float32), done, infos

    def action_masks(self) -> np.ndarray:
        """(num_envs, num_actions) legal-action mask of the learner's current position."""
        return self.batch.action_masks()

    def close(self) -> None:
        pass

    def _indices(self, indices):
        if indices is None:
            return range(self.num_envs)
        out = [indices] if isinstance(indices, (int, np.integer)) else list(indices)
        bad = [i for i in out if isinstance(i, bool) or not isinstance(i, (int, np.integer))
               or not 0 <= i < self.num_envs]
        if bad:
            raise IndexError(f"LearnerVecEnv: env indices must be integers from 0 to {self.num_envs - 1}, "
                             f"got {show(bad[0])}")
        return out

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
