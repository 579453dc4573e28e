"""The declared facts of Yoxii (rules in ``seeds/yoxii.md``).
"""
from yyenvs.core.spec import GameSpec, Option

SPEC = GameSpec(
    id="yoxii", title="Yoxii", gym_name="Yoxii", version=0, core="yyenvs.games.yoxii.core:YoxiiCore",
    players=(2, 2), chance=False, symmetry="D4", max_game_length=36,
    options=(
        Option("action_features", "bool", False,
               "the observation becomes a flat vector: the planes, then 5 lookahead features per action",
               rules=False),
    ),
    variants=({}, {"action_features": True}),
    doc="place pieces around a totem; the player who surrounds it best wins",
)
