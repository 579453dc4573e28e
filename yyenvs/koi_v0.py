"""Yin Yang Koi as a PettingZoo AEC environment: ``env()`` (wrapped) and ``raw_env()``.

Version history (this module, ``yyenvs/Koi-v0`` in Gymnasium):
  v0  first release.
"""
from yyenvs.envs.aec import aec_factories

raw_env, env = aec_factories("koi")
__all__ = ["env", "raw_env"]
