"""Yoxii: the batched core (rules in ``seeds/yoxii.md``).

Board: 37 squares, a 7x7 grid with a 3-square triangle cut from each corner.
Cells are numbered row-major over the squares that exist::

         .  .  0  1  2  .  .
         .  3  4  5  6  7  .
         8  9 10 11 12 13 14
        15 16 17 18 19 20 21        18 = centre, the totem's start
        22 23 24 25 26 27 28
         . 29 30 31 32 33  .
         .  . 34 35 36  .  .

Directions N, NE, E, SE, S, SW, W, NW = 0..7 (north = row - 1).
One action is a whole turn, totem move then placement:
``action = (direction * 37 + cell) * 4 + (value - 1)``.
"""
from __future__ import annotations

import dataclasses

import numpy as np
from numba import njit, prange

from yyenvs.core import draw
from yyenvs.core.contract import BatchState, GameCore
from yyenvs.core.kernels import batch_kernel
from yyenvs.core.rng import game_seeds
from yyenvs.games.yoxii.spec import SPEC

# --- geometry (module constants, computed once) ------------------------------
ROW_WIDTHS = (3, 5, 7, 7, 7, 5, 3)
SIZE = 7
NUM_CELLS = 37
NUM_DIRS = 8
NUM_VALUES = 4
NUM_ACTIONS = NUM_DIRS * NUM_CELLS * NUM_VALUES  # 1184
CENTRE = 18
STOCK = (5, 5, 5, 3)  # pieces of value 1, 2, 3, 4 per player
DIRECTION_NAMES = ("N", "NE", "E", "SE", "S", "SW", "W", "NW")
DELTAS = ((-1, 0), (-1, 1), (0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1))
PLAYER_NAMES = ("white", "red")


def _geometry():
    rc = []
    for r, width in enumerate(ROW_WIDTHS):
        first = (SIZE - width) // 2
        rc += [(r, c) for c in range(first, first + width)]
    index = {p: i for i, p in enumerate(rc)}
    neighbour = np.full((NUM_CELLS, NUM_DIRS), -1, dtype=np.int64)
    for i, (r, c) in enumerate(rc):
        for d, (dr, dc) in enumerate(DELTAS):
            neighbour[i, d] = index.get((r + dr, c + dc), -1)
    return np.array(rc, dtype=np.int64), neighbour


CELL_RC, NEIGHBOUR = _geometry()  # (37, 2) row/col of each cell; (37, 8) next cell or -1


# --- rules (numba kernels; one function per rule) ----------------------------
@njit(cache=True, inline="always")
def totem_destination(board, totem, player, d):
    """Where the totem lands moving in direction ``d`` for ``player``, or -1.

    A step onto an adjacent empty square, or a jump over an unbroken line of
    the mover's own pieces to the first square beyond, which must be empty.
    """
    sign = 1 if player == 0 else -1
    cell = NEIGHBOUR[totem, d]
    while cell >= 0 and board[cell] * sign > 0:  # own piece: keep jumping
        cell = NEIGHBOUR[cell, d]
    if cell < 0 or board[cell] != 0:  # edge, missing square or opponent piece
        return -1
    return cell


@njit(cache=True)
def has_totem_move(board, totem, player):
    for d in range(NUM_DIRS):
        if totem_destination(board, totem, player, d) >= 0:
            return True
    return False


@njit(cache=True, inline="always")
def placement_cells(board, totem, out):
    """Fill ``out`` with the squares a piece may go on; return how many.

    ``totem`` is the totem's new square (``board`` is 0 there and on the
    square it left).  Adjacent empty squares; if none, every empty square.
    """
    n = 0
    for d in range(NUM_DIRS):
        c = NEIGHBOUR[totem, d]
        if c >= 0 and board[c] == 0:
            out[n] = c
            n += 1
    if n == 0:  # the "anywhere" case: all neighbours are occupied
        for c in range(NUM_CELLS):
            if c != totem and board[c] == 0:
                out[n] = c
                n += 1
    return n


