"""Registers every game of the registry with Gymnasium and PettingZoo (done by ``import yyenvs``).

Gymnasium: each spec's ``gym_id`` (e.g. ``yyenvs/Yoxii-v0``), with a
``vector_entry_point`` and no ``max_episode_steps`` of its own: every core
truncates its games at its own cap (``max_plies`` where a game has it), and the
made env's ``spec.max_episode_steps`` reports that cap for the options given.
PettingZoo (1.27+ has a registry): each spec's
``pettingzoo_id`` (e.g. ``yyenvs/yoxii-v0``) for ``pettingzoo.make("aec", ...)``.
"""
from __future__ import annotations

import gymnasium

from yyenvs.games import GAMES


def register_all() -> None:
    """Today's version of every game, and the earlier versions its spec still serves (their defaults)."""
    for game, spec in GAMES.items():
        for version in spec.versions:
            _register(game, spec, version)


def _register(game: str, spec, version: int) -> None:
    earlier = dict(spec.earlier_defaults.get(version, {}))
    if spec.gym_id_of(version) not in gymnasium.registry:
        gymnasium.register(
            id=spec.gym_id_of(version),
            entry_point="yyenvs.envs.gym_env:GameEnv",
            vector_entry_point="yyenvs.envs.vector:GameVectorEnv",
            kwargs={"game": game, **earlier},
        )
    try:
        import pettingzoo
    except ImportError:  # pragma: no cover
        return
    if hasattr(pettingzoo, "register") and spec.pettingzoo_id_of(version) not in pettingzoo.aec_registry:
        pettingzoo.register("aec", spec.pettingzoo_id_of(version),
                            entry_point=f"yyenvs.{spec.pettingzoo_module_of(version)}:env")
