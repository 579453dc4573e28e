"""Every game of the registry as an OpenSpiel Python game (``pip install "yyenvs[openspiel]"``).

Importing this module registers ``yyenvs_<id>`` for each game (``yyenvs_yoxii``,
``yyenvs_koi``, ``yyenvs_yinyang``); the game's options are OpenSpiel game
parameters, so ``pyspiel.load_game("yyenvs_koi(board_size=7,directions=4)")``
is Koi 7 x 7 with 4 directions.  Everything the registration declares comes
from the game's spec (players, chance, information, parameters) and from the
core built from the parameters (actions, utilities, longest game).

* Chance is explicit, as OpenSpiel asks: a game whose spec declares chance
  (Yin Yang) runs on its ``chance="explicit"`` core, so every coin throw and bag
  draw is a chance node whose outcomes and probabilities come from
  ``core.chance_probabilities``; a clone of a state draws its own future.
* A game whose set-up is dealt at random (``spec.random_setup``, Yin Yang)
  starts with one more chance node, the deal: one of ``num_distinct_actions``
  equally likely outcomes, outcome ``k`` being the set-up of seed ``k``.
* Yin Yang's missions are hidden, so it is an imperfect-information game; its
  observation tensor and string are the observing seat's own (the core's
  ``observe``), and it provides no information states.
* Rewards come at the end only (``RewardModel.TERMINAL``); Yoxii and Koi are
  zero-sum.
* A state holds a batch of one game of the core.  OpenSpiel clones a Python
  state by deep-copying its attributes, so the state keeps only a key to its
  core (the cores live in this module) and its small arrays.
"""
from __future__ import annotations

import numpy as np
import pyspiel

from yyenvs.core.contract import CHANCE_PLAYER
from yyenvs.games import GAMES, make_core

PREFIX = "yyenvs_"
_CORES: dict = {}  # (game id, options) -> core


def short_name(game: str) -> str:
    """The OpenSpiel name of a game of the registry, e.g. ``"yyenvs_koi"``."""
    return PREFIX + game


def parameters(spec) -> dict:
    """A game's OpenSpiel parameters and their defaults: its options, less file paths and ``chance``."""
    return {o.name: o.default for o in spec.options if o.kind != "path" and o.name != "chance"}


def _core_key(spec, params) -> tuple:
    options = {**parameters(spec), **params}
    if spec.chance:
        options["chance"] = "explicit"
    key = (spec.id, tuple(sorted(options.items())))
    if key not in _CORES:
        _CORES[key] = make_core(spec.id, **options)  # OptionError names a bad parameter
    return key


def _game_type(spec) -> pyspiel.GameType:
    T = pyspiel.GameType
    zero_sum = spec.players == (2, 2)  # two-player games scored +1 / 0 / -1
    return T(
        short_name=short_name(spec.id),
        long_name=f"{spec.title} (yyenvs)",
        dynamics=T.Dynamics.SEQUENTIAL,
        chance_mode=(T.ChanceMode.EXPLICIT_STOCHASTIC if spec.chance or spec.random_setup
                     else T.ChanceMode.DETERMINISTIC),
        information=(T.Information.PERFECT_INFORMATION if spec.perfect_information
                     else T.Information.IMPERFECT_INFORMATION),
        utility=T.Utility.ZERO_SUM if zero_sum else T.Utility.GENERAL_SUM,
        reward_model=T.RewardModel.TERMINAL,
        max_num_players=spec.players[1],
        min_num_players=spec.players[0],
        provides_information_state_string=False,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=parameters(spec),
    )


class YyenvsGame(pyspiel.Game):
    """One game of the registry at some parameters (subclassed per game by :func:`register`)."""

    spec = None  # set per subclass

    def __init__(self, params=None):
        params = dict(params or {})
        self.core_key = _core_key(self.spec, params)
        core = _CORES[self.core_key]
        deals = core.num_actions if self.spec.random_setup else 0
        lo, hi = core.reward_range
        info = pyspiel.GameInfo(
            num_distinct_actions=core.num_actions,
            max_chance_outcomes=core.num_actions if (self.spec.chance or deals) else 0,
            num_players=core.num_players,
            min_utility=float(lo), max_utility=float(hi),
            utility_sum=0.0 if self.spec.players == (2, 2) else None,
            max_game_length=core.max_game_length + (1 if deals else 0))
        super().__init__(_game_type(self.spec), info, params)

    def new_initial_state(self):
        return YyenvsState(self)

    def make_py_observer(self, iig_obs_type=None, params=None):
        if iig_obs_type is not None and iig_obs_type.perfect_recall:
            raise ValueError(f"{self.spec.id}: no information states (perfect recall) are provided; "
                             f"observations only")
        return YyenvsObserver(self, params)


