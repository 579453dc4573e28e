"""Yin Yang Koi's board and rules as numba kernels.

The rules implemented here are specified in ``seeds/koi.md`` (section numbers
in the comments, e.g. "spec 4.2", point there).  In short: two families of five
koi on an N x N board whose edges wrap (a torus) with the Taiji on the centre
point.  A move sends one of the mover's koi straight along a direction until
the point before the first block; fry of the mover's family are laid on the
start point and on every point swum over (opposing fry there are flipped), and
an opposing fry on the final point is eaten.  Reaching ``win_fry`` fry wins; a
player with no legal move at the start of their turn loses.

State layout (one row per game; ``P = N * N`` points, point ``p = r * N + c``,
row 0 at the top, north is row - 1, both axes wrap)::

    9 x 9 board index (Taiji on 40)
         c=0  1  2  3  4  5  6  7  8
    r=0    0  1  2  3  4  5  6  7  8
    r=1    9 10 11 12 13 14 15 16 17
    r=2   18 19 20 21 22 23 24 25 26
    r=3   27 28 29 30 31 32 33 34 35
    r=4   36 37 38 39 40 41 42 43 44
    r=5   45 46 47 48 49 50 51 52 53
    r=6   54 55 56 57 58 59 60 61 62
    r=7   63 64 65 66 67 68 69 70 71
    r=8   72 73 74 75 76 77 78 79 80

    board  (B, P)    int8   EMPTY 0, YIN_FRY 1, YANG_FRY 2, YIN_KOI 3,
                            YANG_KOI 4, TAIJI 5   (fry of seat s = 1 + s,
                            koi of seat s = 3 + s)
    koi    (B, 2, 5) int16  point of koi slot k of seat s; -1 = not placed yet
    fry    (B, 2)    int16  fry of each seat on the board (== board counts)
    phase  (B,)      int8   0 = set-up (placing koi), 1 = play
    winner (B,)      int8   seat that won; -1 while running, after a
                            truncation, or never decided

Actions (``A = P + 5 * D``): ``0 .. P-1`` place a koi on that point (set-up
only); ``P + k * D + d`` swims koi slot ``k`` in direction ``d`` (D = 8: N, NE,
E, SE, S, SW, W, NW; D = 4: N, E, S, W).
"""
from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit, prange

from yyenvs.core.kernels import batch_kernel, block_rows, num_blocks

EMPTY, YIN_FRY, YANG_FRY, YIN_KOI, YANG_KOI, TAIJI = 0, 1, 2, 3, 4, 5
NUM_KOI = 5
SETUP, PLAY = 0, 1
DIR_VECTORS = {
    8: ((-1, 0), (-1, 1), (0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1)),
    4: ((-1, 0), (0, 1), (1, 0), (0, -1)),
}
NUM_PLANES = 14  # observation planes (N, N, NUM_PLANES); see ``KoiCore._observe``


# --- geometry ------------------------------------------------------------------
def ray_table(n: int, directions: int) -> np.ndarray:
    """(N*N, D, N-1) int32: the points after p along direction d, in order,
    wrapping on both axes (spec 2); the next step after the last is p again."""
    table = np.empty((n * n, directions, n - 1), dtype=np.int32)
    for p in range(n * n):
        r, c = divmod(p, n)
        for d, (dr, dc) in enumerate(DIR_VECTORS[directions]):
            for i in range(1, n):
                table[p, d, i - 1] = ((r + i * dr) % n) * n + (c + i * dc) % n
    return table


#: Yin's quick-start koi 0..4 as (row, column) steps from the Taiji in the "spread" layout (spec 3.2);
#: chosen because neither family wins by force within Yin's first four swims on the 7 x 7 pond
SPREAD_OFFSETS = ((-2, 1), (-1, 3), (0, -2), (0, 3), (2, 1))
SPREAD_MIN_SIZE = 7  # the smallest pond the spread layout fits without two koi on one point


