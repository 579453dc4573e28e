"""Pictures of one Yoxii game: text (``render_ansi``) and RGB (``render_rgb``)."""
from __future__ import annotations

import numpy as np

from yyenvs.core import draw
from yyenvs.games.yoxii.rules import CELL_RC, NUM_CELLS, PLAYER_NAMES, SIZE

COLUMNS = "abcdefg"  # column letters, west to east; rows are numbered 7 (north) to 1


def ansi(state, index: int) -> str:
    grid = [["   "] * SIZE for _ in range(SIZE)]
    for c in range(NUM_CELLS):
        r, col = CELL_RC[c]
        x = int(state.board[index, c])
        grid[r][col] = f"W{x} " if x > 0 else f"R{-x} " if x < 0 else " . "
    r, col = CELL_RC[int(state.totem[index])]
    grid[r][col] = " T "
    lines = [f"{SIZE - r} " + "".join(row) for r, row in enumerate(grid)]
    lines.append("   " + "".join(f" {ch} " for ch in COLUMNS))
    stock = state.stock[index].tolist()  # Python ints: numpy 2 would print np.int8(5)
    lines.append(f"stock white {stock[0]}  red {stock[1]}  (values 1-4)")
    if state.terminated[index]:
        w = np.flatnonzero(state.rewards[index] > 0)
        lines.append("game over: " + (PLAYER_NAMES[int(w[0])] + " wins" if w.size else "draw"))
    else:
        lines.append(f"{PLAYER_NAMES[int(state.current_player[index])]} to move")
    return "\n".join(lines)


def rgb(state, index: int) -> np.ndarray:
    cell_px = 64
    img = draw.canvas(SIZE * cell_px, SIZE * cell_px, (60, 90, 60))
    for c in range(NUM_CELLS):
        r, col = CELL_RC[c]
        y0, x0 = r * cell_px, col * cell_px
        draw.rect(img, y0 + 2, x0 + 2, y0 + cell_px - 2, x0 + cell_px - 2, (222, 196, 150))
        cy, cx = y0 + cell_px / 2, x0 + cell_px / 2
        x = int(state.board[index, c])
        if x != 0:
            body, ink = ((250, 250, 245), (40, 40, 40)) if x > 0 else ((190, 40, 40), (250, 230, 230))
            draw.disc(img, cy, cx, cell_px * 0.4, body)
            draw.ring(img, cy, cx, cell_px * 0.4, (30, 30, 30), 2)
            draw.pips(img, cy, cx, abs(x), cell_px * 0.06, ink)
    r, col = CELL_RC[int(state.totem[index])]
    cy, cx = r * cell_px + cell_px / 2, col * cell_px + cell_px / 2
    draw.disc(img, cy, cx, cell_px * 0.42, (40, 160, 70))
    draw.disc(img, cy, cx, cell_px * 0.15, (230, 240, 120))
    return img
