"""The text picture of one Yin Yang Koi game (``render_ansi``); the drawn one is in :mod:`.picture`."""
from __future__ import annotations

from yyenvs.games.koi.rules import SETUP
from yyenvs.games.koi.text import to_text


def ansi(core, state, index: int) -> str:
    """The text board with column letters and row numbers, then a status line."""
    n = core.board_size
    body = to_text(state, index, n).splitlines()
    head = "    " + " ".join(f"{chr(ord('a') + c):<2}" for c in range(n))
    lines = [head.rstrip()] + [f"{r + 1:>2}  {line}" for r, line in enumerate(body)]
    names = core.player_names()
    if state.terminated[index]:
        w = int(state.winner[index])
        status = f"game over: {names[w]} wins" if w >= 0 else "game over"
    elif state.truncated[index]:
        status = "game stopped at the ply cap (no result)"
    else:
        phase = "set-up" if state.phase[index] == SETUP else "play"
        status = f"{names[int(state.current_player[index])]} to move ({phase})"
    lines.append(f"{status}; ply {int(state.ply[index])}; fry yin {int(state.fry[index, 0])}, "
                 f"yang {int(state.fry[index, 1])} (win at {core.win_fry})")
    return "\n".join(lines)
