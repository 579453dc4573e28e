"""The text picture of one Yin Yang game (``render_ansi``); the drawn one is in :mod:`.picture`."""
from __future__ import annotations

from yyenvs.games.yinyang import layout as L
from yyenvs.games.yinyang.data import GOODS, TRIGRAMS

TILE_NAMES = ("carriage", "boat", "goods", "temple")
SCORING_TILES = ("bronze", "bone", "jade", "silk", "temple", "turn_order", "perimeter",
                 "approval", "yang", "yin")
PHASE_NAMES = ("set-up", "ways of the gods", "divination", "actions", "over")
CHANCE_NAMES = ("", "the god coins", "a Divination throw", "the free reroll",
                "Mortal Will's rethrow", "a bag draw")


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
