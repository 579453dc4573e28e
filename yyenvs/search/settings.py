"""The settings of the two searches, one frozen dataclass each: every field's default, the values it
takes and what it does, declared once.

The search reads its settings from an instance; the agent specs (``az:<checkpoint>:<n>:name=value``,
:mod:`yyenvs.agents.az`) and the training config (``az.<name>``, :mod:`yyenvs.training.config`) check
and document theirs from the same fields.  Building an instance checks every value, so a search never
holds one outside its range::

    GumbelSettings(c_puct=2.0)          # the others at their defaults
    GumbelSettings(c_puct=float("nan")) # ValueError: c_puct must be a finite number >= 0, got nan
"""
from __future__ import annotations

import dataclasses
import math
import numbers
from typing import Any, ClassVar

import numpy as np

from yyenvs.core.errors import show

#: the most root actions a search may consider: more than any game's legal actions, it bounds the
#: sequential-halving table
MAX_CONSIDERED = 4096
#: the most positions an exhaustive search may step per root (``solve_budget``): two levels of that
#: many states must fit in memory
MAX_SOLVE_BUDGET = 10_000_000
#: the most parts of a batch in flight at once (``in_flight``)
MAX_IN_FLIGHT = 8


@dataclasses.dataclass(frozen=True)
class Allowed:
    """The values one setting takes: a ``kind`` (bool, int, float or str) in ``[low, high]`` (``low``
    excluded when ``above``), one of ``choices``, or None when ``none``."""

    kind: type
    low: float = -math.inf
    high: float = math.inf
    above: bool = False
    choices: tuple = ()
    none: bool = False

    def admits(self, value) -> bool:
        if value is None:
            return self.none
        if self.kind is bool or isinstance(value, (bool, np.bool_)):
            return self.kind is bool and isinstance(value, (bool, np.bool_))
        if self.kind is str:
            return isinstance(value, str) and value in self.choices
        if not isinstance(value, numbers.Real) or not math.isfinite(value):
            return False
        in_range = (value > self.low if self.above else value >= self.low) and value <= self.high
        return in_range and (self.kind is not int or float(value).is_integer())

    def words(self) -> str:
        """The values in words, for messages and docs."""
        if self.kind is bool:
            text = "True or False"
        elif self.kind is str:
            text = " or ".join(repr(c) for c in self.choices)
        elif self.kind is int:
            text = (f"an integer >= {self.low:,.0f}" if self.high == math.inf
                    else f"an integer from {self.low:,.0f} to {self.high:,.0f}")
        elif self.low == -math.inf:
            text = "a finite number"
        elif self.high == math.inf:
            text = f"a finite number {'>' if self.above else '>='} {self.low:g}"
        else:
            text = f"a number from {self.low:g} to {self.high:g}"
        return text + (" or None" if self.none else "")

    def interval(self) -> str:
        """The range as an interval, ``[0, inf)``, for the config's table (numbers only)."""
        return f"{'(' if self.above else '['}{self.low:g}, {'inf)' if self.high == math.inf else f'{self.high:g}]'}"


def setting(default, doc: str, kind: type, **allowed):
    """A settings field: its default, what it does, and the values it takes (:class:`Allowed`)."""
    return dataclasses.field(default=default, metadata={"doc": doc, "allowed": Allowed(kind, **allowed)})


class Settings:
    """What both settings types share: checking on construction, and their fields described."""

    #: the name messages give the search
    search: ClassVar[str] = ""

    def __post_init__(self):
        for f in dataclasses.fields(self):
            value, allowed = getattr(self, f.name), f.metadata["allowed"]
            if not allowed.admits(value):
                raise ValueError(f"{self.search}: {f.name} must be {allowed.words()}, got {show(value)}")
            if value is not None and allowed.kind in (int, float, bool):
                object.__setattr__(self, f.name, allowed.kind(value))  # numpy scalars as Python ones

    @classmethod
    def make(cls, values: dict[str, Any]):
        """The settings from a mapping of some of its fields (TypeError naming an unknown one)."""
        names = cls.names()
        unknown = sorted(k for k in values if k not in names)
        if unknown:
            raise TypeError(f"{cls.search} got an unexpected keyword argument {unknown[0]!r}; "
                            f"its settings: {', '.join(names)}")
        return cls(**values)

    @classmethod
    def names(cls) -> tuple[str, ...]:
        return tuple(f.name for f in dataclasses.fields(cls))

    @classmethod
    def allowed(cls, name: str) -> Allowed:
        return _field(cls, name).metadata["allowed"]

    @classmethod
    def doc(cls, name: str) -> str:
        return _field(cls, name).metadata["doc"]

    @classmethod
    def default(cls, name: str):
        return _field(cls, name).default


