"""Registers every game with Gymnasium and PettingZoo (done by ``import yyenvs``).

Gymnasium: ``yyenvs/Yoxii-v0``, ``yyenvs/Koi-v0``, ``yyenvs/YinYang-v0`` (with a
``vector_entry_point``).  PettingZoo (1.27+ has a registry): ``yyenvs/yoxii-v0``,
``yyenvs/koi-v0``, ``yyenvs/yinyang-v0`` for ``pettingzoo.make("aec", ...)``.
"""
from __future__ import annotations

import gymnasium

from yyenvs.games import GAMES


def pettingzoo_id(game: str) -> str:
    return f"yyenvs/{game}-v0"


def register_all() -> None:
    for game, (_mod, _cls, gym_id, env_name) in GAMES.items():
        if gym_id not in gymnasium.registry:
            gymnasium.register(
                id=gym_id,
                entry_point="yyenvs.core.gym_env:GameEnv",
                vector_entry_point="yyenvs.core.vector:GameVectorEnv",
                kwargs={"game": game},
            )
        try:
            import pettingzoo
        except ImportError:  # pragma: no cover
            continue
        if hasattr(pettingzoo, "register") and pettingzoo_id(game) not in pettingzoo.aec_registry:
            pettingzoo.register("aec", pettingzoo_id(game), entry_point=f"yyenvs.{env_name}:env")
