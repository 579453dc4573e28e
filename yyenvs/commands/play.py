"""``yyenvs play``: a batch of games between two agents, seats alternating; or play one yourself.

Examples: ``yyenvs play --game yoxii --agents greedy random --games 1000`` and
``yyenvs play --human --game koi --agents human greedy`` (a page on 127.0.0.1 in your browser).
"""
from __future__ import annotations

import os
import sys
import textwrap
import time

from yyenvs.agents import BASELINES, make_agent
from yyenvs.evaluation.matches import play_match
from yyenvs.commands.cli import ArgumentParser, add_threads_argument, games_int, refuse_unused, run, seed_int
from yyenvs.values import parse_options
from yyenvs.core.contract import OptionError
from yyenvs.core.errors import RecordError
from yyenvs.core.threads import set_threads
from yyenvs.games import GAMES, make_core

HUMAN = "human"


def _agent(spec: str, core, seed: int):
    try:
        return make_agent(spec, core, seed=seed)
    except OptionError:
        raise
    except ValueError as e:  # a baseline's own settings check, e.g. mcts:0
        if spec.partition(":")[0] not in BASELINES:
            raise
        raise OptionError(f"agent {spec!r}: {e}") from None


def main(argv: list[str] | None = None) -> int:
    parser = ArgumentParser(prog="yyenvs play", description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="yoxii", choices=list(GAMES), help="the game (default yoxii)")
    parser.add_argument("--agents", nargs="+", default=["greedy", "random"], metavar="AGENT",
                        help="two agents: random, greedy, mcts[:n], az:<checkpoint>[:<n>[:<key>=<value>,...]], "
                             "pretrained, pretrained:fast or a checkpoint path; with --human, 'human' and the agent "
                             "you play (in seat order)")
    parser.add_argument("--games", type=games_int, default=1000,
                        help="games to play, seats alternating (default 1000; with --human: ignored)")
    parser.add_argument("--seed", type=seed_int, default=0,
                        help="the master seed: the same seed plays the same games (default 0)")
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                        help="a game option, e.g. --option board_size=7 (repeatable)")
    parser.add_argument("--save-games", default=None, metavar="DIR",
                        help="write every game as a JSON record to DIR (watch one with yyenvs replay); "
                             "with --human the default is ./games")
    parser.add_argument("--human", action="store_true",
                        help="play yourself: serve a page on 127.0.0.1 where you play the other agent")
    parser.add_argument("--port", type=int, default=0, help="with --human: the port (default: a free one)")
    parser.add_argument("--no-browser", action="store_true", help="with --human: print the address only")
    parser.add_argument("--terminal", action="store_true",
                        help="with --human: play in this terminal (the board as text, moves by number or name)")
    add_threads_argument(parser)
    args = parser.parse_args(argv)
    refuse_unused(parser, args, "--human", args.human, port=0, no_browser=False, terminal=False)
    set_threads(args.threads, torch_threads=1)  # a match's network calls are a few rows
    try:
        options = parse_options(args.option)
    except OptionError as e:
        parser.error(str(e))
    core = make_core(args.game, **options)
    if args.human:
        return _play_human(parser, core, args)
    if HUMAN in args.agents:
        parser.error("the agent 'human' needs --human")
    if len(args.agents) != 2:
        parser.error(f"--agents takes two agents, got {len(args.agents)}")
    if core.num_players != 2:
        parser.error(f"play needs a two-player game; {args.game} with these options has "
                     f"{core.num_players} players (yyenvs eval plays multi-player games)")
    if args.save_games is not None:  # refuse before playing, not after
        from yyenvs.core.record import record_paths
        try:
            record_paths(args.save_games, "game", args.games)
        except RecordError as e:
            parser.error(f"--save-games: {e}")
    a = _agent(args.agents[0], core, args.seed)
    b = _agent(args.agents[1], core, args.seed + 1)
    t = time.perf_counter()
    r = play_match(core, a, b, args.games, seed=args.seed,
                   record_as=args.agents if args.save_games is not None else None)
    dt = time.perf_counter() - t
    n = args.games
    print(f"{args.game}: {args.agents[0]} vs {args.agents[1]}, {n} games, seats alternating")
    print(f"  {args.agents[0]} wins {r['wins']} ({r['wins'] / n:.1%}), draws {r['draws']}, "
          f"losses {r['losses']} ({r['losses'] / n:.1%})")
    for start, (w, d, l) in r["by_start"].items():
        print(f"  {args.agents[0]} seated {start}: {w}-{d}-{l} ({w / max(w + d + l, 1):.1%} wins)")
    print(f"  {r['plies']} plies in {dt:.1f}s ({r['plies'] / dt:,.0f} plies/s)")
    if args.save_games is not None:
        from yyenvs.core.record import save_records
        try:
            paths = save_records(r["records"], args.save_games, "game")
        except RecordError as e:
            print(f"yyenvs play: error: {e}", file=sys.stderr)
            return 2
        print(f"  wrote {len(paths)} records to {args.save_games} (yyenvs replay {paths[0]} -o game.html)")
    return 0


