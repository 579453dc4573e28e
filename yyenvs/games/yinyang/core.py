"""Yin Yang: the batched core (rules in ``seeds/yinyang.md``).

1 to 4 players (1 = solo), five rounds of four phases.  Every decision a
player has is one action of a flat discrete space (see ``action_table``);
a player's turn takes several steps in a row, and ``current_player`` always
names the seat to act.  The set-up is drawn in ``init`` from the row's own
random stream (``rng``), so a seed fixes a game given its actions.

Chance during play (the god coins, each Divination throw, the free reroll,
Mortal Will's rethrow, the bag draw after a Gift from the Gods) comes in two
modes, option ``chance``: ``"sampled"`` (the default) draws it inside
``step`` from the row's stream; ``"explicit"`` stops at each event with
``current_player == CHANCE_PLAYER`` and appends the outcomes (64 god-coin
falls, 7 throws of k Yang faces, 4 goods kinds from the bag) to the action
space; ``sample_chance`` draws them exactly as the sampled mode does.  Both
modes have one state layout, and ``ply`` counts the players' actions only,
so a sampled game and the explicit one driven by ``sample_chance`` pass
through equal states.  See :mod:`~yyenvs.games.yinyang.chance`.

The rules live in modules by phase: :mod:`.layout` (columns, action blocks),
:mod:`.setup`, :mod:`.flow` (rounds and phases), :mod:`.mask`,
:mod:`.apply`, :mod:`.chance`, :mod:`.scoring`, :mod:`.observe`,
:mod:`.heuristic`; pictures in :mod:`.ansi` (text) and :mod:`.picture` (drawn).  The printed component data
is not public; it is read from a data file (option ``data_file``, default:
the packaged stand-in file) through the validator in :mod:`.data`.
"""
from __future__ import annotations

import dataclasses

import numpy as np

from yyenvs.core.contract import BatchState, GameCore, OptionError, show
from yyenvs.core.rng import game_seeds, hash_u64
from yyenvs.games.yinyang import layout as L
from yyenvs.games.yinyang import ansi, picture
from yyenvs.games.yinyang.apply import step_kernel
from yyenvs.games.yinyang.chance import probabilities_kernel, sample_kernel
from yyenvs.games.yinyang.data import GOODS, TRIGRAMS, load_data
from yyenvs.games.yinyang.heuristic import heuristic_kernel
from yyenvs.games.yinyang.mask import mask_kernel
from yyenvs.games.yinyang.observe import observe_kernel
from yyenvs.games.yinyang.scoring import ACHIEVEMENT_LEVELS, scores_kernel, solo_level_kernel
from yyenvs.games.yinyang.setup import init_kernel
from yyenvs.games.yinyang.spec import SPEC

FORFEIT_NAMES = ("carriage tile", "boat tile", "goods tile", "temple tile",
                 "Laoyang pair (2 Yang)", "Laoyin pair (2 Yin)", "mixed pair")


@dataclasses.dataclass
class YinYangState(BatchState):
    """Column names of the packed arrays: :mod:`yyenvs.games.yinyang.layout`."""

    rng: np.ndarray  # (B,) uint64 the row's random stream
    flow: np.ndarray  # (B, 12) int16 phase, round, turn, pending choices, pending chance (F_*)
    turn_order: np.ndarray  # (B, 4) int8 seat at each turn-order position (this phase)
    cities: np.ndarray  # (B, N, 3) int8 good (-1/0..3), disaster, temple owner (-1/seat) (C_*)
    taiji: np.ndarray  # (B, 8, 4) int8 per trigram: tile type, stack size, upper / lower block (T_*)
    goods: np.ndarray  # (B, 4, 4) int8 per goods kind: bag, Yin area, Yang area, out of game (G_*)
    players: np.ndarray  # (B, P, 21) int16 per-player values (Q_*)
    development: np.ndarray  # (B, P, 16) int8 Development Area spaces filled
    beside_board: np.ndarray  # (B, P, 4) int8 goods beside the board, per kind
    scoring_tiles: np.ndarray  # (B, P, 10, 2) int8 per line: tile kind, second colour (solo)
    solo_tiles: np.ndarray  # (B, 7) int8 the solo tiles' kingdoms in order (-1 when not solo)


