"""Yoxii rules from hand-built positions; each test names its example in seeds/yoxii.md."""
import re

import numpy as np
import pytest

from tests.games.yoxii.yoxii_board import CORE, legal_actions, placements, state_from_text, totem_moves
from yyenvs.core.contract import IllegalActionError
from yyenvs.games.yoxii.rules import NEIGHBOUR, adjacent_totals, final_winner

N, NE, E, SE, S, SW, W, NW = range(8)
EMPTY = """
    . . .
   . . . . .
  . . . . . . .
  . . . T . . .
  . . . . . . .
   . . . . .
    . . .
"""


def test_y1_opening_has_8_totem_moves_and_256_actions():
    s = CORE.init(np.array([0], dtype=np.uint64))
    assert totem_moves(s) == {N: 11, NE: 12, E: 19, SE: 26, S: 25, SW: 24, W: 17, NW: 10}
    assert len(legal_actions(s)) == 256
    for d, dest in totem_moves(s).items():
        assert placements(s, d) == {int(c) for c in NEIGHBOUR[dest] if c >= 0}
        assert 18 in placements(s, d)  # the square the totem left counts


def test_y2_jump_over_one_own_piece():
    s = state_from_text("""
        . . .
       . . . . .
      . . . w2 . . .
      . . . T . . .
      . . . . . . .
       . . . . .
        . . .""")
    assert totem_moves(s)[N] == 5
    assert placements(s, N) == {0, 1, 2, 4, 6, 10, 12}


def test_y3_jump_over_several_own_pieces_and_edge():
    s = state_from_text("""
        . . .
       . . w1 . .
      . . . w3 . . .
      . . . T . . .
      . . . . . . .
       . . . . .
        . . .""")
    assert totem_moves(s)[N] == 1
    s = state_from_text("""
        . w4 .
       . . w1 . .
      . . . w3 . . .
      . . . T . . .
      . . . . . . .
       . . . . .
        . . .""")
    assert N not in totem_moves(s)


def test_y4_jump_blocked_by_opponent_piece():
    s = state_from_text("""
        . . .
       . . r1 . .
      . . . w3 . . .
      . . . T . . .
      . . . . . . .
       . . . . .
        . . .""")
    assert N not in totem_moves(s)
    s = state_from_text("""
        . . .
       . . . . .
      . . . r2 . . .
      . . . T . . .
      . . . . . . .
       . . . . .
        . . .""", to_move="white")
    assert N not in totem_moves(s)
    s.current_player[0] = 1
    assert totem_moves(s)[N] == 5


def test_y5_jump_blocked_by_missing_square():
    s = state_from_text("""
        . . .
       w2 . . . .
      . . T . . . .
      . . . . . . .
      . . . . . . .
       . . . . .
        . . .""")
    assert NW not in totem_moves(s)
    assert set(totem_moves(s)) == {N, NE, E, SE, S, SW, W}


def test_y6_anywhere_placement_only_when_all_neighbours_full():
    s = state_from_text("""
        r1 r1 r1
       . w1 . w1 .
      . . r2 w2 r2 . .
      . . . T . . .
      . . . . . . .
       . . . . .
        w3 . w3""")
    assert totem_moves(s)[N] == 5
    empty = {c for c in range(37) if s.board[0, c] == 0} - {5}
    assert 18 in empty
    assert placements(s, N) == empty
    # a step leaves empty neighbours: only those may be used
    assert placements(s, E) == {c for c in NEIGHBOUR[19] if c >= 0 and s.board[0, c] == 0} | {18}


def test_y7_surrounded_totem_ends_the_game_for_one_colour_only():
    s = state_from_text("""
        . r1 .
       r3 w1 r2 . .
      w3 . T . w2 . .
      . . . . . . .
      . . . . . . .
       . . . . .
        . . .""")
    assert totem_moves(s)[N] == 0
    assert placements(s, N) == {c for c in range(37) if s.board[0, c] == 0} - {0}
    CORE.step(s, np.array([CORE.encode(N, 2, 1)]))
    assert s.terminated[0] and s.current_player[0] == 1
    assert s.rewards[0].tolist() == [-1.0, 1.0]  # red 1+2+3 = 6 against white 1
    assert not CORE.legal_action_mask(s).any()
    # the same position with White to move is not over: White jumps south over 4
    s.current_player[0] = 0
    s.terminated[0] = False
    assert totem_moves(s) == {S: 10}


@pytest.mark.parametrize("totem, neighbours", [
    (0, {1, 3, 4, 5}), (1, {0, 2, 4, 5, 6}), (4, {0, 1, 3, 5, 9, 10, 11}),
    (18, {10, 11, 12, 17, 19, 24, 25, 26})])
