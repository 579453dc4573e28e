"""The picture of one Yin Yang game (a :class:`~yyenvs.core.scene.Scene`).

Left, the map: every city with its name, the kingdoms as colours, red and blue cities, roads,
rivers and the sea, goods, disasters, temples in their owner's colour and the pawns; below it the
Tai Ji board (each trigram's action tiles and blocks, the goods in its Yin and Yang areas and in
the bag).  Right, one panel per player: Yin and Yang, the turn-order track, cards, action tiles,
the Development Area, goods beside the board, missions and score.  On top: round, phase, who is
to act and what was just played.  Also the click targets of the play page.
"""
from __future__ import annotations

from yyenvs.core.scene import Scene
from yyenvs.games.yinyang import layout as L
from yyenvs.games.yinyang.data import GOODS, TRIGRAMS
from yyenvs.games.yinyang.ansi import CHANCE_NAMES, PHASE_NAMES, TILE_NAMES

SEAT = ((200, 40, 40), (40, 90, 220), (30, 150, 60), (220, 160, 10))
GOOD = ((60, 110, 200), (150, 100, 50), (40, 170, 90), (210, 40, 90))
KINGDOM = ((215, 180, 130), (175, 200, 145), (210, 170, 200), (165, 185, 215),
           (220, 210, 135), (170, 215, 205), (220, 175, 155))
INK, PAPER, HIGHLIGHT = (25, 25, 30), (244, 238, 222), (250, 190, 20)
W, H, MAP_W, MAP_H, TOP = 1200, 720, 700, 520, 44
NAME_SIZE, PAWN_RADIUS = 9, 7


def _seat_name(q) -> str:
    return f"player {int(q)}"


def _city_xy(d, c):
    return 20 + d.pos[c, 0] * (MAP_W - 60), TOP + 16 + d.pos[c, 1] * (MAP_H - 40)