@njit(cache=True)
def adjacent_totals(board, totem):
    """(sum, count) of each player's pieces adjacent to the totem."""
    out = np.zeros((2, 2), dtype=np.int64)
    for d in range(NUM_DIRS):
        c = NEIGHBOUR[totem, d]
        if c >= 0 and board[c] != 0:
            p = 0 if board[c] > 0 else 1
            out[p, 0] += abs(board[c])
            out[p, 1] += 1
    return out


@njit(cache=True)
def final_winner(board, totem):
    """0 or 1 for the winner, -1 for a draw: higher sum, then more pieces."""
    t = adjacent_totals(board, totem)
    if t[0, 0] != t[1, 0]:
        return 0 if t[0, 0] > t[1, 0] else 1
    if t[0, 1] != t[1, 1]:
        return 0 if t[0, 1] > t[1, 1] else 1
    return -1


@batch_kernel
def _legal_mask_kernel(board, totem, stock, player, done, mask):
    scratch = np.empty((board.shape[0], NUM_CELLS), dtype=np.int64)
    for b in prange(board.shape[0]):
        # the 4 values of one (direction, square) are 4 adjacent mask bytes: one uint32
        words = mask[b].view(np.uint32)
        words[:] = 0
        if done[b]:
            continue
        p = player[b]
        values = np.uint32(0)
        for v in range(NUM_VALUES):
            if stock[b, p, v] > 0:
                values |= np.uint32(1) << np.uint32(8 * v)  # little-endian byte v
        t = totem[b]
        brd = board[b]
        cells = scratch[b]
        for d in range(NUM_DIRS):
            dest = totem_destination(brd, t, p, d)
            if dest < 0:
                continue
            n = placement_cells(brd, dest, cells)
            for k in range(n):
                words[d * NUM_CELLS + cells[k]] = values


