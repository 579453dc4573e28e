"""Yoxii's board and rules as numba kernels (rules in ``seeds/yoxii.md``).

Board: 37 squares, a 7x7 grid with a 3-square triangle cut from each corner.
Cells are numbered row-major over the squares that exist::

         .  .  0  1  2  .  .
         .  3  4  5  6  7  .
         8  9 10 11 12 13 14
        15 16 17 18 19 20 21        18 = centre, the totem's start
        22 23 24 25 26 27 28
         . 29 30 31 32 33  .
         .  . 34 35 36  .  .

Directions N, NE, E, SE, S, SW, W, NW = 0..7 (north = row - 1).
One action is a whole turn, totem move then placement:
``action = (direction * 37 + cell) * 4 + (value - 1)``.

The batch kernels (``*_kernel``) take the state's arrays as one named tuple
(:data:`YoxiiArrays`) and loop over the batch; the other functions work on one
game's row.
"""
from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit, prange

from yyenvs.core.kernels import batch_kernel, block_rows, num_blocks

# --- geometry (module constants, computed once) ------------------------------
ROW_WIDTHS = (3, 5, 7, 7, 7, 5, 3)
SIZE = 7
NUM_CELLS = 37
NUM_DIRS = 8
NUM_VALUES = 4
NUM_ACTIONS = NUM_DIRS * NUM_CELLS * NUM_VALUES  # 1184
CENTRE = 18
STOCK = (5, 5, 5, 3)  # pieces of value 1, 2, 3, 4 per player
DIRECTION_NAMES = ("N", "NE", "E", "SE", "S", "SW", "W", "NW")
DELTAS = ((-1, 0), (-1, 1), (0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1))
PLAYER_NAMES = ("white", "red")  # seat 0 moves first


def _geometry():
    rc = []
    for r, width in enumerate(ROW_WIDTHS):
        first = (SIZE - width) // 2
        rc += [(r, c) for c in range(first, first + width)]
    index = {p: i for i, p in enumerate(rc)}
    neighbour = np.full((NUM_CELLS, NUM_DIRS), -1, dtype=np.int64)
    for i, (r, c) in enumerate(rc):
        for d, (dr, dc) in enumerate(DELTAS):
            neighbour[i, d] = index.get((r + dr, c + dc), -1)
    return np.array(rc, dtype=np.int64), neighbour


CELL_RC, NEIGHBOUR = _geometry()  # (37, 2) row/col of each cell; (37, 8) next cell or -1


# --- rules (one function per rule) -------------------------------------------
@njit(cache=True, inline="always")
def totem_destination(board, totem, player, d):
    """Where the totem lands moving in direction ``d`` for ``player``, or -1.

    A step onto an adjacent empty square, or a jump over an unbroken line of
    the mover's own pieces to the first square beyond, which must be empty.
    """
    sign = 1 if player == 0 else -1
    cell = NEIGHBOUR[totem, d]
    while cell >= 0 and board[cell] * sign > 0:  # own piece: keep jumping
        cell = NEIGHBOUR[cell, d]
    if cell < 0 or board[cell] != 0:  # edge, missing square or opponent piece
        return -1
    return cell


@njit(cache=True)
def has_totem_move(board, totem, player):
    for d in range(NUM_DIRS):
        if totem_destination(board, totem, player, d) >= 0:
            return True
    return False


@njit(cache=True, inline="always")
def placement_cells(board, totem, out):
    """Fill ``out`` with the squares a piece may go on; return how many.

    ``totem`` is the totem's new square (``board`` is 0 there and on the
    square it left).  Adjacent empty squares; if none, every empty square.
    """
    n = 0
    for d in range(NUM_DIRS):
        c = NEIGHBOUR[totem, d]
        if c >= 0 and board[c] == 0:
            out[n] = c
            n += 1
    if n == 0:  # the "anywhere" case: all neighbours are occupied
        for c in range(NUM_CELLS):
            if c != totem and board[c] == 0:
                out[n] = c
                n += 1
    return n


@njit(cache=True)
def adjacent_totals(board, totem):
    """(sum, count) of each player's pieces adjacent to the totem."""
    out = np.zeros((2, 2), dtype=np.int64)
    for d in range(NUM_DIRS):
        c = NEIGHBOUR[totem, d]
        if c >= 0 and board[c] != 0:
            p = 0 if board[c] > 0 else 1
            out[p, 0] += abs(board[c])
            out[p, 1] += 1
    return out


@njit(cache=True)
def final_winner(board, totem):
    """0 or 1 for the winner, -1 for a draw: higher sum, then more pieces."""
    t = adjacent_totals(board, totem)
    if t[0, 0] != t[1, 0]:
        return 0 if t[0, 0] > t[1, 0] else 1
    if t[0, 1] != t[1, 1]:
        return 0 if t[0, 1] > t[1, 1] else 1
    return -1


