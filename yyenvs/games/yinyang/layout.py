"""Yin Yang: the layout every kernel shares (rules in ``seeds/yinyang.md``).

Several state arrays pack a few values per row, per player or per city into
named columns; the constants below name them.  The kernels take the state's
arrays as a plain tuple (``state.arrays(Arrays)``, the fields of
``core.YinYangState`` that :data:`Arrays` names) and name them at the top of
each entry kernel: ``st = Arrays(*arrays)`` (see :mod:`yyenvs.core.kernels`).  The component data and the options are
one numpy record (:data:`TABLES_DTYPE`, built once per core by
:func:`pack_tables` from the readable :data:`Tables`), and a kernel's scratch
space another (:data:`WORK_DTYPE`): numba passes a record as one pointer,
where a tuple of arrays is unpacked into hundreds of values at every call,
which made most of the code numba generated.  Record arrays have fixed
sizes (the data file's limits, ``MAX_*``), so every data file shares one
compiled kernel; loops run to the counts (``num_cities``, ...), never to a
record array's shape.  For the same reason most rules take the few state
arrays they touch (``place_good(development, beside_board, ...)``); only the
entry kernels and the large rules (``apply_action``, ``apply_outcome``,
``end_game``) take the whole state tuple.

The action space is one flat range cut into blocks; ``Tables.action_start``
holds the first action of each block, indexed by the ``O_*`` constants.  The
last three blocks are the chance outcomes, actions only with
``chance="explicit"``.

Compile time (a cold numba compile costs seconds; see ``yyenvs bench
--compile``) chose the decorators: :data:`kernel` is an entry point that the
core calls from Python, :data:`rule` is called by kernels only (numba builds
no Python wrapper for it).  Neither counts references (``_nrt=False``): they
only read and write the arrays they are given and allocate nothing (scratch
space comes in the work record), and for tuples of arrays the counting was
most of the code.  Two more habits keep numba from compiling a rule twice:
it compiles a rule once per Python ``int`` constant it is called with, even
for a variable that starts as one (constants passed to rules are
``np.int64`` below), and once per argument type (indices read from int8 /
int16 arrays are converted to ``np.int64``).  ``error_model="numpy"`` drops
numba's division-by-zero checks: no rule divides by a value that can be 0.
"""
from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from yyenvs.core.kernels import num_blocks

kernel = njit(cache=True, no_cfunc_wrapper=True, _nrt=False, error_model="numpy")  # never a first-class function: no C wrapper
rule = njit(cache=True, no_cpython_wrapper=True, no_cfunc_wrapper=True, _nrt=False, error_model="numpy")

# -- flow (B, FLOW_COLUMNS) int16: where a row stands in the game ---------------------------
(F_PHASE,         # PH_* below
 F_SPLIT_DONE,    # divination: 1 once the player has interpreted their throw
 F_ROUND,         # 1..5 (0 during the set-up)
 F_TURN,          # position in turn order of the player to act
 F_PENDING,       # L_GOODS / L_CARRIAGE / L_BOAT: an immediate action's target still to choose
 F_SOLO_GAINS,    # solo: turn-order points still to take as 2 Yin or 2 Yang
 F_ARRIVALS,      # turn-order tokens moved so far (stamps the token on top of a space)
 F_SOLO_FLIPPED,  # solo tiles flipped
 F_GODS_LOWER,    # the trigrams the gods blocked this round
 F_GODS_UPPER,
 F_CHANCE,        # EV_* below: the chance event waiting for its outcome (EV_NONE: none)
 F_CHANCE_N,      # coins of a pending throw, or the area (0 Yin, 1 Yang) a bag draw refills
 F_BEFORE_THROW,  # divination: 1 while the player to act has not thrown yet (the window before it)
 ) = range(13)
FLOW_COLUMNS = 13
PH_SETUP, PH_GODS, PH_DIVINATION, PH_ACTIONS, PH_OVER = range(5)

# -- players (B, P, PLAYER_COLUMNS) int16 ------------------------------------------------------
(Q_YIN, Q_YANG,       # the Yin and Yang tracks, 0..8
 Q_TRACK,             # space of the turn-order token
 Q_ARRIVAL,           # when the token reached its space: the highest is on top of the stack
 Q_CARDS,             # Divine Intervention cards in hand
 Q_TEMPLES,           # temples left in the supply
 Q_COINS_YANG, Q_COINS_YIN,  # coins not used in pairs yet
 Q_LUO_BONUS,         # the capital's card bonus taken this round
 Q_GOODS_MISSION, Q_TEMPLE_MISSION,  # card index, -1 in solo
 Q_PAWN,              # city of the pawn, -1 before the set-up places it
 Q_SCORE,             # final score, when the game is over
 ) = range(13)
Q_TILES = 13          # 4 columns: action tiles held, per tile type
Q_TILES_USED = 17     # 4 columns: of those, used this round
PLAYER_COLUMNS = 21

