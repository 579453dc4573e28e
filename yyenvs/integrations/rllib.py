"""RLlib, ready to use (``pip install -e ".[rllib]"``, in an environment of its own: ``ray[rllib]``
pins gymnasium 1.2.2; ``./dev test`` builds ``.venv-rllib`` for it).

Two ways in, both with observations as RLlib's action-masking module reads
them, ``{"observations": float32 vector, "action_mask": float32 0/1}``
(:func:`observation_space`):

* **Multi-agent**: :class:`MultiAgentGameEnv` is one game with every seat an
  RLlib agent (``"<name>_<seat>"``, as in the PettingZoo envs).  Only the seat
  to move gets an observation; every seat gets its reward each step; at the
  end every seat gets its last observation.  An illegal action ends the game
  with -1 for the mover (the package's documented penalty).  Register it with
  ``ray.tune.registry.register_env("yyenvs_ma", multi_agent_env)``.
* **Batched single-agent**: :func:`vector_env` is the env creator (registered
  with Tune, it reaches every env runner) of the package's vector env: all of an env
  runner's games in one core state, opponents moved for the whole batch,
  Gymnasium's NEXT_STEP autoreset, which RLlib assumes; use it with
  ``gym_env_vectorize_mode="vector_entry_point"``.  :func:`register` also
  gives each game a Gymnasium id ``yyenvs-rllib/<Game>-v<k>`` for
  ``gym.make_vec`` in the current process.

:func:`masking_module_spec` is the RLModule spec (PPO with masked logits) and
:func:`selfplay_ppo_config` the self-play recipe in the style of RLlib's own
league examples: a trained ``main`` policy against frozen snapshots of itself,
seats assigned per episode.
"""
from __future__ import annotations

import zlib

import gymnasium as gym
import numpy as np
from ray.rllib.callbacks.callbacks import RLlibCallback
from ray.rllib.env.multi_agent_env import MultiAgentEnv

from yyenvs.agents.base import Agent
from yyenvs.core.errors import IllegalActionError
from yyenvs.core.rng import check_seed, derive_seeds, fresh_seed
from yyenvs.core.threads import fit_ray_worker
from yyenvs.envs.learner import ILLEGAL_ACTION_REWARD
from yyenvs.envs.vector import GameVectorEnv
from yyenvs.games import GAMES, make_core

MAIN = "main"  #: the trained policy of the self-play recipe


def observation_space(core) -> gym.spaces.Dict:
    """What both envs observe: the core's observation flattened, and the legal actions as float32."""
    low = np.broadcast_to(core.observation_low, core.observation_shape).reshape(-1)
    high = np.broadcast_to(core.observation_high, core.observation_shape).reshape(-1)
    return gym.spaces.Dict({
        "observations": gym.spaces.Box(low.astype(np.float32), high.astype(np.float32), dtype=np.float32),
        "action_mask": gym.spaces.Box(0.0, 1.0, (core.num_actions,), np.float32),
    })


def rllib_observation(obs: np.ndarray, mask: np.ndarray) -> dict:
    """A batch of observations and masks in the layout of :func:`observation_space`."""
    return {"observations": obs.reshape(obs.shape[0], -1).astype(np.float32, copy=False),
            "action_mask": mask.astype(np.float32)}


# -- the multi-agent env --------------------------------------------------------------------------
class MultiAgentGameEnv(MultiAgentEnv):
    """One game, every seat an agent.  ``config``: ``game`` and the game's options.

    ``reset(seed=s)`` makes ``s`` the master seed: the ``k``-th game after it is
    the one of seed ``derive_seeds(s, 0, k)``, as in the package's other envs.
    The info of each seat's last step holds ``decisions``, the moves it made.
    """

    def __init__(self, config=None):
        super().__init__()
        config = dict(config or {})
        self.core = make_core(config.pop("game", "yoxii"), **config)
        self.agents = self.possible_agents = [f"{n}_{i}" for i, n in enumerate(self.core.player_names())]
        space = observation_space(self.core)
        self.observation_spaces = {a: space for a in self.agents}
        self.action_spaces = {a: gym.spaces.Discrete(self.core.num_actions) for a in self.agents}
        self._master, self._games = fresh_seed(), 0
        self.state = None

    def _observe(self, seats) -> dict:
        seats = np.asarray(seats, np.int8)
        obs = self.core.observe(self.state.take(np.zeros(seats.size, np.int64)), seats)
        mask = self.core.legal_action_mask(self.state)[0]
        out = rllib_observation(obs, np.broadcast_to(mask, (seats.size, mask.size)))
        return {self.agents[s]: {k: v[i] for k, v in out.items()} for i, s in enumerate(seats)}

    def reset(self, *, seed=None, options=None):
        if seed is not None:
            self._master, self._games = check_seed(seed), 0
        self.state = self.core.init(np.atleast_1d(derive_seeds(self._master, 0, self._games)))
        self._games += 1
        self._decisions = np.zeros(self.core.num_players, np.int64)
        return self._observe([int(self.state.current_player[0])]), {}

    def step(self, action_dict):
        seat = int(self.state.current_player[0])
        agent = self.agents[seat]
        if set(action_dict) != {agent}:
            raise ValueError(f"{self.core.name}: {agent} is to move; got actions for {sorted(action_dict)}")
        action = self.core.coerce_actions([action_dict[agent]], 1, where=lambda i: agent,
                                          beyond="outside the action space")
        if not 0 <= action[0] < self.core.num_actions:  # as in the package's other envs: an error, not a move
            raise IllegalActionError(f"{self.core.name}: action {action[0]} of {agent} is outside the action "
                                     f"space [0, {self.core.num_actions})")
        self._decisions[seat] += 1
        legal = bool(self.core.legal_action_mask(self.state)[0, action[0]])
        rewards = dict.fromkeys(self.agents, 0.0)
        if legal:
            self.core.step(self.state, action)
            for s, a in enumerate(self.agents):
                rewards[a] = float(self.state.rewards[0, s])
            over, cut = bool(self.state.terminated[0]), bool(self.state.truncated[0])
        else:
            rewards[agent], over, cut = ILLEGAL_ACTION_REWARD, True, False
        if not (over or cut):
            return (self._observe([int(self.state.current_player[0])]), rewards,
                    {"__all__": False}, {"__all__": False}, {})
        infos = {a: {"decisions": int(self._decisions[s]), "illegal_action": not legal}
                 for s, a in enumerate(self.agents)}
        return (self._observe(range(self.core.num_players)), rewards,
                {**dict.fromkeys(self.agents, over), "__all__": over},
                {**dict.fromkeys(self.agents, cut), "__all__": cut}, infos)


