"""The declared facts of Yin Yang (rules in ``seeds/yinyang.md``).
"""
from yyenvs.core.spec import GameSpec, Option

SPEC = GameSpec(
    id="yinyang", title="Yin Yang", gym_name="YinYang", version=1, core="yyenvs.games.yinyang.core:YinYangCore",
    players=(1, 4), chance=True, max_game_length=4000, perfect_information=False, random_setup=True,
    options=(
        Option("num_players", "int", 2, "players; 1 is the solo game", low=1, high=4),
        Option("data_file", "path", None, "the component data (None: the packaged stand-in file)"),
        Option("reward", "choice", "win", "'win': +1 for the winner, -1 for the others; "
               "'score': own total minus the best other total", choices=("win", "score"), rules=False),
        Option("board_side", "choice", "auto", "which side of the board sets the starting tokens "
               "('auto': the 4-player side for 4 players)", choices=("auto", "2-3", "4")),
        Option("chance", "choice", "sampled", "'sampled': coins and bag draws happen inside step; "
               "'explicit': each is a node of the chance player", choices=("sampled", "explicit")),
    ),
    variants=({"num_players": 2}, {"num_players": 1}, {"num_players": 3}, {"num_players": 4}),
    doc="1-4 players build temples and gather goods across five rounds of coin throws",
)
