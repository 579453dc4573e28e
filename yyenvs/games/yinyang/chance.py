"""Yin Yang: the chance events, drawn in one place for both chance modes.

During play chance has five sources: the six god coins of Phase One, each
Divination throw, the free reroll, Mortal Will's rethrow and the bag draw
that refills a Tai Ji area after a Gift from the Gods.  The rules never draw
directly: they post the event in the flow columns ``F_CHANCE`` (the kind)
and ``F_CHANCE_N`` (the coins thrown, or the area refilled), and the event
is settled by an outcome, an action of the outcome blocks:

* god coins: ``action_start[O_GODS] + lower * 8 + upper`` (trigrams), 1/64 each;
* a throw of n coins: ``action_start[O_COINS] + k`` for k Yang faces, C(n, k) / 2**n;
* a bag draw: ``action_start[O_BAG] + g`` for goods kind g, bag[g] / bag total.

With ``chance="sampled"`` the step draws the outcome at once with
:func:`draw_outcome`; with ``chance="explicit"`` the row waits for it
(``current_player`` is the chance player) and ``sample_chance`` uses the very
same :func:`draw_outcome`, so both modes take the same draws from the row's
stream.  A throw of no coins and a draw from an empty bag have one possible
outcome and are not posted.  The set-up's draws happen in ``init`` from the
seed in both modes.
"""
from __future__ import annotations

import numpy as np

from yyenvs.core.rng import next_below
from yyenvs.games.yinyang.layout import (
    EV_BAG,
    EV_GODS,
    EV_NONE,
    F_CHANCE,
    F_CHANCE_N,
    G_BAG,
    GODS_OUTCOMES,
    O_BAG,
    O_COINS,
    O_GODS,
    TRI_OF_CODE,
    Arrays,
    kernel,
    rule,
)


# -- the draws (one per mechanism) ------------------------------------------------------------
@rule
def draw_below(rng, i, n):
    """Uniform integer in [0, n) from row i's stream (n: an int64, not a constant)."""
    return next_below(rng, i, n)


@rule
def flip_coin(rng, i):
    """One coin: 1 for Yang."""
    return next_below(rng, i, 2)


@rule
def throw_coins(rng, i, n):
    """Throw n coins: the number of Yang faces."""
    k = 0
    for _ in range(n):
        k += flip_coin(rng, i)
    return k


@rule
def throw_trigram(rng, i):
    """Three coins read bottom line first: a trigram index."""
    code = 0
    for b in range(3):
        code += flip_coin(rng, i) << b
    return TRI_OF_CODE[code]


@rule
def draw_from_bag(rng, i, goods):
    """The goods kind a blind draw from row i's bag gives (-1: the bag is empty); takes nothing out."""
    total = np.int64(0)  # not a literal 0: numba would compile draw_below for it too
    for g in range(4):
        total += goods[i, G_BAG, g]
    if total == 0:
        return -1
    r = draw_below(rng, i, total)
    for g in range(4):
        if r < goods[i, G_BAG, g]:
            return g
        r -= goods[i, G_BAG, g]
    return -1


@rule
def draw_outcome(rng, flow, goods, tb, i):
    """The outcome action of row i's pending event, drawn from its stream."""
    kind = flow[i, F_CHANCE]
    off = tb.action_start
    if kind == EV_GODS:
        lower = throw_trigram(rng, i)
        upper = throw_trigram(rng, i)
        return off[O_GODS] + lower * 8 + upper
    if kind == EV_BAG:
        return off[O_BAG] + draw_from_bag(rng, i, goods)
    return off[O_COINS] + throw_coins(rng, i, flow[i, F_CHANCE_N])


# -- what explicit chance shows --------------------------------------------------------------------
@rule
def chance_mask_row(flow, goods, tb, i, m):
    """The outcomes of row i's pending event that can happen (m is cleared by the caller)."""
    off = tb.action_start
    if m.shape[0] <= off[O_GODS]:
        return  # a sampled core has no outcome actions: an explicit state's chance node has none
    kind = flow[i, F_CHANCE]
    if kind == EV_GODS:
        for o in range(GODS_OUTCOMES):
            m[off[O_GODS] + o] = True
    elif kind == EV_BAG:
        for g in range(4):
            m[off[O_BAG] + g] = goods[i, G_BAG, g] > 0
    else:
        for k in range(flow[i, F_CHANCE_N] + 1):
            m[off[O_COINS] + k] = True


@kernel
def probabilities_kernel(arrays, tables, out):
    """out (B, num_actions) float64, zeroed: each outcome's probability at the chance nodes."""
    st = Arrays(*arrays)
    tb = tables[0]
    off = tb.action_start
    for i in range(out.shape[0]):
        kind = st.flow[i, F_CHANCE]
        if kind == EV_NONE or st.terminated[i]:
            continue
        if kind == EV_GODS:
            for o in range(GODS_OUTCOMES):
                out[i, off[O_GODS] + o] = 1.0 / GODS_OUTCOMES
        elif kind == EV_BAG:
            total = 0
            for g in range(4):
                total += st.goods[i, G_BAG, g]
            for g in range(4):
                out[i, off[O_BAG] + g] = st.goods[i, G_BAG, g] / total
        else:
            n = st.flow[i, F_CHANCE_N]
            ways = 1.0  # C(n, k)
            for k in range(n + 1):
                out[i, off[O_COINS] + k] = ways / 2.0 ** n
                ways = ways * (n - k) / (k + 1)


@kernel
def sample_kernel(arrays, tables, out):
    """out (B,) int64, prefilled -1: an outcome drawn for each chance node (advances its stream)."""
    st = Arrays(*arrays)
    tb = tables[0]
    for i in range(out.shape[0]):
        if st.flow[i, F_CHANCE] != EV_NONE and not st.terminated[i]:
            out[i] = draw_outcome(st.rng, st.flow, st.goods, tb, i)

