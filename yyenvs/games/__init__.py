"""The game registry: short name -> core class, imported lazily."""
from __future__ import annotations

import importlib
import importlib.util

from yyenvs.core.contract import GameCore, OptionError

# name -> (module, class, Gymnasium id, PettingZoo module name)
GAMES: dict[str, tuple[str, str, str, str]] = {
    "yoxii": ("yyenvs.games.yoxii.core", "YoxiiCore", "yyenvs/Yoxii-v0", "yoxii_v0"),
    "koi": ("yyenvs.games.koi.core", "KoiCore", "yyenvs/Koi-v0", "koi_v0"),
    "yinyang": ("yyenvs.games.yinyang.core", "YinYangCore", "yyenvs/YinYang-v0", "yinyang_v0"),
}


def available_games() -> list[str]:
    """Names of the games whose core module is present."""
    out = []
    for name, (mod, *_rest) in GAMES.items():
        try:
            if importlib.util.find_spec(mod) is not None:
                out.append(name)
        except ModuleNotFoundError:
            pass
    return out


def core_class(name: str) -> type[GameCore]:
    if name not in GAMES:
        raise OptionError(f"unknown game {name!r}; choose from {sorted(GAMES)}")
    mod, cls, *_ = GAMES[name]
    return getattr(importlib.import_module(mod), cls)


def make_core(name: str, **options) -> GameCore:
    """The core of game ``name`` with ``options`` (validated by the core)."""
    return core_class(name)(**options)