@njit(cache=True)
def _is_legal(board, totem, stock, p, action, scratch):
    d = action // (NUM_CELLS * NUM_VALUES)
    cell = (action // NUM_VALUES) % NUM_CELLS
    v = action % NUM_VALUES
    if stock[p, v] <= 0:
        return False
    dest = totem_destination(board, totem, p, d)
    if dest < 0:
        return False
    n = placement_cells(board, dest, scratch)
    for k in range(n):
        if scratch[k] == cell:
            return True
    return False


@batch_kernel
def _step_kernel(board, totem, stock, player, rewards, terminated, ply, actions):
    """Apply the actions; return the first illegal row, or -1 (nothing changed then)."""
    B = board.shape[0]
    illegal = np.zeros(B, dtype=np.bool_)
    scratch = np.empty((B, NUM_CELLS), dtype=np.int64)
    for b in prange(B):  # validate every row before touching any
        a = actions[b]
        illegal[b] = a >= 0 and not _is_legal(board[b], totem[b], stock[b], player[b], a, scratch[b])
    for b in range(B):
        if illegal[b]:
            return b
    for b in prange(B):
        a = actions[b]
        if a < 0:
            rewards[b, :] = 0.0
            continue
        p = player[b]
        d = a // (NUM_CELLS * NUM_VALUES)
        cell = (a // NUM_VALUES) % NUM_CELLS
        v = a % NUM_VALUES
        totem[b] = totem_destination(board[b], totem[b], p, d)
        board[b, cell] = (v + 1) if p == 0 else -(v + 1)
        stock[b, p, v] -= 1
        ply[b] += 1
        nxt = 1 - p
        player[b] = nxt
        rewards[b, :] = 0.0
        # the game ends when the player to move cannot move the totem
        if not has_totem_move(board[b], totem[b], nxt):
            terminated[b] = True
            w = final_winner(board[b], totem[b])
            if w >= 0:
                rewards[b, w] = 1.0
                rewards[b, 1 - w] = -1.0
    return -1


@batch_kernel
def _observe_kernel(board, totem, stock, viewer, obs):
    """Planes (7, 7, 18) from ``viewer``'s side; see ``YoxiiCore.observe``."""
    C = obs.shape[3]
    for b in prange(board.shape[0]):
        o = obs[b].reshape(-1)  # one game's planes, flat: (row * 7 + col) * 18 + plane
        o[:] = 0.0
        me = viewer[b]
        sign = 1 if me == 0 else -1
        s0, s1, s2, s3 = stock[b, me, 0] / 5.0, stock[b, me, 1] / 5.0, stock[b, me, 2] / 5.0, stock[b, me, 3] / 5.0
        o0, o1, o2, o3 = (stock[b, 1 - me, 0] / 5.0, stock[b, 1 - me, 1] / 5.0,
                          stock[b, 1 - me, 2] / 5.0, stock[b, 1 - me, 3] / 5.0)
        brd = board[b]
        for c in range(NUM_CELLS):
            base = (CELL_RC[c, 0] * SIZE + CELL_RC[c, 1]) * C
            x = brd[c] * sign
            if x > 0:
                o[base + x - 1] = 1.0
            elif x < 0:
                o[base + 3 - x] = 1.0
            o[base + 9] = 1.0
            o[base + 10] = s0
            o[base + 11] = s1
            o[base + 12] = s2
            o[base + 13] = s3
            o[base + 14] = o0
            o[base + 15] = o1
            o[base + 16] = o2
            o[base + 17] = o3
        t = totem[b]
        o[(CELL_RC[t, 0] * SIZE + CELL_RC[t, 1]) * C + 8] = 1.0


@batch_kernel
def _heuristic_kernel(board, totem, terminated, rewards, viewer, out):
    for b in prange(board.shape[0]):
        me = viewer[b]
        if terminated[b]:
            out[b] = 1000.0 * rewards[b, me]
            continue
        t = adjacent_totals(board[b], totem[b])
        out[b] = (t[me, 0] - t[1 - me, 0]) + 0.1 * (t[me, 1] - t[1 - me, 1])



# --- lookahead features (game option ``action_features``) ----------------------
# The features look ahead with hypothetical pieces of the mover on the board: a
# placeholder of value 1 marks the square (the moves depend only on where pieces
# are and whose they are), and the values enter only the final sums, so one
# search covers every value.  Results are 16-bit masks (no allocation in the hot
# loops): bit ``4 * v1 + v2`` stands for the values (v1 + 1, v2 + 1) of the
# mover's pieces on ``c1`` and ``c2``.
ACTION_FEATURE_NAMES = ("wins_now", "ends_without_win", "opponent_can_win_next", "opponent_can_trap", "legal")
NUM_ACTION_FEATURES = len(ACTION_FEATURE_NAMES)
LEGAL = NUM_ACTION_FEATURES - 1
ALL_PAIRS = (1 << (NUM_VALUES * NUM_VALUES)) - 1


@njit(cache=True, inline="always")
def _empty_neighbours(board, cell):
    n = 0
    for d in range(NUM_DIRS):
        c = NEIGHBOUR[cell, d]
        if c >= 0 and board[c] == 0:
            n += 1
    return n


@njit(cache=True, inline="always")
def _ends_game(board, totem, player_to_move):
    """Whether ``player_to_move`` has no totem move on ``board`` (a piece just
    placed).  Quick exit: an empty square around the totem means a step."""
    if _empty_neighbours(board, totem) >= 1:
        return False
    return not has_totem_move(board, totem, player_to_move)


@njit(cache=True, inline="always")
def _wins(mine_sum, mine_cnt, theirs_sum, theirs_cnt):
    return mine_sum > theirs_sum or (mine_sum == theirs_sum and mine_cnt > theirs_cnt)


@njit(cache=True, inline="always")
def _adjacent(a, b):
    if b < 0:
        return 0
    for d in range(NUM_DIRS):
        if NEIGHBOUR[a, d] == b:
            return 1
    return 0


@njit(cache=True, inline="always")
def _largest(stock_row, spent):
    """The largest value (1-4) in ``stock_row`` once a piece of value
    ``spent`` (0: none) is taken out; 0 if nothing is left."""
    for v in range(NUM_VALUES - 1, -1, -1):
        if stock_row[v] - (1 if v + 1 == spent else 0) > 0:
            return v + 1
    return 0


@njit(cache=True)
def _final_sums(brd, t, p, c1, c2):
    """(sum, count) around the totem on ``t`` of both players, the mover
    ``p``'s hypothetical pieces on ``c1``/``c2`` left out, and whether each touches it."""
    sign = 1 if p == 0 else -1
    brd[c1] = 0
    if c2 >= 0:
        brd[c2] = 0
    tot = adjacent_totals(brd, t)
    brd[c1] = sign
    if c2 >= 0:
        brd[c2] = sign
    return tot, _adjacent(t, c1), _adjacent(t, c2)


@njit(cache=True)
def _mover_wins(brd, t, p, c1, c2):
    """The game has ended with the totem on ``t``: the value pairs for which ``p`` wins."""
    q = 1 - p
    tot, a1, a2 = _final_sums(brd, t, p, c1, c2)
    out = 0
    for v1 in range(NUM_VALUES):
        for v2 in range(NUM_VALUES):
            if _wins(tot[p, 0] + a1 * (v1 + 1) + a2 * (v2 + 1), tot[p, 1] + a1 + a2, tot[q, 0], tot[q, 1]):
                out |= 1 << (NUM_VALUES * v1 + v2)
    return out


@njit(cache=True)
def _opponent_wins(brd, t, p, bq, c1, c2, scratch):
    """The opponent of ``p`` to move (totem on ``t``), placing a piece of value
    ``bq``: the value pairs for which it has a turn that ends the game with
    the opponent winning."""
    q = 1 - p
    out = 0
    if bq == 0:
        return out
    for d in range(NUM_DIRS):
        dest = totem_destination(brd, t, q, d)
        if dest < 0 or _empty_neighbours(brd, dest) >= 2:
            continue  # after one placement a step would remain
        n = placement_cells(brd, dest, scratch)
        for k in range(n):
            c = scratch[k]
            brd[c] = -1 if q == 1 else 1
            if _ends_game(brd, dest, p):
                brd[c] = 0
                tot, a1, a2 = _final_sums(brd, dest, p, c1, c2)
                a = _adjacent(dest, c)
                for v1 in range(NUM_VALUES):
                    for v2 in range(NUM_VALUES):
                        if _wins(tot[q, 0] + a * bq, tot[q, 1] + a,
                                 tot[p, 0] + a1 * (v1 + 1) + a2 * (v2 + 1), tot[p, 1] + a1 + a2):
                            out |= 1 << (NUM_VALUES * v1 + v2)
            brd[c] = 0
    return out


@njit(cache=True)
def _safe_values(brd, t, p, stock, cell, mine, bq, scratch):
    """``p`` to move (totem on ``t``) with a hypothetical piece already on
    ``cell``: bitmask of its values (among ``mine``) for which ``p`` has a turn
    that wins at once or is *safe* -- does not end the game, and the opponent
    (placing value ``bq``) then has no turn that ends it with a win."""
    q = 1 - p
    safe = 0
    for d in range(NUM_DIRS):
        dest = totem_destination(brd, t, p, d)
        if dest < 0:
            continue
        n = placement_cells(brd, dest, scratch[0])
        for k in range(n):
            c = scratch[0, k]
            brd[c] = 1 if p == 0 else -1
            if _ends_game(brd, dest, q):
                good = _mover_wins(brd, dest, p, cell, c)
            else:
                good = ALL_PAIRS & ~_opponent_wins(brd, dest, p, bq, cell, c, scratch[1])
            brd[c] = 0
            for v in range(NUM_VALUES):
                if mine & (1 << v):
                    for v2 in range(NUM_VALUES):  # a value still in stock once v is placed
                        if stock[p, v2] - (1 if v2 == v else 0) > 0 and good & (1 << (NUM_VALUES * v + v2)):
                            safe |= 1 << v
                            break
            if safe == mine:
                return safe
    return safe


@njit(cache=True)
def _trapped_values(brd, t, p, stock, cell, mine, scratch, memo):
    """``p`` has just moved (totem on ``t``, its piece on ``cell``; the game
    goes on): bitmask of the values (among ``mine``) for which the opponent,
    placing its largest piece, has a turn that does not end the game and after
    which ``p`` has no winning or safe turn (the opponent's next piece being
    its largest left).

    ``memo[dest, c]`` (-1: unknown) keeps the safe values after the reply
    that takes the totem to ``dest`` and places on ``c``: the position then
    does not depend on where ``p``'s totem went, so the other turns of ``p``
    placing on ``cell`` reuse it.
    """
    q = 1 - p
    bq = _largest(stock[q], 0)
    if bq == 0 or mine == 0:
        return 0
    bq2 = _largest(stock[q], bq)
    every = 0  # all of p's values in stock, for the memo
    for v in range(NUM_VALUES):
        if stock[p, v] > 0:
            every |= 1 << v
    # Pruning (exact): a turn that ends the game leaves the totem on an empty
    # square with at most one empty neighbour before its placement.  If after
    # the opponent's reply no empty square has two or fewer, no turn of ``p``
    # can end the game and no answer of the opponent can either: every turn of
    # ``p`` is safe.  The reply fills at most one neighbour of each square.
    empties = scratch[1]
    tight = 0  # empty squares with two empty neighbours or fewer already
    tight_at = -1
    loose = 0  # ... with three
    for x in range(NUM_CELLS):
        empties[x] = _empty_neighbours(brd, x) if brd[x] == 0 else 99
        if empties[x] <= 2:
            tight += 1
            tight_at = x
        elif empties[x] == 3:
            loose += 1
    if tight == 0 and loose == 0:
        return 0
    trapped = 0
    for d in range(NUM_DIRS):
        dest = totem_destination(brd, t, q, d)
        if dest < 0:
            continue
        n = placement_cells(brd, dest, scratch[0])
        for k in range(n):
            c = scratch[0, k]
            crowded = tight > 1 or (tight == 1 and tight_at != c)
            for dd in range(NUM_DIRS):
                x = NEIGHBOUR[c, dd]
                crowded |= x >= 0 and empties[x] == 3
            if not crowded:
                continue
            if memo[dest, c] < 0:
                brd[c] = bq if q == 0 else -bq
                if _ends_game(brd, dest, p):
                    memo[dest, c] = every  # not a trap: the reply ends the game
                else:
                    memo[dest, c] = _safe_values(brd, dest, p, stock, cell, every, bq2, scratch[2:])
                brd[c] = 0
            trapped |= mine & ~memo[dest, c]
            if trapped == mine:
                return trapped
    return trapped


@batch_kernel(parallel_min_batch=16)  # ~0.1 ms per row: threads pay off on small batches
def _action_features_kernel(board, totem, stock, viewer, done, feats):
    """feats[b, :, a] for each legal action of ``viewer[b]`` (as the player to move).

    0: the move ends the game and the mover wins; 1: it ends the game without a
    win; 2: it does not end the game and the opponent then has a turn that ends
    it with the opponent winning; 3: none of 0-2, and the opponent has a turn
    after which the mover has no winning or safe turn (``_trapped_values``);
    4: the move is legal.  All 0 for other actions.  The opponent's pieces are
    its largest left.
    """
    B = board.shape[0]
    scratch = np.empty((B, 5, NUM_CELLS), dtype=np.int64)
    for b in prange(B):
        f = feats[b]
        f[:, :] = 0.0
        if done[b]:
            continue
        p = viewer[b]
        q = 1 - p
        brd = board[b].copy()
        t = totem[b]
        memo = np.full((NUM_CELLS, NUM_CELLS, NUM_CELLS), -1, dtype=np.int8)  # see _trapped_values
        mine = 0
        for v in range(NUM_VALUES):
            if stock[b, p, v] > 0:
                mine |= 1 << v
        bq = _largest(stock[b, q], 0)
        for d in range(NUM_DIRS):
            dest = totem_destination(brd, t, p, d)
            if dest < 0:
                continue
            n = placement_cells(brd, dest, scratch[b, 0])
            for k in range(n):
                cell = scratch[b, 0, k]
                brd[cell] = 1 if p == 0 else -1
                base = (d * NUM_CELLS + cell) * NUM_VALUES
                if _ends_game(brd, dest, q):
                    wins = _mover_wins(brd, dest, p, cell, -1)
                    brd[cell] = 0
                    for v in range(NUM_VALUES):
                        if mine & (1 << v):
                            f[LEGAL, base + v] = 1.0
                            f[0 if wins >> (NUM_VALUES * v) & 15 else 1, base + v] = 1.0
                    continue
                loses = _opponent_wins(brd, dest, p, bq, cell, -1, scratch[b, 1])
                safe = 0
                for v in range(NUM_VALUES):
                    if mine & (1 << v) and not loses >> (NUM_VALUES * v) & 15:
                        safe |= 1 << v
                trapped = _trapped_values(brd, dest, p, stock[b], cell, safe, scratch[b, 1:], memo[cell])
                brd[cell] = 0
                for v in range(NUM_VALUES):
                    if mine & (1 << v):
                        f[LEGAL, base + v] = 1.0
                        if loses >> (NUM_VALUES * v) & 15:
                            f[2, base + v] = 1.0
                        elif trapped & (1 << v):
                            f[3, base + v] = 1.0


# --- the state and the core ----------------------------------------------------
@dataclasses.dataclass
class YoxiiState(BatchState):
    board: np.ndarray  # (B, 37) int8: 0 empty, +v white piece of value v, -v red piece
    totem: np.ndarray  # (B,) int8 the totem's cell (its square holds 0 on ``board``)
    stock: np.ndarray  # (B, 2, 4) int8 pieces left per player and value


class YoxiiCore(GameCore):
    """Yoxii for two players; White (seat 0) moves first.

    Option ``action_features`` (default False): the observation becomes a flat
    vector, the 882 plane values followed by 5 lookahead features per action
    (see :meth:`observe`); the rules do not change.
    """

    spec = SPEC
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

    def action_to_string(self, action: int) -> str:
        d, cell, v = self.decode(action)
        r, c = CELL_RC[cell]
        return f"totem {DIRECTION_NAMES[d]}, place {v} on {'abcdefg'[c]}{7 - r}"

    # -- contract ---------------------------------------------------------------
    def init(self, seeds) -> YoxiiState:
        seeds = game_seeds(seeds, self.name)
        B = seeds.shape[0]
        return YoxiiState(
            current_player=np.zeros(B, np.int8),
            rewards=np.zeros((B, 2), np.float32),
            terminated=np.zeros(B, bool),
            truncated=np.zeros(B, bool),
            ply=np.zeros(B, np.int32),
            seed=seeds,
            board=np.zeros((B, NUM_CELLS), np.int8),
            totem=np.full(B, CENTRE, np.int8),
            stock=np.tile(np.array(STOCK, np.int8), (B, 2, 1)),
        )

    def _step(self, state: YoxiiState, actions) -> int:
        return _step_kernel(state.board, state.totem, state.stock, state.current_player,
                            state.rewards, state.terminated, state.ply, actions)

    def _mask(self, state: YoxiiState, out) -> None:
        _legal_mask_kernel(state.board, state.totem, state.stock, state.current_player,
                           state.done, out)

    def _observe(self, state: YoxiiState, seats, out) -> None:
        """Planes (7, 7, 18) float32 from seat ``seats[i]``'s side.

        0-3 own piece of value 1-4; 4-7 opponent piece of value 1-4; 8 totem;
        9 square exists; 10-13 own stock of value 1-4 / 5; 14-17 opponent's.

        With ``action_features=True``: a flat (882 + 5 * 1184,) vector, the
        planes flattened, then the (5, 1184) block of :meth:`action_features`
        (as if ``seats[i]`` were to move).
        """
        if not self.observation_ends_with_action_features:
            _observe_kernel(state.board, state.totem, state.stock, seats, out)
            return
        n, B = int(np.prod(self.planes_shape)), state.batch_size
        planes = np.empty((B, *self.planes_shape), dtype=np.float32)
        _observe_kernel(state.board, state.totem, state.stock, seats, planes)
        feats = np.empty((B, NUM_ACTION_FEATURES, NUM_ACTIONS), dtype=np.float32)
        _action_features_kernel(state.board, state.totem, state.stock, seats, state.done, feats)
        out[:, :n] = planes.reshape(B, n)
        out[:, n:] = feats.reshape(B, -1)

    def _action_features(self, state: YoxiiState, seats, out) -> None:
        """Lookahead facts about each action of seat ``seats[i]`` (as the player
        to move), computed by the rules; the opponent's pieces are its largest left:

        0 the move ends the game and the mover wins; 1 it ends the game in a
        draw or a loss; 2 it does not end the game and the opponent then has a
        turn that ends it with the opponent winning; 3 none of 0-2, and the
        opponent has a turn that does not end the game after which the mover
        has no turn that wins at once or is safe (none of 1-2); 4 the move is
        legal.  Zero for illegal actions and finished games.
        """
        _action_features_kernel(state.board, state.totem, state.stock, seats, state.done, out)

    def _heuristic(self, state: YoxiiState, seats, out) -> None:
        """Own minus opponent value around the totem (+0.1 per piece); ±1000 at the end."""
        _heuristic_kernel(state.board, state.totem, state.terminated, state.rewards, seats, out)

    def scores(self, state: YoxiiState) -> np.ndarray:
        """(B, 2, 2): per player, (sum, count) of own pieces around the totem."""
        self.check_state(state)
        return np.stack([adjacent_totals(state.board[b], state.totem[b])
                         for b in range(state.batch_size)])

    # -- rendering ----------------------------------------------------------------
    def render_ansi(self, state: YoxiiState, index: int = 0) -> str:
        self.check_state(state)
        grid = [["   "] * SIZE for _ in range(SIZE)]
        for c in range(NUM_CELLS):
            r, col = CELL_RC[c]
            x = int(state.board[index, c])
            grid[r][col] = f"W{x} " if x > 0 else f"R{-x} " if x < 0 else " . "
        r, col = CELL_RC[int(state.totem[index])]
        grid[r][col] = " T "
        lines = [f"{7 - r} " + "".join(row) for r, row in enumerate(grid)]
        lines.append("   " + "".join(f" {ch} " for ch in "abcdefg"))
        stock = state.stock[index]
        lines.append(f"stock white {list(stock[0])}  red {list(stock[1])}  (values 1-4)")
        if state.terminated[index]:
            w = np.flatnonzero(state.rewards[index] > 0)
            lines.append("game over: " + (PLAYER_NAMES[int(w[0])] + " wins" if w.size else "draw"))
        else:
            lines.append(f"{PLAYER_NAMES[int(state.current_player[index])]} to move")
        return "\n".join(lines)

    def render_rgb(self, state: YoxiiState, index: int = 0) -> np.ndarray:
        self.check_state(state)
        cell_px = 64
        img = draw.canvas(SIZE * cell_px, SIZE * cell_px, (60, 90, 60))
        for c in range(NUM_CELLS):
            r, col = CELL_RC[c]
            y0, x0 = r * cell_px, col * cell_px
            draw.rect(img, y0 + 2, x0 + 2, y0 + cell_px - 2, x0 + cell_px - 2, (222, 196, 150))
            cy, cx = y0 + cell_px / 2, x0 + cell_px / 2
            x = int(state.board[index, c])
            if x != 0:
                body, ink = ((250, 250, 245), (40, 40, 40)) if x > 0 else ((190, 40, 40), (250, 230, 230))
                draw.disc(img, cy, cx, cell_px * 0.4, body)
                draw.ring(img, cy, cx, cell_px * 0.4, (30, 30, 30), 2)
                draw.pips(img, cy, cx, abs(x), cell_px * 0.06, ink)
        r, col = CELL_RC[int(state.totem[index])]
        cy, cx = r * cell_px + cell_px / 2, col * cell_px + cell_px / 2
        draw.disc(img, cy, cx, cell_px * 0.42, (40, 160, 70))
        draw.disc(img, cy, cx, cell_px * 0.15, (230, 240, 120))
        return img
