"""Pictures of one Yin Yang game: text (``ansi``) and RGB (``rgb``)."""
from __future__ import annotations

import numpy as np

from yyenvs.core import draw
from yyenvs.games.yinyang import layout as L
from yyenvs.games.yinyang.data import GOODS, TRIGRAMS

TILE_NAMES = ("carriage", "boat", "goods", "temple")
SCORING_TILES = ("bronze", "bone", "jade", "silk", "temple", "turn_order", "perimeter",
                 "approval", "yang", "yin")
PHASE_NAMES = ("set-up", "ways of the gods", "divination", "actions", "over")
CHANCE_NAMES = ("", "the god coins", "a Divination throw", "the free reroll",
                "Mortal Will's rethrow", "a bag draw")
SEAT_COLOURS = ((200, 40, 40), (40, 90, 220), (30, 150, 60), (230, 180, 20))
GOOD_COLOURS = ((60, 110, 200), (140, 90, 40), (40, 170, 90), (210, 40, 60))
KINGDOM_COLOURS = ((205, 170, 120), (170, 190, 140), (200, 160, 190), (160, 180, 210),
                   (210, 200, 130), (170, 210, 200), (210, 170, 150))


def _dots(img, cy, cx, n, r, color):
    """n small dots in a row (counts of goods, cards)."""
    for k in range(int(n)):
        draw.disc(img, cy, cx + k * (2 * r + 2), r, color)


def _acting_seat(s, i) -> int:
    """The seat to act, or at a chance node the seat whose turn it is."""
    q = int(s.current_player[i])
    return q if q >= 0 else int(s.turn_order[i, s.flow[i, L.F_TURN]])


def ansi(core, s, i: int) -> str:
    d = core.data
    P = core.num_players
    f = s.flow[i]
    event = int(f[L.F_CHANCE])
    to_act = (f"chance to act: {CHANCE_NAMES[event]}" if event
              else f"player {s.current_player[i]} to act")
    lines = [f"Yin Yang ({P} player{'s' if P > 1 else ''}{', solo' if core.solo else ''}) "
             f"round {f[L.F_ROUND]}/5, phase: {PHASE_NAMES[f[L.F_PHASE]]}, {to_act}"
             + (" [GAME OVER]" if s.terminated[i] else "")]
    order = [int(x) for x in s.turn_order[i, :P]]
    lines.append(f"turn order: {order}; Gods' Will this round: lower "
                 f"{TRIGRAMS[f[L.F_GODS_LOWER]]}, upper {TRIGRAMS[f[L.F_GODS_UPPER]]}")
    lines.append("Tai Ji upper stacks:")
    for t in range(8):
        tj = s.taiji[i, t]
        blk = {0: "", 1: " [blocked: gods]", 2: " [blocked: player]"}[int(tj[L.T_UPPER_BLOCK])]
        low = " lower blocked" if tj[L.T_LOWER_BLOCK] else ""
        lines.append(f"  {TRIGRAMS[t]:5s} {TILE_NAMES[tj[L.T_TILE_TYPE]]:8s} x{tj[L.T_STACK]}{blk}{low}")
    g = s.goods[i]
    fmt = lambda row: " ".join(f"{GOODS[k]}:{row[k]}" for k in range(4))
    lines.append(f"Tai Ji Yin area: {fmt(g[L.G_YIN])} | Yang area: {fmt(g[L.G_YANG])}")
    lines.append(f"bag: {fmt(g[L.G_BAG])} | out of game: {fmt(g[L.G_OUT])}")
    lines.append("map:")
    for c in range(core.num_cities):
        cc = s.cities[i, c]
        kname = d.kingdom_names[d.kingdom[c]] if d.kingdom[c] >= 0 else "capital"
        parts = []
        if cc[L.C_GOOD] >= 0:
            parts.append(GOODS[cc[L.C_GOOD]])
        if cc[L.C_DISASTER]:
            parts.append("DISASTER")
        if cc[L.C_TEMPLE] >= 0:
            parts.append(f"temple of player {cc[L.C_TEMPLE]}")
        pawns = [str(q) for q in range(P) if s.players[i, q, L.Q_PAWN] == c]
        if pawns:
            parts.append("pawn " + ",".join(pawns))
        lines.append(f"  {c:2d} {d.city_names[c]:10s} {kname:7s} "
                     f"{'red ' if d.colour[c] == 0 else 'blue'} {' '.join(parts)}")
    for q in range(P):
        r = s.players[i, q]
        tiles = " ".join(f"{TILE_NAMES[t]}:{r[L.Q_TILES_USED + t]}/{r[L.Q_TILES + t]}" for t in range(4))
        lines.append(f"player {q}: Yin {r[L.Q_YIN]} Yang {r[L.Q_YANG]} track {r[L.Q_TRACK]} "
                     f"cards {r[L.Q_CARDS]} temples left {r[L.Q_TEMPLES]} coins {r[L.Q_COINS_YANG]} Yang/"
                     f"{r[L.Q_COINS_YIN]} Yin unused; tiles used/held {tiles}"
                     + (f"; score {r[L.Q_SCORE]}" if s.terminated[i] else ""))
        dv = s.development[i, q]
        grid = []
        for row in range(4):
            grid.append(" ".join((GOODS[d.dev_spaces[row * 4 + c]][:2].upper() if dv[row * 4 + c]
                                  else GOODS[d.dev_spaces[row * 4 + c]][:2].lower())
                                 for c in range(4)))
        lines.append("   development (CAPS = filled): " + " / ".join(grid)
                     + "; beside: " + fmt(s.beside_board[i, q]))
        lines.append("   scoring tiles on lines 0-9: " + ", ".join(
            SCORING_TILES[s.scoring_tiles[i, q, ln, 0]] + ("*" if s.scoring_tiles[i, q, ln, 1] else "")
            for ln in range(10)))
        if r[L.Q_GOODS_MISSION] >= 0:
            lines.append(f"   missions: goods #{r[L.Q_GOODS_MISSION]} "
                         f"{dict(zip(GOODS, d.goods_missions[r[L.Q_GOODS_MISSION]].tolist()))}, temples #"
                         f"{r[L.Q_TEMPLE_MISSION]} "
                         f"{[int(x) for x in d.temple_missions[r[L.Q_TEMPLE_MISSION]] if x]}")
    if core.solo:
        lines.append("solo tiles: " + " ".join(
            d.kingdom_names[k] + ("(flipped)" if j < f[L.F_SOLO_FLIPPED] else "")
            for j, k in enumerate(s.solo_tiles[i])) + f"; level now {core.solo_level(s.take([i]))[0]}")
    return "\n".join(lines)


