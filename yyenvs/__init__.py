"""yyenvs: batched RL environments for Yoxii, Yin Yang Koi and Yin Yang.

``import yyenvs`` registers ``gym.make("yyenvs/Yoxii-v0")`` (and Koi, YinYang)
and the PettingZoo ids ``yyenvs/yoxii-v0`` etc.  The PettingZoo modules are
``yyenvs.yoxii_v0``, ``yyenvs.koi_v1`` and ``yyenvs.yinyang_v1`` (and ``yyenvs.koi_v0``,
Koi's earlier defaults).
"""
from __future__ import annotations

import importlib

from yyenvs.core.threads import set_threads, sleep_when_idle

sleep_when_idle()  # before torch or numba load OpenMP: idle threads sleep instead of spinning

from yyenvs.core import compile_notice

compile_notice.install()  # a line on stderr when numba compiles a part of the package for this machine

from yyenvs.core.contract import CHANCE_PLAYER, BatchState, GameCore
from yyenvs.core.errors import IllegalActionError, OpponentError, OptionError, RecordError
from yyenvs.core.spec import GameSpec, Option
from yyenvs.envs.registration import register_all
from yyenvs.games import GAMES, game_spec, load_record, make_core, read_position

__version__ = "0.1.0"
__all__ = ["BatchState", "CHANCE_PLAYER", "GAMES", "GameCore", "GameSpec", "IllegalActionError", "OpponentError",
           "Option", "OptionError", "RecordError", "game_spec", "load_record", "make_core", "read_position", "set_threads", "yoxii_v0", "koi_v0", "koi_v1",
           "yinyang_v1"]

register_all()


def __getattr__(name):  # lazy PettingZoo modules: ``from yyenvs import yoxii_v0``
    if name in {spec.pettingzoo_module_of(v) for spec in GAMES.values() for v in spec.versions}:
        return importlib.import_module(f"yyenvs.{name}")
    raise AttributeError(f"module 'yyenvs' has no attribute {name!r}")
