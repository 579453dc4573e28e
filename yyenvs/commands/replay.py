"""yyenvs replay: write a game record as one self-contained HTML page (no network needed).

    yyenvs replay games/0-1-00000.json -o game.html
    yyenvs replay --game koi --agents pretrained greedy -o game.html   # play one game, then write it

The page shows the board after every move, the move list in the game's notation, a slider, the
arrow keys (Home / End for the ends) and the result.  A record is replayed and checked first.
"""
from __future__ import annotations

import os
import sys

import numpy as np

from yyenvs.commands.cli import ArgumentParser, add_threads_argument, run, seed_int
from yyenvs.core.threads import set_threads
from yyenvs.values import parse_options
from yyenvs.core.files import check_output, write_text_file
from yyenvs.core.record import GameRecorder, read_record
from yyenvs.games import GAMES, game_spec, load_record, make_core


def _play_one(core, specs, seed: int):
    """The record of one game between ``specs`` (seats alternating from the first), seed ``seed``."""
    from yyenvs.agents import make_agent
    from yyenvs.evaluation.matches import play_games, seat_pattern
    agents = [make_agent(spec, core, seed + k) for k, spec in enumerate(specs)]
    seats = np.zeros((1, 1), np.int64) if core.num_players == 1 else seat_pattern(0, 1, core.num_players, 1)
    seeds = np.array([seed], np.uint64)
    recorder = GameRecorder(seeds, [[specs[e] for e in seats[0]]])
    play_games(core, agents, seats, seeds, recorder=recorder)
    return recorder.records[0]


def main(argv: list[str] | None = None) -> int:
    parser = ArgumentParser(prog="yyenvs replay", description=__doc__.splitlines()[0])
    parser.add_argument("record", nargs="?", help="a game record (.json), from --save-games of yyenvs play or eval")
    parser.add_argument("-o", "--out", default=None, help="the HTML file to write (default: the record's "
                                                          "name with .html, or game.html); never the record "
                                                          "itself")
    parser.add_argument("--force", action="store_true",
                        help="replace the default output file if it exists (a file named by -o is replaced "
                             "anyway)")
    parser.add_argument("--game", choices=list(GAMES), default=None,
                        help="without a record: play one game of this game and write its page")
    parser.add_argument("--agents", nargs="+", default=None, metavar="AGENT",
                        help="with --game: the agents, first seat first (default: pretrained greedy; one "
                             "for the solo game)")
    parser.add_argument("--seed", type=seed_int, default=0, help="with --game: the game's seed")
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                        help="a game option: with --game, any; with a record, one it names a file for "
                             "(Yin Yang's data_file)")
    add_threads_argument(parser)
    args = parser.parse_args(argv)
    set_threads(args.threads, torch_threads=1)  # a match's network calls are a few rows
    if (args.record is None) == (args.game is None):
        parser.error("give a record, or --game to play one game")
    from yyenvs.web.pages import replay_page
    out = args.out or (os.path.splitext(args.record)[0] + ".html" if args.record else "game.html")
    check_output(out, [args.record], named=args.out is not None, force=args.force)
    given = parse_options(args.option)
    if args.game is not None:
        core = make_core(args.game, **given)
        specs = args.agents or (["greedy"] if core.num_players == 1 else ["pretrained", "greedy"])
        if len(specs) != min(core.num_players, 2):
            parser.error(f"--agents takes {min(core.num_players, 2)} agent(s) for this game")
        record = _play_one(core, specs, args.seed)
    else:
        core = None
        if given:  # the record's options, with the file options the user gives (never the record's)
            record = read_record(args.record)
            spec = game_spec(record.game)
            paths = {o.name for o in spec.options if o.kind == "path"}
            options = spec.options_of(record.game_version, record.options)
            core = make_core(record.game, **{**{k: v for k, v in options.items() if k not in paths}, **given})
        record, core = load_record(args.record, core)
    page = replay_page(core, record)
    write_text_file(out, page)
    print(f"wrote {out} ({len(page.encode()) / 1024:.0f} KB, {len(record.moves)} moves): open it in a browser")
    return 0


if __name__ == "__main__":
    sys.exit(run("replay", main, sys.argv[1:]))
