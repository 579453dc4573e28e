"""Yoxii's lookahead features (game option ``action_features``).

For each legal action of the player to move, five facts found by searching
the rules (the opponent's pieces are its largest left):

0. ``wins_now``: the move ends the game and the mover wins;
1. ``ends_without_win``: it ends the game in a draw or a loss;
2. ``opponent_can_win_next``: it does not end the game and the opponent then
   has a turn that ends it with the opponent winning;
3. ``opponent_can_trap``: none of 0-2, and the opponent has a turn that does
   not end the game after which the mover has no turn that wins at once or
   is safe (none of 1-2);
4. ``legal``: the move is legal.

All zero for illegal actions and finished games.

The search puts hypothetical pieces of the mover on the board: a placeholder
of value 1 marks the square (the moves depend only on where pieces are and
whose they are), and the values enter only the final sums, so one search
covers every value.  Results are 16-bit masks (no allocation in the hot
loops): bit ``4 * v1 + v2`` stands for the values (v1 + 1, v2 + 1) of the
mover's pieces on ``c1`` and ``c2``.
"""
from __future__ import annotations

import numpy as np
from numba import njit, prange

from yyenvs.core.kernels import batch_kernel
from yyenvs.games.yoxii.rules import (
    NEIGHBOUR,
    NUM_CELLS,
    NUM_DIRS,
    NUM_VALUES,
    YoxiiArrays,
    adjacent_totals,
    has_totem_move,
    placement_cells,
    totem_destination,
)

ACTION_FEATURE_NAMES = ("wins_now", "ends_without_win", "opponent_can_win_next", "opponent_can_trap", "legal")
NUM_ACTION_FEATURES = len(ACTION_FEATURE_NAMES)
LEGAL = NUM_ACTION_FEATURES - 1
ALL_PAIRS = (1 << (NUM_VALUES * NUM_VALUES)) - 1


@njit(cache=True, inline="always")
def _empty_neighbours(board, cell):
    n = 0
    for d in range(NUM_DIRS):
        c = NEIGHBOUR[cell, d]
        if c >= 0 and board[c] == 0:
            n += 1
    return n


@njit(cache=True, inline="always")
def _ends_game(board, totem, player_to_move):
    """Whether ``player_to_move`` has no totem move on ``board`` (a piece just
    placed).  Quick exit: an empty square around the totem means a step."""
    if _empty_neighbours(board, totem) >= 1:
        return False
    return not has_totem_move(board, totem, player_to_move)


@njit(cache=True, inline="always")
def _wins(mine_sum, mine_cnt, theirs_sum, theirs_cnt):
    return mine_sum > theirs_sum or (mine_sum == theirs_sum and mine_cnt > theirs_cnt)


@njit(cache=True, inline="always")
def _adjacent(a, b):
    if b < 0:
        return 0
    for d in range(NUM_DIRS):
        if NEIGHBOUR[a, d] == b:
            return 1
    return 0


@njit(cache=True, inline="always")
def _largest(stock_row, spent):
    """The largest value (1-4) in ``stock_row`` once a piece of value
    ``spent`` (0: none) is taken out; 0 if nothing is left."""
    for v in range(NUM_VALUES - 1, -1, -1):
        if stock_row[v] - (1 if v + 1 == spent else 0) > 0:
            return v + 1
    return 0


@njit(cache=True)
def _final_sums(brd, t, p, c1, c2):
    """(sum, count) around the totem on ``t`` of both players, the mover
    ``p``'s hypothetical pieces on ``c1``/``c2`` left out, and whether each touches it."""
    sign = 1 if p == 0 else -1
    brd[c1] = 0
    if c2 >= 0:
        brd[c2] = 0
    tot = adjacent_totals(brd, t)
    brd[c1] = sign
    if c2 >= 0:
        brd[c2] = sign
    return tot, _adjacent(t, c1), _adjacent(t, c2)