def _play_human(parser, core, args) -> int:
    """Seat the person where 'human' stands in --agents; the other agent takes every other seat."""
    specs = args.agents
    if specs.count(HUMAN) != 1 or len(specs) > 2 or (len(specs) == 1 and core.num_players > 1):
        parser.error("--human needs --agents with 'human' once and the agent to play against, e.g. "
                     "--agents human greedy (you move first) or --agents greedy human")
    if not 1 <= args.port <= 65535 and args.port != 0:
        parser.error(f"--port must be from 1 to 65535 (or 0: a free one), got {args.port}")
    from yyenvs.core.record import check_record_dir
    try:  # refuse now: the server would only find out at the end of the first game
        check_record_dir(args.save_games or "games")
    except RecordError as e:
        parser.error(f"--save-games: {e}")
    human_seat = specs.index(HUMAN)
    other = next((s for s in specs if s != HUMAN), None)
    agent = None if other is None else _agent(other, core, args.seed + 1)
    seats = [None if p == human_seat else agent for p in range(core.num_players)]
    names = [HUMAN if p == human_seat else other for p in range(core.num_players)]
    from yyenvs.web.server import PlaySession, serve
    session = PlaySession(core, seats, names, args.seed, args.save_games or "games")
    if args.terminal:
        code = play_in_terminal(session)
        if code == OUTPUT_CLOSED:  # nothing more can be shown: let the exit's flush go nowhere
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return code
    title = f"{core.spec.title}: you against {other}" if other else f"{core.spec.title}: solo"
    try:
        server = serve(session, title, args.port)
    except OSError as e:
        parser.error(f"cannot listen on 127.0.0.1:{args.port}: {e.strerror or e}")
    url = f"http://127.0.0.1:{server.server_address[1]}/"
    print(f"playing {core.spec.title} against {other} at {url} (games are saved to "
          f"{session.save_dir}/); stop with Ctrl-C", flush=True)
    if not args.no_browser:
        import webbrowser
        webbrowser.open(url)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


TERMINAL_HELP = ("type a move's number or its name; 'resign' gives the game up, 'new' starts the next game, "
                 "'quit' (or end of input) stops")


#: play_in_terminal's status when its output was closed (``| head``); Ctrl-C gives 130, as shells do
OUTPUT_CLOSED = 1


def play_in_terminal(session, read=input, write=print) -> int:
    """The play page's game in a terminal (as OpenSpiel's console play): the board as text, the
    legal moves numbered, the person's answer read by ``read``; agents answer at once.  Ends with 0
    on 'quit' or the end of input, 130 on Ctrl-C and :data:`OUTPUT_CLOSED` when the output closes."""
    try:
        return _terminal_game(session, read, write)
    except KeyboardInterrupt:
        try:
            write("\nstopped (Ctrl-C)")
        except (BrokenPipeError, KeyboardInterrupt):
            pass
        return 130
    except BrokenPipeError:
        return OUTPUT_CLOSED


def _terminal_game(session, read, write) -> int:
    core = session.core
    write(f"{core.spec.title}: {session.you()}; {TERMINAL_HELP}")
    while True:
        view = session.view()
        write(core.render_ansi(session.state, 0))
        if view["moves"]:
            write(f"last: {view['moves'][-1]}")
        if view["over"]:
            write(f"game over: {view['result']}" + (f" (saved as {view['saved']})" if view["saved"] else ""))
            if view["save_error"]:
                write(view["save_error"])
        else:
            write(textwrap.fill("   ".join(f"{k}: {m['name']}" for k, m in enumerate(view["legal"])), 110))
        try:
            answer = read("> ").strip()
        except EOFError:
            write("\nend of input" + ("" if view["over"] else ": the game stops unfinished"))
            return 0
        except UnicodeDecodeError:
            write(f"that line is not text in this terminal's encoding; {TERMINAL_HELP}")
            continue
        names = {m["name"].lower(): m["action"] for m in view["legal"]}
        try:
            if answer in ("quit", "q"):
                return 0
            if answer == "new":
                session.new_game()
            elif answer == "resign":
                session.resign()
            elif answer.isdigit() and int(answer) < len(view["legal"]):
                session.play(view["legal"][int(answer)]["action"])
            elif answer.lower() in names:
                session.play(names[answer.lower()])
            else:
                write(f"not a move now: {answer!r}; {TERMINAL_HELP}")
        except ValueError as e:
            write(str(e))


if __name__ == "__main__":
    sys.exit(run("play", main, sys.argv[1:]))
