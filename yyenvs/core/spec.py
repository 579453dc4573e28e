"""The declared facts of a game: identity, version, players, chance, options.

A :class:`GameSpec` is what OpenSpiel calls a game type and what Pgx gives
each env as id and version: everything the registries, the Gymnasium and
PettingZoo registrations, the tests and the benchmarks need to know about a
game without building it.  Facts that depend on the options (the action
count, the observation shape, the longest game, the reward range) belong to
the core built from those options (see :class:`~yyenvs.core.contract.GameCore`).

Options are declared once, here, with their types, ranges and defaults;
:meth:`GameSpec.check_options` is the one place that checks them, and its
errors name the option.
"""
from __future__ import annotations

import dataclasses
import difflib
import os
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from yyenvs.core.errors import OptionError, UnknownOptionError, show


@dataclasses.dataclass(frozen=True)
class Option:
    """One game option: its name, default and the values it takes.

    ``kind`` is ``"bool"``, ``"int"`` (from ``low`` to ``high``, odd only
    when ``odd``), ``"choice"`` (one of ``choices``) or ``"path"`` (a file
    path, or None for the packaged default).
    """

    name: str
    kind: str
    default: Any
    doc: str
    low: int | None = None
    high: int | None = None
    odd: bool = False
    choices: tuple = ()
    #: False for an option that changes only what a player observes or is rewarded, never the
    #: states and moves: a policy trained with another value still plays the same game
    rules: bool = True
    #: ``(option, value)``: this option matters only while that option has that value (Koi's
    #: ``quick_layout`` only with ``quick_start=True``); files that differ in it otherwise agree
    only_if: tuple | None = None
    #: for an ``"int"``: the largest value allowed beside the options declared before it, and why in
    #: words (Koi's ``win_fry``: the free points of the pond), as ``most(options) -> (value, reason)``
    most: Callable[[Mapping[str, Any]], tuple[int, str]] | None = None

    def __post_init__(self):
        if self.kind not in ("bool", "int", "choice", "path"):
            raise ValueError(f"option {self.name}: unknown kind {self.kind!r}")

    def allowed(self) -> str:
        """The values this option takes, in words."""
        if self.kind == "bool":
            return "True or False"
        if self.kind == "int":
            return (f"an{' odd' if self.odd else ''} integer from {self.low} to {self.high}")
        if self.kind == "choice":
            return " or ".join(repr(c) for c in self.choices)
        return "a file path or None"

    def check(self, value, game: str, before: Mapping[str, Any] | None = None, given: bool = True):
        """``value`` as this option holds it (a Python bool / int / str), or OptionError naming it.

        ``before``: the options declared before this one, already checked (for :attr:`most`);
        ``given``: False when ``value`` is the default, which the message then says."""
        ok = False
        if self.kind == "bool":
            ok = isinstance(value, (bool, np.bool_))
            value = bool(value) if ok else value
        elif self.kind == "int":
            high, why = self.high, ""
            if self.most is not None and before is not None:
                high, why = self.most(before)
            ok = (isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))
                  and self.low <= value <= high and (not self.odd or value % 2 == 1))
            if not ok and why:
                default = "" if given else f" (the default): give {self.name}={high}"
                raise OptionError(f"{game}: option {self.name} must be an integer from {self.low} to {high} "
                                  f"({why}), got {show(value)}{default}")
            value = int(value) if ok else value
        elif self.kind == "choice":
            if isinstance(value, np.integer):
                value = int(value)
            ok = any(type(value) is type(c) and value == c for c in self.choices)
        else:
            ok = value is None or isinstance(value, (str, bytes, os.PathLike))
        if not ok:
            raise OptionError(f"{game}: option {self.name} must be {self.allowed()}, "
                              f"got {show(value)} ({type(value).__name__})")
        return value