def rgb(core, s, i: int) -> np.ndarray:
    d = core.data
    N = core.num_cities
    H, W, MW = 520, 820, 560
    img = draw.canvas(H, W)
    pos = d.pos
    xy = [(20 + pos[c, 1] * (H - 40), 20 + pos[c, 0] * (MW - 40)) for c in range(N)]
    for mat, col, t in ((d.road, (120, 120, 120), 3), (d.river, (60, 120, 230), 2),
                        (d.ocean, (20, 200, 220), 1)):
        for a in range(N):
            for b in range(a + 1, N):
                if mat[a, b]:
                    draw.line(img, xy[a][0], xy[a][1], xy[b][0], xy[b][1], col, t)
    for c in range(N):
        y, x = xy[c]
        k = d.kingdom[c]
        col = (250, 240, 120) if k < 0 else KINGDOM_COLOURS[k % 7]
        draw.disc(img, y, x, 13, col)
        draw.ring(img, y, x, 13, (40, 40, 40) if d.colour[c] == 0 else (60, 100, 230), 2)
        cc = s.cities[i, c]
        if cc[L.C_GOOD] >= 0:
            draw.rect(img, int(y - 4), int(x - 4), int(y + 4), int(x + 4), GOOD_COLOURS[cc[L.C_GOOD]])
        if cc[L.C_DISASTER]:
            draw.line(img, y - 8, x - 8, y + 8, x + 8, (0, 0, 0), 3)
            draw.line(img, y - 8, x + 8, y + 8, x - 8, (0, 0, 0), 3)
        if cc[L.C_TEMPLE] >= 0:
            draw.rect(img, int(y - 16), int(x + 6), int(y - 6), int(x + 16),
                      SEAT_COLOURS[cc[L.C_TEMPLE]])
        for q in range(core.num_players):
            if s.players[i, q, L.Q_PAWN] == c:
                draw.disc(img, y + 10, x - 12 + 7 * q, 4, SEAT_COLOURS[q])
    # the acting player's board
    q = _acting_seat(s, i)
    x0 = MW + 20
    draw.rect(img, 10, x0 - 10, 40, W - 10, SEAT_COLOURS[q])
    for sp in range(16):
        r, c = divmod(sp, 4)
        y, x = 60 + r * 50, x0 + c * 50
        draw.frame(img, y, x, y + 44, x + 44, GOOD_COLOURS[d.dev_spaces[sp]], 3)
        if s.development[i, q, sp]:
            draw.rect(img, y + 8, x + 8, y + 36, x + 36, GOOD_COLOURS[d.dev_spaces[sp]])
    r = s.players[i, q]
    for a, (val, col) in enumerate(((r[L.Q_YIN], (30, 30, 30)), (r[L.Q_YANG], (250, 250, 250)))):
        y = 270 + a * 24
        draw.frame(img, y, x0, y + 18, x0 + 8 * 26, (0, 0, 0), 1)
        draw.rect(img, y + 1, x0 + 1, y + 17, x0 + 1 + 26 * int(val), col)
    for g in range(4):
        _dots(img, 340, x0 + 10 + g * 50, int(s.beside_board[i, q, g]), 4, GOOD_COLOURS[g])
        _dots(img, 380, x0 + 10 + g * 50, int(s.goods[i, L.G_YIN, g]), 4, GOOD_COLOURS[g])
        _dots(img, 410, x0 + 10 + g * 50, int(s.goods[i, L.G_YANG, g]), 4, GOOD_COLOURS[g])
    _dots(img, 450, x0 + 10, int(r[L.Q_CARDS]), 4, (120, 60, 160))
    draw.rect(img, 480, x0, 492, x0 + int(r[L.Q_TRACK]) * 10, SEAT_COLOURS[q])
    return img
