"""Yin Yang Koi, environment version 0: a 9 x 9 pond, 8 directions and 14 fry by default.

Kept for code that pinned it; the same rules as ``yyenvs.koi_v1`` (see its version history), whose
defaults are a 7 x 7 pond, 4 directions and 16 fry.  Any option may still be given.
"""
from yyenvs.envs.aec import aec_factories

raw_env, env = aec_factories("koi", version=0)
__all__ = ["env", "raw_env"]
