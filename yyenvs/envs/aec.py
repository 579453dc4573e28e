"""The PettingZoo AEC environment, written once over any game core.

It follows PettingZoo's classic games: observations are
``{"observation": ..., "action_mask": int8}``, an illegal action ends the game
with -1 for the player who made it (0 for the others), and ``env()`` wraps
``raw_env()`` in the order-enforcing wrapper.  An action outside the action
space raises :class:`~yyenvs.core.contract.IllegalActionError` instead.  With
explicit chance (``chance="explicit"``) the env draws every chance outcome
itself from the game's own stream, so the agents are only ever players and the
games are those of the sampled mode.
"""
from __future__ import annotations

import functools

import numpy as np
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.env_logger import EnvLogger

from yyenvs.core.errors import IllegalActionError, OptionError, show
from yyenvs.core.rng import check_seed, derive_seeds, fresh_seed
from yyenvs.envs.learner import reset_options
from yyenvs.envs.rendering import Renderer, check_render_mode
from yyenvs.envs.spaces import action_space, observation_space
from yyenvs.games import game_spec, make_core


class GameAECEnv(AECEnv, EzPickle):
    """One game of ``game`` (a registry name) as a PettingZoo AEC environment.

    ``reset(seed=s)`` makes ``s`` the master seed: the ``k``-th game after it has
    the seed ``derive_seeds(s, 0, k)`` (:func:`yyenvs.core.rng.derive_seeds`).
    """

    game: str = ""
    defaults: dict = {}  # option defaults of an earlier environment version (see aec_factories)
    metadata = {"render_modes": ["ansi", "rgb_array", "human"], "name": "",
                "is_parallelizable": False, "render_fps": 2}

    def __init__(self, render_mode: str | None = None, **options):
        EzPickle.__init__(self, render_mode=render_mode, **options)
        super().__init__()
        check_render_mode(render_mode)
        self.core = make_core(self.game, **{**self.defaults, **options})
        self._renderer = Renderer(self.core, render_mode)
        self.render_mode = render_mode
        # "<name>_<seat>" is the form PettingZoo's api_test asks for
        self.possible_agents = [f"{n}_{i}" for i, n in enumerate(self.core.player_names())]
        self._seat = {name: np.array([i], np.int8) for i, name in enumerate(self.possible_agents)}
        obs_space = observation_space(self.core, np.int8)
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: action_space(self.core) for a in self.possible_agents}
        self._master_seed: int | None = None
        self._games_played = 0
        self.game_state = None
        self._last_move = None

    # pickling keeps the game in progress (EzPickle alone would rebuild a fresh env)
    def __getstate__(self):
        return dict(self.__dict__)

    def __setstate__(self, state):
        self.__dict__.update(state)

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    # -- episode -----------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict | None = None):
        seed = check_seed(seed)
        reset_options(options, allowed=None)  # a mapping or None; no option is used
        if seed is not None or self._master_seed is None:
            self._master_seed = fresh_seed() if seed is None else seed
            self._games_played = 0
        # each reset plays the next game of this env's seeded sequence
        game_seed = derive_seeds(self._master_seed, 0, np.array([self._games_played], np.uint64))
        self._games_played += 1
        self.game_state = self.core.init(game_seed)
        self.core.resolve_chance(self.game_state)  # explicit chance: drawn by the env, never by an agent
        self._last_move = None
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self._mask = None
        self.agent_selection = self.possible_agents[int(self.game_state.current_player[0])]
        if self.render_mode == "human":
            self.render()

    def _legal_mask(self) -> np.ndarray:
        if self._mask is None:
            self._mask = self.core.legal_action_mask(self.game_state)[0]
        return self._mask

    def observe(self, agent):
        obs = self.core.observe(self.game_state, self._seat[agent])[0]
        if agent == self.agent_selection and not (self.terminations[agent] or self.truncations[agent]):
            mask = self._legal_mask().view(np.int8).copy()
        else:
            mask = np.zeros(self.core.num_actions, np.int8)
        return {"observation": obs, "action_mask": mask}

    def step(self, action):
        if self.game_state is None:
            raise RuntimeError("call reset() before step()")
        if not self.agents:  # every agent is done: PettingZoo's documented no-op with a warning
            EnvLogger.warn_step_after_terminated_truncated()
            return
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            return self._was_dead_step(action)
        action = self._check_action(action)
        self._cumulative_rewards[agent] = 0.0
        if not self._legal_mask()[action]:
            # PettingZoo's classic convention: the game ends, the offender gets -1
            self.rewards = dict.fromkeys(self.agents, 0.0)
            self.rewards[agent] = -1.0
            self.terminations = dict.fromkeys(self.agents, True)
            self.infos[agent] = {"illegal_action": action}
        else:
            self._last_move = (int(self.game_state.current_player[0]), action)  # highlighted by render()
            self.core.step(self.game_state, np.array([action], np.int64))
            rewards = self.game_state.rewards[0].copy()  # the chance steps below overwrite state.rewards
            rewards += self.core.resolve_chance(self.game_state)[0]
            self._mask = None
            self.rewards = dict(zip(self.possible_agents, rewards.tolist()))
            if self.game_state.terminated[0]:
                self.terminations = dict.fromkeys(self.agents, True)
            elif self.game_state.truncated[0]:
                self.truncations = dict.fromkeys(self.agents, True)
            self.agent_selection = self.possible_agents[int(self.game_state.current_player[0])]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _check_action(self, action) -> int:
        core, agent = self.core, self.agent_selection
        if (type(action) is int or isinstance(action, np.integer)) and 0 <= action < core.num_actions:
            return int(action)  # the common case, without the general check's array work
        if action is None:
            raise IllegalActionError(f"{core.name}: action None for {agent}, whose game is not over")
        try:
            ndim = np.ndim(action)
        except Exception:  # ragged nesting and the like
            ndim = -1
        if ndim != 0:
            raise IllegalActionError(f"{core.name}: action {show(action)} for {agent} is not one integer")
        # the shared check: NaN, inf, 2.5, bools, strings, objects, beyond int64
        a = int(core.coerce_actions(np.reshape(action, 1), 1, where=lambda i: f"for {agent}",
                                    beyond="outside the action space")[0])
        if not 0 <= a < core.num_actions:
            raise IllegalActionError(f"{core.name}: action {show(action)} for {agent} is outside "
                                     f"the action space [0, {core.num_actions})")
        return a

    # -- rendering -------------------------------------------------------------------
    def render(self):
        return self._renderer.render(self.game_state, self._last_move)

    def close(self):
        self._renderer.close()


