"""Yin Yang Koi: the core class (spec: ``seeds/koi.md``).

The state layout, the action encoding and the rule kernels are in
:mod:`yyenvs.games.koi.rules`, move notation and text boards in
:mod:`~yyenvs.games.koi.text`, the pictures in :mod:`~yyenvs.games.koi.ansi` (text) and
:mod:`~yyenvs.games.koi.picture` (drawn).
"""
from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from yyenvs.core.contract import BatchState, GameCore
from yyenvs.core.errors import OptionError
from yyenvs.core.rng import game_seeds
from yyenvs.games.koi import ansi, picture
from yyenvs.games.koi import text as koi_text
from yyenvs.games.koi.rules import (
    KoiArrays,
    KoiRules,
    DIR_VECTORS,
    NUM_KOI,
    NUM_PLANES,
    PLAY,
    TAIJI,
    YANG_KOI,
    YIN_KOI,
    count_swims,
    heuristic_kernel,
    mask_kernel,
    observe_kernel,
    SPREAD_MIN_SIZE,
    quick_start_points,
    ray_table,
    step_kernel,
)
from yyenvs.games.koi.spec import SPEC


@dataclasses.dataclass
class KoiState(BatchState):
    board: np.ndarray  # (B, N*N) int8   see koi.rules for codes and index
    koi: np.ndarray  # (B, 2, 5) int16  point of each koi slot per seat, -1 = unplaced
    fry: np.ndarray  # (B, 2) int16     fry on the board per seat
    phase: np.ndarray  # (B,) int8      0 set-up, 1 play
    winner: np.ndarray  # (B,) int8     winning seat, -1 none


