"""Yin Yang (1-4 players) as a PettingZoo AEC environment: ``env()`` and ``raw_env()``."""
from yyenvs.core.aec import aec_factories

raw_env, env = aec_factories("yinyang")
__all__ = ["env", "raw_env"]
