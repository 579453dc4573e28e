"""Rule tests for Yin Yang Koi, from hand-built positions.

Each test cites the section or example of ``seeds/koi.md`` it checks.  Boards
are drawn as text (spec 10): ``.`` blank, ``T`` Taiji, ``y``/``g`` Yin/Yang
fry, ``Y0``..``Y4`` / ``G0``..``G4`` Yin/Yang koi with their slot.
"""
from __future__ import annotations

import dataclasses
import re

import numpy as np
import pytest

from yyenvs.core.contract import IllegalActionError, OptionError
from yyenvs.games import make_core
from yyenvs.games.koi.core import KoiCore as _KoiCore
from yyenvs.games.koi.rules import (
    NUM_PLANES,
    TAIJI,
    YANG_FRY,
    YANG_KOI,
    YIN_FRY,
    YIN_KOI,
    SPREAD_OFFSETS,
    quick_start_points,
)


# -- helpers -------------------------------------------------------------------
def board(core: KoiCore, text: str, player: int = 0):
    """A one-game state from a text board (spec 10)."""
    return core.from_text(text, player=player)


def play(core, state, *moves):
    """Apply moves written as text ("koi0 W", "place a1") one after another."""
    for m in moves:
        core.step(state, np.array([core.string_to_action(m)]))
    return state


def legal(core, state, row=0):
    return {core.action_to_string(a) for a in np.flatnonzero(core.legal_action_mask(state)[row])}


def rows_of(core, state):
    """The text board as a list of token lists (for comparing lines)."""
    return [line.split() for line in core.to_text(state).splitlines()]


def same_state(a, b):
    return all(np.array_equal(getattr(a, f.name), getattr(b, f.name)) for f in dataclasses.fields(a))


def fry_consistent(state):
    return (np.array_equal(state.fry[:, 0], (state.board == YIN_FRY).sum(1))
            and np.array_equal(state.fry[:, 1], (state.board == YANG_FRY).sum(1)))


# The worked examples of the spec are on the 9 x 9, 8-direction, 14-fry pond (environment version 0's
# defaults): the cores below start from those options, whatever today's defaults are.
V0 = _KoiCore.spec.defaults_of(0)


def KoiCore(**options):  # noqa: N802 -- stands in for the class in every example
    return _KoiCore(**{**V0, **options})


C7 = KoiCore(board_size=7)

# -- spec 7: options ----------------------------------------------------------------


def test_defaults_and_sizes():
    assert _KoiCore().options == {"board_size": 7, "directions": 4, "quick_start": False,
                                  "quick_layout": "spread", "win_fry": 16, "max_plies": 400}
    assert _KoiCore().num_actions == 49 + 20 and _KoiCore().observation_shape == (7, 7, NUM_PLANES)
    with pytest.raises(OptionError, match=r"pond of board_size=5\), got 16 \(the default\): give win_fry=14"):
        _KoiCore(board_size=5)  # the default target does not fit the smallest pond
    core = KoiCore()
    assert core.options == {"board_size": 9, "directions": 8, "quick_start": False,
                            "quick_layout": "row", "win_fry": 14, "max_plies": 400}
    assert core.num_actions == 81 + 40 and core.num_players == 2
    assert core.observation_shape == (9, 9, NUM_PLANES)
    assert core.max_game_length == 400
    assert core.player_names() == ["yin", "yang"]
    assert _KoiCore.spec.id == "koi" and _KoiCore.spec.pettingzoo_module == "koi_v1"
    c4 = KoiCore(board_size=5, directions=4)
    assert c4.num_actions == 25 + 20
    assert isinstance(make_core("koi", board_size=7), _KoiCore)
    assert KoiCore(board_size=np.int64(11)).board_size == 11
    assert KoiCore(quick_start=np.bool_(True)).quick_start is True


@pytest.mark.parametrize("option, value", [
    ("board_size", 4), ("board_size", 3), ("board_size", 6), ("board_size", 21), ("board_size", True),
    ("board_size", 9.0), ("board_size", "9"), ("board_size", None),
    ("directions", 6), ("directions", 0), ("directions", True), ("directions", 8.0),
    ("quick_start", 1), ("quick_start", "yes"), ("quick_start", None),
    ("win_fry", 13), ("win_fry", 0), ("win_fry", True), ("win_fry", 14.0), ("win_fry", 71),
    ("max_plies", 0), ("max_plies", -5), ("max_plies", True), ("max_plies", 1.5),
])
def test_option_errors_name_the_option(option, value):
    with pytest.raises(OptionError, match=option):
        KoiCore(**{option: value})


