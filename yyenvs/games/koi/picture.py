"""The picture of one Yin Yang Koi game (a :class:`~yyenvs.core.scene.Scene`): the pond with
its coordinates, the koi with their slot numbers, the fry, each family's fry count, whose turn
it is and the last move; and the click targets of the play page."""
from __future__ import annotations

from yyenvs.core.scene import Scene
from yyenvs.games.koi.rules import (
    DIR_VECTORS,
    NUM_KOI,
    SETUP,
    TAIJI,
    YANG_FRY,
    YANG_KOI,
    YIN_FRY,
    YIN_KOI,
    swim_end,
)
from yyenvs.games.koi.text import koi_slots

YIN, YANG = (25, 25, 35), (245, 245, 240)
WATER, GRID, INK, HIGHLIGHT = (70, 130, 180), (110, 165, 210), (20, 30, 40), (250, 200, 40)
FAMILY = ((YIN, YANG), (YANG, YIN))  # body, mark of each seat's koi and fry
PANEL = 210


def _cell(n: int) -> int:
    return max(26, min(52, 468 // n))


def scene(core, state, index: int, last_move=None, before=None) -> Scene:
    """``last_move``: (seat, action) of the move that led here, highlighted; or None."""
    n = core.board_size
    cell = _cell(n)
    margin = 26
    side = n * cell
    sc = Scene(side + 2 * margin + PANEL, side + 2 * margin, (232, 226, 210))
    sc.rect(margin, margin, side, side, WATER, (40, 80, 120), 2)
    for i in range(n):
        mid = margin + i * cell + cell / 2
        sc.line(margin, mid, margin + side, mid, GRID)
        sc.line(mid, margin, mid, margin + side, GRID)
        sc.text(mid, margin / 2, chr(ord("a") + i), 12, INK, "middle")
        sc.text(margin / 2, mid, str(i + 1), 12, INK, "middle")
    board = state.board[index]
    slot = koi_slots(state, index)
    moved = _moved_to(core, state, index, last_move)
    for p in range(n * n):
        r, c = divmod(p, n)
        x, y = margin + c * cell, margin + r * cell
        cx, cy = x + cell / 2, y + cell / 2
        v = int(board[p])
        if p == moved:
            sc.rect(x + 1, y + 1, cell - 2, cell - 2, None, HIGHLIGHT, 3)
        if v == TAIJI:
            rad = cell * 0.4
            sc.circle(cx, cy, rad, YANG, YIN, 1.5)
            sc.polygon(_half_disc(cx, cy, rad), YIN)
            sc.circle(cx, cy - rad / 2, rad / 2, YANG)
            sc.circle(cx, cy + rad / 2, rad / 2, YIN)
            sc.circle(cx, cy - rad / 2, rad / 7, YIN)
            sc.circle(cx, cy + rad / 2, rad / 7, YANG)
        elif v in (YIN_KOI, YANG_KOI):
            body, mark = FAMILY[v - YIN_KOI]
            sc.circle(cx, cy, cell * 0.42, body, (200, 60, 40), 3, target=f"p{p}")
            sc.text(cx, cy, str(slot.get(p, 0)), cell * 0.42, mark, "middle", bold=True)
        elif v in (YIN_FRY, YANG_FRY):
            body, _ = FAMILY[v - YIN_FRY]
            sc.circle(cx, cy, cell * 0.18, body, (40, 80, 120), 1.5, target=f"p{p}")
        else:
            sc.circle(cx, cy, cell * 0.12, WATER, target=f"p{p}")  # a click target on empty water
    if before is not None and last_move is not None:
        _swim_path(core, before, index, last_move, sc, margin, cell)
    _panel(core, state, index, last_move, sc, side + 2 * margin + 6)
    return sc


def _swim_path(core, before, index, last_move, sc: Scene, margin, cell) -> None:
    """The last swim from its start to where it stopped, a line through every point swum over; a
    swim across the pond's edge leaves by one side and comes back by the other."""
    seat, a = int(last_move[0]), int(last_move[1])
    n = core.board_size
    if a < n * n:  # a placement: nothing swam
        return
    k, d = divmod(a - n * n, core.num_dirs)
    start = int(before.koi[index, seat, k])
    end = swim_end(before.board, index, start, d, core.rays, seat)
    if start < 0 or end < 0:
        return
    points = [start]
    for q in core.rays[start, d]:
        points.append(int(q))
        if q == end:
            break
    centre = lambda p: (margin + (p % n) * cell + cell / 2, margin + (p // n) * cell + cell / 2)  # noqa: E731
    dr, dc = DIR_VECTORS[core.num_dirs][d]
    half = (dc * cell / 2, dr * cell / 2)
    for p, q in zip(points, points[1:]):
        (x1, y1), (x2, y2) = centre(p), centre(q)
        if abs(x2 - x1) <= cell * 1.01 and abs(y2 - y1) <= cell * 1.01:
            sc.line(x1, y1, x2, y2, HIGHLIGHT, 3)
        else:  # across the edge: out by one side, in by the other
            sc.line(x1, y1, x1 + half[0], y1 + half[1], HIGHLIGHT, 3)
            sc.line(x2 - half[0], y2 - half[1], x2, y2, HIGHLIGHT, 3)
    x, y = centre(start)
    sc.circle(x, y, cell * 0.16, None, HIGHLIGHT, 3)  # where the koi set out


def _half_disc(cx, cy, r, steps: int = 16):
    """The left half of the disc (the dark side of the Taiji)."""
    import math
    return [(cx + r * math.cos(math.pi / 2 + math.pi * k / steps),
             cy - r * math.sin(math.pi / 2 + math.pi * k / steps)) for k in range(steps + 1)]


def _moved_to(core, state, index, last_move):
    """The point the last move placed or swam a koi to (None when not known)."""
    if last_move is None:
        return None
    mover, a = int(last_move[0]), int(last_move[1])
    n2 = core.board_size ** 2
    if a < n2:
        return a
    p = int(state.koi[index, mover, (a - n2) // core.num_dirs])
    return p if p >= 0 else None


def _panel(core, state, index, last_move, sc: Scene, x0: float) -> None:
    names = core.player_names()
    y = 40
    sc.text(x0, y, "Yin Yang Koi", 16, INK, bold=True)
    sc.text(x0, y + 22, f"{core.board_size} x {core.board_size}, {core.num_dirs} directions, "
                        f"{core.win_fry} fry win", 11, INK)
    for seat in range(2):
        yy = y + 60 + seat * 56
        body, mark = FAMILY[seat]
        sc.circle(x0 + 14, yy, 12, body, (200, 60, 40), 2)
        sc.text(x0 + 34, yy - 8, names[seat].capitalize(), 14, INK, bold=True)
        sc.text(x0 + 34, yy + 10, f"fry {int(state.fry[index, seat])} / {core.win_fry}", 12, INK)
        placed = int((state.koi[index, seat] >= 0).sum())
        if placed < NUM_KOI:
            sc.text(x0 + 130, yy + 10, f"koi {placed}/{NUM_KOI}", 12, INK)
    yy = y + 190
    if state.terminated[index]:
        w = int(state.winner[index])
        sc.text(x0, yy, f"{names[w].capitalize()} wins" if w >= 0 else "game over", 16, (160, 30, 30), bold=True)
    elif state.truncated[index]:
        sc.text(x0, yy, "stopped at the ply cap", 14, (160, 30, 30), bold=True)
    else:
        phase = "set-up" if state.phase[index] == SETUP else "play"
        sc.text(x0, yy, f"{names[int(state.current_player[index])].capitalize()} to move ({phase})", 14, INK,
                bold=True)
    sc.text(x0, yy + 24, f"ply {int(state.ply[index])}", 12, INK)
    if last_move is not None:
        sc.text(x0, yy + 44, f"last: {names[int(last_move[0])]}, {core.action_to_string(last_move[1])}", 12, INK)


def action_targets(core, state, index: int, actions) -> dict[int, tuple[str, ...]]:
    """{legal action: its clicks}: a placement's point; a swim's koi, then the point it stops on."""
    n2 = core.board_size ** 2
    seat = int(state.current_player[index])
    out = {}
    for a in actions:
        a = int(a)
        if a < n2:
            out[a] = (f"p{a}",)
            continue
        k, d = divmod(a - n2, core.num_dirs)
        p = int(state.koi[index, seat, k])
        if p >= 0:
            out[a] = (f"p{p}", f"p{swim_end(state.board, index, p, d, core.rays, seat)}")
    return out
