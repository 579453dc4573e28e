"""The text picture of one Yoxii game (``render_ansi``); the drawn one is in :mod:`.picture`."""
from __future__ import annotations

from yyenvs.games.yoxii.rules import CELL_RC, NUM_CELLS, PLAYER_NAMES, SIZE, final_winner

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
    if state.terminated[index]:  # the winner from the board (rewards hold the last step only)
        w = int(final_winner(state.board[index], int(state.totem[index])))
        lines.append("game over: " + (PLAYER_NAMES[w] + " wins" if w >= 0 else "draw"))
    else:
        lines.append(f"{PLAYER_NAMES[int(state.current_player[index])]} to move")
    return "\n".join(lines)