class KoiCore(GameCore):
    """Yin Yang Koi (spec: ``seeds/koi.md``)."""

    spec = SPEC
    text_module = ansi
    picture_module = picture
    mobility_weight: float = 0.1

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        o = self.options
        n, d, w, m = o["board_size"], o["directions"], o["win_fry"], o["max_plies"]
        self.board_size = n
        self.num_points = n * n
        self.num_dirs = d
        self.quick_start = o["quick_start"]
        self.quick_layout = o["quick_layout"]
        if self.quick_start and self.quick_layout == "spread" and n < SPREAD_MIN_SIZE:
            raise OptionError(f"koi: quick_layout 'spread' needs board_size {SPREAD_MIN_SIZE} or more, got "
                              f"board_size={n}; give quick_layout='row'")
        self.win_fry = w
        self.max_plies = m
        self.taiji = (n // 2) * n + n // 2
        self.rays = ray_table(n, d)
        self.rules = tuple(KoiRules(self.rays, n, d, w, m))  # a plain tuple: see core.kernels
        self.num_players = 2
        self.num_actions = n * n + NUM_KOI * d
        self.observation_shape = (n, n, NUM_PLANES)
        self.max_game_length = m

    # -- naming -----------------------------------------------------------
    def player_names(self) -> list[str]:
        return ["yin", "yang"]

    def symmetries(self) -> tuple:
        """The 8 rotations and reflections of the pond about the Taiji (the torus maps onto
        itself): a placement moves with its point, a swim keeps its koi and turns its direction."""
        from yyenvs.core.symmetry import DIHEDRAL, Symmetry, direction_map, point_map
        n, D = self.board_size, self.num_dirs
        out = []
        for k, flip in DIHEDRAL:
            points = point_map(n, n, k, flip)
            dirs = direction_map(DIR_VECTORS[D], k, flip)
            swims = (n * n + np.arange(NUM_KOI)[:, None] * D + dirs[None, :]).reshape(-1)
            out.append(Symmetry(k, flip, np.concatenate([points, swims])))
        return tuple(out)

    def action_to_string(self, action: int) -> str:
        return koi_text.action_to_string(action, self.board_size, self.num_dirs)

    def string_to_action(self, text: str) -> int:
        """Inverse of :meth:`action_to_string` ("place c4", "koi2 NE")."""
        return koi_text.string_to_action(text, self.board_size, self.num_dirs)

    # -- batched functions --------------------------------------------------
    def init(self, seeds: np.ndarray) -> KoiState:
        seeds = game_seeds(seeds, self.name)
        b = seeds.shape[0]
        board = np.zeros((b, self.num_points), dtype=np.int8)
        board[:, self.taiji] = TAIJI
        koi = np.full((b, 2, NUM_KOI), -1, dtype=np.int16)
        phase = np.zeros(b, dtype=np.int8)
        if self.quick_start:
            yin, yang = quick_start_points(self.board_size, self.quick_layout)
            koi[:, 0] = yin
            koi[:, 1] = yang
            board[:, yin] = YIN_KOI
            board[:, yang] = YANG_KOI
            phase[:] = PLAY
        return KoiState(
            **KoiState.start_of_game(seeds, 2),
            board=board,
            koi=koi,
            fry=np.zeros((b, 2), dtype=np.int16),
            phase=phase,
            winner=np.full(b, -1, dtype=np.int8),
        )

    def _step(self, state: KoiState, actions) -> int:
        return step_kernel(state.arrays(KoiArrays), self.rules, actions)

    def _mask(self, state: KoiState, out) -> None:
        mask_kernel(state.arrays(KoiArrays), self.rules, out)

    def _observe(self, state: KoiState, seats, out) -> None:
        """Planes (N, N, 14) float32 from seat ``seats[i]``'s side (spec 9).

        0 own koi, 1 opposing koi, 2 own fry, 3 opposing fry, 4 Taiji,
        5-9 own koi slot 0-4, 10 set-up phase, 11 own fry / win_fry,
        12 opposing fry / win_fry, 13 ply / max_plies (11-13 capped at 1).
        """
        n = self.board_size
        observe_kernel(state.arrays(KoiArrays), self.rules, seats, out.reshape(state.batch_size, n * n, NUM_PLANES))

    def _heuristic(self, state: KoiState, seats, out) -> None:
        """Fry difference plus ``mobility_weight`` times the difference in legal
        swims, from seat ``seats[i]``'s side; +-1000 for a decided game, 0 for
        a truncated one."""
        heuristic_kernel(state.arrays(KoiArrays), self.rules, seats, float(self.mobility_weight), out)

    def count_moves(self, state: KoiState, player) -> np.ndarray:
        """(B,) number of legal swims seat player[i] would have in row i."""
        self.check_state(state)
        player = self.seats(state, player)
        return np.array([count_swims(state.board, state.koi, b, int(player[b]), self.rays,
                                     self.num_dirs, False)
                         for b in range(state.batch_size)], dtype=np.int64)

    def scores(self, state: KoiState) -> np.ndarray:
        """(B, 2): each family's fry on the board."""
        self.check_state(state)
        return state.fry.astype(np.int64)

    # -- text boards ----------------------------------------------------------
    def from_text(self, text: str, player: int = 0, ply: int | None = None) -> KoiState:
        """A one-row state from a text board (spec 10): N lines of N tokens.

        Tokens: ``.`` empty, ``T`` Taiji (must be the centre), ``y`` / ``g``
        a Yin / Yang fry, ``Y`` / ``G`` a Yin / Yang koi, optionally followed
        by its slot digit (``Y0`` .. ``Y4``); koi without a digit take the
        free slots in reading order.  With ten koi the state is in play,
        ``player`` to move; with fewer it is in set-up (slots in order, the
        seat to move follows from the counts).  Fry counts are recounted.
        """
        return koi_text.from_text(self, text, player, ply)

    def to_text(self, state: KoiState, index: int = 0) -> str:
        """The text board of row ``index`` in the format of :meth:`from_text`."""
        self.check_state(state)
        return koi_text.to_text(state, index, self.board_size)