def test_option_error_win_fry_depends_on_board():
    # spec 7: win_fry at most N*N - 11 (the points that can hold fry)
    assert KoiCore(board_size=5, win_fry=14).win_fry == 14
    with pytest.raises(OptionError, match="win_fry"):
        KoiCore(board_size=5, win_fry=15)
    assert KoiCore(board_size=9, win_fry=70).win_fry == 70
    with pytest.raises(OptionError, match="win_fry"):
        KoiCore(board_size=9, win_fry=71)
    for low_or_high in (13, 39):  # below the least and above the most: both give this pond's range
        with pytest.raises(OptionError, match=r"from 14 to 38 \(the free points of a pond of board_size=7\), "
                                              rf"got {low_or_high}$"):
            _KoiCore(win_fry=low_or_high)


def test_unknown_option():
    with pytest.raises(OptionError, match="unknown"):
        KoiCore(size=9)


# -- spec 8: action encoding ---------------------------------------------------------

def test_action_encoding():
    core = KoiCore()
    assert core.action_to_string(0) == "place a1"
    assert core.action_to_string(40) == "place e5"
    assert core.action_to_string(80) == "place i9"
    assert core.action_to_string(81) == "koi0 N"
    assert core.string_to_action("koi2 SE") == 81 + 2 * 8 + 3 == 100
    assert core.action_to_string(81 + 4 * 8 + 7) == "koi4 NW"
    c4 = KoiCore(directions=4)
    assert [c4.action_to_string(81 + d) for d in range(4)] == ["koi0 N", "koi0 E", "koi0 S", "koi0 W"]
    assert c4.action_to_string(81 + 4 * 4 + 3) == "koi4 W"
    for core in (KoiCore(board_size=5), KoiCore(board_size=19, directions=4)):
        for a in range(core.num_actions):
            assert core.string_to_action(core.action_to_string(a)) == a


# -- spec 3.1 and example 1: set-up ---------------------------------------------------

def test_example1_setup_placements():
    core = KoiCore(board_size=5)
    s = core.init(np.array([7]))
    assert s.phase[0] == 0 and s.current_player[0] == 0 and s.ply[0] == 0
    m = core.legal_action_mask(s)[0]
    assert m[:25].sum() == 24 and not m[12] and not m[25:].any()  # Taiji c3 refused, no swims
    play(core, s, "place a1")
    assert s.board[0, 0] == YIN_KOI and s.koi[0, 0, 0] == 0 and s.current_player[0] == 1
    before = s.copy()
    for bad in ("place a1", "place c3", "koi0 N"):
        with pytest.raises(IllegalActionError):
            play(core, s, bad)
        assert same_state(s, before)
    play(core, s, "place e5", "place b2", "place d4", "place c1", "place c5",
         "place e2", "place a4", "place b4")
    assert s.phase[0] == 0 and s.current_player[0] == 1
    play(core, s, "place d2")
    assert rows_of(core, s) == [
        "Y0 . Y2 . .".split(),
        ". Y1 . G4 Y3".split(),
        ". . T . .".split(),
        "G3 Y4 . G1 .".split(),
        ". . G2 . G0".split(),
    ]
    assert s.phase[0] == 1 and s.current_player[0] == 0 and s.ply[0] == 10
    assert not s.done[0]
    m = core.legal_action_mask(s)[0]
    assert not m[:25].any() and m[25:].any()
    with pytest.raises(IllegalActionError):
        play(core, s, "place a2")


def test_setup_koi_slots_follow_placement_order():
    core = KoiCore(board_size=7, directions=4)
    s = core.init(np.array([1]))
    pts = [0, 48, 2, 46, 4, 44, 6, 42, 14, 34]
    for p in pts:
        core.step(s, np.array([p]))
    assert list(s.koi[0, 0]) == pts[0::2] and list(s.koi[0, 1]) == pts[1::2]


# -- spec 3.2: quick start ---------------------------------------------------------------