class YyenvsState(pyspiel.State):
    """A game in progress: a batch of one game of the core, plus the deal when the set-up is dealt."""

    def __init__(self, game: YyenvsGame):
        super().__init__(game)
        self._key = game.core_key
        self._random_setup = game.spec.random_setup
        core = self.core
        self._dealt = not self._random_setup
        self._game = core.init(np.zeros(1, np.uint64))  # the start (a dealt game is replaced by the deal)
        self._returns = np.zeros(core.num_players)
        self._last = np.zeros(core.num_players)

    @property
    def core(self):
        return _CORES[self._key]

    # -- OpenSpiel's State API ------------------------------------------------------------------
    def current_player(self):
        if not self._dealt:
            return pyspiel.PlayerId.CHANCE
        if self._game.done[0]:
            return pyspiel.PlayerId.TERMINAL
        p = int(self._game.current_player[0])
        return pyspiel.PlayerId.CHANCE if p == CHANCE_PLAYER else p

    def _legal_actions(self, player):
        return np.flatnonzero(self.core.legal_action_mask(self._game)[0]).tolist()

    def chance_outcomes(self):
        if not self._dealt:
            n = self.core.num_actions
            return [(k, 1.0 / n) for k in range(n)]
        p = self.core.chance_probabilities(self._game)[0]
        outcomes = np.flatnonzero(p > 0)
        return list(zip(outcomes.tolist(), p[outcomes].tolist()))

    def _apply_action(self, action):
        core = self.core
        if not self._dealt:
            self._game = core.init(np.array([action], np.uint64))
            self._dealt = True
            return
        core.step(self._game, np.array([action], np.int64))
        self._last = self._game.rewards[0].astype(np.float64)
        self._returns = self._returns + self._last

    def _action_to_string(self, player, action):
        if not self._dealt:
            return f"deal {action}"
        return self.core.action_to_string(int(action))

    def is_terminal(self):
        return self._dealt and bool(self._game.done[0])

    def returns(self):
        return self._returns.tolist()

    def rewards(self):
        return self._last.tolist()

    def __str__(self):
        if not self._dealt:
            return "(before the deal)"
        return self.core.render_ansi(self._game, 0)


class YyenvsObserver:
    """OpenSpiel's PyObserver: the core's observation of one seat (zeros before the deal)."""

    def __init__(self, game: YyenvsGame, params):
        if params:
            raise ValueError(f"observation parameters are not supported; got {params}")
        self.perfect_information = game.spec.perfect_information
        shape = _CORES[game.core_key].observation_shape
        self.tensor = np.zeros(int(np.prod(shape)), np.float32)
        self.dict = {"observation": self.tensor.reshape(shape)}

    def set_from(self, state: YyenvsState, player: int):
        if not state._dealt:
            self.tensor[:] = 0
            return
        self.dict["observation"][...] = state.core.observe(state._game, np.array([player], np.int8))[0]

    def string_from(self, state: YyenvsState, player: int) -> str:
        if self.perfect_information:
            return str(state)
        # the board picture would show every seat's hidden missions: name the seat's observation instead
        self.set_from(state, player)
        nonzero = np.flatnonzero(self.tensor)
        return " ".join(f"{i}:{self.tensor[i]:g}" for i in nonzero)


def register() -> list[str]:
    """Registers every game of the registry with OpenSpiel (done on import); returns their names."""
    known = set(pyspiel.registered_names())
    names = []
    for game_id, spec in GAMES.items():
        name = short_name(game_id)
        if name not in known:
            cls = type(f"{spec.title.replace(' ', '')}Game", (YyenvsGame,), {"spec": spec})
            pyspiel.register_game(_game_type(spec), cls)
        names.append(name)
    return names


register()
