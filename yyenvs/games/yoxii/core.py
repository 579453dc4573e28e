"""Yoxii: the core class (rules in ``seeds/yoxii.md``).

The board, the action encoding and the rule kernels are in
:mod:`yyenvs.games.yoxii.rules`, the optional lookahead features in
:mod:`~yyenvs.games.yoxii.features`, the pictures in :mod:`~yyenvs.games.yoxii.ansi` (text)
and :mod:`~yyenvs.games.yoxii.picture` (drawn).
"""
from __future__ import annotations

import dataclasses

import numpy as np

from yyenvs.core.contract import BatchState, GameCore
from yyenvs.core.rng import game_seeds
from yyenvs.games.yoxii import ansi, picture
from yyenvs.games.yoxii import text as yoxii_text
from yyenvs.games.yoxii.features import ACTION_FEATURE_NAMES, NUM_ACTION_FEATURES, action_features_kernel
from yyenvs.games.yoxii.rules import (
    CELL_RC,
    CENTRE,
    DELTAS,
    DIRECTION_NAMES,
    NUM_ACTIONS,
    NUM_CELLS,
    NUM_DIRS,
    NUM_VALUES,
    PLAYER_NAMES,
    SIZE,
    STOCK,
    YoxiiArrays,
    adjacent_totals,
    heuristic_kernel,
    mask_kernel,
    observe_kernel,
    step_kernel,
)
from yyenvs.games.yoxii.spec import SPEC


@dataclasses.dataclass
class YoxiiState(BatchState):
    board: np.ndarray  # (B, 37) int8: 0 empty, +v white piece of value v, -v red piece
    totem: np.ndarray  # (B,) int8 the totem's cell (its square holds 0 on ``board``)
    stock: np.ndarray  # (B, 2, 4) int8 pieces left per player and value