@njit(cache=True)
def _mover_wins(brd, t, p, c1, c2):
    """The game has ended with the totem on ``t``: the value pairs for which ``p`` wins."""
    q = 1 - p
    tot, a1, a2 = _final_sums(brd, t, p, c1, c2)
    out = 0
    for v1 in range(NUM_VALUES):
        for v2 in range(NUM_VALUES):
            if _wins(tot[p, 0] + a1 * (v1 + 1) + a2 * (v2 + 1), tot[p, 1] + a1 + a2, tot[q, 0], tot[q, 1]):
                out |= 1 << (NUM_VALUES * v1 + v2)
    return out


@njit(cache=True)
def _opponent_wins(brd, t, p, bq, c1, c2, scratch):
    """The opponent of ``p`` to move (totem on ``t``), placing a piece of value
    ``bq``: the value pairs for which it has a turn that ends the game with
    the opponent winning."""
    q = 1 - p
    out = 0
    if bq == 0:
        return out
    for d in range(NUM_DIRS):
        dest = totem_destination(brd, t, q, d)
        if dest < 0 or _empty_neighbours(brd, dest) >= 2:
            continue  # after one placement a step would remain
        n = placement_cells(brd, dest, scratch)
        for k in range(n):
            c = scratch[k]
            brd[c] = -1 if q == 1 else 1
            if _ends_game(brd, dest, p):
                brd[c] = 0
                tot, a1, a2 = _final_sums(brd, dest, p, c1, c2)
                a = _adjacent(dest, c)
                for v1 in range(NUM_VALUES):
                    for v2 in range(NUM_VALUES):
                        if _wins(tot[q, 0] + a * bq, tot[q, 1] + a,
                                 tot[p, 0] + a1 * (v1 + 1) + a2 * (v2 + 1), tot[p, 1] + a1 + a2):
                            out |= 1 << (NUM_VALUES * v1 + v2)
            brd[c] = 0
    return out


@njit(cache=True)
def _safe_values(brd, t, p, stock, cell, mine, bq, scratch):
    """``p`` to move (totem on ``t``) with a hypothetical piece already on
    ``cell``: bitmask of its values (among ``mine``) for which ``p`` has a turn
    that wins at once or is *safe* -- does not end the game, and the opponent
    (placing value ``bq``) then has no turn that ends it with a win."""
    q = 1 - p
    safe = 0
    for d in range(NUM_DIRS):
        dest = totem_destination(brd, t, p, d)
        if dest < 0:
            continue
        n = placement_cells(brd, dest, scratch[0])
        for k in range(n):
            c = scratch[0, k]
            brd[c] = 1 if p == 0 else -1
            if _ends_game(brd, dest, q):
                good = _mover_wins(brd, dest, p, cell, c)
            else:
                good = ALL_PAIRS & ~_opponent_wins(brd, dest, p, bq, cell, c, scratch[1])
            brd[c] = 0
            for v in range(NUM_VALUES):
                if mine & (1 << v):
                    for v2 in range(NUM_VALUES):  # a value still in stock once v is placed
                        if stock[p, v2] - (1 if v2 == v else 0) > 0 and good & (1 << (NUM_VALUES * v + v2)):
                            safe |= 1 << v
                            break
            if safe == mine:
                return safe
    return safe


