"""The Gymnasium single-agent environment: one learner seat against opponents.

Registered as ``yyenvs/<Game>-v0``; any core option is a keyword of
``gym.make``.  Observations are the core's planes/vector from the learner's
seat; ``action_masks()`` gives the legal actions (for sb3-contrib's
MaskablePPO) and ``info["action_mask"]`` carries the same.  With
``dict_observation=True`` the observation is a dict of the planes
(``"observation"``) and the mask (``"action_mask"``, int8 as in PettingZoo's
classic games, or bool with ``mask_dtype="bool"``), for libraries that want
the mask inside the observation.
"""
from __future__ import annotations

import dataclasses

import gymnasium as gym
import numpy as np

from yyenvs.agents import make_agent
from yyenvs.core.contract import IllegalActionError, OpponentError, show
from yyenvs.core.rng import check_seed, fresh_seed
from yyenvs.envs.learner import LearnerBatch
from yyenvs.envs.rendering import Renderer, check_render_mode
from yyenvs.envs.spaces import action_space, observation_layout, observation_space, with_mask
from yyenvs.games import make_core


#: action types taken without conversion (numpy's too); bool is not one of them
_INTEGERS = (int, np.int64, np.int32, np.int16, np.int8, np.uint8, np.uint16, np.uint32)


class GameEnv(gym.Env):
    """``game`` (a registry name) for one learner.

    Args:
        opponent: ``"random"`` (default), ``"greedy"``, ``"mcts[:n]"``, ``"az:<checkpoint>[:<n>]"``, a callable
            ``f(state, mask) -> actions``, a checkpoint path or an
            :class:`~yyenvs.envs.opponent.Opponent`.
        learner_seat: ``"random"`` (drawn per episode) or a seat number.
            ``reset(options={"learner_seat": ...})`` sets it for the episode that
            reset starts; the next reset without it returns to this setting.
        render_mode: ``"ansi"``, ``"rgb_array"``, ``"human"`` or None.
        dict_observation: observations as ``{"observation": ..., "action_mask": ...}``.
        mask_dtype: that mask's dtype with ``dict_observation``, ``"int8"`` (the default) or ``"bool"``.
        **options: the game's own options.

    ``reset(seed=s)`` makes ``s`` the master seed: the ``k``-th episode after it
    is the game of seed ``derive_seeds(s, 0, k)`` (:func:`yyenvs.core.rng.derive_seeds`),
    the same game as env 0's ``k``-th of a vector env reset with ``s``.

    An illegal action ends the episode with reward -1 (``info["illegal_action"]``);
    an action outside the action space raises :class:`IllegalActionError`.  An
    opponent that answers with an action it may not play raises
    :class:`OpponentError`; the episode must then be reset.
    """

    metadata = {"render_modes": ["ansi", "rgb_array", "human"], "render_fps": 2}
    _spec = None

    @property
    def spec(self):
        """Gymnasium's record of how this env was made; unless a limit was given, its
        ``max_episode_steps`` is the game's own cap at these options (``max_plies`` moves it), where
        the core truncates the game itself, so no ``TimeLimit`` is registered to cut it shorter."""
        if self._spec is None or self._spec.max_episode_steps is not None:
            return self._spec
        return dataclasses.replace(self._spec, max_episode_steps=self.core.max_game_length)

    @spec.setter
    def spec(self, value):
        self._spec = value

    def __init__(self, game: str, opponent="random", learner_seat="random",
                 render_mode: str | None = None, dict_observation: bool = False, mask_dtype: str | None = None, **options):
        check_render_mode(render_mode)
        self.observation_mask = observation_layout(dict_observation, mask_dtype)
        self.dict_observation = self.observation_mask is not None
        self.core = make_core(game, **options)
        self._renderer = Renderer(self.core, render_mode)
        self.render_mode = render_mode
        self.opponent_spec = opponent
        self._batch = LearnerBatch(self.core, 1, make_agent(opponent, self.core), learner_seat)
        self.observation_space = observation_space(self.core, self.observation_mask)
        self.action_space = action_space(self.core)
        self._over = True

    @property
    def state(self):
        """The core state (a batch of one game)."""
        return self._batch.state

    @property
    def learner_seat(self) -> int:
        return int(self._batch.learner_seat[0])

    def reset(self, *, seed=None, options=None):
        seed = check_seed(seed)  # numpy integers too; Gymnasium takes Python ints only
        seat = self._batch.reset_seat(options)  # for this episode only
        super().reset(seed=seed)
        if seed is not None or self._batch.state is None:
            # game seeds follow from the master seed; opponents draw per game from them
            self._batch.seed(fresh_seed() if seed is None else seed)
        self._batch.state = None
        self._over = True  # until the opponents have moved (they may raise OpponentError)
        self._batch.reset_rows(np.arange(1), seat)
        self._over = False  # a game the opponent already finished still takes one step (LearnerBatch)
        if self.render_mode == "human":
            self.render()
        return self._observation(), self._info(np.zeros(1, bool))

    def _observation(self):
        return with_mask(self._batch.observe()[0], self._batch.action_masks()[0], self.observation_mask)

    def _info(self, illegal):
        info = {"action_mask": self._batch.action_masks()[0].copy(), "learner_seat": self.learner_seat}
        if illegal[0]:
            info["illegal_action"] = True
        return info

    def step(self, action):
        if self._over:
            raise RuntimeError("the episode is over (or an OpponentError cut it short); "
                               "call reset() before step()")
        if type(action) in _INTEGERS and -2**63 <= action < 2**63:  # the common case, checked once below
            a = np.array([action], np.int64)
        else:
            try:  # a scalar stays as passed (numpy would turn "\x00" into ""), so errors name it
                a = [action] if np.ndim(action) == 0 else np.array([action]).reshape(1)
            except Exception:
                raise IllegalActionError(f"{self.core.name}: action {show(action)} is not one integer") from None
        try:
            reward, terminated, truncated, illegal = self._batch.step(a)
        except OpponentError:
            self._over = True  # the learner moved, the opponents did not: the game is mid-turn
            raise
        self._over = bool(terminated[0] or truncated[0])
        if self.render_mode == "human":
            self.render()
        return (self._observation(), float(reward[0]), bool(terminated[0]), bool(truncated[0]),
                self._info(illegal))

    def action_masks(self) -> np.ndarray:
        """The legal actions of the learner (bool), as MaskablePPO expects."""
        return self._batch.action_masks()[0].copy()

    def render(self):
        return self._renderer.render(self.state)

    def close(self):
        self._renderer.close()
