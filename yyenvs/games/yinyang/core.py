"""Yin Yang: the batched core (rules in ``seeds/yinyang.md``).

1 to 4 players (1 = solo), five rounds of four phases.  Every decision a
player has is one action of a flat discrete space (see ``action_table``);
a player's turn takes several steps in a row, and ``current_player`` always
names the seat to act.  Coin throws, bag draws and the set-up come from the
row's own random stream (``rng``), so a seed fixes a game given its actions.

The printed component data is not public; it is read from a data file
(option ``data_file``, default: the packaged stand-in file) through the
validator in :mod:`yyenvs.games.yinyang.data`.
"""
from __future__ import annotations

import dataclasses

import numpy as np

from yyenvs.core import draw
from yyenvs.core.contract import BatchState, GameCore, OptionError, show
from yyenvs.games.yinyang.spec import SPEC
from yyenvs.core.rng import game_seeds, hash_u64
from yyenvs.games.yinyang import kernels as K
from yyenvs.games.yinyang.data import GOODS, TRIGRAMS, load_data

TILE_NAMES = ("carriage", "boat", "goods", "temple")
SCORING_TILES = ("bronze", "bone", "jade", "silk", "temple", "turn_order", "perimeter",
                 "approval", "yang", "yin")
PHASE_NAMES = ("set-up", "ways of the gods", "divination", "actions", "over")
FORFEIT_NAMES = ("carriage tile", "boat tile", "goods tile", "temple tile",
                 "Laoyang pair (2 Yang)", "Laoyin pair (2 Yin)", "mixed pair")
SEAT_COLOURS = ((200, 40, 40), (40, 90, 220), (30, 150, 60), (230, 180, 20))
GOOD_COLOURS = ((60, 110, 200), (140, 90, 40), (40, 170, 90), (210, 40, 60))
KINGDOM_COLOURS = ((205, 170, 120), (170, 190, 140), (200, 160, 190), (160, 180, 210),
                   (210, 200, 130), (170, 210, 200), (210, 170, 150))


def _dots(img, cy, cx, n, r, color):
    """n small dots in a row (counts of goods, cards)."""
    for k in range(int(n)):
        draw.disc(img, cy, cx + k * (2 * r + 2), r, color)


@dataclasses.dataclass
class YinYangState(BatchState):
    rng: np.ndarray  # (B,) uint64 the row's random stream
    flow: np.ndarray  # (B, 10) int16 phase, sub-step, round, turn index, pending, ...
    order: np.ndarray  # (B, 4) int8 seat at each turn-order position (this phase)
    city: np.ndarray  # (B, N, 3) int8 good (-1/0..3), disaster, temple owner (-1/seat)
    taiji: np.ndarray  # (B, 8, 4) int8 per trigram: stack type, stack size, upper/lower block
    goods: np.ndarray  # (B, 4, 4) int8 rows bag, Yin area, Yang area, out of game
    pl: np.ndarray  # (B, P, 21) int16 per-player fields (kernels.Q_*)
    dev: np.ndarray  # (B, P, 16) int8 Development Area spaces filled
    over: np.ndarray  # (B, P, 4) int8 goods beside the board, per kind
    lines: np.ndarray  # (B, P, 10, 2) int8 scoring tile kind per line, second colour (solo)
    solo: np.ndarray  # (B, 7) int8 solo tiles: kingdom order (-1 when not solo)


