"""Yin Yang Koi as a PettingZoo AEC environment: ``env()`` (wrapped) and ``raw_env()``.

Version history (``yyenvs.koi_v<n>``, ``yyenvs/Koi-v<n>`` in Gymnasium, ``yyenvs/koi-v<n>`` in PettingZoo):
  v1  a 7 x 7 pond, 4 directions, 16 fry and a spread quick start by default (a contest; why: docs/games/koi.md).
  v0  first release: 9 x 9, 8 directions, 14 fry; still served (``yyenvs.koi_v0``), its files load.
"""
from yyenvs.envs.aec import aec_factories

raw_env, env = aec_factories("koi")
__all__ = ["env", "raw_env"]