# -- cities (B, N, 3) int8 ---------------------------------------------------------------------
C_GOOD, C_DISASTER, C_TEMPLE = range(3)  # good kind or -1, 0/1, owner seat or -1
# -- taiji (B, 8, 4) int8, per trigram ----------------------------------------------------------
T_TILE_TYPE, T_STACK, T_UPPER_BLOCK, T_LOWER_BLOCK = range(4)  # upper block: 0 free, 1 gods, 2 a player
# -- goods (B, 4, 4) int8, per goods kind --------------------------------------------------------
G_BAG, G_YIN, G_YANG, G_OUT = range(4)  # rows: the bag, the Yin area, the Yang area, out of the game

# tile types (np.int64: passed to rules, see above), lower-trigram actions, scoring tiles
CARRIAGE, BOAT, GOODS_TILE, TEMPLE_TILE = (np.int64(t) for t in range(4))
L_NONE, L_GOODS, L_TEMPLE, L_CARRIAGE, L_BOAT = range(5)
S_TEMPLE, S_TURN_ORDER, S_PERIMETER, S_APPROVAL, S_YANG, S_YIN = 4, 5, 6, 7, 8, 9  # 0..3: goods kinds

ROUNDS = 5
TRACK_MAX = 8        # Yin / Yang tracks
HAND_MAX = 8
LUO_CARDS = np.int64(2)  # the capital's bonus, once a round
FORFEIT_CARDS = np.int64(1)  # per action given up
SOLO_SEAT = np.int64(0)
TEMPLES = 13
STACK_SIZE = 5
COINS = np.int64(6)  # per player; the gods throw six too
NUM_KINGDOMS = 7
SPACES = 16          # Development Area spaces
LINES = 10
BESIDE = 16          # goods target "beside the board"

YANG_COUNT = np.array([3, 2, 2, 1, 2, 1, 1, 0], dtype=np.int64)  # Yang lines, Qian..Kun
TRI_OF_CODE = np.array([7, 3, 5, 1, 6, 2, 4, 0], dtype=np.int64)  # coin bits (bottom line = bit 0) -> trigram
TRI_SUM = np.array([0, 1, 3, 6, 10, 15, 21], dtype=np.int64)  # points of a goods scoring tile
SWAP_I = np.array([i for i in range(10) for j in range(i + 1, 10)], dtype=np.int64)
SWAP_J = np.array([j for i in range(10) for j in range(i + 1, 10)], dtype=np.int64)

# -- chance events (flow column F_CHANCE) -----------------------------------------------------------
EV_NONE, EV_GODS, EV_DIVINATION, EV_REROLL, EV_MORTAL_WILL, EV_BAG = (np.int64(e) for e in range(6))
CHANCE_PLAYER = -1  # = yyenvs.core.contract.CHANCE_PLAYER

# -- action blocks: indices into Tables.action_start ----------------------------------------------
(O_PLACE, O_DISASTER, O_SPLIT, O_REROLL, O_ROAD, O_BOAT, O_GOODS, O_TEMPLE, O_FORFEIT, O_END,
 O_GIFT, O_MORTAL, O_CARD, O_FLIP, O_SWAP, O_SOLO, O_THROW,
 O_GODS, O_COINS, O_BAG,  # chance outcomes (explicit chance only)
 O_TOTAL) = range(21)
GODS_OUTCOMES = 64  # lower trigram * 8 + upper trigram
COIN_OUTCOMES = COINS + 1  # k Yang faces, k = 0..6
BAG_OUTCOMES = 4  # the goods kind drawn


def action_offsets(n: int) -> np.ndarray:
    """First action of each block (and the total, at O_TOTAL) for a map of n cities."""
    sizes = [n, n, 64, 1, n, n, 17, 1, 7, 1, 40, n, 2, 2, 45, 2, 1,
             GODS_OUTCOMES, COIN_OUTCOMES, BAG_OUTCOMES]
    off = np.zeros(O_TOTAL + 1, dtype=np.int64)
    off[1:] = np.cumsum(sizes)
    return off


# -- what the kernels take ----------------------------------------------------------------------
#: the state's arrays, by the names of ``core.YinYangState``
Arrays = namedtuple("Arrays", [
    "current_player", "rewards", "terminated", "ply", "rng", "flow", "turn_order", "cities",
    "taiji", "goods", "players", "development", "beside_board", "scoring_tiles", "solo_tiles"])