@dataclasses.dataclass(frozen=True)
class GameSpec:
    """The declared facts of one game (see the module docstring)."""

    id: str  #: short lowercase name, the registry key, e.g. ``"yoxii"``
    title: str  #: the game's name for people, e.g. ``"Yin Yang Koi"``
    gym_name: str  #: the name in its Gymnasium id, e.g. ``"Koi"`` for ``yyenvs/Koi-v1``
    version: int  #: the environment version: bumped when a game's behaviour changes
    core: str  #: ``"module:Class"`` of the core, imported on first use
    players: tuple[int, int]  #: the fewest and most players
    chance: bool  #: chance events happen during play (beyond the set-up drawn from the seed)
    #: an upper bound on the steps of a game at the default options (the core gives it per options)
    max_game_length: int
    options: tuple[Option, ...]
    #: option sets that tests and benchmarks run, the defaults first
    variants: tuple[Mapping[str, Any], ...] = ({},)
    doc: str = ""  #: one line for listings
    #: the board transforms the rules are unchanged by: ``"D4"`` (the 8 rotations and reflections of
    #: the square; the core lists them, see :mod:`yyenvs.core.symmetry`) or ``""`` (none)
    symmetry: str = ""
    #: every player sees the whole state (False: something is hidden, e.g. Yin Yang's missions)
    perfect_information: bool = True
    #: the set-up is drawn from the game's seed (True) rather than being the same in every game
    random_setup: bool = False
    #: the board's edges wrap on both axes (a torus, as Koi's pond): a network's convolutions over
    #: the observation planes then pad circularly
    board_wraps: bool = False
    #: earlier environment versions that are still registered, each with the option defaults it had
    #: that differ from today's.  Only for versions whose rules are today's: their records and
    #: checkpoints hold every option, so they load as they are.
    earlier_defaults: Mapping[int, Mapping[str, Any]] = dataclasses.field(default_factory=dict)

    def __post_init__(self):
        if self.symmetry not in ("", "D4"):
            raise ValueError(f"{self.id}: unknown symmetry {self.symmetry!r}")
        names = [o.name for o in self.options]
        if len(set(names)) != len(names):
            raise ValueError(f"{self.id}: an option is declared twice")
        for v in self.variants:
            self.check_options(v)
        for version, changed in self.earlier_defaults.items():
            if not 0 <= version < self.version:
                raise ValueError(f"{self.id}: earlier version {version} is not below {self.version}")
            self.check_options(changed)

    @property
    def versions(self) -> tuple[int, ...]:
        """Every registered environment version, today's first."""
        return (self.version, *sorted(self.earlier_defaults, reverse=True))

    def reads_version(self, version: int) -> bool:
        """Whether records and checkpoints of ``version`` play under today's rules."""
        return version in self.versions

    def defaults_of(self, version: int) -> dict[str, Any]:
        """The option defaults of environment ``version``."""
        return {**self.defaults, **self.earlier_defaults.get(version, {})}

    def deciding(self, options: Mapping[str, Any]) -> dict[str, Any]:
        """``options`` less those that do not matter beside the others (:attr:`Option.only_if`):
        what two records or checkpoints must agree on to be of the same game."""
        by_name = {o.name: o for o in self.options}
        return {k: v for k, v in options.items()
                if k not in by_name or by_name[k].only_if is None
                or options.get(by_name[k].only_if[0]) == by_name[k].only_if[1]}

    def options_of(self, version: int, options: Mapping[str, Any]) -> dict[str, Any]:
        """``options`` as a record or checkpoint of ``version`` gives them, with the options it does
        not name (added in a later version) at that version's defaults."""
        return {**{k: v for k, v in self.defaults_of(version).items() if k not in options}, **options}

    @property
    def gym_id(self) -> str:
        """The Gymnasium id, e.g. ``"yyenvs/Koi-v1"``."""
        return self.gym_id_of(self.version)

    def gym_id_of(self, version: int) -> str:
        return f"yyenvs/{self.gym_name}-v{version}"

    @property
    def pettingzoo_module(self) -> str:
        """The PettingZoo-style module under ``yyenvs``, e.g. ``"koi_v1"``."""
        return self.pettingzoo_module_of(self.version)

    def pettingzoo_module_of(self, version: int) -> str:
        return f"{self.id}_v{version}"

    @property
    def pettingzoo_id(self) -> str:
        """The id in PettingZoo's registry, e.g. ``"yyenvs/koi-v1"``."""
        return self.pettingzoo_id_of(self.version)

    def pettingzoo_id_of(self, version: int) -> str:
        return f"yyenvs/{self.id}-v{version}"

    @property
    def defaults(self) -> dict[str, Any]:
        return {o.name: o.default for o in self.options}

    def check_options(self, options: Mapping[str, Any]) -> dict[str, Any]:
        """Every option, the given ones checked and the others at their defaults.

        OptionError names an unknown option (with the nearest known name) or
        the first option whose value is not allowed.
        """
        by_name = {o.name: o for o in self.options}
        unknown = sorted((k for k in options if k not in by_name), key=str)
        if unknown:
            near = difflib.get_close_matches(str(unknown[0]), list(by_name), n=1)
            hint = f" (did you mean {near[0]!r}?)" if near else ""
            raise UnknownOptionError(f"{self.id}: unknown option {show(unknown[0])}{hint} (unexpected keyword "
                                     f"argument {unknown[0]!r}); allowed: {sorted(by_name)}")
        checked: dict[str, Any] = {}
        for o in self.options:  # in order: an option's bound (Option.most) may depend on the ones before
            if o.name in options:
                checked[o.name] = o.check(options[o.name], self.id, checked)
            else:
                checked[o.name] = o.default if o.most is None else o.check(o.default, self.id, checked, False)
        return checked
