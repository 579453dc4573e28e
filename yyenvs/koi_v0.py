"""Yin Yang Koi as a PettingZoo AEC environment: ``env()`` (wrapped) and ``raw_env()``."""
from yyenvs.core.aec import aec_factories

raw_env, env = aec_factories("koi")
__all__ = ["env", "raw_env"]