def scene(core, state, index: int, last_move=None, before=None) -> Scene:
    """``last_move``: (seat, action) of the move that led here (seat -1: chance); or None."""
    s, i, P = state, index, core.num_players
    sc = Scene(W, H, PAPER)
    f = s.flow[i]
    event = int(f[L.F_CHANCE])
    if s.terminated[i]:
        status = "game over"
    elif event:
        status = f"chance: {CHANCE_NAMES[event]}"
    else:
        status = f"{_seat_name(s.current_player[i])} to act"
    sc.rect(0, 0, W, TOP - 6, (60, 50, 40))
    phase = "" if s.terminated[i] else f"{PHASE_NAMES[int(f[L.F_PHASE])]}   "
    sc.text(12, 19, f"Yin Yang, {P} player{'s' if P > 1 else ''}{' (solo)' if core.solo else ''}   "
                    f"round {int(f[L.F_ROUND])}/5   {phase}{status}", 15, (250, 245, 230), bold=True)
    if last_move is not None:
        who = "chance" if int(last_move[0]) < 0 else _seat_name(last_move[0])
        sc.text(W - 12, 19, f"last: {who}, {core.action_to_string(last_move[1])}", 12, (250, 230, 170), "end")
    _map(core, s, i, sc)
    _taiji(core, s, i, sc)
    _mark_last(core, s, i, last_move, sc)
    panel_h = min(160, (H - TOP) // max(P, 1))
    for q in range(P):
        _player(core, s, i, q, sc, MAP_W + 10, TOP + q * panel_h, panel_h - 6)
    return sc


def _map(core, s, i, sc: Scene) -> None:
    d, N = core.data, core.num_cities
    sc.rect(4, TOP, MAP_W, MAP_H, (236, 228, 205), (120, 110, 90), 1)
    for mat, col, t in ((d.ocean, (40, 190, 210), 2), (d.river, (70, 130, 230), 2.5),
                        (d.road, (130, 120, 110), 3)):
        for a in range(N):
            for b in range(a + 1, N):
                if mat[a, b]:
                    (x1, y1), (x2, y2) = _city_xy(d, a), _city_xy(d, b)
                    sc.line(x1, y1, x2, y2, col, t)
    for c in range(N):
        x, y = _city_xy(d, c)
        k = int(d.kingdom[c])
        ring = (200, 50, 40) if d.colour[c] == 0 else (50, 90, 220)
        sc.circle(x, y, 12, (250, 235, 110) if k < 0 else KINGDOM[k % len(KINGDOM)], ring, 2.5,
                  target=f"city{c}")
        cc = s.cities[i, c]
        if cc[L.C_GOOD] >= 0:
            sc.rect(x - 5, y - 5, 10, 10, GOOD[int(cc[L.C_GOOD])], INK, 1)
        if cc[L.C_DISASTER]:
            sc.line(x - 9, y - 9, x + 9, y + 9, INK, 3)
            sc.line(x - 9, y + 9, x + 9, y - 9, INK, 3)
        if cc[L.C_TEMPLE] >= 0:
            tx, ty = x + 9, y - 20
            sc.polygon(((tx, ty - 7), (tx + 8, ty), (tx + 6, ty), (tx + 6, ty + 7), (tx - 6, ty + 7),
                        (tx - 6, ty), (tx - 8, ty)), SEAT[int(cc[L.C_TEMPLE])], INK, 1)
        for q in range(core.num_players):
            if s.players[i, q, L.Q_PAWN] == c:
                sc.circle(x - 15 + 10 * q, y + 12, PAWN_RADIUS, SEAT[q], INK, 1.5)
    for c, (x, y, anchor) in enumerate(label_spots(d)):  # the names last, over every city and road
        sc.text(x, y, d.city_names[c], NAME_SIZE, INK, anchor, halo=(236, 228, 205))
    # the kingdoms' names: a legend in the map's top left corner
    for k, name in enumerate(list(d.kingdom_names) + ["capital"]):
        y = TOP + 14 + 15 * k
        colour = KINGDOM[k % len(KINGDOM)] if k < len(d.kingdom_names) else (250, 235, 110)
        sc.rect(10, y - 6, 12, 12, colour, INK, 1)
        sc.text(26, y, name, 10, INK, halo=(236, 228, 205))


def _mark_last(core, s, i, last_move, sc: Scene) -> None:
    """A ring around the city (or a frame around the trigram) that the last move named."""
    if last_move is None or int(last_move[0]) < 0:  # nothing yet, or a chance outcome
        return
    a = int(last_move[1])
    target = action_targets(core, s, i, [a]).get(a, (None,))[0]
    if target is None:  # a card, a pass, a choice of goods: in the header only
        return
    if target.startswith("city"):
        x, y = _city_xy(core.data, int(target[4:]))
        sc.circle(x, y, 17, None, HIGHLIGHT, 4)
    else:
        sc.rect(8 + int(target[7:]) * 86 - 3, TOP + MAP_H + 25, 88, 68, None, HIGHLIGHT, 4)


def text_box(x, y, text, size, anchor):
    """(left, top, right, bottom) that ``text`` covers, its width estimated at 0.6 em a letter."""
    w = 0.6 * size * len(text)
    left = x - w / 2 if anchor == "middle" else x if anchor == "start" else x - w
    return left, y - size * 0.6, left + w, y + size * 0.6


def _overlap(a, b) -> float:
    return max(0.0, min(a[2], b[2]) - max(a[0], b[0])) * max(0.0, min(a[3], b[3]) - max(a[1], b[1]))


_SPOTS: dict = {}


def label_spots(d) -> list[tuple[float, float, str]]:
    """(x, y, anchor) of each city's name: below it, above, right, left or at a corner, whichever
    covers least of the cities and the other names (a few rounds, each name moving in turn to its
    best spot); computed once per map."""
    cached = _SPOTS.get(id(d))
    if cached is None or cached[0] is not d:  # the map object itself is kept, so its id is never reused
        cities = [_city_xy(d, c) for c in range(len(d.city_names))]
        discs = [(x - 14, y - 14, x + 14, y + 14) for x, y in cities]
        offsets = ((0, 21, "middle"), (0, -21, "middle"), (16, 0, "start"), (-16, 0, "end"),
                   (12, 17, "start"), (-12, 17, "end"), (12, -17, "start"), (-12, -17, "end"))
        boxes = [[text_box(x + dx, y + dy, d.city_names[c], NAME_SIZE, a) for dx, dy, a in offsets]
                 for c, (x, y) in enumerate(cities)]
        pick = [0] * len(cities)
        for _ in range(4):
            for c in range(len(cities)):
                others = [boxes[k][pick[k]] for k in range(len(cities)) if k != c] + discs[:c] + discs[c + 1:]
                cost = [sum(_overlap(b, o) for o in others) for b in boxes[c]]
                pick[c] = cost.index(min(cost))
        cached = (d, [(x + offsets[p][0], y + offsets[p][1], offsets[p][2]) for (x, y), p in zip(cities, pick)])
        _SPOTS[id(d)] = cached
    return cached[1]


def _taiji(core, s, i, sc: Scene) -> None:
    y0 = TOP + MAP_H + 8
    sc.text(8, y0 + 8, "Tai Ji", 13, INK, bold=True)
    for t in range(8):
        x = 8 + t * 86
        tj = s.taiji[i, t]
        blocked = int(tj[L.T_UPPER_BLOCK])
        sc.rect(x, y0 + 20, 82, 62, (250, 246, 236), (200, 60, 40) if blocked else (150, 140, 120), 2 if blocked else 1,
                target=f"trigram{t}")
        sc.text(x + 41, y0 + 30, TRIGRAMS[t], 11, INK, "middle", bold=True)
        sc.text(x + 41, y0 + 46, f"{TILE_NAMES[int(tj[L.T_TILE_TYPE])]} x{int(tj[L.T_STACK])}", 10, INK, "middle")
        marks = (["upper: gods"] if blocked == 1 else ["upper: taken"] if blocked == 2 else []) + \
                (["lower blocked"] if tj[L.T_LOWER_BLOCK] else [])
        for j, m in enumerate(marks[:2]):
            sc.text(x + 41, y0 + 60 + 11 * j, m, 9, (170, 40, 30), "middle")
    g = s.goods[i]
    y = y0 + 96
    for row, label in ((L.G_YIN, "Yin area"), (L.G_YANG, "Yang area"), (L.G_BAG, "bag")):
        x = 8 + (0 if row == L.G_YIN else 210 if row == L.G_YANG else 420)
        sc.text(x, y, label, 11, INK, bold=True)
        for k in range(4):
            sc.rect(x + 66 + k * 34, y - 6, 12, 12, GOOD[k], INK, 1)
            sc.text(x + 80 + k * 34, y, str(int(g[row, k])), 11, INK)


def _player(core, s, i, q, sc: Scene, x0, y0, h) -> None:
    d = core.data
    r = s.players[i, q]
    acting = not s.terminated[i] and int(s.current_player[i]) == q
    sc.rect(x0, y0, W - x0 - 8, h, (252, 249, 240), INK if acting else (170, 160, 140), 3 if acting else 1)
    sc.rect(x0, y0, 8, h, SEAT[q])
    x = x0 + 16
    head = f"Player {q}" + ("  (to act)" if acting else "")
    sc.text(x, y0 + 12, head, 13, SEAT[q], bold=True)
    order = [int(t) for t in s.turn_order[i, :core.num_players]]
    pos = order.index(q) + 1 if q in order else 0
    sc.text(x + 130, y0 + 12, f"Yin {int(r[L.Q_YIN])}  Yang {int(r[L.Q_YANG])}  track {int(r[L.Q_TRACK])}"
                              f"  turn {pos}  cards {int(r[L.Q_CARDS])}  temples {int(r[L.Q_TEMPLES])}", 11, INK)
    tiles = "  ".join(f"{TILE_NAMES[t]} {int(r[L.Q_TILES_USED + t])}/{int(r[L.Q_TILES + t])}" for t in range(4))
    sc.text(x, y0 + 30, f"tiles used/held: {tiles}", 10, INK)
    coins = f"coins left: {int(r[L.Q_COINS_YANG])} Yang, {int(r[L.Q_COINS_YIN])} Yin"
    sc.text(x, y0 + 46, coins, 10, INK)
    # the Development Area: 4 x 4 spaces in their goods' colours, filled ones solid
    for sp in range(16):
        row, col = divmod(sp, 4)
        kind = int(d.dev_spaces[sp])
        filled = bool(s.development[i, q, sp])
        sc.rect(x + col * 15, y0 + 58 + row * 15, 13, 13, GOOD[kind] if filled else (250, 249, 244), GOOD[kind], 2)
    bx = x + 70
    sc.text(bx, y0 + 64, "beside the board:", 10, INK)
    for k in range(4):
        sc.rect(bx + 92 + k * 30, y0 + 58, 11, 11, GOOD[k], INK, 1)
        sc.text(bx + 106 + k * 30, y0 + 64, str(int(s.beside_board[i, q, k])), 10, INK)
    gm, tm = int(r[L.Q_GOODS_MISSION]), int(r[L.Q_TEMPLE_MISSION])
    if gm >= 0:
        need = ", ".join(f"{int(n)} {GOODS[k]}" for k, n in enumerate(d.goods_missions[gm]) if n)
        sc.text(bx, y0 + 82, f"goods mission #{gm}: {need}", 10, INK)
    if tm >= 0:
        need = ", ".join(str(int(n)) for n in d.temple_missions[tm] if n)
        sc.text(bx, y0 + 98, f"temple mission #{tm}: kingdoms with {need} temples", 10, INK)
    if s.terminated[i]:
        sc.text(bx, y0 + 116, f"score {int(r[L.Q_SCORE])}", 13, INK, bold=True)


def action_targets(core, state, index: int, actions) -> dict[int, tuple[str]]:
    """{legal action: its click}: the city of a pawn, carriage, boat, disaster or temple move;
    the trigram of a divination's upper half."""
    o, N = core.action_start, core.num_cities
    city_blocks = (L.O_PLACE, L.O_DISASTER, L.O_ROAD, L.O_BOAT, L.O_MORTAL)
    out = {}
    for a in actions:
        a = int(a)
        for b in city_blocks:
            if o[b] <= a < o[b] + N:
                out[a] = (f"city{a - o[b]}",)
        if o[L.O_SPLIT] <= a < o[L.O_SPLIT] + 64:
            out[a] = (f"trigram{(a - o[L.O_SPLIT]) // 8}",)
    return out
