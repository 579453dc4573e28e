"""Yin Yang Koi: the batched game core.

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

import dataclasses
from typing import Any

import numpy as np
from numba import njit, prange

from yyenvs.core import draw
from yyenvs.core.contract import BatchState, GameCore, IllegalActionError, OptionError, show
from yyenvs.core.kernels import batch_kernel
from yyenvs.core.rng import game_seeds
from yyenvs.games.koi.spec import PLY_MAX, SPEC

EMPTY, YIN_FRY, YANG_FRY, YIN_KOI, YANG_KOI, TAIJI = 0, 1, 2, 3, 4, 5
NUM_KOI = 5
SETUP, PLAY = 0, 1

DIR_NAMES = {8: ("N", "NE", "E", "SE", "S", "SW", "W", "NW"), 4: ("N", "E", "S", "W")}
DIR_VECTORS = {
    8: ((-1, 0), (-1, 1), (0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1)),
    4: ((-1, 0), (0, 1), (1, 0), (0, -1)),
}

# observation planes (N, N, C)
OBS_OWN_KOI, OBS_OPP_KOI, OBS_OWN_FRY, OBS_OPP_FRY, OBS_TAIJI = 0, 1, 2, 3, 4
OBS_SLOT0 = 5  # planes 5..9: own koi slot k (one-hot per slot)
OBS_SETUP = 10  # 1 everywhere during set-up
OBS_OWN_COUNT = 11  # min(own fry / win_fry, 1) everywhere
OBS_OPP_COUNT = 12  # min(opponent fry / win_fry, 1) everywhere
OBS_PLY = 13  # min(ply / max_plies, 1) everywhere
NUM_PLANES = 14


# --------------------------------------------------------------------------
# geometry
# --------------------------------------------------------------------------
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


def quick_start_points(n: int) -> tuple[list[int], list[int]]:
    """The quick-start points of Yin's and Yang's koi 0..4 (spec 3.2).

    Yin: row N//2 - 2, columns k*(N-1)//4.  Yang's koi k: the 180-degree
    image (N-1-r, N-1-c) of Yin's koi k.
    """
    r = n // 2 - 2
    yin = [r * n + k * (n - 1) // 4 for k in range(NUM_KOI)]
    yang = [n * n - 1 - p for p in yin]
    return yin, yang


def point_name(p: int, n: int) -> str:
    """Column letter (a = column 0) and row number (1 = top row): "c4"."""
    r, c = divmod(int(p), n)
    return f"{chr(ord('a') + c)}{r + 1}"


# --------------------------------------------------------------------------
# numba kernels (one row at a time, looped over the batch)
# --------------------------------------------------------------------------
@njit(cache=True, inline="always")
def _swim_end(board, b, s, d, rays, me):
    """The final point of a swim from ``s`` in direction ``d`` by seat ``me``,
    or -1 when the swim is illegal (spec 4.2 - 4.5).

    ``rays[s, d]`` lists the N - 1 points after ``s`` along direction ``d``
    (wrapping).  The first block (Taiji, own koi, own fry) stops the koi on
    the point before it; an opposing koi met first makes the move illegal
    (touch); a block on the very first point leaves no point to stop on;
    N - 1 points without a block mean the ray comes back to its (vacated)
    start point without meeting one.
    """
    own_koi = 3 + me
    own_fry = 1 + me
    opp_koi = 4 - me
    last = -1
    for i in range(rays.shape[2]):
        q = rays[s, d, i]
        v = board[b, q]
        if v == 5 or v == own_koi or v == own_fry:
            return last
        if v == opp_koi:
            return -1
        last = q
    return -1


@njit(cache=True)
def _count_moves(board, koi, b, me, rays, n, num_dirs, stop_at_first):
    count = 0
    for k in range(5):
        s = koi[b, me, k]
        if s < 0:
            continue
        for d in range(num_dirs):
            if _swim_end(board, b, s, d, rays, me) >= 0:
                count += 1
                if stop_at_first:
                    return count
    return count


@batch_kernel
def _mask_kernel(board, koi, phase, cur, done, rays, n, num_dirs, out):
    """Fill every entry of ``out`` (B, A) (it may come uninitialised)."""
    nb = board.shape[0]
    npts = n * n
    for b in prange(nb):
        out[b, :] = False
        if done[b]:
            continue
        if phase[b] == 0:
            for p in range(npts):
                out[b, p] = board[b, p] == 0
        else:
            me = np.int64(cur[b])
            for k in range(5):
                s = koi[b, me, k]
                base = npts + k * num_dirs
                for d in range(num_dirs):
                    out[b, base + d] = _swim_end(board, b, s, d, rays, me) >= 0


@njit(cache=True)
def _is_legal(board, koi, phase, cur, b, a, rays, npts, num_dirs):
    """Whether action ``a`` is legal in row ``b`` (spec 3.1, 4.3 - 4.5)."""
    if phase[b] == 0:
        return a < npts and board[b, a] == 0
    if a < npts:
        return False
    me = np.int64(cur[b])
    k = (a - npts) // num_dirs
    d = (a - npts) % num_dirs
    return _swim_end(board, b, koi[b, me, k], d, rays, me) >= 0


@batch_kernel
def _step_kernel(board, koi, fry, phase, cur, rewards, terminated, truncated, ply,
                 winner, actions, rays, n, num_dirs, win_fry, max_plies):
    """Apply one action per row in place; returns the first illegal row or -1
    (then nothing has been changed)."""
    nb = board.shape[0]
    npts = n * n
    illegal = np.zeros(nb, dtype=np.bool_)
    for b in prange(nb):  # validate every row before touching any
        a = actions[b]
        illegal[b] = a >= 0 and not _is_legal(board, koi, phase, cur, b, a, rays, npts, num_dirs)
    for b in range(nb):
        if illegal[b]:
            return b
    for b in prange(nb):
        rewards[b, 0] = 0.0
        rewards[b, 1] = 0.0
        a = actions[b]
        if a < 0:
            continue
        me = np.int64(cur[b])
        opp = 1 - me
        own_fry = 1 + me
        opp_fry = 2 - me
        if phase[b] == 0:
            # spec 3.1: place the mover's next koi
            board[b, a] = 3 + me
            for k in range(5):
                if koi[b, me, k] < 0:
                    koi[b, me, k] = a
                    break
            if koi[b, 0, 4] >= 0 and koi[b, 1, 4] >= 0:
                phase[b] = 1
        else:
            k = (a - npts) // num_dirs
            d = (a - npts) % num_dirs
            s = koi[b, me, k]
            end = _swim_end(board, b, s, d, rays, me)
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
            board[b, end] = 3 + me
            koi[b, me, k] = end
            fry[b, me] += gained
        ply[b] += 1
        cur[b] = opp
        # spec 6: the win at the threshold, then the loss of a player with no move
        if phase[b] == 1 and (fry[b, me] >= win_fry
                              or _count_moves(board, koi, b, opp, rays, n, num_dirs, True) == 0):
            terminated[b] = True
            winner[b] = me
            rewards[b, me] = 1.0
            rewards[b, opp] = -1.0
        if not terminated[b] and ply[b] >= max_plies:
            truncated[b] = True
    return -1


@batch_kernel
def _observe_kernel(board, koi, fry, phase, ply, player, win_fry, max_plies, out):
    """Fill every entry of ``out`` (B, N*N, C) (it may come uninitialised)."""
    nb = board.shape[0]
    npts = board.shape[1]
    for b in prange(nb):
        me = np.int64(player[b])
        opp = 1 - me
        own_koi = 3 + me
        opp_koi = 4 - me
        own_fry = 1 + me
        opp_fry = 2 - me
        setup = np.float32(1.0 if phase[b] == 0 else 0.0)
        own = np.float32(min(fry[b, me] / win_fry, 1.0))
        oth = np.float32(min(fry[b, opp] / win_fry, 1.0))
        pl = np.float32(min(ply[b] / max_plies, 1.0))
        for p in range(npts):
            v = board[b, p]
            out[b, p, 0] = 1.0 if v == own_koi else 0.0
            out[b, p, 1] = 1.0 if v == opp_koi else 0.0
            out[b, p, 2] = 1.0 if v == own_fry else 0.0
            out[b, p, 3] = 1.0 if v == opp_fry else 0.0
            out[b, p, 4] = 1.0 if v == 5 else 0.0
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
def _heuristic_kernel(board, koi, fry, phase, terminated, truncated, winner, player,
                      rays, n, num_dirs, mobility_weight, out):
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
        mine = _count_moves(board, koi, b, me, rays, n, num_dirs, False)
        theirs = _count_moves(board, koi, b, opp, rays, n, num_dirs, False)
        out[b] = (fry[b, me] - fry[b, opp]) + mobility_weight * (mine - theirs)


# --------------------------------------------------------------------------
# state and core
# --------------------------------------------------------------------------
@dataclasses.dataclass
class KoiState(BatchState):
    board: np.ndarray  # (B, N*N) int8   see the module docstring for codes and index
    koi: np.ndarray  # (B, 2, 5) int16  point of each koi slot per seat, -1 = unplaced
    fry: np.ndarray  # (B, 2) int16     fry on the board per seat
    phase: np.ndarray  # (B,) int8      0 set-up, 1 play
    winner: np.ndarray  # (B,) int8     winning seat, -1 none


class KoiCore(GameCore):
    """Yin Yang Koi (spec: ``seeds/koi.md``)."""

    spec = SPEC
    mobility_weight: float = 0.1

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        o = self.options
        n, d, w, m = o["board_size"], o["directions"], o["win_fry"], o["max_plies"]
        most = n * n - 1 - 2 * NUM_KOI
        if w > most:
            raise OptionError(
                f"koi: option win_fry must be an integer from 14 to {most} (the free points of a "
                f"{n}x{n} board), got {show(w)}")
        self.board_size = n
        self.num_points = n * n
        self.num_dirs = d
        self.quick_start = o["quick_start"]
        self.win_fry = w
        self.max_plies = m
        self.taiji = (n // 2) * n + n // 2
        self.rays = ray_table(n, d)
        self.num_players = 2
        self.num_actions = n * n + NUM_KOI * d
        self.observation_shape = (n, n, NUM_PLANES)
        self.max_game_length = m

    # -- naming -----------------------------------------------------------
    def player_names(self) -> list[str]:
        return ["yin", "yang"]

    def action_to_string(self, action: int) -> str:
        a = int(action)
        if a < 0 or a >= self.num_actions:
            return f"invalid({a})"
        if a < self.num_points:
            return f"place {point_name(a, self.board_size)}"
        k, d = divmod(a - self.num_points, self.num_dirs)
        return f"koi{k} {DIR_NAMES[self.num_dirs][d]}"

    def string_to_action(self, text: str) -> int:
        """Inverse of :meth:`action_to_string` ("place c4", "koi2 NE")."""
        parts = text.strip().split()
        if len(parts) == 2 and parts[0] == "place":
            name = parts[1]
            c = ord(name[0]) - ord("a")
            r = int(name[1:]) - 1
            if 0 <= r < self.board_size and 0 <= c < self.board_size:
                return r * self.board_size + c
        elif len(parts) == 2 and parts[0].startswith("koi") and parts[0][3:].isdigit():
            k = int(parts[0][3:])
            names = DIR_NAMES[self.num_dirs]
            if 0 <= k < NUM_KOI and parts[1] in names:
                return self.num_points + k * self.num_dirs + names.index(parts[1])
        raise IllegalActionError(f"koi: cannot read action {show(text)}")

    # -- batched functions --------------------------------------------------
    def init(self, seeds: np.ndarray) -> KoiState:
        seeds = game_seeds(seeds, self.name)
        b = seeds.shape[0]
        board = np.zeros((b, self.num_points), dtype=np.int8)
        board[:, self.taiji] = TAIJI
        koi = np.full((b, 2, NUM_KOI), -1, dtype=np.int16)
        phase = np.zeros(b, dtype=np.int8)
        if self.quick_start:
            yin, yang = quick_start_points(self.board_size)
            koi[:, 0] = yin
            koi[:, 1] = yang
            board[:, yin] = YIN_KOI
            board[:, yang] = YANG_KOI
            phase[:] = PLAY
        return KoiState(
            current_player=np.zeros(b, dtype=np.int8),
            rewards=np.zeros((b, 2), dtype=np.float32),
            terminated=np.zeros(b, dtype=bool),
            truncated=np.zeros(b, dtype=bool),
            ply=np.zeros(b, dtype=np.int32),
            seed=seeds,
            board=board,
            koi=koi,
            fry=np.zeros((b, 2), dtype=np.int16),
            phase=phase,
            winner=np.full(b, -1, dtype=np.int8),
        )

    def _step(self, state: KoiState, actions) -> int:
        return _step_kernel(state.board, state.koi, state.fry, state.phase, state.current_player,
                            state.rewards, state.terminated, state.truncated, state.ply,
                            state.winner, actions, self.rays, self.board_size, self.num_dirs,
                            self.win_fry, self.max_plies)

    def _mask(self, state: KoiState, out) -> None:
        _mask_kernel(state.board, state.koi, state.phase, state.current_player, state.done,
                     self.rays, self.board_size, self.num_dirs, out)

    def _observe(self, state: KoiState, seats, out) -> None:
        """Planes (N, N, 14) float32 from seat ``seats[i]``'s side (spec 9).

        0 own koi, 1 opposing koi, 2 own fry, 3 opposing fry, 4 Taiji,
        5-9 own koi slot 0-4, 10 set-up phase, 11 own fry / win_fry,
        12 opposing fry / win_fry, 13 ply / max_plies (11-13 capped at 1).
        """
        n = self.board_size
        _observe_kernel(state.board, state.koi, state.fry, state.phase, state.ply, seats,
                        float(self.win_fry), float(self.max_plies),
                        out.reshape(state.batch_size, n * n, NUM_PLANES))

    def _heuristic(self, state: KoiState, seats, out) -> None:
        """Fry difference plus ``mobility_weight`` times the difference in legal
        swims, from seat ``seats[i]``'s side; +-1000 for a decided game, 0 for
        a truncated one."""
        _heuristic_kernel(state.board, state.koi, state.fry, state.phase, state.terminated,
                          state.truncated, state.winner, seats, self.rays,
                          self.board_size, self.num_dirs, float(self.mobility_weight), out)

    def count_moves(self, state: KoiState, player) -> np.ndarray:
        """(B,) number of legal swims seat player[i] would have in row i."""
        self.check_state(state)
        player = self.seats(state, player)
        return np.array([_count_moves(state.board, state.koi, b, int(player[b]), self.rays,
                                      self.board_size, self.num_dirs, False)
                         for b in range(state.batch_size)], dtype=np.int64)

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
        n = self.board_size
        rows = [line.split() for line in text.strip().splitlines() if line.strip()]
        if len(rows) != n or any(len(r) != n for r in rows):
            raise ValueError(f"koi: a text board needs {n} lines of {n} tokens")
        if ply is not None:
            if (isinstance(ply, (bool, np.bool_)) or not isinstance(ply, (int, np.integer))
                    or not 0 <= ply <= PLY_MAX):
                raise ValueError(f"koi: ply must be an integer from 0 to {PLY_MAX}, got {show(ply)}")
            ply = int(ply)
        state = self.init(np.zeros(1, dtype=np.uint64))
        board = state.board[0]
        board[:] = EMPTY
        slots: list[list[int | None]] = [[None] * NUM_KOI, [None] * NUM_KOI]
        loose: list[list[int]] = [[], []]
        for r, row in enumerate(rows):
            for c, tok in enumerate(row):
                p = r * n + c
                if tok == ".":
                    continue
                if tok == "T":
                    board[p] = TAIJI
                elif tok in ("y", "g"):
                    board[p] = YIN_FRY if tok == "y" else YANG_FRY
                elif tok[0] in "YG" and (len(tok) == 1 or (len(tok) == 2 and tok[1] in "01234")):
                    seat = 0 if tok[0] == "Y" else 1
                    board[p] = YIN_KOI + seat
                    if len(tok) == 2:
                        k = int(tok[1])
                        if slots[seat][k] is not None:
                            raise ValueError(f"koi: slot {tok} used twice")
                        slots[seat][k] = p
                    else:
                        loose[seat].append(p)
                else:
                    raise ValueError(f"koi: unknown token {show(tok)}")
        if board[self.taiji] != TAIJI or int((board == TAIJI).sum()) != 1:
            raise ValueError("koi: the board needs exactly one T, on the centre point")
        for seat in range(2):
            for p in loose[seat]:
                free = [k for k in range(NUM_KOI) if slots[seat][k] is None]
                if not free:
                    raise ValueError("koi: more than five koi in a family")
                slots[seat][free[0]] = p
            for k, p in enumerate(slots[seat]):
                state.koi[0, seat, k] = -1 if p is None else p
        placed = [sum(p is not None for p in slots[s]) for s in range(2)]
        state.fry[0] = [(board == YIN_FRY).sum(), (board == YANG_FRY).sum()]
        if placed == [NUM_KOI, NUM_KOI]:
            state.phase[0] = PLAY
            state.current_player[0] = self.seats(state, player)[0]
            state.ply[0] = 2 * NUM_KOI if ply is None else ply
        else:
            if placed[0] - placed[1] not in (0, 1) or any(
                    slots[s][k] is None and slots[s][k + 1] is not None
                    for s in range(2) for k in range(NUM_KOI - 1)):
                raise ValueError("koi: not a reachable set-up position")
            if state.fry[0].any():
                raise ValueError("koi: no fry during set-up")
            state.phase[0] = SETUP
            state.current_player[0] = placed[0] - placed[1]
            state.ply[0] = sum(placed) if ply is None else ply
        return state

    def to_text(self, state: KoiState, index: int = 0) -> str:
        """The text board of row ``index`` in the format of :meth:`from_text`."""
        self.check_state(state)
        n = self.board_size
        board = state.board[index]
        slot = {}
        for seat in range(2):
            for k in range(NUM_KOI):
                p = int(state.koi[index, seat, k])
                if p >= 0:
                    slot[p] = k
        lines = []
        for r in range(n):
            toks = []
            for c in range(n):
                p = r * n + c
                v = int(board[p])
                if v in (YIN_KOI, YANG_KOI):
                    toks.append(("Y" if v == YIN_KOI else "G") + str(slot.get(p, "?")))
                else:
                    toks.append({EMPTY: ".", YIN_FRY: "y", YANG_FRY: "g", TAIJI: "T"}[v])
            lines.append(" ".join(f"{t:<2}" for t in toks).rstrip())
        return "\n".join(lines)

    # -- rendering --------------------------------------------------------------
    def render_ansi(self, state: KoiState, index: int = 0) -> str:
        self.check_state(state)
        n = self.board_size
        body = self.to_text(state, index).splitlines()
        head = "    " + " ".join(f"{chr(ord('a') + c):<2}" for c in range(n))
        lines = [head.rstrip()] + [f"{r + 1:>2}  {line}" for r, line in enumerate(body)]
        seat = int(state.current_player[index])
        if state.terminated[index]:
            w = int(state.winner[index])
            status = f"game over: {self.player_names()[w]} wins" if w >= 0 else "game over"
        elif state.truncated[index]:
            status = "game stopped at the ply cap (no result)"
        else:
            phase = "set-up" if state.phase[index] == SETUP else "play"
            status = f"{self.player_names()[seat]} to move ({phase})"
        lines.append(f"{status}; ply {int(state.ply[index])}; fry yin {int(state.fry[index, 0])}, "
                     f"yang {int(state.fry[index, 1])} (win at {self.win_fry})")
        return "\n".join(lines)

    def render_rgb(self, state: KoiState, index: int = 0) -> np.ndarray:
        self.check_state(state)
        n = self.board_size
        cell = max(24, min(56, 480 // n))
        margin = cell // 2
        size = n * cell + 2 * margin
        img = draw.canvas(size, size, (70, 130, 180))  # pond water
        grid = (110, 165, 210)
        for i in range(n):
            mid = margin + i * cell + cell // 2
            draw.rect(img, mid, margin, mid + 1, size - margin, grid)
            draw.rect(img, margin, mid, size - margin, mid + 1, grid)
        draw.frame(img, margin - 2, margin - 2, size - margin + 2, size - margin + 2, (40, 80, 120), 2)
        yin_col, yang_col = (25, 25, 35), (245, 245, 240)
        slot = {}
        for seat in range(2):
            for k in range(NUM_KOI):
                p = int(state.koi[index, seat, k])
                if p >= 0:
                    slot[p] = k
        for p in range(n * n):
            v = int(state.board[index, p])
            r, c = divmod(p, n)
            cy = margin + r * cell + cell / 2
            cx = margin + c * cell + cell / 2
            rad = cell * 0.42
            if v == TAIJI:
                _taiji(img, cy, cx, rad, yin_col, yang_col)
            elif v in (YIN_KOI, YANG_KOI):
                body, mark = (yin_col, yang_col) if v == YIN_KOI else (yang_col, yin_col)
                draw.disc(img, cy, cx, rad, (200, 60, 40))  # koi-red rim
                draw.disc(img, cy, cx, rad - 3, body)
                draw.pips(img, cy, cx, slot.get(p, 0) + 1, max(1.5, cell * 0.05), mark)
            elif v in (YIN_FRY, YANG_FRY):
                col = yin_col if v == YIN_FRY else yang_col
                draw.disc(img, cy, cx, cell * 0.18, (40, 80, 120))
                draw.disc(img, cy, cx, cell * 0.18 - 1.5, col)
        return img


def _taiji(img, cy, cx, rad, dark, light):
    """A small Taiji symbol: two halves with a dot of each colour."""
    draw.disc(img, cy, cx, rad, light)
    h, w = img.shape[:2]
    y0, y1 = max(int(cy - rad), 0), min(int(cy + rad) + 2, h)
    x0, x1 = max(int(cx - rad), 0), min(int(cx + rad) + 2, w)
    yy, xx = np.ogrid[y0:y1, x0:x1]
    d2 = (yy - cy) ** 2 + (xx - cx) ** 2
    inside = d2 <= rad * rad
    upper = ((yy - (cy - rad / 2)) ** 2 + (xx - cx) ** 2) <= (rad / 2) ** 2
    lower = ((yy - (cy + rad / 2)) ** 2 + (xx - cx) ** 2) <= (rad / 2) ** 2
    dark_part = inside & (((xx < cx) & ~upper) | lower)
    img[y0:y1, x0:x1][dark_part] = dark
    draw.disc(img, cy - rad / 2, cx, rad / 7, dark)
    draw.disc(img, cy + rad / 2, cx, rad / 7, light)
    draw.ring(img, cy, cx, rad, dark, 1.5)
