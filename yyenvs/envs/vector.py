"""The batched vector environment: many games in one core state, no subprocesses.

``gym.make_vec("yyenvs/<Game>-v0", num_envs=N, vectorization_mode="vector_entry_point")``
builds it.  Opponent moves are computed for the whole batch at once.  A
finished game restarts as Gymnasium's ``autoreset_mode`` says:

* ``"next_step"`` (Gymnasium's default): the step that ends a game returns its
  last observation; the next step ignores that env's action, starts the new
  game and returns its first observation with reward 0 and neither flag set.
* ``"same_step"``: the step that ends a game returns the new game's first
  observation, and ``infos["final_obs"]`` / ``infos["_final_obs"]`` hold the
  last observation of the finished one (what stable-baselines3 expects).
* ``"disabled"``: a finished game waits for ``reset(options={"reset_mask": m})``,
  which starts new games in the envs where ``m`` is True (what TorchRL prefers);
  stepping an env whose game is over is refused until then.

Every step's ``infos`` has the same keys: ``action_mask``, ``learner_seat``,
``game`` (per env: return ``r``, length ``l``, ``outcome``, ``illegal_action``,
``learner_seat``, ``opponent``) and ``_game`` (the envs whose game ended at this
step); in same-step mode ``final_obs`` and ``_final_obs`` join them on the steps where a game
ends, as in Gymnasium's own vector envs.  ``episode`` is
left to Gymnasium's ``RecordEpisodeStatistics``, which writes that key itself.

``action_masks()`` returns the (N, num_actions) legal-action mask (all False
for a game that is over; action 0 alone for a game over before the learner's
first decision, whose next step pays its result, see
:class:`~yyenvs.envs.learner.LearnerBatch`); with ``dict_observation=True`` each observation is a
dict that carries it as ``"action_mask"``.  Bad actions, seeds and options
raise as in :class:`~yyenvs.envs.gym_env.GameEnv`; after an
:class:`~yyenvs.core.contract.OpponentError` the env must be reset.

``reset(seed=s)`` makes ``s`` the master seed: env ``i``'s ``k``-th game is the
game of seed ``derive_seeds(s, i, k)`` whatever the number of envs.
``reset(options={"learner_seat": ...})`` means what it means for the Gymnasium
env: the seat of the games that reset starts; games started later by autoreset
take the constructor's ``learner_seat``.  With ``max_episode_steps`` a game still
running after that many learner steps is truncated and restarts.
"""
from __future__ import annotations

import sys

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv

from yyenvs.agents import make_agent
from yyenvs.core.errors import OpponentError, OptionError, show
from yyenvs.core.rng import check_seed, fresh_seed
from yyenvs.envs.learner import RESET_OPTIONS, LearnerBatch, reset_options
from yyenvs.envs.rendering import check_render_mode
from yyenvs.envs.spaces import action_space, observation_layout, observation_space, with_mask
from yyenvs.games import make_core

AUTORESET_MODES = {"next_step": AutoresetMode.NEXT_STEP, "same_step": AutoresetMode.SAME_STEP,
                   "disabled": AutoresetMode.DISABLED}


def check_autoreset_mode(mode) -> AutoresetMode:
    """``mode`` (an :class:`AutoresetMode` or its name, e.g. ``"next_step"``) as an AutoresetMode."""
    if isinstance(mode, AutoresetMode):
        found = mode if mode in AUTORESET_MODES.values() else None
    else:
        found = AUTORESET_MODES.get(mode.lower()) if isinstance(mode, str) else None
        if found is None and isinstance(mode, str):  # the enum's own values, "NextStep" / "SameStep"
            found = next((m for m in AUTORESET_MODES.values() if m.value == mode), None)
    if found is None:
        raise OptionError(f"autoreset_mode must be one of {sorted(AUTORESET_MODES)} (or the AutoresetMode "
                          f"member), got {show(mode)}")
    return found


def _called_from(package: str, depth: int = 4) -> bool:
    """Whether one of the ``depth`` callers above the caller is code of ``package`` (e.g. ``"torchrl."``)."""
    frame = sys._getframe(2)
    for _ in range(depth):
        if frame is None:
            return False
        if frame.f_globals.get("__name__", "").startswith(package):
            return True
        frame = frame.f_back
    return False


