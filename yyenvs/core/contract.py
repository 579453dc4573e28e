"""The batched-core contract every game implements.

A *core* is everything a game is and nothing else.  It holds the game's
options and constants and works on a :class:`BatchState`: a dataclass of
numpy arrays whose first axis is the batch (one row per game).  The generic
layers (PettingZoo AEC, Gymnasium, vector env, agents, training) speak only
this contract; none of them names a game.

Conventions
-----------
* ``step`` mutates the state **in place** (and returns it).  Use
  ``state.copy()`` / ``state.take(rows)`` first when the old state is needed
  (search agents do).  Both are one ``np.copy`` / fancy-index per field.
* An action ``< 0`` means "leave this row alone"; a non-negative action on a
  finished row, an out-of-range action or an illegal action raises
  :class:`IllegalActionError` naming the row and the action.  So does an
  action that is not an integer (NaN, inf, 2.5, a bool, a string, an object)
  or does not fit in int64 (1e20, a uint64 >= 2**63).  Nothing is changed
  when the error is raised.
* Seats (``player`` arguments) are integers ``0 .. num_players - 1``; an
  ``out=`` buffer must be a writeable C-contiguous array of exactly the
  result's shape and dtype.  Both are checked before any kernel runs
  (ValueError naming what is wrong): a numba kernel trusts its arguments.
* ``rewards`` (B, P) holds the reward each player got from the last step of
  that row (zero on rows the step skipped), as Pgx does.
* Randomness belongs to a game, never to the batch: ``init`` gets one seed per
  row, and any chance inside the game draws from that row's own stream (see
  :mod:`yyenvs.core.rng`).  So a game depends only on its seed and its
  actions, whatever the batch size.
* Chance (games whose spec declares it) comes in two modes, a game option:
  ``chance="sampled"`` (the default) draws every chance event inside ``step``;
  ``chance="explicit"`` stops at each one instead: ``current_player`` is
  :data:`CHANCE_PLAYER`, the mask lists the outcomes that can happen,
  :meth:`GameCore.chance_probabilities` gives their probabilities and
  stepping with an outcome applies it.  The two modes' states have one
  layout; a search converts with :meth:`GameCore.with_options` and samples
  the outcomes itself, so it never reads the real game's future.
* Every public method that takes a state first checks it
  (:meth:`GameCore.check_state`): its type and each field's dtype, trailing
  shape and batch length must match those of a state this core makes, else
  ValueError naming the field (a state of another game or of other options
  would send a kernel out of its arrays).  A checked state is stamped, so a
  later call costs one attribute look-up; ``copy`` / ``take`` /
  ``concatenate`` keep the stamp.  Replacing a state's arrays by hand
  (``state.board = ...``) with arrays of other shapes or dtypes is **not
  supported**: swap in arrays of the same layout only, or build a new state.
"""
from __future__ import annotations

import abc
import dataclasses
import functools
import operator
from typing import Any, ClassVar

import numpy as np
from numba import njit

from yyenvs.core.spec import GameSpec
from yyenvs.core.errors import IllegalActionError, OpponentError, OptionError, show  # noqa: F401

INT64_MAX = int(np.iinfo(np.int64).max)


def _is_int(x) -> bool:
    return isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))


def _action_value(x) -> int:
    """0: an integer int64 holds (integral floats too); 1: not an integer; 2: beyond int64."""
    if isinstance(x, np.ndarray) and x.ndim == 0:  # what SB3's predict returns for one observation
        x = x[()]
    if isinstance(x, (float, np.floating)):
        x = float(x)  # float16 / float32 cannot hold the int64 bounds (and would warn)
        if not (np.isfinite(x) and x == np.round(x)):
            return 1
        return 0 if -2.0 ** 63 <= x < 2.0 ** 63 else 2
    if not _is_int(x):
        return 1
    return 0 if -INT64_MAX - 1 <= x <= INT64_MAX else 2


#: ``current_player`` of a row waiting for a chance outcome (explicit chance)
CHANCE_PLAYER = -1