def quick_start_points(n: int, layout: str = "spread") -> tuple[list[int], list[int]]:
    """The quick-start points of Yin's and Yang's koi 0..4 (spec 3.2).

    ``"spread"``: Yin's koi k at the Taiji plus ``SPREAD_OFFSETS[k]``.  ``"row"`` (environment
    version 0): Yin in row N//2 - 2, columns k*(N-1)//4.  Yang's koi k: the 180-degree image
    (N-1-r, N-1-c) of Yin's koi k in both.
    """
    if layout == "spread":
        c = n // 2
        yin = [(c + dr) * n + c + dc for dr, dc in SPREAD_OFFSETS]
    else:
        r = n // 2 - 2
        yin = [r * n + k * (n - 1) // 4 for k in range(NUM_KOI)]
    yang = [n * n - 1 - p for p in yin]
    return yin, yang


# --- rules (row ``b`` of the batch arrays) -------------------------------------
@njit(cache=True, inline="always")
def swim_end(board, b, s, d, rays, me):
    """The final point of a swim from ``s`` in direction ``d`` by seat ``me``,
    or -1 when the swim is illegal (spec 4.2 - 4.5).

    ``rays[s, d]`` lists the N - 1 points after ``s`` along direction ``d``
    (wrapping).  The first block (Taiji, own koi, own fry) stops the koi on
    the point before it; an opposing koi met first makes the move illegal
    (touch); a block on the very first point leaves no point to stop on;
    N - 1 points without a block mean the ray comes back to its (vacated)
    start point without meeting one.
    """
    own_koi = YIN_KOI + me
    own_fry = YIN_FRY + me
    opp_koi = YANG_KOI - me
    last = -1
    for i in range(rays.shape[2]):
        q = rays[s, d, i]
        v = board[b, q]
        if v == TAIJI or v == own_koi or v == own_fry:
            return last
        if v == opp_koi:
            return -1
        last = q
    return -1


@njit(cache=True)
def count_swims(board, koi, b, me, rays, num_dirs, stop_at_first):
    """The legal swims of seat ``me`` in row ``b`` (at most 1 with ``stop_at_first``)."""
    count = 0
    for k in range(5):
        s = koi[b, me, k]
        if s < 0:
            continue
        for d in range(num_dirs):
            if swim_end(board, b, s, d, rays, me) >= 0:
                count += 1
                if stop_at_first:
                    return count
    return count


# --- batch kernels (loop over the rows) ----------------------------------------
#: a batch's arrays as the kernels name them (``KoiState``'s fields of the same names); the entry
#: kernels take them as a plain tuple (``state.arrays(KoiArrays)``) and the rules as ``tuple(KoiRules)``
KoiArrays = namedtuple("KoiArrays", "board koi fry phase current_player rewards terminated truncated ply winner")
#: what the kernels need of a core: the rays of its pond, its size and directions, its thresholds
KoiRules = namedtuple("KoiRules", "rays n num_dirs win_fry max_plies")


@batch_kernel
def mask_kernel(arrays, rule_values, out):
    """Fill every entry of ``out`` (B, A) (it may come uninitialised)."""
    state, rules = KoiArrays(*arrays), KoiRules(*rule_values)
    board, koi, phase, cur = state.board, state.koi, state.phase, state.current_player
    terminated, truncated = state.terminated, state.truncated
    rays, num_dirs = rules.rays, rules.num_dirs
    nb = board.shape[0]
    npts = rules.n * rules.n
    for b in prange(nb):
        out[b, :] = False
        if terminated[b] or truncated[b]:
            continue
        if phase[b] == SETUP:
            for p in range(npts):
                out[b, p] = board[b, p] == EMPTY
        else:
            me = np.int64(cur[b])
            for k in range(5):
                s = koi[b, me, k]
                base = npts + k * num_dirs
                for d in range(num_dirs):
                    out[b, base + d] = swim_end(board, b, s, d, rays, me) >= 0


@njit(cache=True)
def _check_rows(state, rules, actions, lo, hi, illegal):
    """Whether each action of rows lo..hi-1 is illegal (spec 3.1, 4.3 - 4.5); -1 is no action."""
    board, koi, phase, cur = state.board, state.koi, state.phase, state.current_player
    rays, num_dirs, npts = rules.rays, rules.num_dirs, rules.n * rules.n
    for b in range(lo, hi):
        a = actions[b]
        if a < 0:
            illegal[b] = False
        elif phase[b] == SETUP:
            illegal[b] = not (a < npts and board[b, a] == EMPTY)
        elif a < npts:
            illegal[b] = True
        else:
            me = np.int64(cur[b])
            k, d = (a - npts) // num_dirs, (a - npts) % num_dirs
            illegal[b] = swim_end(board, b, koi[b, me, k], d, rays, me) < 0


@njit(cache=True)
def _step_rows(state, rules, actions, lo, hi):
    """Play the legal actions of rows lo..hi-1 (none where -1): a set-up placement or a swim, then
    the turn passes and the game may end.  The arrays are taken out of the tuples once: reading
    a tuple's field in the loop costs about as much as the step."""
    board, koi, fry, phase, cur = state.board, state.koi, state.fry, state.phase, state.current_player
    rewards, terminated, truncated, ply, winner = (state.rewards, state.terminated, state.truncated,
                                                   state.ply, state.winner)
    rays, n, num_dirs, win_fry, max_plies = rules.rays, rules.n, rules.num_dirs, rules.win_fry, rules.max_plies
    npts = n * n
    for b in range(lo, hi):
        rewards[b, 0] = 0.0
        rewards[b, 1] = 0.0
        a = actions[b]
        if a < 0:
            continue
        me = np.int64(cur[b])
        opp = 1 - me
        own_fry = YIN_FRY + me
        opp_fry = YANG_FRY - me
        if phase[b] == SETUP:  # spec 3.1: place the mover's next koi
            board[b, a] = YIN_KOI + me
            for k in range(5):
                if koi[b, me, k] < 0:
                    koi[b, me, k] = a
                    break
            if koi[b, 0, 4] >= 0 and koi[b, 1, 4] >= 0:
                phase[b] = PLAY
        else:
            k = (a - npts) // num_dirs
            d = (a - npts) % num_dirs
            s = koi[b, me, k]
            end = swim_end(board, b, s, d, rays, me)
            # spec 5: fry on the start point, spawn / flip on the way, eat at the end
            board[b, s] = own_fry
            gained = 1
            for i in range(rays.shape[2]):
                p = rays[s, d, i]
                if p == end:
                    break
                if board[b, p] == opp_fry:
                    fry[b, opp] -= 1
                board[b, p] = own_fry
                gained += 1
            if board[b, end] == opp_fry:
                fry[b, opp] -= 1
            board[b, end] = YIN_KOI + me
            koi[b, me, k] = end
            fry[b, me] += gained
        ply[b] += 1
        cur[b] = opp
        # spec 6: the win at the threshold, then the loss of a player with no move
        if phase[b] == PLAY and (fry[b, me] >= win_fry
                              or count_swims(board, koi, b, opp, rays, num_dirs, True) == 0):
            terminated[b] = True
            winner[b] = me
            rewards[b, me] = 1.0
            rewards[b, opp] = -1.0
        if not terminated[b] and ply[b] >= max_plies:
            truncated[b] = True


@batch_kernel
def step_kernel(arrays, rule_values, actions):
    """Apply one action per row in place; returns the first illegal row or -1
    (then nothing has been changed).
    The parallel loops run over blocks of rows, each block a call (see yyenvs.core.kernels on
    named tuples: the writes must happen inside a called function)."""
    state, rules = KoiArrays(*arrays), KoiRules(*rule_values)
    nb = actions.shape[0]
    illegal = np.zeros(nb, dtype=np.bool_)
    for k in prange(num_blocks(nb)):  # validate every row before touching any
        lo, hi = block_rows(k, nb)
        _check_rows(state, rules, actions, lo, hi, illegal)
    for b in range(nb):
        if illegal[b]:
            return b
    for k in prange(num_blocks(nb)):
        lo, hi = block_rows(k, nb)
        _step_rows(state, rules, actions, lo, hi)
    return -1


@batch_kernel
def observe_kernel(arrays, rule_values, player, out):
    """Fill every entry of ``out`` (B, N*N, C) (it may come uninitialised)."""
    state, rules = KoiArrays(*arrays), KoiRules(*rule_values)
    board, koi, fry, phase, ply = state.board, state.koi, state.fry, state.phase, state.ply
    win_fry, max_plies = np.float64(rules.win_fry), np.float64(rules.max_plies)
    nb = board.shape[0]
    npts = board.shape[1]
    for b in prange(nb):
        me = np.int64(player[b])
        opp = 1 - me
        own_koi = YIN_KOI + me
        opp_koi = YANG_KOI - me
        own_fry = YIN_FRY + me
        opp_fry = YANG_FRY - me
        setup = np.float32(1.0 if phase[b] == SETUP else 0.0)
        own = np.float32(min(fry[b, me] / win_fry, 1.0))
        oth = np.float32(min(fry[b, opp] / win_fry, 1.0))
        pl = np.float32(min(ply[b] / max_plies, 1.0))
        for p in range(npts):
            v = board[b, p]
            out[b, p, 0] = 1.0 if v == own_koi else 0.0
            out[b, p, 1] = 1.0 if v == opp_koi else 0.0
            out[b, p, 2] = 1.0 if v == own_fry else 0.0
            out[b, p, 3] = 1.0 if v == opp_fry else 0.0
            out[b, p, 4] = 1.0 if v == TAIJI else 0.0
            for k in range(5):
                out[b, p, 5 + k] = 0.0
            out[b, p, 10] = setup
            out[b, p, 11] = own
            out[b, p, 12] = oth
            out[b, p, 13] = pl
        for k in range(5):
            s = koi[b, me, k]
            if s >= 0:
                out[b, s, 5 + k] = 1.0


@batch_kernel
def heuristic_kernel(arrays, rule_values, player, mobility_weight, out):
    """``out[b]``: row b's value for seat ``player[b]`` (fry, mobility, the result once over)."""
    state, rules = KoiArrays(*arrays), KoiRules(*rule_values)
    board, koi, fry, terminated, truncated, winner = (state.board, state.koi, state.fry, state.terminated,
                                                      state.truncated, state.winner)
    rays, num_dirs = rules.rays, rules.num_dirs
    nb = board.shape[0]
    for b in prange(nb):
        me = np.int64(player[b])
        opp = 1 - me
        if terminated[b]:
            if winner[b] == me:
                out[b] = 1000.0
            elif winner[b] == opp:
                out[b] = -1000.0
            else:
                out[b] = 0.0
            continue
        if truncated[b]:
            out[b] = 0.0
            continue
        mine = count_swims(board, koi, b, me, rays, num_dirs, False)
        theirs = count_swims(board, koi, b, opp, rays, num_dirs, False)
        out[b] = (fry[b, me] - fry[b, opp]) + mobility_weight * (mine - theirs)
