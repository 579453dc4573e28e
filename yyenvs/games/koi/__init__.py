"""Yin Yang Koi: two koi families on a wrapping pond (spec: ``seeds/koi.md``)."""
from yyenvs.games.koi.core import KoiCore, KoiState

__all__ = ["KoiCore", "KoiState"]
