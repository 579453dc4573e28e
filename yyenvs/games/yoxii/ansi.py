"""The text picture of one Yoxii game (``render_ansi``); the drawn one is in :mod:`.picture`."""
from __future__ import annotations

from yyenvs.games.yoxii.rules import PLAYER_NAMES, SIZE, final_winner
from yyenvs.games.yoxii.text import to_text

COLUMNS = "abcdefg"  # column letters, west to east; rows are numbered 7 (north) to 1


def ansi(core, state, index: int) -> str:
    board = to_text(state, index).splitlines()  # the text board, with row numbers and column letters
    lines = [f"{SIZE - r} {row}" for r, row in enumerate(board)]
    lines.append("  " + " ".join(f"{ch:<2}" for ch in COLUMNS).rstrip())
    stock = state.stock[index].tolist()  # Python ints: numpy 2 would print np.int8(5)
    lines.append(f"stock white {stock[0]}  red {stock[1]}  (values 1-4)")
    if state.terminated[index]:  # the winner from the board (rewards hold the last step only)
        w = int(final_winner(state.board[index], int(state.totem[index])))
        lines.append("game over: " + (PLAYER_NAMES[w] + " wins" if w >= 0 else "draw"))
    else:
        lines.append(f"{PLAYER_NAMES[int(state.current_player[index])]} to move")
    return "\n".join(lines)
