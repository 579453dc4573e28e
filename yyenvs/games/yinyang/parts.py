"""Yin Yang: :data:`part`, the decorator of the parts a long kernel or rule is split into.

A part (one screen of a kernel or rule, with its own name and docstring) is
inlined into its caller by numba itself (``inline="always"``, in numba's IR,
before LLVM sees it), so the compiled code is the unsplit function's.  As a
:data:`~yyenvs.games.yinyang.layout.rule` it would stay a call: LLVM does not
inline functions this size, and a call passes each array argument as its
fields (the state tuple: over a hundred values), which made observe, scores
and init 25-40 % slower.  The other options are ``rule``'s (see
:mod:`~yyenvs.games.yinyang.layout`).
"""
from __future__ import annotations

from numba import njit

part = njit(cache=True, inline="always", no_cpython_wrapper=True, no_cfunc_wrapper=True, _nrt=False,
            error_model="numpy")