@njit(cache=True)
def _trapped_values(brd, t, p, stock, cell, mine, scratch, memo):
    """``p`` has just moved (totem on ``t``, its piece on ``cell``; the game
    goes on): bitmask of the values (among ``mine``) for which the opponent,
    placing its largest piece, has a turn that does not end the game and after
    which ``p`` has no winning or safe turn (the opponent's next piece being
    its largest left).

    ``memo[dest, c]`` (-1: unknown) keeps the safe values after the reply
    that takes the totem to ``dest`` and places on ``c``: the position then
    does not depend on where ``p``'s totem went, so the other turns of ``p``
    placing on ``cell`` reuse it.
    """
    q = 1 - p
    bq = _largest(stock[q], 0)
    if bq == 0 or mine == 0:
        return 0
    bq2 = _largest(stock[q], bq)
    every = 0  # all of p's values in stock, for the memo
    for v in range(NUM_VALUES):
        if stock[p, v] > 0:
            every |= 1 << v
    # Pruning (exact): a turn that ends the game leaves the totem on an empty
    # square with at most one empty neighbour before its placement.  If after
    # the opponent's reply no empty square has two or fewer, no turn of ``p``
    # can end the game and no answer of the opponent can either: every turn of
    # ``p`` is safe.  The reply fills at most one neighbour of each square.
    empties = scratch[1]
    tight = 0  # empty squares with two empty neighbours or fewer already
    tight_at = -1
    loose = 0  # ... with three
    for x in range(NUM_CELLS):
        empties[x] = _empty_neighbours(brd, x) if brd[x] == 0 else 99
        if empties[x] <= 2:
            tight += 1
            tight_at = x
        elif empties[x] == 3:
            loose += 1
    if tight == 0 and loose == 0:
        return 0
    trapped = 0
    for d in range(NUM_DIRS):
        dest = totem_destination(brd, t, q, d)
        if dest < 0:
            continue
        n = placement_cells(brd, dest, scratch[0])
        for k in range(n):
            c = scratch[0, k]
            crowded = tight > 1 or (tight == 1 and tight_at != c)
            for dd in range(NUM_DIRS):
                x = NEIGHBOUR[c, dd]
                crowded |= x >= 0 and empties[x] == 3
            if not crowded:
                continue
            if memo[dest, c] < 0:
                brd[c] = bq if q == 0 else -bq
                if _ends_game(brd, dest, p):
                    memo[dest, c] = every  # not a trap: the reply ends the game
                else:
                    memo[dest, c] = _safe_values(brd, dest, p, stock, cell, every, bq2, scratch[2:])
                brd[c] = 0
            trapped |= mine & ~memo[dest, c]
            if trapped == mine:
                return trapped
    return trapped


@batch_kernel(parallel_min_batch=16)  # ~0.1 ms per row: threads pay off on small batches
def action_features_kernel(arrays, viewer, feats):
    """feats[b, :, a]: the features (module docstring) of each action of ``viewer[b]``
    as the player to move; feature 3 is ``_trapped_values``.  ``arrays``: ``YoxiiArrays``' fields."""
    state = YoxiiArrays(*arrays)
    board, totem, stock = state.board, state.totem, state.stock
    terminated, truncated = state.terminated, state.truncated
    B = board.shape[0]
    scratch = np.empty((B, 5, NUM_CELLS), dtype=np.int64)
    for b in prange(B):
        f = feats[b]
        f[:, :] = 0.0
        if terminated[b] or truncated[b]:
            continue
        p = viewer[b]
        q = 1 - p
        brd = board[b].copy()
        t = totem[b]
        memo = np.full((NUM_CELLS, NUM_CELLS, NUM_CELLS), -1, dtype=np.int8)  # see _trapped_values
        mine = 0
        for v in range(NUM_VALUES):
            if stock[b, p, v] > 0:
                mine |= 1 << v
        bq = _largest(stock[b, q], 0)
        for d in range(NUM_DIRS):
            dest = totem_destination(brd, t, p, d)
            if dest < 0:
                continue
            n = placement_cells(brd, dest, scratch[b, 0])
            for k in range(n):
                cell = scratch[b, 0, k]
                brd[cell] = 1 if p == 0 else -1
                base = (d * NUM_CELLS + cell) * NUM_VALUES
                if _ends_game(brd, dest, q):
                    wins = _mover_wins(brd, dest, p, cell, -1)
                    brd[cell] = 0
                    for v in range(NUM_VALUES):
                        if mine & (1 << v):
                            f[LEGAL, base + v] = 1.0
                            f[0 if wins >> (NUM_VALUES * v) & 15 else 1, base + v] = 1.0
                    continue
                loses = _opponent_wins(brd, dest, p, bq, cell, -1, scratch[b, 1])
                safe = 0
                for v in range(NUM_VALUES):
                    if mine & (1 << v) and not loses >> (NUM_VALUES * v) & 15:
                        safe |= 1 << v
                trapped = _trapped_values(brd, dest, p, stock[b], cell, safe, scratch[b, 1:], memo[cell])
                brd[cell] = 0
                for v in range(NUM_VALUES):
                    if mine & (1 << v):
                        f[LEGAL, base + v] = 1.0
                        if loses >> (NUM_VALUES * v) & 15:
                            f[2, base + v] = 1.0
                        elif trapped & (1 << v):
                            f[3, base + v] = 1.0