class GameVectorEnv(VectorEnv):
    """``num_envs`` games of ``game`` for one learner (see :class:`GameEnv` for arguments).

    ``max_episode_steps``: learner steps after which a game is truncated (None: the game's own cap).
    ``autoreset_mode``: ``"next_step"`` (default) or ``"same_step"``, see above; it is
    also ``metadata["autoreset_mode"]``.  ``dict_observation``: observations as
    ``{"observation": ..., "action_mask": ...}``, the mask of ``mask_dtype`` (``"int8"`` or ``"bool"``).
    """

    metadata = {"render_modes": ["ansi", "rgb_array"], "autoreset_mode": AutoresetMode.NEXT_STEP}

    def __init__(self, game: str, num_envs: int = 1, opponent="random", learner_seat="random",
                 render_mode: str | None = None, max_episode_steps: int | None = None,
                 autoreset_mode="next_step", dict_observation: bool = False, mask_dtype: str | None = None,
                 **options):
        check_render_mode(render_mode, self.metadata["render_modes"])
        self.autoreset_mode = check_autoreset_mode(autoreset_mode)
        self.metadata = {**type(self).metadata, "autoreset_mode": self.autoreset_mode}
        self.observation_mask = observation_layout(dict_observation, mask_dtype)
        self.dict_observation = self.observation_mask is not None
        if max_episode_steps is not None and not (
                isinstance(max_episode_steps, (int, np.integer)) and not isinstance(max_episode_steps, bool)
                and max_episode_steps >= 1):
            raise OptionError(f"max_episode_steps must be a positive integer or None, "
                              f"got {show(max_episode_steps)}")
        self.core = make_core(game, **options)
        # learner steps after which a game is truncated (Gymnasium's TimeLimit, batched); by default the
        # game's own cap at these options, where the core truncates it anyway
        self.max_episode_steps = self.core.max_game_length if max_episode_steps is None else int(max_episode_steps)
        self.render_mode = render_mode
        self.batch = LearnerBatch(self.core, num_envs, make_agent(opponent, self.core), learner_seat)
        self.num_envs = self.batch.num_envs
        self.single_observation_space = observation_space(self.core, self.observation_mask)
        self.single_action_space = action_space(self.core)
        self.observation_space = gym.vector.utils.batch_space(self.single_observation_space, self.num_envs)
        self.action_space = gym.vector.utils.batch_space(self.single_action_space, self.num_envs)
        self.returns = np.zeros(self.num_envs, dtype=np.float32)
        self.lengths = np.zeros(self.num_envs, dtype=np.int64)
        self._restart = np.zeros(self.num_envs, dtype=bool)  # NEXT_STEP: games over, restarting next step
        self._over = np.zeros(self.num_envs, dtype=bool)  # DISABLED: games over, waiting for a reset
        self._seeded = False
        self._needs_reset = True

    def reset(self, *, seed=None, options=None):
        seed = check_seed(seed)  # numpy integers too; Gymnasium takes Python ints only
        if self.autoreset_mode is AutoresetMode.SAME_STEP and _called_from("torchrl."):
            raise OptionError("TorchRL's GymWrapper cannot read the nested info['game'] in "
                              "autoreset_mode='same_step'; make the env with autoreset_mode='disabled' "
                              "(docs/integrations/torchrl.md#the-batched-vector-env)")
        options = reset_options(options, RESET_OPTIONS + ("reset_mask",))
        rows = self._reset_rows(options.pop("reset_mask", None), seed)
        seat = self.batch.reset_seat(options)  # for the games this reset starts only
        if rows is not None:  # a partial reset: the other envs play on
            self._needs_reset = True  # until the opponents have moved (they may raise OpponentError)
            self.batch.reset_rows(rows, seat)
            self._needs_reset = False
            for flags in (self.returns, self.lengths, self._restart, self._over):
                flags[rows] = 0
            return self._observe(), self._infos(None)
        if seed is not None or not self._seeded:
            self._np_random, _ = gym.utils.seeding.np_random(seed)
            self.batch.seed(fresh_seed() if seed is None else seed)
            self._seeded = True
        self._needs_reset = True  # until the opponents have moved (they may raise OpponentError)
        self.batch.reset(seat)
        self._needs_reset = False
        for flags in (self.returns, self.lengths, self._restart, self._over):
            flags[:] = 0
        return self._observe(), self._infos(None)

    def _reset_rows(self, mask, seed):
        """The envs a ``reset_mask`` names (None: reset them all), checked as Gymnasium checks it."""
        if mask is None:
            return None
        if not (isinstance(mask, np.ndarray) and mask.dtype == np.bool_ and mask.shape == (self.num_envs,)):
            raise ValueError(f"reset_mask must be a bool numpy array of shape ({self.num_envs},), "
                             f"got {show(mask)}")
        if seed is not None:
            raise ValueError("reset_mask restarts envs on the current master seed; give a seed to a full "
                             "reset (without reset_mask) instead")
        if self._needs_reset:
            raise RuntimeError("call reset() without reset_mask first (a reset_mask restarts some envs of "
                               "a running batch)")
        return np.flatnonzero(mask)

    def step(self, actions):
        if self._needs_reset:
            raise RuntimeError("call reset() before step() (first, or after an OpponentError)")
        try:
            return self._step(actions)
        except OpponentError:
            self._needs_reset = True  # the learner moved, the opponents did not: rows are mid-turn
            raise

    def _step(self, actions):
        same_step = self.autoreset_mode is AutoresetMode.SAME_STEP
        if self._over.any():
            raise RuntimeError(f"the games of envs {np.flatnonzero(self._over).tolist()} are over: restart "
                               "them with reset(options={'reset_mask': ...}) first (autoreset_mode='disabled')")
        restart = np.flatnonzero(self._restart)  # NEXT_STEP: these envs' actions are ignored
        skip = None
        if restart.size:
            skip = self._restart.copy()
            actions = self.batch.check_actions(actions, skip)  # refused before the restarts change anything
            self.batch.reset_rows(restart)
        self._restart[:] = False
        reward, terminated, truncated, illegal = self.batch.step(actions, skip)
        self.returns += reward
        self.lengths += 1
        self.lengths[restart] = 0
        truncated = truncated | ((self.lengths >= self.max_episode_steps) & ~terminated)
        done = np.flatnonzero(terminated | truncated)
        infos = self._infos(done)
        if same_step and done.size:  # only then, as Gymnasium's own vector envs (TorchRL relies on it)
            infos["final_obs"] = np.empty(self.num_envs, dtype=object)
            infos["_final_obs"] = infos["_game"].copy()
            last = self.batch.core.observe(self.batch.state.take(done), self.batch.learner_seat[done])
            masks = self.batch.action_masks()[done]
            for k, i in enumerate(done):
                infos["final_obs"][i] = with_mask(last[k], masks[k], self.observation_mask)
        if done.size:
            game = infos["game"]
            game["outcome"][done] = np.where(illegal, -1.0, np.sign(self.returns))[done]
            game["illegal_action"][done] = illegal[done]
            names = np.full(self.num_envs, "", dtype=object)
            names[done] = self.batch.opponent.names(done)
            game["opponent"] = names.astype(str)  # text, not objects: TorchRL stacks every info array
            self.batch.opponent.on_episode_end(done, game["outcome"][done], self.batch.learner_seat[done])
            self.returns[done] = 0
            self.lengths[done] = 0
            if same_step:
                self.batch.reset_rows(done)
                infos["action_mask"] = self.batch.action_masks().copy()
                infos["learner_seat"] = self.batch.learner_seat.copy()
            elif self.autoreset_mode is AutoresetMode.NEXT_STEP:
                self._restart[done] = True
            else:
                self._over[done] = True
        return self._observe(), reward, terminated, truncated, infos

    def _observe(self):
        return with_mask(self.batch.observe(), self.batch.action_masks(), self.observation_mask)

    def _infos(self, done):
        """The infos of every reset and step, with the same keys each time; ``game`` holds the
        return and length of the envs in ``done`` (the rest of its fields the caller fills in)."""
        flag = np.zeros(self.num_envs, dtype=bool)
        game = {"r": np.zeros(self.num_envs, np.float32), "l": np.zeros(self.num_envs, np.int64),
                "outcome": np.zeros(self.num_envs), "illegal_action": np.zeros(self.num_envs, bool),
                "learner_seat": self.batch.learner_seat.copy(),
                "opponent": np.full(self.num_envs, "")}
        if done is not None and done.size:
            flag[done] = True
            game["r"][done] = self.returns[done]
            game["l"][done] = self.lengths[done]
        return {"action_mask": self.batch.action_masks().copy(), "learner_seat": self.batch.learner_seat.copy(),
                "game": game, "_game": flag}

    def action_masks(self) -> np.ndarray:
        return self.batch.action_masks()

    def render(self):
        """One frame per env, as a tuple (Gymnasium's vector envs and wrappers such as RecordVideo
        expect it): text with ``render_mode="ansi"``, an (H, W, 3) uint8 picture with ``"rgb_array"``."""
        if self.render_mode is None:
            return None
        state = self.batch.started("render()")
        draw = self.core.render_ansi if self.render_mode == "ansi" else self.core.render_rgb
        return tuple(draw(state, i) for i in range(self.num_envs))