class YinYangCore(GameCore):
    spec = SPEC

    def __init__(self, **options):
        super().__init__(**options)
        o = self.options
        self.num_players = o["num_players"]
        df, side = o["data_file"], o["board_side"]
        self.data = d = load_data(df)
        if side == "auto":
            side = "4" if self.num_players == 4 else "2-3"
        table = d.start_tokens.get(side, {})
        key = self.num_players if self.num_players in table else (2 if self.num_players == 1 else None)
        if key not in table:
            raise OptionError(f"yinyang: option board_side={show(side)}: the data file has no "
                              f"starting-token table for {self.num_players} player(s) on that side")
        self.board_side = side
        startc, start_all = table[key]
        self.solo = self.num_players == 1
        self.N = d.num_cities
        self.off = K.action_offsets(self.N)
        self.num_actions = int(self.off[K.O_TOTAL])
        self.ngm = len(d.goods_missions)
        self.ntm = len(d.temple_missions)
        self.observation_shape = (16 + 14 * self.N + 8 * 8 + 12 + 4 * (152 + 7) + self.ngm
                                  + self.ntm + 7 * 7 + 7,)
        self.max_game_length = 4000
        self.cfg = np.array([d.capital, d.goods_per_kind, d.bag_per_kind, int(start_all),
                             int(self.solo), self.num_players, self.N, len(d.to_values) - 1],
                            dtype=np.int64)
        self.startc = startc.astype(np.int64)
        self.kingdom = d.kingdom.astype(np.int64)
        self.colour = d.colour.astype(np.int64)
        self.road = d.road
        self.boat = d.boat
        self.kpoints = d.kpoints.astype(np.int64)
        self.lower = d.lower.astype(np.int64)
        self.tovals = d.to_values.astype(np.int64)
        self.devsp = d.dev_spaces.astype(np.int64)
        self.perim = d.perimeter
        self.linem = d.lines
        self.gmis = d.goods_missions.astype(np.int64)
        self.tmis = d.temple_missions.astype(np.int64)
        self.distart = d.di_start.astype(np.int64)
        self.score_mode = o["reward"] == "score"
        self.reward_range = ((0.0, 6.0) if self.solo else (-1.0, 1.0) if not self.score_mode
                             else (-float(np.iinfo(np.int16).max), float(np.iinfo(np.int16).max)))
        self._names = self._action_names()

    # -- naming ------------------------------------------------------------
    def _action_names(self):
        d, off = self.data, self.off
        cn = d.city_names
        names = []
        names += [f"place pawn at {c}" for c in cn]
        names += [f"remove disaster at {c}" for c in cn]
        names += [f"divination: upper {TRIGRAMS[u]}, lower {TRIGRAMS[l]}"
                  for u in range(8) for l in range(8)]
        names += ["free reroll"]
        names += [f"carriage to {c}" for c in cn]
        names += [f"boat to {c}" for c in cn]
        names += [f"take good to space {s}" for s in range(16)] + ["take good beside the board"]
        names += ["build temple"]
        names += [f"forfeit {f}" for f in FORFEIT_NAMES]
        names += ["end turn"]
        for a in ("Yin", "Yang"):
            names += [f"gift from the gods ({a}): good to space {s}" for s in range(16)]
            names += [f"gift from the gods ({a}): {g} beside the board" for g in GOODS]
        names += [f"mortal will: return temple at {c}" for c in cn]
        names += ["card: +1 Yin", "card: +1 Yang", "cards: flip a Yang coin", "cards: flip a Yin coin"]
        names += [f"cards: swap scoring tiles of lines {i} and {j}"
                  for i, j in zip(K.SWAP_I, K.SWAP_J)]
        names += ["solo: 2 Yin", "solo: 2 Yang"]
        assert len(names) == off[K.O_TOTAL]
        return names

    def action_to_string(self, action: int) -> str:
        a = int(action)
        if 0 <= a < self.num_actions:
            return self._names[a]
        return str(a)

    def action_table(self):
        """[(first action, count, meaning)] for the documentation."""
        o = self.off
        rows = [("place pawn at city c", K.O_PLACE), ("remove disaster at city c", K.O_DISASTER),
                ("divination split: upper*8 + lower", K.O_SPLIT), ("free reroll", K.O_REROLL),
                ("carriage (road) to city c", K.O_ROAD), ("boat (river/ocean) to city c", K.O_BOAT),
                ("take the pawn city's good to space s (16 = beside the board)", K.O_GOODS),
                ("build a temple", K.O_TEMPLE), ("forfeit an action for a card", K.O_FORFEIT),
                ("end turn", K.O_END), ("gift from the gods: area*20 + target", K.O_GIFT),
                ("mortal will: return the temple at city c", K.O_MORTAL),
                ("1 card: +1 Yin / +1 Yang", K.O_CARD), ("2 cards: flip a Yang / Yin coin", K.O_FLIP),
                ("3 cards: swap the scoring tiles of two lines", K.O_SWAP),
                ("solo: take 2 Yin / 2 Yang", K.O_SOLO)]
        return [(int(o[k]), int(o[k + 1] - o[k]), t) for t, k in rows]

    # -- batched functions ----------------------------------------------------
    def _empty(self, B):
        P, N = self.num_players, self.N
        return YinYangState(
            current_player=np.zeros(B, np.int8), rewards=np.zeros((B, P), np.float32),
            terminated=np.zeros(B, bool), truncated=np.zeros(B, bool), ply=np.zeros(B, np.int32),
            seed=np.zeros(B, np.uint64), rng=np.zeros(B, np.uint64),
            flow=np.zeros((B, K.NF), np.int16), order=np.full((B, 4), -1, np.int8),
            city=np.zeros((B, N, 3), np.int8), taiji=np.zeros((B, 8, 4), np.int8),
            goods=np.zeros((B, 4, 4), np.int8), pl=np.zeros((B, P, K.NQ), np.int16),
            dev=np.zeros((B, P, 16), np.int8), over=np.zeros((B, P, 4), np.int8),
            lines=np.zeros((B, P, 10, 2), np.int8), solo=np.full((B, 7), -1, np.int8))

    def init(self, seeds) -> YinYangState:
        seeds = game_seeds(seeds, self.name)
        s = self._empty(seeds.shape[0])
        s.seed[:] = seeds
        s.rng[:] = hash_u64(seeds, np.uint64(0x59696E59616E67))
        K.init_kernel(s.rng, s.flow, s.order, s.city, s.taiji, s.goods, s.pl, s.dev, s.over,
                      s.lines, s.solo, s.current_player, self.cfg, self.colour, self.startc,
                      self.distart, self.ngm, self.ntm)
        return s

    def _step(self, state: YinYangState, actions) -> int:
        s = state
        return K.step_kernel(actions, s.rng, s.flow, s.order, s.city, s.taiji, s.goods, s.pl, s.dev,
                             s.over, s.lines, s.solo, s.current_player, s.rewards, s.terminated,
                             s.ply, self.cfg, self.off, self.kingdom, self.road, self.boat,
                             self.kpoints, self.lower, self.tovals, self.devsp, self.perim,
                             self.linem, self.gmis, self.tmis, self.distart, self.score_mode)

    def _mask(self, state: YinYangState, out) -> None:
        s = state
        K.mask_kernel(s.flow, s.order, s.city, s.taiji, s.goods, s.pl, s.dev, s.terminated,
                      self.cfg, self.off, self.road, self.boat, self.lower, self.devsp, out)

    def _observe(self, state: YinYangState, seats, out) -> None:
        s = state
        K.observe_kernel(seats.astype(np.int64), s.flow, s.order, s.city, s.taiji, s.goods, s.pl,
                         s.dev, s.over, s.lines, s.solo, s.current_player, self.cfg, self.kingdom,
                         self.tovals, self.ngm, self.ntm, out)

    def _heuristic(self, state: YinYangState, seats, out) -> None:
        s = state
        K.heuristic_kernel(seats.astype(np.int64), s.flow, s.city, s.pl, s.dev, s.over, s.lines,
                           s.solo, s.terminated, s.rewards, self.cfg, self.kingdom, self.kpoints,
                           self.tovals, self.devsp, self.perim, self.linem, self.gmis, self.tmis,
                           self.road, self.boat, out)

    def scores(self, state: YinYangState) -> np.ndarray:
        """(B, P) score of every player as if the game ended now (final score when over)."""
        self.check_state(state)
        s = state
        out = np.zeros((s.batch_size, self.num_players), dtype=np.int64)
        buf = np.zeros(self.num_players, dtype=np.int64)
        for i in range(s.batch_size):
            K.score_row(i, s.city, s.pl, s.dev, s.over, s.lines, self.kingdom, self.kpoints,
                        self.tovals, self.devsp, self.perim, self.linem, self.gmis, self.tmis,
                        self.num_players, buf)
            out[i] = buf
        return out

    def solo_level(self, state: YinYangState) -> np.ndarray:
        """(B,) solo achievement level (0 lost, 1 Trainee ... 6 Deity) from the state now."""
        self.check_state(state)
        return np.array([K.solo_level(i, state.flow, state.dev, state.lines, self.linem)
                         for i in range(state.batch_size)], dtype=np.int64)

    # -- rendering -------------------------------------------------------------------
    def render_ansi(self, state: YinYangState, index: int = 0) -> str:
        self.check_state(state)
        s, i, d = state, index, self.data
        P = self.num_players
        f = s.flow[i]
        lines = [f"Yin Yang ({P} player{'s' if P > 1 else ''}{', solo' if self.solo else ''}) "
                 f"round {f[K.F_ROUND]}/5, phase: {PHASE_NAMES[f[K.F_PHASE]]}, "
                 f"player {s.current_player[i]} to act"
                 + (" [GAME OVER]" if s.terminated[i] else "")]
        order = [int(x) for x in s.order[i, :P]]
        lines.append(f"turn order: {order}; Gods' Will this round: lower "
                     f"{TRIGRAMS[f[K.F_GODLOW]]}, upper {TRIGRAMS[f[K.F_GODUP]]}")
        up = []
        for t in range(8):
            tj = s.taiji[i, t]
            blk = {0: "", 1: " [blocked: gods]", 2: " [blocked: player]"}[int(tj[K.T_UP])]
            low = " lower blocked" if tj[K.T_LOW] else ""
            up.append(f"  {TRIGRAMS[t]:5s} {TILE_NAMES[tj[K.T_TYPE]]:8s} x{tj[K.T_N]}{blk}{low}")
        lines.append("Tai Ji upper stacks:")
        lines += up
        g = s.goods[i]
        fmt = lambda row: " ".join(f"{GOODS[k]}:{row[k]}" for k in range(4))
        lines.append(f"Tai Ji Yin area: {fmt(g[K.G_YIN])} | Yang area: {fmt(g[K.G_YANG])}")
        lines.append(f"bag: {fmt(g[K.G_BAG])} | out of game: {fmt(g[K.G_OUT])}")
        lines.append("map:")
        for c in range(self.N):
            cc = s.city[i, c]
            kname = d.kingdom_names[d.kingdom[c]] if d.kingdom[c] >= 0 else "capital"
            parts = []
            if cc[K.C_GOOD] >= 0:
                parts.append(GOODS[cc[K.C_GOOD]])
            if cc[K.C_DIS]:
                parts.append("DISASTER")
            if cc[K.C_TEMPLE] >= 0:
                parts.append(f"temple of player {cc[K.C_TEMPLE]}")
            pawns = [str(q) for q in range(P) if s.pl[i, q, K.Q_PAWN] == c]
            if pawns:
                parts.append("pawn " + ",".join(pawns))
            lines.append(f"  {c:2d} {d.city_names[c]:10s} {kname:7s} "
                         f"{'red ' if d.colour[c] == 0 else 'blue'} {' '.join(parts)}")
        for q in range(P):
            r = s.pl[i, q]
            tiles = " ".join(f"{TILE_NAMES[t]}:{r[K.Q_USED + t]}/{r[K.Q_TILE + t]}" for t in range(4))
            lines.append(f"player {q}: Yin {r[K.Q_YIN]} Yang {r[K.Q_YANG]} track {r[K.Q_POS]} "
                         f"cards {r[K.Q_HAND]} temples left {r[K.Q_TSUP]} coins {r[K.Q_CYANG]} Yang/"
                         f"{r[K.Q_CYIN]} Yin unused; tiles used/held {tiles}"
                         + (f"; score {r[K.Q_SCORE]}" if s.terminated[i] else ""))
            dv = s.dev[i, q]
            grid = []
            for row in range(4):
                grid.append(" ".join((GOODS[d.dev_spaces[row * 4 + c]][:2].upper() if dv[row * 4 + c]
                                      else GOODS[d.dev_spaces[row * 4 + c]][:2].lower())
                                     for c in range(4)))
            lines.append("   development (CAPS = filled): " + " / ".join(grid)
                         + "; beside: " + fmt(s.over[i, q]))
            lines.append("   scoring tiles on lines 0-9: " + ", ".join(
                SCORING_TILES[s.lines[i, q, ln, 0]] + ("*" if s.lines[i, q, ln, 1] else "")
                for ln in range(10)))
            if r[K.Q_GMIS] >= 0:
                lines.append(f"   missions: goods #{r[K.Q_GMIS]} "
                             f"{dict(zip(GOODS, d.goods_missions[r[K.Q_GMIS]].tolist()))}, temples #"
                             f"{r[K.Q_TMIS]} {[int(x) for x in d.temple_missions[r[K.Q_TMIS]] if x]}")
        if self.solo:
            lines.append("solo tiles: " + " ".join(
                d.kingdom_names[k] + ("(flipped)" if j < f[K.F_FLIP] else "")
                for j, k in enumerate(s.solo[i])) + f"; level now {self.solo_level(s.take([i]))[0]}")
        return "\n".join(lines)

    def render_rgb(self, state: YinYangState, index: int = 0) -> np.ndarray:
        self.check_state(state)
        s, i, d = state, index, self.data
        H, W, MW = 520, 820, 560
        img = draw.canvas(H, W)
        pos = d.pos
        xy = [(20 + pos[c, 1] * (H - 40), 20 + pos[c, 0] * (MW - 40)) for c in range(self.N)]
        for mat, col, t in ((d.road, (120, 120, 120), 3), (d.river, (60, 120, 230), 2),
                            (d.ocean, (20, 200, 220), 1)):
            for a in range(self.N):
                for b in range(a + 1, self.N):
                    if mat[a, b]:
                        draw.line(img, xy[a][0], xy[a][1], xy[b][0], xy[b][1], col, t)
        for c in range(self.N):
            y, x = xy[c]
            k = d.kingdom[c]
            col = (250, 240, 120) if k < 0 else KINGDOM_COLOURS[k % 7]
            draw.disc(img, y, x, 13, col)
            draw.ring(img, y, x, 13, (40, 40, 40) if d.colour[c] == 0 else (60, 100, 230), 2)
            cc = s.city[i, c]
            if cc[K.C_GOOD] >= 0:
                draw.rect(img, int(y - 4), int(x - 4), int(y + 4), int(x + 4), GOOD_COLOURS[cc[K.C_GOOD]])
            if cc[K.C_DIS]:
                draw.line(img, y - 8, x - 8, y + 8, x + 8, (0, 0, 0), 3)
                draw.line(img, y - 8, x + 8, y + 8, x - 8, (0, 0, 0), 3)
            if cc[K.C_TEMPLE] >= 0:
                draw.rect(img, int(y - 16), int(x + 6), int(y - 6), int(x + 16),
                          SEAT_COLOURS[cc[K.C_TEMPLE]])
            for q in range(self.num_players):
                if s.pl[i, q, K.Q_PAWN] == c:
                    draw.disc(img, y + 10, x - 12 + 7 * q, 4, SEAT_COLOURS[q])
        # acting player's board
        q = int(s.current_player[i])
        x0 = MW + 20
        draw.rect(img, 10, x0 - 10, 40, W - 10, SEAT_COLOURS[q])
        for sp in range(16):
            r, c = divmod(sp, 4)
            y, x = 60 + r * 50, x0 + c * 50
            draw.frame(img, y, x, y + 44, x + 44, GOOD_COLOURS[d.dev_spaces[sp]], 3)
            if s.dev[i, q, sp]:
                draw.rect(img, y + 8, x + 8, y + 36, x + 36, GOOD_COLOURS[d.dev_spaces[sp]])
        r = s.pl[i, q]
        for a, (val, col) in enumerate(((r[K.Q_YIN], (30, 30, 30)), (r[K.Q_YANG], (250, 250, 250)))):
            y = 270 + a * 24
            draw.frame(img, y, x0, y + 18, x0 + 8 * 26, (0, 0, 0), 1)
            draw.rect(img, y + 1, x0 + 1, y + 17, x0 + 1 + 26 * int(val), col)
        for g in range(4):
            _dots(img, 340, x0 + 10 + g * 50, int(s.over[i, q, g]), 4, GOOD_COLOURS[g])
            _dots(img, 380, x0 + 10 + g * 50, int(s.goods[i, K.G_YIN, g]), 4, GOOD_COLOURS[g])
            _dots(img, 410, x0 + 10 + g * 50, int(s.goods[i, K.G_YANG, g]), 4, GOOD_COLOURS[g])
        _dots(img, 450, x0 + 10, int(r[K.Q_HAND]), 4, (120, 60, 160))
        draw.rect(img, 480, x0, 492, x0 + int(r[K.Q_POS]) * 10, SEAT_COLOURS[q])
        return img
