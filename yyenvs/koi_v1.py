"""Yin Yang Koi as a PettingZoo AEC environment: ``env()`` (wrapped) and ``raw_env()``.

Version history (``yyenvs.koi_v<n>``, ``yyenvs/Koi-v<n>`` in Gymnasium, ``yyenvs/koi-v<n>`` in PettingZoo):
  v1  defaults: a 7 x 7 pond, 4 directions, 16 fry to win (were 9 x 9, 8 and 14); the rules
      unchanged.  With ``mcts:1600`` in both seats the first seat won 91.0% of 200 games of the old
      default, decided in the set-up; it wins 47.0% [40.2%, 53.9%] of the new one
      (``benchmarks/balance.py``; docs/games/koi.md, Balance).  The quick start's koi stand spread
      around the Taiji (new option ``quick_layout``, "spread"): v0's row layout is a forced win for
      Yang within six plies on the new default pond; v0's layout stays as ``quick_layout="row"``.
  v0  first release: 9 x 9, 8 directions, 14 fry.  Still served with those defaults
      (``yyenvs.koi_v0``, ``yyenvs/Koi-v0``, ``yyenvs/koi-v0``); v0 records and checkpoints load.
"""
from yyenvs.envs.aec import aec_factories

raw_env, env = aec_factories("koi")
__all__ = ["env", "raw_env"]
