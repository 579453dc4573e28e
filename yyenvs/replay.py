"""yyenvs replay: write a game record as one self-contained HTML page (no network needed).

    yyenvs replay games/0-1-00000.json -o game.html

The page shows the board after every move, the move list in the game's notation, a slider, the
arrow keys (Home / End for the ends) and the result.  The record is replayed and checked first.
"""
from __future__ import annotations

import os
import sys

from yyenvs.cli import ArgumentParser, parse_options, run
from yyenvs.core.errors import OptionError, RecordError
from yyenvs.core.record import read_record
from yyenvs.games import game_spec, load_record, make_core


def main(argv: list[str] | None = None) -> int:
    parser = ArgumentParser(prog="yyenvs replay", description=__doc__.splitlines()[0])
    parser.add_argument("record", help="a game record (.json), from --save-games of yyenvs play or eval")
    parser.add_argument("-o", "--out", default=None, help="the HTML file to write (default: the record's "
                                                          "name with .html)")
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                        help="a game option the record names a file for (Yin Yang's data_file)")
    args = parser.parse_args(argv)
    from yyenvs.web.pages import replay_page
    out = args.out or os.path.splitext(args.record)[0] + ".html"
    try:
        given = parse_options(args.option)
        core = None
        if given:  # the record's options, with the file options the user gives (never the record's)
            record = read_record(args.record)
            paths = {o.name for o in game_spec(record.game).options if o.kind == "path"}
            core = make_core(record.game, **{**{k: v for k, v in record.options.items() if k not in paths},
                                             **given})
        record, core = load_record(args.record, core)
        page = replay_page(core, record)
    except (OptionError, RecordError) as e:
        print(f"yyenvs replay: error: {e}", file=sys.stderr)
        return 2
    try:
        with open(out, "w", encoding="utf-8") as f:
            f.write(page)
    except OSError as e:
        print(f"yyenvs replay: error: cannot write {out!r}: {e.strerror or e}", file=sys.stderr)
        return 2
    print(f"wrote {out} ({len(page.encode()) / 1024:.0f} KB, {len(record.moves)} moves): open it in a browser")
    return 0


if __name__ == "__main__":
    sys.exit(run("replay", main, sys.argv[1:]))
