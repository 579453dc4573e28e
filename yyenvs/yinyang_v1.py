"""Yin Yang as a PettingZoo AEC environment: ``env()`` (wrapped) and ``raw_env()``.

Version history (this module, ``yyenvs/YinYang-v1`` in Gymnasium):
  v1  the 49-city stand-in map (Luo and 49 cities, the text's token and temple counts);
      a Divination turn opens with a window for the Special Anytime Actions, closed by
      the ``throw`` action (skipped when none is legal); one more observation flag.
  v0  first release: the 26-city stand-in map; the Divination throw came as the turn started.
"""
from yyenvs.envs.aec import aec_factories

raw_env, env = aec_factories("yinyang")
__all__ = ["env", "raw_env"]
