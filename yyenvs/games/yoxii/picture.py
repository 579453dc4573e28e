"""The picture of one Yoxii game (a :class:`~yyenvs.core.scene.Scene`): the board with its
coordinates, the pieces with their values, the totem, both stocks, whose turn it is and the last
move; and the click targets of the play page."""
from __future__ import annotations

from yyenvs.core.scene import Scene
from yyenvs.games.yoxii.rules import (
    CELL_RC,
    NUM_CELLS,
    NUM_VALUES,
    PLAYER_NAMES,
    SIZE,
    final_winner,
    totem_destination,
)

COLUMNS = "abcdefg"  # west to east; rows are numbered 7 (north) to 1
CELL, MARGIN, PANEL = 60, 28, 220
WOOD, FELT, INK, HIGHLIGHT = (222, 196, 150), (60, 90, 60), (20, 25, 20), (250, 200, 40)
PIECE = ((250, 250, 245), (190, 40, 40))  # white, red
PIECE_INK = ((40, 40, 40), (250, 235, 235))


def scene(core, state, index: int, last_move=None, before=None) -> Scene:
    """``last_move``: (seat, action) of the move that led here, highlighted; or None."""
    side = SIZE * CELL
    sc = Scene(side + 2 * MARGIN + PANEL, side + 2 * MARGIN, (236, 230, 214))
    sc.rect(MARGIN, MARGIN, side, side, FELT)
    for i in range(SIZE):
        mid = MARGIN + i * CELL + CELL / 2
        sc.text(mid, MARGIN / 2, COLUMNS[i], 13, INK, "middle")
        sc.text(MARGIN / 2, mid, str(SIZE - i), 13, INK, "middle")
    placed = None if last_move is None else core.decode(last_move[1])[1]
    board = state.board[index]
    totem = int(state.totem[index])
    for c in range(NUM_CELLS):
        r, col = CELL_RC[c]
        x, y = MARGIN + col * CELL, MARGIN + r * CELL
        cx, cy = x + CELL / 2, y + CELL / 2
        sc.rect(x + 2, y + 2, CELL - 4, CELL - 4, WOOD, HIGHLIGHT if c == placed else None, 4,
                target=f"c{c}")
        v = int(board[c])
        if c == totem:
            sc.circle(cx, cy, CELL * 0.4, (40, 160, 70), (20, 60, 30), 2)
            sc.circle(cx, cy, CELL * 0.15, (230, 240, 120))
        elif v:
            seat = 0 if v > 0 else 1
            sc.circle(cx, cy, CELL * 0.38, PIECE[seat], (30, 30, 30), 2, target=f"c{c}")
            sc.text(cx, cy, str(abs(v)), CELL * 0.4, PIECE_INK[seat], "middle", bold=True)
    if before is not None and last_move is not None:  # the totem's step or jump, from -> to
        (r1, c1), (r2, c2) = CELL_RC[int(before.totem[index])], CELL_RC[totem]
        centre = lambda r, c: (MARGIN + c * CELL + CELL / 2, MARGIN + r * CELL + CELL / 2)  # noqa: E731
        sc.line(*centre(r1, c1), *centre(r2, c2), HIGHLIGHT, 4)
        sc.circle(*centre(r1, c1), CELL * 0.12, None, HIGHLIGHT, 3)
    x0 = side + 2 * MARGIN + 8
    sc.text(x0, 40, "Yoxii", 18, INK, bold=True)
    scores = core.scores(state.take([index]))[0] if state.terminated[index] else None
    for seat in range(2):
        y = 80 + seat * 70
        sc.circle(x0 + 14, y, 12, PIECE[seat], (30, 30, 30), 2)
        sc.text(x0 + 34, y - 10, PLAYER_NAMES[seat].capitalize(), 14, INK, bold=True)
        stock = state.stock[index, seat]
        sc.text(x0 + 34, y + 10, "stock " + "  ".join(f"{v + 1}:{int(stock[v])}" for v in range(NUM_VALUES)),
                12, INK)
        if scores is not None:
            sc.text(x0 + 34, y + 28, f"around the totem: {int(scores[seat, 0])} ({int(scores[seat, 1])} pieces)",
                    11, INK)
    y = 240
    if state.terminated[index]:  # the winner from the board (rewards hold the last step only)
        w = int(final_winner(state.board[index], int(state.totem[index])))
        sc.text(x0, y, (PLAYER_NAMES[w].capitalize() + " wins") if w >= 0 else "draw", 16,
                (160, 30, 30), bold=True)
    elif state.truncated[index]:
        sc.text(x0, y, "stopped (no result)", 14, (160, 30, 30), bold=True)
    else:
        sc.text(x0, y, f"{PLAYER_NAMES[int(state.current_player[index])].capitalize()} to move", 15, INK, bold=True)
    sc.text(x0, y + 24, f"ply {int(state.ply[index])}", 12, INK)
    if last_move is not None:
        sc.text(x0, y + 46, f"last: {PLAYER_NAMES[int(last_move[0])]}", 12, INK)
        sc.text(x0, y + 64, core.action_to_string(last_move[1]), 12, INK)
    return sc


def action_targets(core, state, index: int, actions) -> dict[int, tuple[str, str]]:
    """{legal action: its clicks}: the square the totem moves to, then the square the piece goes
    on (the value is then picked by name)."""
    board, totem, seat = state.board[index], int(state.totem[index]), int(state.current_player[index])
    out = {}
    for a in actions:
        d, cell, _ = core.decode(a)
        out[int(a)] = (f"c{totem_destination(board, totem, seat, d)}", f"c{cell}")
    return out