class OrderEnforcingWrapper(wrappers.OrderEnforcingWrapper):
    """PettingZoo's order-enforcing wrapper with a direct ``last()``.

    The stock ``last()`` reads half a dozen attributes through two levels of
    ``__getattr__``; delegating once keeps the same checks at a third of the cost.
    """

    def last(self, observe: bool = True):
        if not self._has_reset:
            EnvLogger.error_observe_before_reset()
        return self.env.last(observe)

    def step(self, action) -> None:
        if not self._has_reset:
            EnvLogger.error_step_before_reset()
        self._has_updated = True
        if not self.env.agents:
            EnvLogger.warn_step_after_terminated_truncated()
        else:
            self.env.step(action)


@functools.cache
def aec_factories(game: str, version: int | None = None):
    """``(raw_env, env)`` for the thin PettingZoo-style module of ``game`` at environment ``version``
    (default: today's; an earlier one keeps the option defaults it had)."""
    spec = game_spec(game)
    version = spec.version if version is None else version
    if version not in spec.versions:
        raise OptionError(f"{game} has environment versions {list(spec.versions)}, not {version}")
    env_name = spec.pettingzoo_module_of(version)
    raw_env = type("raw_env", (GameAECEnv,), {
        "game": game,
        "defaults": dict(spec.earlier_defaults.get(version, {})),
        "metadata": {**GameAECEnv.metadata, "name": env_name},
        "__module__": f"yyenvs.{env_name}",
        "__qualname__": "raw_env",
        "__doc__": f"The bare {game} AEC environment (no wrappers).",
    })

    def env(**kwargs):
        """The AEC environment wrapped as PettingZoo's classic ``env()``."""
        return OrderEnforcingWrapper(raw_env(**kwargs))

    env.__module__ = f"yyenvs.{env_name}"
    return raw_env, env
