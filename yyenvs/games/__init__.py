"""The game registry: each game's declared spec, and its core built on demand.

``GAMES`` maps a game id to its :class:`~yyenvs.core.spec.GameSpec`; the
cores (and their numba kernels) are imported only when first built.
"""
from __future__ import annotations

import importlib

from yyenvs.core.contract import GameCore
from yyenvs.core.errors import OptionError
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