class YoxiiCore(GameCore):
    """Yoxii for two players; White (seat 0) moves first.

    Option ``action_features`` (default False): the observation becomes a flat
    vector, the 882 plane values followed by 5 lookahead features per action
    (see :meth:`_observe`); the rules do not change.
    """

    spec = SPEC
    text_module = ansi
    picture_module = picture
    action_feature_names = ACTION_FEATURE_NAMES

    def __init__(self, **options):
        super().__init__(**options)
        self.num_players = 2
        self.num_actions = NUM_ACTIONS
        self.planes_shape = (SIZE, SIZE, 18)
        self.observation_ends_with_action_features = self.options["action_features"]
        self.observation_shape = (self.planes_shape if not self.observation_ends_with_action_features else
                                  (int(np.prod(self.planes_shape)) + NUM_ACTIONS * NUM_ACTION_FEATURES,))
        self.max_game_length = NUM_CELLS - 1  # each turn fills one of 36 squares

    # -- naming -----------------------------------------------------------------
    def player_names(self):
        return list(PLAYER_NAMES)

    @staticmethod
    def encode(direction: int, cell: int, value: int) -> int:
        """The action for: totem moves ``direction``, piece ``value`` on ``cell``."""
        if not (0 <= direction < NUM_DIRS and 0 <= cell < NUM_CELLS and 1 <= value <= NUM_VALUES):
            raise ValueError(f"yoxii: no action for direction={direction}, cell={cell}, value={value}")
        return (direction * NUM_CELLS + cell) * NUM_VALUES + (value - 1)

    @staticmethod
    def decode(action: int) -> tuple[int, int, int]:
        """(direction, cell, value) of an action."""
        action = int(action)
        if not 0 <= action < NUM_ACTIONS:
            raise ValueError(f"yoxii: action {action} out of range [0, {NUM_ACTIONS})")
        return (action // (NUM_CELLS * NUM_VALUES), (action // NUM_VALUES) % NUM_CELLS,
                action % NUM_VALUES + 1)

    def symmetries(self) -> tuple:
        """The 8 rotations and reflections of the board (its cut corners are symmetric): a turn's
        totem direction turns, its square moves, its value stays.  None with ``action_features``
        (the observation is flat)."""
        if self.options["action_features"]:
            return ()
        from yyenvs.core.symmetry import DIHEDRAL, Symmetry, direction_map, point_map
        grid_cell = np.full(SIZE * SIZE, -1, np.int64)
        grid_cell[CELL_RC[:, 0] * SIZE + CELL_RC[:, 1]] = np.arange(NUM_CELLS)
        out = []
        for k, flip in DIHEDRAL:
            cells = grid_cell[point_map(SIZE, SIZE, k, flip)[CELL_RC[:, 0] * SIZE + CELL_RC[:, 1]]]
            dirs = direction_map(DELTAS, k, flip)
            d, c, v = np.meshgrid(np.arange(NUM_DIRS), np.arange(NUM_CELLS), np.arange(NUM_VALUES), indexing="ij")
            out.append(Symmetry(k, flip, ((dirs[d] * NUM_CELLS + cells[c]) * NUM_VALUES + v).reshape(-1)))
        return tuple(out)

    def action_to_string(self, action: int) -> str:
        d, cell, v = self.decode(action)
        r, c = CELL_RC[cell]
        return f"totem {DIRECTION_NAMES[d]}, place {v} on {'abcdefg'[c]}{7 - r}"

    # -- contract ---------------------------------------------------------------
    def init(self, seeds) -> YoxiiState:
        seeds = game_seeds(seeds, self.name)
        B = seeds.shape[0]
        return YoxiiState(
            **YoxiiState.start_of_game(seeds, 2),
            board=np.zeros((B, NUM_CELLS), np.int8),
            totem=np.full(B, CENTRE, np.int8),
            stock=np.tile(np.array(STOCK, np.int8), (B, 2, 1)),
        )

    def _step(self, state: YoxiiState, actions) -> int:
        return step_kernel(state.arrays(YoxiiArrays), actions)

    def _mask(self, state: YoxiiState, out) -> None:
        mask_kernel(state.arrays(YoxiiArrays), out)

    def _observe(self, state: YoxiiState, seats, out) -> None:
        """Planes (7, 7, 18) float32 from seat ``seats[i]``'s side.

        0-3 own piece of value 1-4; 4-7 opponent piece of value 1-4; 8 totem;
        9 square exists; 10-13 own stock of value 1-4 / 5; 14-17 opponent's.

        With ``action_features=True``: a flat (882 + 5 * 1184,) vector, the
        planes flattened, then the (5, 1184) block of :meth:`action_features`
        (as if ``seats[i]`` were to move).
        """
        arrays = state.arrays(YoxiiArrays)
        if not self.observation_ends_with_action_features:
            observe_kernel(arrays, seats, out)
            return
        n, B = int(np.prod(self.planes_shape)), state.batch_size
        planes = np.empty((B, *self.planes_shape), dtype=np.float32)
        observe_kernel(arrays, seats, planes)
        feats = np.empty((B, NUM_ACTION_FEATURES, NUM_ACTIONS), dtype=np.float32)
        action_features_kernel(arrays, seats, feats)
        out[:, :n] = planes.reshape(B, n)
        out[:, n:] = feats.reshape(B, -1)

    def _action_features(self, state: YoxiiState, seats, out) -> None:
        """The lookahead features of :mod:`~yyenvs.games.yoxii.features` for seat
        ``seats[i]`` as the player to move."""
        action_features_kernel(state.arrays(YoxiiArrays), seats, out)

    def _heuristic(self, state: YoxiiState, seats, out) -> None:
        """Own minus opponent value around the totem (+0.1 per piece); ±1000 at the end."""
        heuristic_kernel(state.arrays(YoxiiArrays), seats, out)

    def scores(self, state: YoxiiState) -> np.ndarray:
        """(B, 2, 2): per player, (sum, count) of own pieces around the totem."""
        self.check_state(state)
        return np.stack([adjacent_totals(state.board[b], state.totem[b])
                         for b in range(state.batch_size)])

    # -- text boards ------------------------------------------------------------
    def from_text(self, text: str) -> YoxiiState:
        """A one-row state from a text board (:mod:`~yyenvs.games.yoxii.text`): seven lines of seven
        tokens, ``-`` corner, ``.`` empty, ``T`` totem, ``W1``-``W4`` / ``R1``-``R4`` pieces."""
        return yoxii_text.from_text(self, text)

    def to_text(self, state: YoxiiState, index: int = 0) -> str:
        """The text board of row ``index`` in the format of :meth:`from_text`."""
        self.check_state(state)
        return yoxii_text.to_text(state, index)

    # -- rendering --------------------------------------------------------------