def _field(cls, name: str) -> dataclasses.Field:
    return next(f for f in dataclasses.fields(cls) if f.name == name)


@dataclasses.dataclass(frozen=True)
class GumbelSettings(Settings):
    """The Gumbel search's settings (:class:`~yyenvs.search.gumbel.GumbelSearch`)."""

    search: ClassVar[str] = "GumbelSearch"

    gumbel_scale: float = setting(1.0, "Gumbel noise at the root (0: none)", float, low=0.0)
    max_considered: int = setting(16, "root actions that sequential halving starts from", int, low=1,
                                  high=MAX_CONSIDERED)
    c_puct: float = setting(1.25, "PUCT exploration below the root", float, low=0.0)
    value_scale: float = setting(0.1, "sigma(q) = (maxvisit_init + max visits) * value_scale * q", float, low=0.0)
    maxvisit_init: float = setting(50.0, "see value_scale", float, low=0.0)
    qtransform: str = setting("mix_value", "the value an unvisited root action takes in sigma(q): mix_value, "
                                           "the network's value mixed with the visited ones; parent, the root's "
                                           "mean value", str, choices=("mix_value", "parent"))
    find_wins: bool = setting(False, "the search tries every move of a new node's mover for a win at once", bool)
    rollout_weight: float = setting(0.0, "share of a leaf's value from a rollout with the game's heuristic "
                                         "(0: the network alone)", float, low=0.0, high=1.0)
    average_symmetries: bool = setting(False, "the network sees each position in every board symmetry, "
                                              "and the search takes the mean", bool)
    discount: float = setting(1.0, "per step, in the search's values and the value targets (below 1: wins "
                                   "sooner count more)", float, low=0.0, high=1.0)
    solve_budget: int = setting(0, "positions an exhaustive search may step per root after the search "
                                   "(0: none)", int, low=0, high=MAX_SOLVE_BUDGET)
    in_flight: int = setting(1, "parts of the batch searched side by side (2: the network evaluates one "
                                "while the CPU works on the other)", int, low=1, high=MAX_IN_FLIGHT)


@dataclasses.dataclass(frozen=True)
class MCTSSettings(Settings):
    """The MCTS baseline's settings (:class:`~yyenvs.search.mcts.MCTS`); defaults tuned on Yoxii and
    Koi against ``greedy`` (``benchmarks/mcts_ladder.py``)."""

    search: ClassVar[str] = "mcts"

    rollout: str = setting("greedy", "the moves of a rollout", str, choices=("random", "greedy"))
    c_uct: float = setting(1.4, "exploration constant", float)
    max_rollout_steps: int | None = setting(4, "moves before the heuristic values a rollout (None: play "
                                               "to the end; chance outcomes do not count)", int, low=0, none=True)
    prior: str = setting("heuristic", "'heuristic': a softmax of the one-ply heuristic (PUCT); 'uniform': "
                                      "plain UCT", str, choices=("heuristic", "uniform"))
    prior_beta: float = setting(1.0, "inverse temperature of the heuristic prior", float)
    wave: int = setting(8, "simulations per row selected together (virtual loss)", int, low=1)
    value_scale: float | None = setting(None, "the heuristic's scale in tanh(h / scale) (None: the spread of "
                                              "the root's one-ply heuristics)", float, low=0.0, above=True,
                                        none=True)