@functools.cache
def _fields_of(kind: type):
    """A getter of a named tuple's fields from a state, as a tuple (cached: every kernel call asks)."""
    if len(kind._fields) == 1:  # attrgetter of one name gives the value itself
        return lambda state: (getattr(state, kind._fields[0]),)
    return operator.attrgetter(*kind._fields)


@functools.cache
def field_names(kind: type) -> tuple[str, ...]:
    """The field names of a state dataclass, in order (cached: the hot paths ask every step)."""
    return tuple(f.name for f in dataclasses.fields(kind))


@dataclasses.dataclass
class BatchState:
    """Fields shared by every game state; a game's state subclasses this.

    Every field is a numpy array whose first axis is the batch.
    """

    current_player: np.ndarray  # (B,) int8   player to act (0-based seat)
    rewards: np.ndarray  # (B, P) float32 reward of the last step, per player
    terminated: np.ndarray  # (B,) bool    game over by the rules
    truncated: np.ndarray  # (B,) bool    game stopped by a cap (no result)
    ply: np.ndarray  # (B,) int32   actions applied so far
    seed: np.ndarray  # (B,) uint64  the seed the row was created from

    # not a field: ``_layout``, the stamp of the core that last checked this state
    # (:meth:`GameCore.check_state`), unset until one has.  A slot, so that
    # ``vars(state)`` still holds the fields only.
    __slots__ = ("_layout", "__dict__", "__weakref__")

    @staticmethod
    def start_of_game(seeds: np.ndarray, num_players: int) -> dict:
        """The shared fields of games about to start from ``seeds`` ((B,) uint64): seat 0 to move, no
        reward, not over, ply 0.  A core's ``init`` adds its own fields to these."""
        B = seeds.shape[0]
        return {"current_player": np.zeros(B, np.int8), "rewards": np.zeros((B, num_players), np.float32),
                "terminated": np.zeros(B, bool), "truncated": np.zeros(B, bool), "ply": np.zeros(B, np.int32),
                "seed": seeds}

    def arrays(self, kind) -> tuple:
        """This state's fields named by the named-tuple type ``kind`` (a subset of the state's fields, by
        the same names), in its order, as a plain tuple: how a core hands its state to a numba kernel,
        which names it again with ``kind(*arrays)`` (see :mod:`yyenvs.core.kernels`)."""
        return _fields_of(kind)(self)

    @property
    def batch_size(self) -> int:
        return int(self.current_player.shape[0])

    @property
    def done(self) -> np.ndarray:
        return self.terminated | self.truncated

    def _new(self, arrays: dict, keep_layout: bool = True) -> "BatchState":
        """A state of this type from ``arrays`` (one per field); the core's check stamp carries over
        when the layout is the same."""
        new = type(self)(**arrays)
        layout = getattr(self, "_layout", None)
        if keep_layout and layout is not None:
            new._layout = layout
        return new

    def copy(self) -> "BatchState":
        """A deep copy (new arrays)."""
        return self._new({name: getattr(self, name).copy(order="K") for name in field_names(type(self))})

    def take(self, rows) -> "BatchState":
        """The rows ``rows`` (an index array or a boolean mask) as a new batch."""
        rows = np.asarray(rows)
        return self._new({name: getattr(self, name)[rows] for name in field_names(type(self))},
                         keep_layout=rows.ndim == 1)

    def put(self, rows, other: "BatchState") -> None:
        """Overwrite rows ``rows`` with the rows of ``other`` (same length)."""
        for name in field_names(type(self)):
            getattr(self, name)[rows] = getattr(other, name)

    @classmethod
    def concatenate(cls, states) -> "BatchState":
        states = list(states)
        new = cls(**{f.name: np.concatenate([getattr(s, f.name) for s in states])
                     for f in dataclasses.fields(cls)})
        layouts = {id(getattr(s, "_layout", None)) for s in states}
        layout = getattr(states[0], "_layout", None) if states else None
        if (layout is not None and len(layouts) == 1
                and all(type(s) is cls for s in states)):  # one core's layout: keep its stamp
            new._layout = layout
        return new

    def nbytes_per_game(self) -> float:
        total = sum(getattr(self, f.name).nbytes for f in dataclasses.fields(self))
        return total / max(self.batch_size, 1)