def multi_agent_env(config) -> MultiAgentGameEnv:
    """The env creator for ``register_env`` (RLlib passes its ``env_config``); in an env runner, its
    threads are the CPUs Ray gave it (:func:`yyenvs.core.threads.fit_ray_worker`)."""
    fit_ray_worker()
    return MultiAgentGameEnv(dict(config))


# -- the batched single-agent env -----------------------------------------------------------------
class RLlibVectorEnv(gym.vector.VectorObservationWrapper):
    """The package's vector env with :func:`observation_space` observations (NEXT_STEP autoreset)."""

    def __init__(self, game: str, num_envs: int = 1, **kwargs):
        kwargs.pop("autoreset_mode", None)
        super().__init__(GameVectorEnv(game, num_envs=num_envs, autoreset_mode="next_step", **kwargs))
        self.single_observation_space = observation_space(self.env.core)
        self.observation_space = gym.vector.utils.batch_space(self.single_observation_space, self.num_envs)

    def observations(self, observations):
        return rllib_observation(observations, self.env.action_masks())


def vector_env(config) -> RLlibVectorEnv:
    """The env creator to register (``ray.tune.registry.register_env("yyenvs_vector", vector_env)``) and use
    with ``env_config={"game": ..., options...}`` and ``gym_env_vectorize_mode="vector_entry_point"``:
    RLlib's env runners add ``num_envs`` (their ``num_envs_per_env_runner``) to the config."""
    fit_ray_worker()
    config = dict(config)
    return RLlibVectorEnv(config.pop("game", "yoxii"), num_envs=config.pop("num_envs", 1), **config)


def gym_id(game: str) -> str:
    """``yyenvs-rllib/<Game>-v<k>``: the game's Gymnasium id under RLlib's namespace."""
    return GAMES[game].gym_id.replace("yyenvs/", "yyenvs-rllib/")


def _vector_entry_point(game):
    def make(num_envs: int = 1, **kwargs):
        fit_ray_worker()
        return RLlibVectorEnv(game, num_envs=num_envs, **kwargs)
    return make


def register() -> list[str]:
    """Registers :func:`gym_id` of every game with Gymnasium (for RLlib's env runners); returns the ids."""
    ids = []
    for game in GAMES:
        name = gym_id(game)
        if name not in gym.registry:
            gym.register(id=name, vector_entry_point=_vector_entry_point(game), kwargs={})  # the core's cap
        ids.append(name)
    return ids


# -- an RLlib module as an agent of the package ----------------------------------------------------
class ModuleAgent(Agent):
    """An RLlib RLModule trained on these observations (e.g. the recipe's ``main``), playing
    its most probable legal action: usable wherever the package takes an agent object
    (:func:`yyenvs.evaluation.matches.play_match`, ``gym.make(..., opponent=agent)``)."""

    name = "rllib"

    def __init__(self, core, module, seed: int = 0):
        super().__init__(core, seed)
        self.module = module

    def act(self, state, mask):
        import torch
        mask = self.legal_mask(state, mask)
        obs = rllib_observation(self.core.observe(state, state.current_player), mask)
        with torch.no_grad():
            out = self.module.forward_inference({"obs": {k: torch.from_numpy(v) for k, v in obs.items()}})
        logits = np.where(mask, out["action_dist_inputs"].numpy(), -np.inf)
        return np.where(mask.any(axis=1), logits.argmax(axis=1), -1).astype(np.int64)


