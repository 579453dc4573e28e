"""The game registry: each game's declared spec, and its core built on demand.

``GAMES`` maps a game id to its :class:`~yyenvs.core.spec.GameSpec`; the
cores (and their numba kernels) are imported only when first built.
"""
from __future__ import annotations

import importlib

from yyenvs.core.contract import GameCore
from yyenvs.core.errors import OptionError, RecordError
from yyenvs.core.spec import GameSpec
from yyenvs.games.koi.spec import SPEC as KOI
from yyenvs.games.yinyang.spec import SPEC as YINYANG
from yyenvs.games.yoxii.spec import SPEC as YOXII

GAMES: dict[str, GameSpec] = {spec.id: spec for spec in (YOXII, KOI, YINYANG)}


def game_spec(game: str) -> GameSpec:
    """The spec of game ``game`` (an id of :data:`GAMES`), or OptionError listing the ids."""
    spec = GAMES.get(game) if isinstance(game, str) else None
    if spec is None:
        raise OptionError(f"unknown game {game!r}; choose from {sorted(GAMES)}")
    return spec


def core_class(game: str) -> type[GameCore]:
    module, _, cls = game_spec(game).core.partition(":")
    return getattr(importlib.import_module(module), cls)


def make_core(game: str, **options) -> GameCore:
    """The core of game ``game`` with ``options`` (checked against its spec)."""
    return core_class(game)(**options)


def variants() -> list[tuple[str, dict]]:
    """Every (game id, options) that the tests and benchmarks run, defaults first per game."""
    return [(g, dict(v)) for g, spec in GAMES.items() for v in spec.variants]


def load_record(path, core: GameCore | None = None):
    """``(record, core)``: the game record in file ``path`` and the core it was played on, after
    replaying it (:func:`~yyenvs.core.record.replay`: every move and the result checked).

    With ``core``, the record must be a game of that core (same game, version and options);
    without, the core is built from the record's game and options.  Options naming files (Yin
    Yang's ``data_file``) are not followed from a record: pass such a core yourself.  Raises
    :class:`~yyenvs.core.errors.RecordError` naming what is wrong.
    """
    from yyenvs.core.record import read_record, replay
    record = read_record(path)
    if core is None:
        core = _named_core("record", record.game, record.options, record.game_version)
    replay(core, record)
    return record, core


def _named_core(what: str, game: str, options: dict, version: int) -> GameCore:
    """The core that a record or position (``what``) of environment ``version`` names, or RecordError:
    the game must be one of ours and the options must fit it (those it does not name: that version's
    defaults); options naming files are never followed from such a text."""
    spec = GAMES.get(game)
    if spec is None:
        raise RecordError(f"the {what} is of {game!r}, which yyenvs does not have (it has {sorted(GAMES)})")
    options = spec.options_of(version, options)
    paths = [o.name for o in spec.options if o.kind == "path" and options.get(o.name) is not None]
    if paths:
        raise RecordError(f"the {what} names a file in option {paths[0]}; build that core yourself "
                          f"and pass it ({what}s are not followed to files)")
    try:
        return make_core(game, **options)
    except OptionError as e:
        raise RecordError(f"the {what}'s options do not fit {game}: {e}") from None


def read_position(text: str, core: GameCore | None = None):
    """``(core, state, seed, moves)`` of a position text (:func:`~yyenvs.core.record.position_text`):
    the game, version and options of its first line (or ``core``, which they must match), the seed,
    and the one-row state after its moves, each checked as a record's are.  RecordError otherwise."""
    from yyenvs.core.record import json_options, parse_position, position_state
    game, version, options, seed, names = parse_position(text)
    if core is None:
        core = _named_core("position", game, options, version)
    if core.name == game and version != core.spec.version:
        raise RecordError(f"the position is of {game} version {version}; this yyenvs plays version "
                          f"{core.spec.version}")
    if core.name != game or json_options(core) != options:
        raise RecordError(f"the position is of {game} with options {options}, not of {core.name} with "
                          f"{json_options(core)}")
    state, moves = position_state(core, seed, names)
    return core, state, seed, moves