@njit(cache=True)
def is_legal(board, totem, stock, p, action, scratch):
    d = action // (NUM_CELLS * NUM_VALUES)
    cell = (action // NUM_VALUES) % NUM_CELLS
    v = action % NUM_VALUES
    if stock[p, v] <= 0:
        return False
    dest = totem_destination(board, totem, p, d)
    if dest < 0:
        return False
    n = placement_cells(board, dest, scratch)
    for k in range(n):
        if scratch[k] == cell:
            return True
    return False


# --- batch kernels -------------------------------------------------------------
#: a batch's arrays as the kernels name them (``YoxiiState``'s fields of the same names); the entry
#: kernels take them as a plain tuple (``state.arrays(YoxiiArrays)``)
YoxiiArrays = namedtuple("YoxiiArrays", "board totem stock current_player rewards terminated truncated ply")


@batch_kernel
def mask_kernel(arrays, mask):
    state = YoxiiArrays(*arrays)
    board, totem, stock, player = state.board, state.totem, state.stock, state.current_player
    terminated, truncated = state.terminated, state.truncated
    scratch = np.empty((board.shape[0], NUM_CELLS), dtype=np.int64)
    for b in prange(board.shape[0]):
        # the 4 values of one (direction, square) are 4 adjacent mask bytes: one uint32
        words = mask[b].view(np.uint32)
        words[:] = 0
        if terminated[b] or truncated[b]:
            continue
        p = player[b]
        values = np.uint32(0)
        for v in range(NUM_VALUES):
            if stock[b, p, v] > 0:
                values |= np.uint32(1) << np.uint32(8 * v)  # little-endian byte v
        t = totem[b]
        brd = board[b]
        cells = scratch[b]
        for d in range(NUM_DIRS):
            dest = totem_destination(brd, t, p, d)
            if dest < 0:
                continue
            n = placement_cells(brd, dest, cells)
            for k in range(n):
                words[d * NUM_CELLS + cells[k]] = values


@batch_kernel
def step_kernel(arrays, actions):
    """Apply the actions; return the first illegal row, or -1 (nothing changed then).  The
    writes run over blocks of rows, each block a call (yyenvs.core.kernels, on named tuples)."""
    state = YoxiiArrays(*arrays)
    board, totem, stock, player = state.board, state.totem, state.stock, state.current_player
    B = board.shape[0]
    illegal = np.zeros(B, dtype=np.bool_)
    scratch = np.empty((B, NUM_CELLS), dtype=np.int64)
    for b in prange(B):  # validate every row before touching any
        a = actions[b]
        illegal[b] = a >= 0 and not is_legal(board[b], totem[b], stock[b], player[b], a, scratch[b])
    for b in range(B):
        if illegal[b]:
            return b
    for k in prange(num_blocks(B)):
        lo, hi = block_rows(k, B)
        _step_rows(state, actions, lo, hi)
    return -1


@njit(cache=True)
def _step_rows(state, actions, lo, hi):
    """Play the legal actions of rows lo..hi-1 (none where -1)."""
    board, totem, stock, player = state.board, state.totem, state.stock, state.current_player
    rewards, terminated, ply = state.rewards, state.terminated, state.ply
    for b in range(lo, hi):
        a = actions[b]
        if a < 0:
            rewards[b, :] = 0.0
            continue
        p = player[b]
        d = a // (NUM_CELLS * NUM_VALUES)
        cell = (a // NUM_VALUES) % NUM_CELLS
        v = a % NUM_VALUES
        totem[b] = totem_destination(board[b], totem[b], p, d)
        board[b, cell] = (v + 1) if p == 0 else -(v + 1)
        stock[b, p, v] -= 1
        ply[b] += 1
        nxt = 1 - p
        player[b] = nxt
        rewards[b, :] = 0.0
        # the game ends when the player to move cannot move the totem
        if not has_totem_move(board[b], totem[b], nxt):
            terminated[b] = True
            w = final_winner(board[b], totem[b])
            if w >= 0:
                rewards[b, w] = 1.0
                rewards[b, 1 - w] = -1.0


@batch_kernel
def observe_kernel(arrays, viewer, obs):
    """Planes (7, 7, 18) from ``viewer``'s side; see ``YoxiiCore._observe``."""
    state = YoxiiArrays(*arrays)
    board, totem, stock = state.board, state.totem, state.stock
    C = obs.shape[3]
    for b in prange(board.shape[0]):
        o = obs[b].reshape(-1)  # one game's planes, flat: (row * 7 + col) * 18 + plane
        o[:] = 0.0
        me = viewer[b]
        sign = 1 if me == 0 else -1
        s0, s1, s2, s3 = stock[b, me, 0] / 5.0, stock[b, me, 1] / 5.0, stock[b, me, 2] / 5.0, stock[b, me, 3] / 5.0
        o0, o1, o2, o3 = (stock[b, 1 - me, 0] / 5.0, stock[b, 1 - me, 1] / 5.0,
                          stock[b, 1 - me, 2] / 5.0, stock[b, 1 - me, 3] / 5.0)
        brd = board[b]
        for c in range(NUM_CELLS):
            base = (CELL_RC[c, 0] * SIZE + CELL_RC[c, 1]) * C
            x = brd[c] * sign
            if x > 0:
                o[base + x - 1] = 1.0
            elif x < 0:
                o[base + 3 - x] = 1.0
            o[base + 9] = 1.0
            o[base + 10] = s0
            o[base + 11] = s1
            o[base + 12] = s2
            o[base + 13] = s3
            o[base + 14] = o0
            o[base + 15] = o1
            o[base + 16] = o2
            o[base + 17] = o3
        t = totem[b]
        o[(CELL_RC[t, 0] * SIZE + CELL_RC[t, 1]) * C + 8] = 1.0


@batch_kernel
def heuristic_kernel(arrays, viewer, out):
    state = YoxiiArrays(*arrays)
    board, totem, terminated, rewards = state.board, state.totem, state.terminated, state.rewards
    for b in prange(board.shape[0]):
        me = viewer[b]
        if terminated[b]:
            out[b] = 1000.0 * rewards[b, me]
            continue
        t = adjacent_totals(board[b], totem[b])
        out[b] = (t[me, 0] - t[1 - me, 0]) + 0.1 * (t[me, 1] - t[1 - me, 1])