# -- modules and the self-play recipe -------------------------------------------------------------
def masking_module_spec(hidden=(256, 256)):
    """The RLModuleSpec of RLlib's action-masking PPO module, an MLP of ``hidden``."""
    from ray.rllib.core.rl_module.default_model_config import DefaultModelConfig
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule
    return RLModuleSpec(module_class=ActionMaskingTorchRLModule,
                        model_config=DefaultModelConfig(fcnet_hiddens=list(hidden)))


def seat_of(agent_id: str) -> int:
    return int(str(agent_id).rsplit("_", 1)[1])


def main_seat(episode, num_players: int) -> int:
    """The seat ``main`` takes in an episode: drawn from its id, so every seat gets played."""
    return zlib.crc32(str(episode.id_).encode()) % num_players


class LeagueCallback(RLlibCallback):
    """Self-play league: ``main`` against a pool of its frozen snapshots (``main_v0`` at the start,
    an untrained copy).  After each training iteration where ``main`` won more than
    ``win_rate`` of its recent games, a new snapshot ``main_v<k>`` joins the pool; each
    episode's opponents are drawn uniformly from the pool."""

    def __init__(self, num_players: int = 2, win_rate: float = 0.6, max_snapshots: int = 20):
        super().__init__()
        self.num_players, self.win_rate, self.max_snapshots = num_players, win_rate, max_snapshots
        self.pool = ["main_v0"]

    def on_episode_end(self, *, episode, metrics_logger, **kwargs):
        seat = main_seat(episode, self.num_players)
        returns = {a: float(np.sum(r)) for a, r in episode.get_rewards().items()}
        mine = next((v for a, v in returns.items() if seat_of(a) == seat), 0.0)
        others = [v for a, v in returns.items() if seat_of(a) != seat]
        metrics_logger.log_value("main_win_rate", float(mine > max(others, default=0.0)), reduce="mean",
                                 window=200)

    def on_train_result(self, *, algorithm, result, **kwargs):
        from ray.rllib.core.rl_module.rl_module import RLModuleSpec
        from ray.rllib.utils.metrics import ENV_RUNNER_RESULTS
        rate = result.get(ENV_RUNNER_RESULTS, {}).get("main_win_rate")
        if rate is not None and rate > self.win_rate and len(self.pool) <= self.max_snapshots:
            new = f"main_v{len(self.pool)}"
            main = algorithm.get_module(MAIN)
            self.pool.append(new)
            algorithm.add_module(module_id=new, module_spec=RLModuleSpec.from_module(main),
                                 new_agent_to_module_mapping_fn=league_mapping(self.num_players, list(self.pool)))
            algorithm.set_state({"learner_group": {"learner": {"rl_module": {new: main.get_state()}}}})
        result["league_size"] = len(self.pool) + 1


def league_mapping(num_players: int, pool: list[str]):
    """Agent -> module: ``main`` in the episode's main seat, pool members (by episode and seat) elsewhere."""
    def mapping(agent_id, episode, **kwargs):
        seat = seat_of(agent_id)
        if seat == main_seat(episode, num_players):
            return MAIN
        return pool[zlib.crc32(f"{episode.id_}/{seat}".encode()) % len(pool)]
    return mapping


def selfplay_ppo_config(game: str = "yoxii", options: dict | None = None, hidden=(256, 256),
                        num_env_runners: int = 1, win_rate: float = 0.6):
    """A PPOConfig for league self-play on :class:`MultiAgentGameEnv` (``env="yyenvs_ma"``)."""
    import functools

    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.tune.registry import register_env
    register_env("yyenvs_ma", multi_agent_env)
    core = make_core(game, **(options or {}))
    P = core.num_players
    spec = masking_module_spec(hidden)
    return (PPOConfig()
            .environment("yyenvs_ma", env_config={"game": game, **(options or {})})
            .env_runners(num_env_runners=num_env_runners, num_envs_per_env_runner=1)
            .multi_agent(policies={MAIN, "main_v0"}, policy_mapping_fn=league_mapping(P, ["main_v0"]),
                         policies_to_train=[MAIN])
            .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={MAIN: spec, "main_v0": spec}))
            .callbacks(functools.partial(LeagueCallback, num_players=P, win_rate=win_rate)))


def vector_ppo_config(game: str = "yoxii", options: dict | None = None, opponent: str = "random",
                      num_envs: int = 64, hidden=(256, 256), num_env_runners: int = 0):
    """A PPOConfig for the batched single-agent env: one learner seat against ``opponent``."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.tune.registry import register_env
    register_env("yyenvs_vector", vector_env)  # Tune's registry reaches every env runner
    return (PPOConfig()
            .environment("yyenvs_vector", env_config={"game": game, "opponent": opponent, **(options or {})})
            .env_runners(num_env_runners=num_env_runners, num_envs_per_env_runner=num_envs,
                         gym_env_vectorize_mode="vector_entry_point")
            .rl_module(rl_module_spec=masking_module_spec(hidden)))
