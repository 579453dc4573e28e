"""The declared facts of Yin Yang Koi (rules in ``seeds/koi.md``).

Version 1 changed the defaults of ``board_size``, ``directions`` and ``win_fry`` (9, 8 and 14 in
version 0, still registered with them) and added ``quick_layout`` (version 0's quick start is
``"row"``); the rules are version 0's.  Why: ``yyenvs/koi_v1.py``.
"""
from yyenvs.core.spec import GameSpec, Option

PLY_MAX = 2**31 - 1  # the largest ply an int32 holds
KOI_POINTS = 11  # the points the ten koi and the Taiji hold: no fry is ever left there


def free_points(options) -> tuple[int, str]:
    """The most fry a pond holds: the most ``win_fry`` can be."""
    n = options["board_size"]
    return n * n - KOI_POINTS, f"the free points of a pond of board_size={n}"


SPEC = GameSpec(
    id="koi", title="Yin Yang Koi", gym_name="Koi", version=1, core="yyenvs.games.koi.core:KoiCore",
    players=(2, 2), chance=False, symmetry="D4", board_wraps=True, max_game_length=400,
    options=(
        Option("board_size", "int", 7, "points per side of the square pond", low=5, high=19, odd=True),
        Option("directions", "choice", 4, "the directions a koi swims in", choices=(8, 4)),
        Option("quick_start", "bool", False, "start with the koi already placed (no set-up phase)"),
        Option("quick_layout", "choice", "spread", "where quick_start places the koi: 'spread' around "
               "the Taiji (a 7 x 7 pond or larger) or 'row' (version 0's)", choices=("spread", "row"),
               only_if=("quick_start", True)),
        Option("win_fry", "int", 16, "fry on the board that win the game (at most the free points: "
               "a 5 x 5 pond needs win_fry=14)",
               low=14, high=19 * 19 - KOI_POINTS, most=free_points),
        Option("max_plies", "int", 400, "plies after which the game is truncated (ply is int32)",
               low=1, high=PLY_MAX),
    ),
    variants=({}, {"board_size": 9, "directions": 8, "win_fry": 14}),
    earlier_defaults={0: {"board_size": 9, "directions": 8, "win_fry": 14, "quick_layout": "row"}},
    doc="swim koi on a wrapping pond, leaving fry; the first to enough fry wins",
)