class YinYangCore(GameCore):
    spec = SPEC
    text_module = ansi
    picture_module = picture
    solo_levels = ACHIEVEMENT_LEVELS

    def __init__(self, **options):
        super().__init__(**options)
        o = self.options
        self.num_players = P = o["num_players"]
        self.data = d = load_data(o["data_file"])
        side = o["board_side"]
        if side == "auto":
            side = "4" if P == 4 else "2-3"
        table = d.start_tokens.get(side, {})
        key = P if P in table else (2 if P == 1 else None)
        if key not in table:
            raise OptionError(f"yinyang: option board_side={show(side)}: the data file has no "
                              f"starting-token table for {P} player(s) on that side")
        self.board_side = side
        start_tokens, start_on_all = table[key]
        self.solo = P == 1
        self.num_cities = N = d.num_cities
        self.action_start = off = L.action_offsets(N)
        self.num_actions = int(off[L.O_TOTAL] if self.explicit_chance else off[L.O_GODS])
        self.observation_shape = (17 + 14 * N + 8 * 8 + 12 + 4 * (152 + 7) + len(d.goods_missions)
                                  + len(d.temple_missions) + 7 * 7 + 7,)
        # a chance node follows a player's step at most twice in a row (god coins, then a throw)
        self.max_game_length = 4000 * (3 if self.explicit_chance else 1)
        self.score_mode = o["reward"] == "score"
        self.reward_range = ((0.0, 6.0) if self.solo else (-1.0, 1.0) if not self.score_mode
                             else (-float(np.iinfo(np.int16).max), float(np.iinfo(np.int16).max)))
        i64 = lambda a: np.ascontiguousarray(a, dtype=np.int64)
        self.tables = L.Tables(
            num_players=P, num_cities=N, num_actions=self.num_actions, capital=int(d.capital),
            solo=self.solo, explicit_chance=bool(self.explicit_chance), score_reward=self.score_mode,
            action_start=off, goods_per_kind=int(d.goods_per_kind), bag_per_kind=int(d.bag_per_kind),
            start_tokens=i64(start_tokens), start_on_all_cities=bool(start_on_all),
            kingdom=i64(d.kingdom), colour=i64(d.colour), road=d.road.copy(), boat=d.boat.copy(),
            kingdom_points=i64(d.kpoints), lower_actions=i64(d.lower),
            turn_order_values=i64(d.to_values), development_spaces=i64(d.dev_spaces),
            perimeter=d.perimeter.copy(), line_spaces=d.lines.copy(),
            goods_missions=i64(d.goods_missions), temple_missions=i64(d.temple_missions),
            cards_at_start=i64(d.di_start))
        self._tables = L.pack_tables(self.tables)  # what the kernels take (see layout)
        self._names = self._action_names()

    # -- naming ------------------------------------------------------------
    def _action_names(self):
        cn = self.data.city_names
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
        names += [f"cards: swap scoring tiles of lines {i} and {j}" for i, j in zip(L.SWAP_I, L.SWAP_J)]
        names += ["solo: 2 Yin", "solo: 2 Yang"]
        names += ["throw the Divination coins"]
        names += [f"chance: god coins block lower {TRIGRAMS[lo]}, upper {TRIGRAMS[up]}"
                  for lo in range(8) for up in range(8)]
        names += [f"chance: {k} Yang face{'' if k == 1 else 's'}" for k in range(L.COIN_OUTCOMES)]
        names += [f"chance: {g} drawn from the bag" for g in GOODS]
        assert len(names) == self.action_start[L.O_TOTAL]
        return names[:self.num_actions]

    def action_to_string(self, action: int) -> str:
        a = int(action)
        if 0 <= a < self.num_actions:
            return self._names[a]
        return str(a)

    def action_table(self):
        """[(first action, count, meaning)] for the documentation (outcome rows: explicit chance only)."""
        o = self.action_start
        rows = [("place pawn at city c", L.O_PLACE), ("remove disaster at city c", L.O_DISASTER),
                ("divination split: upper*8 + lower", L.O_SPLIT), ("free reroll", L.O_REROLL),
                ("carriage (road) to city c", L.O_ROAD), ("boat (river/ocean) to city c", L.O_BOAT),
                ("take the pawn city's good to space s (16 = beside the board)", L.O_GOODS),
                ("build a temple", L.O_TEMPLE), ("forfeit an action for a card", L.O_FORFEIT),
                ("end turn", L.O_END), ("gift from the gods: area*20 + target", L.O_GIFT),
                ("mortal will: return the temple at city c", L.O_MORTAL),
                ("1 card: +1 Yin / +1 Yang", L.O_CARD), ("2 cards: flip a Yang / Yin coin", L.O_FLIP),
                ("3 cards: swap the scoring tiles of two lines", L.O_SWAP),
                ("solo: take 2 Yin / 2 Yang", L.O_SOLO),
                ("throw the Divination coins (closes the window before the throw)", L.O_THROW)]
        if self.explicit_chance:
            rows += [("chance: god coins, lower*8 + upper (1/64 each)", L.O_GODS),
                     ("chance: k Yang faces of the pending throw of n coins (C(n, k) / 2^n)", L.O_COINS),
                     ("chance: goods kind g drawn from the bag (bag[g] / bag total)", L.O_BAG)]
        return [(int(o[k]), int(o[k + 1] - o[k]), t) for t, k in rows]

    # -- batched functions ----------------------------------------------------
    def _empty(self, B):
        P, N = self.num_players, self.num_cities
        return YinYangState(
            **YinYangState.start_of_game(np.zeros(B, np.uint64), P), rng=np.zeros(B, np.uint64),
            flow=np.zeros((B, L.FLOW_COLUMNS), np.int16), turn_order=np.full((B, 4), -1, np.int8),
            cities=np.zeros((B, N, 3), np.int8), taiji=np.zeros((B, 8, 4), np.int8),
            goods=np.zeros((B, 4, 4), np.int8), players=np.zeros((B, P, L.PLAYER_COLUMNS), np.int16),
            development=np.zeros((B, P, 16), np.int8), beside_board=np.zeros((B, P, 4), np.int8),
            scoring_tiles=np.zeros((B, P, 10, 2), np.int8), solo_tiles=np.full((B, 7), -1, np.int8))

    def init(self, seeds) -> YinYangState:
        seeds = game_seeds(seeds, self.name)
        s = self._empty(seeds.shape[0])
        s.seed[:] = seeds
        s.rng[:] = hash_u64(seeds, np.uint64(0x59696E59616E67))
        init_kernel(s.arrays(L.Arrays), self._tables, L.new_work(s.batch_size))
        return s

    def _step(self, state: YinYangState, actions) -> int:
        arrays = state.arrays(L.Arrays)
        legal = np.empty((state.batch_size, self.num_actions), dtype=bool)
        mask_kernel(arrays, self._tables, legal)
        return step_kernel(arrays, self._tables, actions, legal, L.new_work(state.batch_size))

    def _mask(self, state: YinYangState, out) -> None:
        mask_kernel(state.arrays(L.Arrays), self._tables, out)

    def _observe(self, state: YinYangState, seats, out) -> None:
        observe_kernel(state.arrays(L.Arrays), self._tables, seats, out)

    def _heuristic(self, state: YinYangState, seats, out) -> None:
        heuristic_kernel(state.arrays(L.Arrays), self._tables, seats, out, L.new_work(state.batch_size))

    def _chance_probabilities(self, state: YinYangState, out) -> None:
        probabilities_kernel(state.arrays(L.Arrays), self._tables, out)

    def _sample_chance(self, state: YinYangState, out) -> None:
        sample_kernel(state.arrays(L.Arrays), self._tables, out)

    def scores(self, state: YinYangState) -> np.ndarray:
        """(B, P) score of every player as if the game ended now (final score when over)."""
        self.check_state(state)
        out = np.zeros((state.batch_size, self.num_players), dtype=np.int64)
        scores_kernel(state.arrays(L.Arrays), self._tables, out, L.new_work())
        return out

    def solo_level(self, state: YinYangState) -> np.ndarray:
        """(B,) solo achievement level (0 lost, 1 Trainee ... 6 Deity) from the state now."""
        self.check_state(state)
        out = np.zeros(state.batch_size, dtype=np.int64)
        solo_level_kernel(state.arrays(L.Arrays), self._tables, out)
        return out

    # -- rendering -------------------------------------------------------------------
