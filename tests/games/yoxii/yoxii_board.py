"""Build Yoxii states from text boards (tests only).

A board is 7 lines with 3-5-7-7-7-5-3 tokens: ``.`` empty, ``T`` the totem,
``w1``..``w4`` a white piece of that value, ``r1``..``r4`` a red one.
Stocks are the full stock minus the pieces on the board.
"""
import numpy as np

from yyenvs.games.yoxii.core import YoxiiCore
from yyenvs.games.yoxii.rules import NUM_CELLS, ROW_WIDTHS, STOCK, totem_destination

CORE = YoxiiCore()


def state_from_text(text: str, to_move: str = "white"):
    rows = [line.split() for line in text.strip().splitlines()]
    assert [len(r) for r in rows] == list(ROW_WIDTHS), f"row widths {[len(r) for r in rows]}"
    tokens = [t for r in rows for t in r]
    s = CORE.init(np.zeros(1, dtype=np.uint64))
    stock = np.array([STOCK, STOCK], dtype=np.int8)
    for cell, tok in enumerate(tokens):
        if tok == "T":
            s.totem[0] = cell
        elif tok != ".":
            player = {"w": 0, "r": 1}[tok[0]]
            value = int(tok[1])
            s.board[0, cell] = value if player == 0 else -value
            stock[player, value - 1] -= 1
    s.stock[0] = stock
    s.current_player[0] = {"white": 0, "red": 1}[to_move]
    s.ply[0] = int(np.count_nonzero(s.board[0]))
    assert len(tokens) == NUM_CELLS and tokens.count("T") == 1
    return s


def legal_actions(state):
    return set(np.flatnonzero(CORE.legal_action_mask(state)[0]).tolist())


def totem_moves(state):
    """{direction: destination} of the legal totem moves."""
    out = {}
    for a in legal_actions(state):
        d, _cell, _v = CORE.decode(a)
        out.setdefault(d, None)
    return {d: int(totem_destination(state.board[0], state.totem[0], state.current_player[0], d))
            for d in out}


def placements(state, direction):
    """The cells a piece may go on after the totem moves ``direction``."""
    return {CORE.decode(a)[1] for a in legal_actions(state) if CORE.decode(a)[0] == direction}
