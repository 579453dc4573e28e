"""yyenvs: batched RL environments for Yoxii, Yin Yang Koi and Yin Yang.

``import yyenvs`` registers ``gym.make("yyenvs/Yoxii-v0")`` (and Koi, YinYang)
and the PettingZoo ids ``yyenvs/yoxii-v0`` etc.  The PettingZoo modules are
``yyenvs.yoxii_v0``, ``yyenvs.koi_v0`` and ``yyenvs.yinyang_v0``.
"""
from __future__ import annotations

import importlib

from yyenvs.core.contract import BatchState, GameCore, IllegalActionError, OpponentError, OptionError
from yyenvs.games import available_games, make_core
from yyenvs.registration import register_all

__version__ = "0.1.0"
__all__ = ["BatchState", "GameCore", "IllegalActionError", "OpponentError", "OptionError", "available_games",
           "make_core", "yoxii_v0", "koi_v0", "yinyang_v0"]

register_all()


def __getattr__(name):  # lazy PettingZoo modules: ``from yyenvs import yoxii_v0``
    if name in ("yoxii_v0", "koi_v0", "yinyang_v0"):
        return importlib.import_module(f"yyenvs.{name}")
    raise AttributeError(f"module 'yyenvs' has no attribute {name!r}")
