"""Yin Yang Koi in text: move notation ("place c4", "koi2 NE") and text boards (spec 10).

A text board is N lines of N tokens: ``.`` empty, ``T`` Taiji, ``y`` / ``g``
a Yin / Yang fry, ``Y`` / ``G`` a Yin / Yang koi, optionally followed by its
slot digit (``Y0`` .. ``Y4``).  Points are named by column letter (a =
column 0) and row number (1 = top row).
"""
from __future__ import annotations

import numpy as np

from yyenvs.core.errors import IllegalActionError, show
from yyenvs.games.koi.rules import EMPTY, NUM_KOI, PLAY, SETUP, TAIJI, YANG_FRY, YANG_KOI, YIN_FRY, YIN_KOI
from yyenvs.games.koi.spec import PLY_MAX

DIR_NAMES = {8: ("N", "NE", "E", "SE", "S", "SW", "W", "NW"), 4: ("N", "E", "S", "W")}


def point_name(p: int, n: int) -> str:
    """Column letter (a = column 0) and row number (1 = top row): "c4"."""
    r, c = divmod(int(p), n)
    return f"{chr(ord('a') + c)}{r + 1}"


def action_to_string(action: int, n: int, num_dirs: int) -> str:
    """"place c4" (set-up) or "koi2 NE" (a swim); "invalid(a)" outside the action range."""
    a = int(action)
    num_points = n * n
    if a < 0 or a >= num_points + NUM_KOI * num_dirs:
        return f"invalid({a})"
    if a < num_points:
        return f"place {point_name(a, n)}"
    k, d = divmod(a - num_points, num_dirs)
    return f"koi{k} {DIR_NAMES[num_dirs][d]}"


def string_to_action(text: str, n: int, num_dirs: int) -> int:
    """Inverse of :func:`action_to_string`; IllegalActionError for anything else."""
    parts = text.strip().split() if isinstance(text, str) else []
    if len(parts) == 2 and parts[0] == "place":
        name = parts[1]
        c = ord(name[0]) - ord("a")
        r = int(name[1:]) - 1 if name[1:].isdigit() and name[1:].isascii() else -1
        if 0 <= r < n and 0 <= c < n:
            return r * n + c
    elif len(parts) == 2 and parts[0].startswith("koi") and parts[0][3:].isdigit():
        k = int(parts[0][3:])
        names = DIR_NAMES[num_dirs]
        if 0 <= k < NUM_KOI and parts[1] in names:
            return n * n + k * num_dirs + names.index(parts[1])
    raise IllegalActionError(f"koi: cannot read action {show(text)}")


def koi_slots(state, index: int) -> dict[int, int]:
    """{point: slot} of every placed koi in row ``index``."""
    slot = {}
    for seat in range(2):
        for k in range(NUM_KOI):
            p = int(state.koi[index, seat, k])
            if p >= 0:
                slot[p] = k
    return slot


def from_text(core, text: str, player: int = 0, ply: int | None = None):
    """A one-row state of ``core`` from a text board; see ``KoiCore.from_text``."""
    n = core.board_size
    rows = [line.split() for line in text.strip().splitlines() if line.strip()]
    if len(rows) != n or any(len(r) != n for r in rows):
        raise ValueError(f"koi: a text board needs {n} lines of {n} tokens")
    if ply is not None:
        if (isinstance(ply, (bool, np.bool_)) or not isinstance(ply, (int, np.integer))
                or not 0 <= ply <= PLY_MAX):
            raise ValueError(f"koi: ply must be an integer from 0 to {PLY_MAX}, got {show(ply)}")
        ply = int(ply)
    state = core.init(np.zeros(1, dtype=np.uint64))
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
    if board[core.taiji] != TAIJI or int((board == TAIJI).sum()) != 1:
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
        state.current_player[0] = core.seats(state, player)[0]
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


def to_text(state, index: int, n: int) -> str:
    """The text board of row ``index`` (N x N points) in the format :func:`from_text` reads."""
    board = state.board[index]
    slot = koi_slots(state, index)
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
