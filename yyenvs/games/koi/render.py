"""Pictures of one Yin Yang Koi game: text (``render_ansi``) and RGB (``render_rgb``)."""
from __future__ import annotations

import numpy as np

from yyenvs.core import draw
from yyenvs.games.koi.rules import SETUP, TAIJI, YANG_FRY, YANG_KOI, YIN_FRY, YIN_KOI
from yyenvs.games.koi.text import koi_slots, to_text

YIN_COLOUR, YANG_COLOUR = (25, 25, 35), (245, 245, 240)


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


def rgb(state, index: int, n: int) -> np.ndarray:
    cell = max(24, min(56, 480 // n))
    margin = cell // 2
    size = n * cell + 2 * margin
    img = draw.canvas(size, size, (70, 130, 180))  # pond water
    grid = (110, 165, 210)
    for i in range(n):
        mid = margin + i * cell + cell // 2
        draw.rect(img, mid, margin, mid + 1, size - margin, grid)
        draw.rect(img, margin, mid, size - margin, mid + 1, grid)
    draw.frame(img, margin - 2, margin - 2, size - margin + 2, size - margin + 2, (40, 80, 120), 2)
    slot = koi_slots(state, index)
    for p in range(n * n):
        v = int(state.board[index, p])
        r, c = divmod(p, n)
        cy = margin + r * cell + cell / 2
        cx = margin + c * cell + cell / 2
        rad = cell * 0.42
        if v == TAIJI:
            _taiji(img, cy, cx, rad, YIN_COLOUR, YANG_COLOUR)
        elif v in (YIN_KOI, YANG_KOI):
            body, mark = (YIN_COLOUR, YANG_COLOUR) if v == YIN_KOI else (YANG_COLOUR, YIN_COLOUR)
            draw.disc(img, cy, cx, rad, (200, 60, 40))  # koi-red rim
            draw.disc(img, cy, cx, rad - 3, body)
            draw.pips(img, cy, cx, slot.get(p, 0) + 1, max(1.5, cell * 0.05), mark)
        elif v in (YIN_FRY, YANG_FRY):
            col = YIN_COLOUR if v == YIN_FRY else YANG_COLOUR
            draw.disc(img, cy, cx, cell * 0.18, (40, 80, 120))
            draw.disc(img, cy, cx, cell * 0.18 - 1.5, col)
    return img


def _taiji(img, cy, cx, rad, dark, light):
    """A small Taiji symbol: two halves with a dot of each colour."""
    draw.disc(img, cy, cx, rad, light)
    h, w = img.shape[:2]
    y0, y1 = max(int(cy - rad), 0), min(int(cy + rad) + 2, h)
    x0, x1 = max(int(cx - rad), 0), min(int(cx + rad) + 2, w)
    yy, xx = np.ogrid[y0:y1, x0:x1]
    d2 = (yy - cy) ** 2 + (xx - cx) ** 2
    inside = d2 <= rad * rad
    upper = ((yy - (cy - rad / 2)) ** 2 + (xx - cx) ** 2) <= (rad / 2) ** 2
    lower = ((yy - (cy + rad / 2)) ** 2 + (xx - cx) ** 2) <= (rad / 2) ** 2
    dark_part = inside & (((xx < cx) & ~upper) | lower)
    img[y0:y1, x0:x1][dark_part] = dark
    draw.disc(img, cy - rad / 2, cx, rad / 7, dark)
    draw.disc(img, cy + rad / 2, cx, rad / 7, light)
    draw.ring(img, cy, cx, rad, dark, 1.5)
