"""Yin Yang as a PettingZoo AEC environment: ``env()`` (wrapped) and ``raw_env()``.

Version history (this module, ``yyenvs/YinYang-v0`` in Gymnasium):
  v0  first release: the 26-city stand-in map; the Divination throw comes as the turn starts.
"""
from yyenvs.envs.aec import aec_factories

raw_env, env = aec_factories("yinyang")
__all__ = ["env", "raw_env"]