class GameCore(abc.ABC):
    """A game: its declared spec, options, constants and batched numba functions.

    A game subclasses this with ``spec`` (its :class:`~yyenvs.core.spec.GameSpec`)
    and, in ``__init__`` after ``super().__init__(**options)``, the instance
    attributes ``num_players``, ``num_actions``, ``observation_shape`` and
    ``max_game_length``.  It writes its rules as the kernels behind
    ``_step`` / ``_mask`` / ``_observe`` (and optionally ``_heuristic``,
    ``_action_features``, ``_chance_probabilities``); the public methods here
    check the state, the actions, the seats and any ``out=`` buffer once for
    every game, then call them.
    """

    #: the game's declared facts (id, version, players, chance, options)
    spec: ClassVar[GameSpec]

    num_players: int
    num_actions: int
    observation_shape: tuple[int, ...]
    observation_dtype: Any = np.float32
    observation_low: float = 0.0
    observation_high: float = 1.0
    #: an upper bound on the number of steps of a game with these options
    max_game_length: int
    #: the least and most reward one step can give a player with these options
    reward_range: tuple[float, float] = (-1.0, 1.0)

    #: names of the per-action features this core offers (see :meth:`action_features`); may be empty
    action_feature_names: tuple[str, ...] = ()
    #: True when the (flat) observation ends with the :meth:`action_features` block of the
    #: observing seat, so that a policy can read them without knowing the game; the last
    #: feature is then "legal" (1 for the legal actions), which a policy may average by
    observation_ends_with_action_features: bool = False

    @property
    def observed_action_features(self) -> int:
        """How many per-action features end this core's observations (0: none)."""
        return len(self.action_feature_names) if self.observation_ends_with_action_features else 0

    #: True when chance events are nodes of the chance player (game option ``chance="explicit"``)
    explicit_chance: bool = False
    samples_chance: bool = False  # set by __init__ (see there)

    #: the layout of this core's states (see :meth:`check_state`); made on first use
    _layout: Any = None

    def __init__(self, **options: Any) -> None:
        self.options = self.spec.check_options(options)
        if self.spec.chance:
            self.explicit_chance = self.options.get("chance") == "explicit"
        #: this core draws chance itself: a row at a chance node has no move here (check_no_chance_node)
        self.samples_chance = self.spec.chance and not self.explicit_chance

    @property
    def name(self) -> str:
        """The game's registry id, e.g. ``"yoxii"`` (used in messages)."""
        return self.spec.id

    def with_options(self, **changes: Any) -> "GameCore":
        """The same game with some options changed (e.g. ``chance="explicit"``).

        When both cores' states have the same layout (as the two chance modes'
        do), states pass between them without being checked again.
        """
        other = type(self)(**{**self.options, **changes})
        if other.state_layout()[1] == self.state_layout()[1]:
            other._layout = self._layout
        return other

    # -- naming ---------------------------------------------------------
    def player_names(self) -> list[str]:
        """One descriptor per seat, seat 0 first, e.g. ``["white", "red"]``.

        The AEC environment names its agents ``f"{descriptor}_{seat}"``.
        """
        return ["player"] * self.num_players

    def action_to_string(self, action: int) -> str:
        return str(int(action))

    def string_to_action(self, text: str) -> int:
        """The action that :meth:`action_to_string` names ``text``; IllegalActionError otherwise."""
        table = self.__dict__.get("_actions_by_name")
        if table is None:
            table = self._actions_by_name = {self.action_to_string(a): a for a in range(self.num_actions)}
        action = table.get(text.strip()) if isinstance(text, str) else None
        if action is None:
            raise IllegalActionError(f"{self.name}: no action is called {show(text)}")
        return action

    # -- state checks -------------------------------------------------------
    def state_layout(self) -> tuple:
        """(state type, ((field, trailing shape, dtype), ...)) of the states this core makes.

        Derived once from ``self.init([0])``; the object is the stamp
        :meth:`check_state` leaves on states it has checked.
        """
        layout = self._layout
        if layout is None:
            st = self.init(np.zeros(1, np.uint64))
            layout = (type(st), tuple((f.name, getattr(st, f.name).shape[1:], getattr(st, f.name).dtype)
                                      for f in dataclasses.fields(st)))
            self._layout = layout
        return layout

    def check_state(self, state) -> None:
        """ValueError unless ``state`` has the layout of this core's states.

        Its type, and each field's dtype, trailing shape and batch length (all
        fields alike), must be those of a state :meth:`init` makes: a kernel
        indexes the arrays by this core's sizes, so a state of another game,
        of other options or built by hand with other arrays is refused before
        any kernel runs.  A state that passes is stamped with this core's
        layout; a stamped state is not checked again.
        """
        layout = self._layout
        if layout is not None and getattr(state, "_layout", None) is layout:
            return
        layout = self.state_layout()
        kind, fields = layout
        if type(state) is not kind:
            raise ValueError(f"{self.name}: expected a {kind.__name__} made by this core, "
                             f"got a {type(state).__name__}")
        batch = None
        for name, shape, dtype in fields:
            a = getattr(state, name, None)
            if not isinstance(a, np.ndarray):
                raise ValueError(f"{self.name}: state field {name} must be a numpy array, "
                                 f"got a {type(a).__name__}")
            if a.ndim == 0 or a.shape[1:] != shape or a.dtype != dtype:
                raise ValueError(
                    f"{self.name}: state field {name} has shape {a.shape} and dtype {a.dtype}; "
                    f"this core's states have shape (B, {', '.join(map(str, shape))}) and dtype {dtype} "
                    f"there (a state of another game or other options?)".replace("(B, )", "(B,)"))
            if batch is None:
                batch = a.shape[0]
            elif a.shape[0] != batch:
                raise ValueError(f"{self.name}: state field {name} has {a.shape[0]} rows, "
                                 f"{fields[0][0]} has {batch}: every field needs one row per game")
        state._layout = layout

    # -- the batched functions --------------------------------------------
    @abc.abstractmethod
    def init(self, seeds: np.ndarray) -> BatchState:
        """New games, one per seed (``seeds``: (B,) integers in [0, 2**64))."""

    def step(self, state: BatchState, actions) -> BatchState:
        """Apply one action per row (``< 0`` skips the row); in place.

        IllegalActionError names the first bad row; nothing changes then.
        """
        self.check_state(state)
        if self.samples_chance:
            self.check_no_chance_node(state)
        return self.step_checked(state, self.check_actions(state, actions))

    def step_checked(self, state: BatchState, actions: np.ndarray) -> BatchState:
        """:meth:`step` for a caller that has checked ``state`` and ``actions`` itself (a (B,) int64
        array inside the action space, ``-1`` to skip a row), as the learner envs do, so that an env
        step checks each action once; the kernel still refuses an illegal one."""
        bad = self._step(state, actions)
        if bad >= 0:
            self.raise_illegal(state, actions, bad)
        return state

    def legal_action_mask(self, state: BatchState, out: np.ndarray | None = None) -> np.ndarray:
        """(B, num_actions) bool; never all-false for a game in progress (written into ``out`` if given).

        At a chance node (explicit chance) it lists the outcomes that can happen.
        """
        self.check_state(state)
        if self.samples_chance:
            self.check_no_chance_node(state)
        shape = (state.batch_size, self.num_actions)
        out = np.empty(shape, np.bool_) if out is None else self._out_buffer(out, shape, np.bool_, "legal_action_mask")
        self._mask(state, out)
        return out

    def observe(self, state: BatchState, player, out: np.ndarray | None = None) -> np.ndarray:
        """(B, *observation_shape) observation of row i from seat player[i] (into ``out`` if given)."""
        self.check_state(state)
        seats = self.seats(state, player)
        shape = (state.batch_size, *self.observation_shape)
        out = (np.empty(shape, self.observation_dtype) if out is None
               else self._out_buffer(out, shape, self.observation_dtype, "observe"))
        self._observe(state, seats, out)
        return out

    def heuristic(self, state: BatchState, player) -> np.ndarray:
        """(B,) float64 value of each row for seat player[i] (greedy, MCTS).

        Finished rows give the final reward scaled to dominate any in-progress value.
        """
        self.check_state(state)
        seats = self.seats(state, player)
        out = np.empty(state.batch_size, np.float64)
        self._heuristic(state, seats, out)
        return out

    def action_features(self, state: BatchState, player, out: np.ndarray | None = None) -> np.ndarray:
        """(B, F, num_actions) float32: feature f of each action for seat player[i].

        F is ``len(action_feature_names)``; a core that offers none returns F = 0.
        Feature-major, so that feature f of every action is one contiguous run.
        """
        self.check_state(state)
        seats = self.seats(state, player)
        shape = (state.batch_size, len(self.action_feature_names), self.num_actions)
        out = self._out_buffer(out, shape, np.float32, "action_features")
        if self.action_feature_names:
            self._action_features(state, seats, out)
        return out

    def symmetries(self) -> tuple:
        """The board transforms (:class:`~yyenvs.core.symmetry.Symmetry`) the rules are unchanged
        by, the identity first, for observations that are (H, W, C) planes; () when there are
        none (the spec's ``symmetry`` is "", or these options make a flat observation)."""
        return ()

    # -- chance ---------------------------------------------------------------
    def is_chance_node(self, state: BatchState) -> np.ndarray:
        """(B,) bool: the row waits for a chance outcome (explicit chance only)."""
        self.check_state(state)
        return (state.current_player == CHANCE_PLAYER) & ~state.done

    def check_no_chance_node(self, state: BatchState) -> None:
        """ValueError naming the first row waiting for a chance outcome when this core samples chance
        (:attr:`samples_chance`; the public methods ask only then).

        Both chance modes share one state layout, but a sampled core has no outcome
        actions: a state of the explicit core at a chance node has no move here.
        """
        if self.samples_chance:
            waiting = np.flatnonzero((state.current_player == CHANCE_PLAYER) & ~state.done)
            if waiting.size:
                raise ValueError(f"{self.name}: row {int(waiting[0])} waits for a chance outcome, which this "
                                 "core draws itself (chance='sampled'); step it with the explicit core "
                                 "(core.with_options(chance='explicit')), e.g. its resolve_chance")

    def chance_probabilities(self, state: BatchState, out: np.ndarray | None = None) -> np.ndarray:
        """(B, num_actions) float64: the probability of each outcome at a chance node.

        Rows that are not chance nodes are all zero.  The outcomes with a
        non-zero probability are the ones :meth:`legal_action_mask` lists.
        """
        self.check_state(state)
        out = self._out_buffer(out, (state.batch_size, self.num_actions), np.float64,
                               "chance_probabilities")
        out[:] = 0.0
        if self.explicit_chance:
            self._chance_probabilities(state, out)
        return out

    def sample_chance(self, state: BatchState) -> np.ndarray:
        """(B,) int64 outcome per chance node, drawn from the row's own stream; -1 elsewhere.

        The draw is the one ``chance="sampled"`` makes inside ``step``, so
        stepping with these outcomes plays the same game as the sampled mode
        from the same seed.  It advances the stream (the state changes).
        """
        self.check_state(state)
        out = np.full(state.batch_size, -1, np.int64)
        if self.explicit_chance:
            self._sample_chance(state, out)
        return out

    def resolve_chance(self, state: BatchState) -> np.ndarray:
        """Step every chance node with :meth:`sample_chance`'s outcome until no row waits for chance.

        In place; the games are those the sampled mode plays from the same seeds.
        Returns (B, P) float64: the rewards those chance steps gave.  Each step
        rewrites ``state.rewards``: read the rewards of the step before first.
        Without explicit chance there is nothing to do (zeros).
        """
        total = np.zeros((state.batch_size, self.num_players))
        while self.explicit_chance:
            outcomes = self.sample_chance(state)
            if (outcomes < 0).all():
                break
            self.step(state, outcomes)
            total += state.rewards
        return total

    # -- what a game writes ---------------------------------------------------
    @abc.abstractmethod
    def _step(self, state: BatchState, actions: np.ndarray) -> int:
        """Apply checked int64 actions; the first illegal row (nothing changed then) or -1."""

    @abc.abstractmethod
    def _mask(self, state: BatchState, out: np.ndarray) -> None:
        """Write the legal-action mask into ``out`` (B, num_actions) bool."""

    @abc.abstractmethod
    def _observe(self, state: BatchState, seats: np.ndarray, out: np.ndarray) -> None:
        """Write the observation of each row from ``seats`` (B,) int8 into ``out``."""

    def _heuristic(self, state: BatchState, seats: np.ndarray, out: np.ndarray) -> None:
        raise NotImplementedError(f"{self.name} has no heuristic")

    def _action_features(self, state: BatchState, seats: np.ndarray, out: np.ndarray) -> None:
        raise NotImplementedError(f"{self.name} declares action features but computes none")

    def _chance_probabilities(self, state: BatchState, out: np.ndarray) -> None:
        raise NotImplementedError(f"{self.name} declares chance but gives no probabilities")

    def _sample_chance(self, state: BatchState, out: np.ndarray) -> None:
        raise NotImplementedError(f"{self.name} declares chance but cannot sample it")

    def seats(self, state: BatchState, player) -> np.ndarray:
        """``player`` (a seat or one per row) as a writeable contiguous (B,) int8 array.

        Always the same array type, so a numba kernel compiles one version only.
        Anything but integers in ``0 .. num_players - 1`` raises ValueError naming it.
        """
        if (type(player) is np.ndarray and player.dtype == np.int8  # noqa: E721
                and player.shape == (state.batch_size,) and player.flags.c_contiguous
                and player.flags.writeable):
            if player.shape[0] == 1:  # one game (AEC, search): plain Python beats a kernel call
                if 0 <= player[0] < self.num_players:
                    return player
            elif _first_bad_seat(player, self.num_players) < 0:
                return player
        what = f"{self.name}: seats are integers 0..{self.num_players - 1}"
        try:
            arr = np.asarray(player)
        except Exception:  # ragged nesting and the like
            raise ValueError(f"{what}, got {show(player)}") from None
        if arr.ndim > 1 or (arr.ndim == 1 and arr.shape[0] != state.batch_size):
            raise ValueError(f"{self.name}: player must be a seat or one seat per row "
                             f"({state.batch_size}), got shape {arr.shape}")
        flat = arr.reshape(-1)
        listed = isinstance(player, (list, tuple))
        given = player if listed else flat  # to name a value as passed
        if listed or arr.dtype.kind not in "iu":
            # value by value: numpy turns [True, 1] into ints and [0, 2**64] into floats
            i = next((k for k, x in enumerate(given)
                      if not (_is_int(x) and 0 <= x < self.num_players)), -1)
            if i < 0 and arr.dtype.kind not in "iu" and flat.size:
                i = 0  # floats, bools, strings, objects: no silent casts
        else:
            bad = np.flatnonzero((flat < 0) | (flat >= self.num_players))
            i = int(bad[0]) if bad.size else -1
        if i >= 0:
            raise ValueError(f"{what}, got {show(given[i])} ({type(given[i]).__name__})"
                             + (f" (row {i})" if arr.ndim else ""))
        out = np.empty(state.batch_size, dtype=np.int8)
        out[:] = arr
        return out

    def _out_buffer(self, out, shape, dtype, what: str) -> np.ndarray:
        """A new ``shape``/``dtype`` array when ``out`` is None, else ``out`` checked.

        A kernel writes into ``out`` by its own indices, so anything but a
        writeable, aligned, C-contiguous array of exactly that shape and dtype
        is refused (ValueError) before it runs.
        """
        shape, dtype = tuple(shape), np.dtype(dtype)
        if out is None:
            return np.empty(shape, dtype)
        if not isinstance(out, np.ndarray):
            problem = f"a {type(out).__name__}"
        elif out.shape != shape:
            problem = f"shape {out.shape}"
        elif out.dtype != dtype:
            problem = f"dtype {out.dtype}"
        elif not (out.flags.c_contiguous and out.flags.aligned):
            problem = "a non-contiguous or unaligned array"
        elif not out.flags.writeable:
            problem = "a read-only array"
        else:
            return out
        raise ValueError(f"{self.name}: {what} out= must be a writeable C-contiguous {dtype} "
                         f"array of shape {shape}, got {problem}")

    #: a solo game's reward is a level: its names by number (empty where there is no solo game)
    solo_levels: tuple = ()

    # -- rendering (one row) --------------------------------------------
    #: the game's text-picture module: ``ansi(core, state, index) -> str``
    text_module = None
    #: the game's drawing module: ``scene(core, state, index, last_move, before) -> Scene`` and
    #: ``action_targets(core, state, index, actions) -> {action: (target, ...)}``
    picture_module = None

    def render_ansi(self, state: BatchState, index: int = 0) -> str:
        """A readable text picture of row ``index``."""
        self.check_state(state)
        if self.text_module is None:
            raise NotImplementedError(f"{self.name} has no text picture")
        return self.text_module.ansi(self, state, index)

    def scene(self, state: BatchState, index: int = 0, last_move=None, before=None):
        """The picture of row ``index`` as a :class:`~yyenvs.core.scene.Scene`; ``last_move``,
        (seat, action) of the move that led there (seat -1: chance), is highlighted, and with
        ``before``, the state it was made from (row ``index``), where it came from too."""
        self.check_state(state)
        if self.picture_module is None:
            raise NotImplementedError(f"{self.name} draws no pictures")
        return self.picture_module.scene(self, state, index, last_move, before)

    def render_rgb(self, state: BatchState, index: int = 0, last_move=None, before=None) -> np.ndarray:
        """An (H, W, 3) uint8 picture of row ``index`` (see :meth:`scene`)."""
        return self.scene(state, index, last_move, before).rgb()

    def render_svg(self, state: BatchState, index: int = 0, last_move=None, before=None) -> str:
        """The same picture as an SVG document (see :meth:`scene`)."""
        return self.scene(state, index, last_move, before).svg()

    def click_targets(self, state: BatchState, index: int = 0) -> dict[int, tuple[str, ...]]:
        """{legal action: the ``data-target`` of each picture shape clicked, in order, to pick it}
        (Koi's swim: the koi, then the point it stops on).

        Actions without a place on the picture are missing; the play page lists every legal
        action by name as well, and offers by name the moves that clicks leave undecided.
        """
        self.check_state(state)
        if self.picture_module is None:
            return {}
        legal = np.flatnonzero(self.legal_action_mask(state.take([index]))[0])
        return self.picture_module.action_targets(self, state, index, legal)

    # -- helpers shared by every game -------------------------------------
    def check_actions(self, state: BatchState, actions) -> np.ndarray:
        """Validate shape and range; return actions as an int64 array.

        Legality against the rules is checked by each game's ``step``.
        """
        if not (type(actions) is np.ndarray and actions.dtype == np.int64  # noqa: E721
                and actions.shape == (state.batch_size,)):
            actions = self.coerce_actions(actions, state.batch_size)
        if actions.shape[0] == 1:  # one game (AEC, search): plain Python beats a kernel call
            a = actions[0]
            i = 0 if a >= self.num_actions or (a >= 0 and (state.terminated[0] or state.truncated[0])) else -1
        else:
            i = _first_bad_action(actions, state.terminated, state.truncated, self.num_actions)
        if i >= 0:
            if actions[i] >= self.num_actions:
                raise IllegalActionError(
                    f"{self.name}: action {int(actions[i])} (row {i}) is out of range "
                    f"[0, {self.num_actions})")
            raise IllegalActionError(f"{self.name}: row {i} is over; pass -1 to skip it")
        return actions

    def coerce_actions(self, actions, n: int, where=None, beyond: str = "out of range") -> np.ndarray:
        """``actions`` as an (n,) int64 array, or IllegalActionError naming the first bad value.

        Integers and integral floats only (no bools, strings or objects).  A
        value int64 cannot hold is "``beyond``" the action space.  ``where(i)``
        names entry ``i`` in messages (default ``"row i"``).
        """
        where = where or (lambda i: f"row {i}")
        try:
            a = np.asarray(actions)
        except Exception:  # ragged nesting and the like
            raise IllegalActionError(f"{self.name}: expected {n} integer actions, "
                                     f"got {show(actions)}") from None
        if a.shape != (n,):
            raise IllegalActionError(f"{self.name}: expected {n} actions, got shape {a.shape}")
        kind = a.dtype.kind
        listed = isinstance(actions, (list, tuple))
        if kind == "i" and not listed:
            return a.astype(np.int64, copy=False)
        given = actions if listed else a  # to name a value as passed
        if kind == "u" and not listed:
            verdict = np.where(a > INT64_MAX, 2, 0)
        elif kind == "f" and not listed:
            f = a.astype(np.float64)  # float16 cannot hold the int64 bounds
            verdict = np.where(np.isfinite(f) & (f == np.round(f)), 0, 1)
            verdict[(verdict == 0) & ((f >= 2.0 ** 63) | (f < -2.0 ** 63))] = 2
        else:  # lists (numpy turns [True, 2] into ints, [-2**63 - 1, 0] into floats), objects...
            verdict = np.array([_action_value(x) for x in given], np.int64)
            if kind not in "iuf" and not verdict.any() and n:  # no silent object casts
                if not listed:  # an object array of ints
                    raise IllegalActionError(f"{self.name}: actions must be a numeric array, "
                                             f"got dtype {a.dtype}")
                verdict[:] = 1
        bad = np.flatnonzero(verdict)
        if bad.size:
            i = int(bad[0])
            value = given[i]
            reason = (f"{beyond} [0, {self.num_actions})" if verdict[i] == 2 else
                      "not an integer" + ("" if kind in "iuf" else f" ({type(value).__name__})"))
            raise IllegalActionError(f"{self.name}: action {show(value)} ({where(i)}) is {reason}")
        return np.array([int(x) for x in given], np.int64) if listed else a.astype(np.int64)

    def raise_illegal(self, state: BatchState, actions: np.ndarray, row: int) -> None:
        """IllegalActionError for the action of ``row``, named in words."""
        i = int(row)
        who = ("chance" if state.current_player[i] == CHANCE_PLAYER
               else f"player {int(state.current_player[i])}")
        raise IllegalActionError(
            f"{self.name}: action {int(actions[i])} ({self.action_to_string(int(actions[i]))}) "
            f"is illegal in row {i} ({who} to move)")

    def __repr__(self) -> str:
        opts = ", ".join(f"{k}={show(v)}" for k, v in self.options.items())
        return f"{type(self).__name__}({opts})"


@njit(cache=True)
def _first_bad_seat(player, num_players):
    """First row whose seat is outside 0..num_players-1; -1 if none."""
    for i in range(player.shape[0]):
        if player[i] < 0 or player[i] >= num_players:
            return i
    return -1


@njit(cache=True)
def _first_bad_action(actions, terminated, truncated, num_actions):
    """First row with an action past the range or an action on a finished game; -1 if none."""
    for i in range(actions.shape[0]):
        a = actions[i]
        if a >= num_actions or (a >= 0 and (terminated[i] or truncated[i])):
            return i
    return -1