@pytest.mark.parametrize("n", range(5, 20, 2))
def test_quick_start_row_layouts(n):
    yin, yang = quick_start_points(n, "row")
    taiji = (n // 2) * n + n // 2
    assert len(set(yin + yang)) == 10 and taiji not in yin + yang
    assert all(p // n == n // 2 - 2 for p in yin)
    for k in range(5):  # Yang's koi k is the half-turn image of Yin's koi k
        r, c = divmod(yin[k], n)
        assert yang[k] == (n - 1 - r) * n + (n - 1 - c)
    assert {n * n - 1 - p for p in yin + yang} == set(yin + yang)
    for d in (4, 8):
        core = KoiCore(board_size=n, directions=d, quick_start=True)
        s = core.init(np.array([0, 1]))
        assert (s.phase == 1).all() and (s.ply == 0).all() and (s.current_player == 0).all()
        assert list(s.koi[0, 0]) == yin and list(s.koi[1, 1]) == yang
        assert (s.board[0] == YIN_KOI).sum() == 5 and (s.board[0] == YANG_KOI).sum() == 5
        assert s.board[0, taiji] == TAIJI
        assert "koi2 S" in legal(core, s)  # spec 3.2: Yin always has a first move


@pytest.mark.parametrize("n", range(7, 20, 2))
def test_quick_start_spread_layouts(n):
    yin, yang = quick_start_points(n, "spread")
    c = n // 2
    assert [divmod(p, n) for p in yin] == [(c + dr, c + dc) for dr, dc in SPREAD_OFFSETS]
    assert len(set(yin + yang)) == 10 and c * n + c not in yin + yang
    assert yang == [n * n - 1 - p for p in yin]  # the half-turn image, koi by koi
    s = _KoiCore(board_size=n, quick_start=True).init(np.array([0]))
    assert list(s.koi[0, 0]) == yin and list(s.koi[0, 1]) == yang and s.phase[0] == 1


def test_spread_layout_needs_a_7x7_pond():
    with pytest.raises(OptionError, match="quick_layout 'spread' needs board_size 7 or more, got board_size=5; "
                                          "give quick_layout='row'"):
        _KoiCore(board_size=5, win_fry=14, quick_start=True)
    assert _KoiCore(board_size=5, win_fry=14).quick_layout == "spread"  # no quick start: no layout needed
    assert _KoiCore(board_size=5, win_fry=14, quick_start=True, quick_layout="row").quick_start


def forces_win(core, state, seat: int, plies: int) -> bool:
    """Whether ``seat`` wins by force within ``plies`` plies of one-row ``state`` (plain AND-OR search)."""
    if state.terminated[0]:
        return bool(state.rewards[0, seat] > 0)
    if plies == 0:
        return False
    actions = np.flatnonzero(core.legal_action_mask(state)[0])
    children = state.take(np.zeros(actions.size, np.int64))
    core.step(children, actions)
    results = (forces_win(core, children.take(np.array([i])), seat, plies - 1) for i in range(actions.size))
    return any(results) if state.current_player[0] == seat else all(results)


def test_default_quick_start_is_no_forced_win_within_four_swims_of_yin():
    """The spread layout on the default pond: neither family forces a win within Yin's first four
    swims (7 plies for Yin, 8 for Yang); the version 0 row layout there is a forced win for Yang."""
    core = _KoiCore(quick_start=True)
    root = core.init(np.array([0]))
    assert not forces_win(core, root, 0, 7) and not forces_win(core, root, 1, 8)
    row = _KoiCore(quick_start=True, quick_layout="row")
    assert forces_win(row, row.init(np.array([0])), 1, 6)


def test_quick_start_9x9_picture_and_4dir_moves():
    core = KoiCore(quick_start=True, directions=4)
    s = core.init(np.array([3]))
    assert rows_of(core, s)[2] == "Y0 . Y1 . Y2 . Y3 . Y4".split()
    assert rows_of(core, s)[6] == "G4 . G3 . G2 . G1 . G0".split()
    # every N ray runs (wrapping) into a Yang koi: touch; S only free for koi 2 (Taiji)
    assert legal(core, s) == {"koi0 E", "koi1 E", "koi2 E", "koi3 E",
                              "koi1 W", "koi2 W", "koi3 W", "koi4 W", "koi2 S"}


# -- spec 4 / 5: the swim and the fry (examples 2 to 4) ------------------------------------

EX2 = """
.  .  .  .  .  .  .
.  Y0 .  .  .  y  .
.  .  .  .  .  .  .
.  .  .  T  .  .  .
.  .  .  .  .  .  .
G0 G1 G2 G3 G4 .  .
Y1 Y2 Y3 Y4 .  .  .
"""


def test_example2_orthogonal_wrap():
    s = board(C7, EX2)
    play(C7, s, "koi0 W")
    assert rows_of(C7, s)[1] == "y y . . . y Y0".split()
    assert list(s.fry[0]) == [3, 0] and fry_consistent(s)
    assert s.koi[0, 0, 0] == 1 * 7 + 6
    assert s.current_player[0] == 1 and s.ply[0] == 11 and not s.done[0]
    assert list(s.rewards[0]) == [0, 0]


EX3 = """
Y0 .  .  .  .  .  .
.  Y1 Y2 Y3 Y4 .  .
G0 G1 G2 G3 G4 .  .
.  .  .  T  .  .  .
.  .  .  .  .  .  .
.  .  .  .  .  .  .
.  .  .  .  .  .  .
"""


def test_example3_diagonal_wrap():
    s = board(C7, EX3)
    play(C7, s, "koi0 NW")
    r = rows_of(C7, s)
    assert r[0][0] == "y" and r[6][6] == "y" and r[5][5] == "y" and r[4][4] == "Y0"
    assert list(s.fry[0]) == [3, 0] and fry_consistent(s)


EX4 = """
.  .  .  .  .  .  .
.  .  .  .  .  .  .
Y0 g  .  g  g  y  .
.  .  .  T  .  .  .
.  .  .  .  .  .  .
G0 G1 G2 G3 G4 .  .
Y1 Y2 Y3 Y4 .  .  .
"""


def test_example4_flip_and_eat():
    s = board(C7, EX4)
    assert list(s.fry[0]) == [1, 3]
    play(C7, s, "koi0 E")
    assert rows_of(C7, s)[2] == "y y y y Y0 y .".split()
    assert list(s.fry[0]) == [5, 0] and fry_consistent(s)


def test_swim_wraps_on_9x9_with_4_directions():
    # spec 2 / 4.2 on another size and direction set: S from e8 wraps to e1, stops before the Taiji
    core = KoiCore(directions=4)
    s = board(core, """
        .  .  .  .  .  .  .  .  .
        .  .  .  .  .  .  .  .  .
        .  .  .  .  .  .  .  .  .
        .  .  .  .  .  .  .  .  .
        .  .  .  .  T  .  .  .  .
        .  .  .  .  .  .  .  .  .
        Y1 Y2 Y3 Y4 .  G0 G1 G2 G3
        .  .  .  .  Y0 .  .  .  .
        G4 .  .  .  g  .  .  .  .
    """)
    play(core, s, "koi0 S")
    col = [row[4] for row in rows_of(core, s)]
    assert col == "y y y Y0 T . . y y".split()
    assert list(s.fry[0]) == [5, 0] and fry_consistent(s)


# -- spec 4.3 - 4.5: illegal swims (examples 5 to 7) -----------------------------------------

EX5 = """
Y0 .  G0 y  .  .  .
g  Y1 .  .  .  .  .
.  y  Y2 .  .  .  .
g  .  .  T  .  .  .
.  .  Y3 .  .  Y4 .
.  G1 .  G2 G3 .  G4
.  .  .  .  .  .  .
"""


def _refused(core, s, move):
    before = s.copy()
    with pytest.raises(IllegalActionError, match="row 0"):
        play(core, s, move)
    assert same_state(s, before)
    assert move not in legal(core, s)


def test_example5_first_point_is_a_block():
    s = board(C7, EX5)
    for move in ("koi0 SE", "koi2 SE", "koi2 W"):  # own koi, Taiji, own fry
        _refused(C7, s, move)


def test_example6_touch():
    s = board(C7, EX5)
    _refused(C7, s, "koi0 E")


def test_example7_ray_without_block():
    s = board(C7, EX5)
    for move in ("koi0 N", "koi0 S", "koi0 NE", "koi0 SW"):
        _refused(C7, s, move)


def test_examples5_to_7_full_mask_of_koi0_and_koi2():
    s = board(C7, EX5)
    moves = legal(C7, s)
    assert {m for m in moves if m.startswith("koi0")} == {"koi0 W", "koi0 NW"}
    assert {m for m in moves if m.startswith("koi2")} == {"koi2 E", "koi2 S"}
    t = play(C7, s.copy(), "koi0 W")
    assert rows_of(C7, t)[0] == "y . G0 y Y0 y y".split()
    t = play(C7, s.copy(), "koi0 NW")
    assert rows_of(C7, t)[4][4] == "Y0" and fry_consistent(t)


def test_touch_beyond_a_block_does_not_matter():
    # spec 4.4: an opposing koi after the first block is irrelevant
    s = board(C7, """
        Y0 .  y  G0 .  .  .
        .  .  .  .  .  .  .
        .  .  .  .  .  .  .
        .  .  .  T  .  .  .
        .  .  .  .  .  .  .
        G1 G2 G3 G4 .  .  .
        Y1 Y2 Y3 Y4 .  .  .
    """)
    assert "koi0 E" in legal(C7, s)
    play(C7, s, "koi0 E")
    assert rows_of(C7, s)[0][:4] == "y Y0 y G0".split()


def test_touch_with_4_directions_on_5x5():
    core = KoiCore(board_size=5, directions=4)
    s = board(core, """
        Y0 g  .  G0 .
        G3 .  .  .  .
        Y1 .  T  .  G4
        .  .  .  .  .
        Y2 Y3 Y4 G1 G2
    """)
    _refused(core, s, "koi0 E")   # over the Yang fry into G0
    _refused(core, s, "koi0 W")   # wraps to e1, d1 holds G0
    _refused(core, s, "koi0 S")   # a2 holds G3
    assert "koi0 N" not in legal(core, s)  # a5 is Yin's own koi 2: first point a block


# -- spec 6: end of the game (examples 8 to 10) -------------------------------------------------

EX8 = """
y  y  y  y  y  y  .
y  y  y  y  y  .  .
Y0 .  .  y  .  .  .
.  .  .  T  .  .  .
.  .  .  .  .  .  .
G0 G1 G2 G3 G4 .  .
Y1 Y2 Y3 Y4 .  .  .
"""


def test_example8_win_at_threshold():
    s = board(C7, EX8)
    assert list(s.fry[0]) == [12, 0]
    play(C7, s, "koi0 E")
    assert list(s.fry[0]) == [14, 0]
    assert s.terminated[0] and not s.truncated[0] and s.winner[0] == 0
    assert list(s.rewards[0]) == [1.0, -1.0]
    assert not C7.legal_action_mask(s).any()
    with pytest.raises(IllegalActionError, match="over"):
        play(C7, s, "koi1 W")


def test_example8_win_fry_15_goes_on():
    core = KoiCore(board_size=7, win_fry=15)
    s = board(core, EX8)
    play(core, s, "koi0 E")
    assert list(s.fry[0]) == [14, 0] and not s.done[0] and s.current_player[0] == 1
    assert list(s.rewards[0]) == [0.0, 0.0]


EX9 = """
.  G4 Y4 .  .
G1 .  .  G2 G0
.  Y0 T  .  .
Y3 .  G3 .  .
Y2 .  .  .  Y1
"""


def test_example9_loss_by_no_move():
    core = KoiCore(board_size=5, directions=4)
    s = board(core, EX9, player=1)
    assert legal(core, s) == {"koi1 E", "koi2 W"}
    s = board(core, EX9, player=0)
    play(core, s, "koi4 S")
    assert rows_of(core, s)[:2] == [". G4 y . .".split(), "G1 . Y4 G2 G0".split()]
    assert s.terminated[0] and s.winner[0] == 0 and list(s.rewards[0]) == [1.0, -1.0]
    s.terminated[:] = False  # look at Yang's moves in the final position
    s.current_player[:] = 1
    assert legal(core, s) == set()


def test_loss_by_no_move_for_yin_too():
    # spec 6.2 from the other side: Yang's move leaves Yin without a move (colours swapped)
    core = KoiCore(board_size=5, directions=4)
    swapped = EX9.replace("Y", "x").replace("G", "Y").replace("x", "G")
    s = board(core, swapped, player=1)
    play(core, s, "koi4 S")
    assert s.terminated[0] and s.winner[0] == 1 and list(s.rewards[0]) == [-1.0, 1.0]


def test_example9_no_move_right_after_setup():
    core = KoiCore(board_size=5, directions=4)
    s = core.init(np.array([0]))
    play(core, s, *(f"place {p}" for p in "d2 b5 e2 a2 a5 b1 a1 d3 b4 a4".split()))
    assert rows_of(core, s) == [line.split() for line in """
        Y3 G2 .  .  .
        G1 .  .  Y0 Y1
        .  .  T  G3 .
        G4 Y4 .  .  .
        Y2 G0 .  .  .""".strip().splitlines()]
    assert s.terminated[0] and s.winner[0] == 1 and s.ply[0] == 10
    assert list(s.rewards[0]) == [-1.0, 1.0]


def test_example10_ply_cap():
    core = KoiCore(quick_start=True, max_plies=1)
    s = core.init(np.array([5]))
    play(core, s, "koi2 S")
    assert s.truncated[0] and not s.terminated[0] and list(s.rewards[0]) == [0.0, 0.0]
    assert s.winner[0] == -1 and s.ply[0] == 1
    core = KoiCore(max_plies=3)  # set-up placements count
    s = core.init(np.array([5]))
    play(core, s, "place a1", "place b1")
    assert not s.done[0]
    play(core, s, "place c1")
    assert s.truncated[0] and s.phase[0] == 0


def test_win_beats_truncation_on_the_same_ply():
    core = KoiCore(board_size=7, max_plies=11)
    s = board(core, EX8)
    play(core, s, "koi0 E")
    assert s.terminated[0] and not s.truncated[0]


# -- contract details ------------------------------------------------------------------------

def test_observation_planes():
    s = board(C7, EX4)
    for seat in (0, 1):
        obs = C7.observe(s, np.array([seat]))[0]
        assert obs.shape == (7, 7, NUM_PLANES) and obs.dtype == np.float32
        assert obs.min() >= 0 and obs.max() <= 1
        own, opp = ("Y", "G") if seat == 0 else ("G", "Y")
        ownf, oppf = ("y", "g") if seat == 0 else ("g", "y")
        toks = rows_of(C7, s)
        for r in range(7):
            for c in range(7):
                t = toks[r][c]
                assert obs[r, c, 0] == (t[0] == own)
                assert obs[r, c, 1] == (t[0] == opp)
                assert obs[r, c, 2] == (t == ownf)
                assert obs[r, c, 3] == (t == oppf)
                assert obs[r, c, 4] == (t == "T")
                for k in range(5):
                    assert obs[r, c, 5 + k] == (t == f"{own}{k}")
        assert (obs[..., 10] == 0).all()
        own_n, opp_n = (1, 3) if seat == 0 else (3, 1)
        assert np.allclose(obs[..., 11], own_n / 14) and np.allclose(obs[..., 12], opp_n / 14)
        assert np.allclose(obs[..., 13], 10 / 400)
    s = KoiCore(board_size=5).init(np.array([0]))
    obs = KoiCore(board_size=5).observe(s, s.current_player)[0]
    assert (obs[..., 10] == 1).all() and obs[..., 5:10].sum() == 0 and obs[2, 2, 4] == 1


def test_heuristic():
    s = board(C7, EX4)
    h = C7.heuristic(s.take([0, 0]), np.array([0, 1]))
    assert h[0] == -h[1] and h[0] < 0  # Yin 1 fry, Yang 3
    play(C7, s, "koi0 E")
    assert C7.heuristic(s, np.array([0]))[0] > 0
    s = board(C7, EX8)
    play(C7, s, "koi0 E")
    assert list(C7.heuristic(s.take([0, 0]), np.array([0, 1]))) == [1000.0, -1000.0]


def test_rendering():
    core = KoiCore(quick_start=True)
    s = core.init(np.array([0]))
    text = core.render_ansi(s)
    assert "Y2" in text and "G0" in text and " T" in text and "yin to move" in text
    img = core.render_rgb(s)
    assert img.dtype == np.uint8 and img.ndim == 3 and img.shape[2] == 3
    colours = {tuple(c) for c in img.reshape(-1, 3)}
    assert (25, 25, 35) in colours and (245, 245, 240) in colours  # both families drawn
    play(core, s, "koi2 S")
    assert not np.array_equal(core.render_rgb(s), img)


def test_text_shows_plain_numbers():
    """No numpy scalar repr (numpy 2 prints np.int8(5)) in any text, through a whole game."""
    core = KoiCore(board_size=7, directions=4)
    s = core.init(np.array([5]))
    while not s.done[0]:
        a = int(np.flatnonzero(core.legal_action_mask(s)[0])[-1])
        name = core.action_to_string(np.int64(a))
        assert core.string_to_action(name) == a and type(core.string_to_action(name)) is int
        core.step(s, np.array([a]))
        for text in (name, core.render_ansi(s), core.to_text(s)):
            assert not re.search(r"np\.|int\d+\(", text), text
    assert "game over" in core.render_ansi(s) or "ply cap" in core.render_ansi(s)


def test_text_board_roundtrip():
    for text in (EX2, EX4, EX5, EX8):
        s = board(C7, text)
        assert rows_of(C7, s) == [line.split() for line in text.strip().splitlines()]
    with pytest.raises(ValueError):
        board(C7, EX2.replace("T", "."))
