"""Yoxii positions as text boards: seven lines of seven tokens, north first.

``-`` a corner square the board does not have, ``.`` an empty square, ``T`` the totem, ``W1`` ..
``W4`` a white piece and ``R1`` .. ``R4`` a red one with its value.  The stocks, the ply and the
player to move follow from the pieces on the board (White moves first, so White is to move when
both have placed as many pieces); a position whose player to move cannot move the totem is over,
and its result is counted as the rules count it.
"""
from __future__ import annotations

import numpy as np

from yyenvs.core.errors import show
from yyenvs.games.yoxii.rules import CELL_RC, NUM_CELLS, NUM_VALUES, SIZE, STOCK, final_winner, has_totem_move


def to_text(state, index: int) -> str:
    """The text board of row ``index`` in the format :func:`from_text` reads."""
    grid = [["-"] * SIZE for _ in range(SIZE)]
    for c in range(NUM_CELLS):
        r, col = CELL_RC[c]
        v = int(state.board[index, c])
        grid[r][col] = f"W{v}" if v > 0 else f"R{-v}" if v < 0 else "."
    r, col = CELL_RC[int(state.totem[index])]
    grid[r][col] = "T"
    return "\n".join(" ".join(f"{t:<2}" for t in row).rstrip() for row in grid)


def from_text(core, text: str):
    """A one-row state of ``core`` from a text board (see the module); ValueError naming what is wrong."""
    if not isinstance(text, str):
        raise ValueError(f"yoxii: a text board is a string, got {show(text)}")
    rows = [line.split() for line in text.strip().splitlines() if line.strip()]
    if len(rows) != SIZE or any(len(r) != SIZE for r in rows):
        raise ValueError(f"yoxii: a text board needs {SIZE} lines of {SIZE} tokens")
    cell_at = {(int(r), int(c)): i for i, (r, c) in enumerate(CELL_RC)}
    state = core.init(np.zeros(1, dtype=np.uint64))
    board = state.board[0]
    board[:] = 0
    totems = []
    for r, row in enumerate(rows):
        for c, tok in enumerate(row):
            cell = cell_at.get((r, c))
            if cell is None:
                if tok != "-":
                    raise ValueError(f"yoxii: line {r + 1}, token {c + 1} is a missing corner square; "
                                     f"write '-', got {show(tok)}")
                continue
            if tok == "T":
                totems.append(cell)
            elif len(tok) == 2 and tok[0] in "WR" and tok[1] in "1234":
                board[cell] = int(tok[1]) * (1 if tok[0] == "W" else -1)
            elif tok != ".":
                raise ValueError(f"yoxii: line {r + 1}, token {c + 1}: unknown token {show(tok)}")
    if len(totems) != 1:
        raise ValueError(f"yoxii: the board needs exactly one T, got {len(totems)}")
    state.totem[0] = totems[0]
    placed = np.zeros((2, NUM_VALUES), np.int64)
    for v in range(1, NUM_VALUES + 1):
        placed[0, v - 1] = int((board == v).sum())
        placed[1, v - 1] = int((board == -v).sum())
    if (placed > np.array(STOCK)).any():
        raise ValueError(f"yoxii: more pieces of a value than a player has ({list(STOCK)} of values 1-4)")
    lead = int(placed[0].sum() - placed[1].sum())
    if lead not in (0, 1):
        raise ValueError("yoxii: White moves first, so White has as many pieces as Red or one more; "
                         f"got {int(placed[0].sum())} and {int(placed[1].sum())}")
    state.stock[0] = np.array(STOCK) - placed
    state.current_player[0] = lead  # 0: White to move, 1: Red
    state.ply[0] = int(placed.sum())
    if not has_totem_move(board, int(state.totem[0]), lead):
        state.terminated[0] = True
        w = final_winner(board, int(state.totem[0]))
        if w >= 0:
            state.rewards[0, w], state.rewards[0, 1 - w] = 1.0, -1.0
    return state