def test_y8_scoring_counts_exactly_the_existing_neighbours(totem, neighbours):
    board = np.zeros(37, dtype=np.int8)
    rng = np.random.default_rng(totem)
    board[:] = rng.integers(-4, 5, 37)
    board[totem] = 0
    totals = adjacent_totals(board, totem)
    own = [c for c in neighbours if board[c] > 0]
    opp = [c for c in neighbours if board[c] < 0]
    assert totals[0].tolist() == [int(board[own].sum()), len(own)]
    assert totals[1].tolist() == [int(-board[opp].sum()), len(opp)]
    assert {int(c) for c in NEIGHBOUR[totem] if c >= 0} == neighbours


def test_y9_equal_sums_more_pieces_wins():
    board = np.zeros(37, dtype=np.int8)
    for cell, v in zip([10, 11, 12, 17, 19, 24, 25, 26], [4, 4, -2, -2, -1, -1, -1, -1]):
        board[cell] = v
    assert final_winner(board, 18) == 1
    board[[10, 11]] = [-4, -4]
    board[[12, 17, 19, 24, 25, 26]] = [2, 2, 1, 1, 1, 1]
    assert final_winner(board, 18) == 0


def test_y10_equal_sums_and_counts_is_a_draw():
    board = np.zeros(37, dtype=np.int8)
    board[[1, 3, 4, 5]] = [3, 1, -2, -2]
    assert final_winner(board, 0) == -1
    board[1] = 4
    assert final_winner(board, 0) == 0


def test_a_value_out_of_stock_cannot_be_placed():
    s = state_from_text(EMPTY)
    s.stock[0, 0, 3] = 0  # White has no 4 left
    values = {CORE.decode(a)[2] for a in legal_actions(s)}
    assert values == {1, 2, 3}
    with pytest.raises(IllegalActionError, match="illegal"):
        CORE.step(s, np.array([CORE.encode(N, 5, 4)]))


def test_illegal_action_is_refused_and_changes_nothing():
    s = state_from_text(EMPTY)
    before = s.copy()
    far = CORE.encode(N, 36, 1)  # 36 is not next to the totem's new square
    with pytest.raises(IllegalActionError, match=r"row 1"):
        CORE.step(s.take([0, 0]), np.array([CORE.encode(N, 5, 1), far]))
    with pytest.raises(IllegalActionError, match="out of range"):
        CORE.step(s, np.array([1184]))
    with pytest.raises(IllegalActionError, match="expected 1 actions"):
        CORE.step(s, np.array([1, 2]))
    for f in ("board", "totem", "stock", "current_player", "ply"):
        assert np.array_equal(getattr(s, f), getattr(before, f))


def test_negative_action_skips_a_row_and_finished_rows_refuse_actions():
    s = CORE.init(np.arange(2, dtype=np.uint64))
    CORE.step(s, np.array([-1, CORE.encode(N, 5, 2)]))
    assert s.ply.tolist() == [0, 1] and s.board[0].sum() == 0 and s.board[1, 5] == 2
    s.terminated[0] = True
    with pytest.raises(IllegalActionError, match="row 0 is over"):
        CORE.step(s, np.array([0, -1]))


def test_turn_applies_move_placement_stock_and_alternation():
    s = CORE.init(np.array([0], dtype=np.uint64))
    CORE.step(s, np.array([CORE.encode(SE, 18, 3)]))
    assert s.totem[0] == 26 and s.board[0, 18] == 3
    assert s.stock[0, 0].tolist() == [5, 5, 4, 3] and s.current_player[0] == 1
    CORE.step(s, np.array([CORE.encode(N, 26, 4)]))  # red: 26 -> 19, red 4 on 26
    assert s.totem[0] == 19 and s.board[0, 26] == -4 and s.stock[0, 1].tolist() == [5, 5, 5, 2]


def test_encode_decode_round_trip_and_errors():
    for a in range(0, 1184, 7):
        assert CORE.encode(*CORE.decode(a)) == a
    with pytest.raises(ValueError):
        CORE.encode(8, 0, 1)
    with pytest.raises(ValueError):
        CORE.decode(-1)


def test_unknown_option_is_refused():
    from yyenvs import OptionError, make_core
    with pytest.raises(OptionError, match="unknown option"):
        make_core("yoxii", board_size=9)


def test_render_prints_plain_numbers():
    """Stocks and squares as Python ints: numpy 2 prints a list of int8 as [np.int8(5), ...]."""
    s = CORE.init(np.array([3], dtype=np.uint64))
    text = CORE.render_ansi(s)
    assert "stock white [5, 5, 5, 3]  red [5, 5, 5, 3]  (values 1-4)" in text
    assert text.endswith("white to move")
    while not s.done[0]:  # a whole game, its last picture included
        CORE.step(s, np.array([min(legal_actions(s))]))
        text = CORE.render_ansi(s)
        assert not re.search(r"np\.|int\d+\(", text), text
    assert text.splitlines()[-1] in ("game over: white wins", "game over: red wins", "game over: draw")
    img = CORE.render_rgb(s)
    assert img.ndim == 3 and img.shape[2] == 3 and img.dtype == np.uint8