#: the component data and the options, as the core builds them (exact shapes)
Tables = namedtuple("Tables", [
    "num_players", "num_cities", "num_actions", "capital",
    "solo",                 # bool: the solo game
    "explicit_chance",      # bool: chance events wait for an outcome action
    "score_reward",         # bool: reward "score" (else "win")
    "action_start",         # (O_TOTAL + 1,) first action of each block
    "goods_per_kind", "bag_per_kind",
    "start_tokens",         # (5,) starting tokens: goods per kind, disasters
    "start_on_all_cities",  # bool: tokens on blue cities too
    "kingdom",              # (N,) kingdom of each city, -1 for the capital
    "colour",               # (N,) 0 red, 1 blue
    "road", "boat",         # (N, N) bool links (boat: river or ocean)
    "kingdom_points",       # (K, 2) first / second place
    "lower_actions",        # (8, 3) per lower trigram: L_* kind, turn-order steps, cards
    "turn_order_values",    # (S,) printed value per track space
    "development_spaces",   # (16,) goods kind printed on each space
    "perimeter",            # (16,) bool
    "line_spaces",          # (10, 16) bool: line l holds space s
    "goods_missions",       # (M, 4) goods needed per kind
    "temple_missions",      # (T, 7) temples needed in distinct kingdoms, largest first, 0-padded
    "cards_at_start",       # (4,) cards by turn-order position
])

# the data file's limits (``data.py`` refuses larger files with a DataFileError): the record arrays' sizes
MAX_CITIES = 120
MAX_TRACK_SPACES = 100
MAX_MISSIONS = 64
MAX_PLAYERS = 4

#: :data:`Tables` as the kernels read it: one record, arrays padded to the limits, plus the
#: counts that loops run to (``num_cities``, ``num_track_spaces``, ``num_*_missions``)
TABLES_DTYPE = np.dtype([
    ("num_players", np.int64), ("num_cities", np.int64), ("num_actions", np.int64),
    ("capital", np.int64), ("solo", np.bool_), ("explicit_chance", np.bool_),
    ("score_reward", np.bool_), ("start_on_all_cities", np.bool_),
    ("action_start", np.int64, (O_TOTAL + 1,)),
    ("goods_per_kind", np.int64), ("bag_per_kind", np.int64), ("start_tokens", np.int64, (5,)),
    ("kingdom", np.int64, (MAX_CITIES,)), ("colour", np.int64, (MAX_CITIES,)),
    ("road", np.int8, (MAX_CITIES, MAX_CITIES)), ("boat", np.int8, (MAX_CITIES, MAX_CITIES)),
    ("kingdom_points", np.int64, (NUM_KINGDOMS, 2)), ("lower_actions", np.int64, (8, 3)),
    ("num_track_spaces", np.int64), ("turn_order_values", np.int64, (MAX_TRACK_SPACES,)),
    ("development_spaces", np.int64, (SPACES,)), ("perimeter", np.int8, (SPACES,)),
    ("line_spaces", np.int8, (LINES, SPACES)),
    ("num_goods_missions", np.int64), ("goods_missions", np.int64, (MAX_MISSIONS, 4)),
    ("num_temple_missions", np.int64), ("temple_missions", np.int64, (MAX_MISSIONS, NUM_KINGDOMS)),
    ("cards_at_start", np.int64, (MAX_PLAYERS,)),
], align=True)

#: a kernel's scratch space (the rules allocate nothing): one record per call
WORK_DTYPE = np.dtype([
    ("score", np.int64, (MAX_PLAYERS,)),          # step, heuristic: the scores now
    ("estimate", np.float64, (MAX_PLAYERS,)),     # heuristic: each player's value
    ("temples", np.int64, (MAX_PLAYERS, NUM_KINGDOMS)),  # scoring: per player and kingdom
    ("all_temples", np.int64, (MAX_PLAYERS,)),
    ("owned", np.int64, (4,)),                    # scoring: goods per kind
    ("ranked", np.int64, (NUM_KINGDOMS,)),        # scoring: temple counts, largest first
    ("order", np.int64, (max(MAX_CITIES, MAX_MISSIONS),)),  # set-up: shuffled tokens and cards
    ("dist", np.int64, (MAX_CITIES,)),            # heuristic: moves to each city
    ("queue", np.int64, (MAX_CITIES,)),
], align=True)


def pack_tables(t: Tables) -> np.ndarray:
    """The (1,) :data:`TABLES_DTYPE` array of ``t`` (what the kernels take); ``t`` is within
    the limits, which the data file's validator enforces."""
    rec = np.zeros(1, TABLES_DTYPE)
    for name in Tables._fields:
        value = np.asarray(getattr(t, name))
        rec[name][(0,) + tuple(slice(0, d) for d in value.shape)] = value
    rec["num_track_spaces"] = len(t.turn_order_values)
    rec["num_goods_missions"] = len(t.goods_missions)
    rec["num_temple_missions"] = len(t.temple_missions)
    return rec


def new_work(rows: int = 1) -> np.ndarray:
    """The scratch space of a kernel call over ``rows`` rows: one :data:`WORK_DTYPE` record per
    block of rows (:data:`~yyenvs.core.kernels.ROWS_PER_BLOCK`), as blocks may run at once."""
    return np.zeros(max(1, num_blocks(rows)), WORK_DTYPE)
