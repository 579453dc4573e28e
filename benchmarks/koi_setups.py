"""Koi: is the game already won when the set-up ends?

Two agents (``--first``, ``--second``) place the ten koi of ``--games`` games;
then each position is searched exhaustively over the rules
(:func:`yyenvs.search.solver.prove`, up to ``--budget`` positions and
``--depth`` moves from the end of the set-up) for a forced win.  Prints how
many set-ups are proven wins for the first seat, for the second, and unknown,
with the hardware.

``--last-placement`` stops one placement earlier, before the second seat's
last koi, and proves the position after each of its legal placements: it
prints, per game, how many of them escape a proven first-seat win.

``--play-out`` plays every game to its end instead, proves the position at
the second seat's first swim over the same horizon, and prints the second
seat's wins and losses among the positions proven lost there and the rest.

    .venv/bin/python benchmarks/koi_setups.py --first mcts:1600 --second random
    .venv/bin/python benchmarks/koi_setups.py --first greedy --second greedy --last-placement --games 8
    .venv/bin/python benchmarks/koi_setups.py --first greedy --second random --play-out --games 100
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from yyenvs.agents import make_agent
from yyenvs.search.solver import prove
from yyenvs.commands.bench import hardware
from yyenvs.games import make_core

SETUP_PLIES = 10  # five koi each


def proven_for_mover(core, states, budget: int, depth: int) -> np.ndarray:
    """Per row: 1 a proven win for the seat to move, -1 a proven loss, 0 unknown (or a proven draw)."""
    proof = prove(core, states, budget, depth)
    mine = proof.root_result[np.arange(states.batch_size), states.current_player.astype(np.int64)]
    low, top = core.reward_range
    return np.where(proof.root_known & (mine >= top), 1, np.where(proof.root_known & (mine <= low), -1, 0))


def play(core, agents, state, plies: int) -> np.ndarray:
    """Play ``plies`` more moves of every unfinished game in place (a finished game stays as it is);
    each game's rewards over them per seat."""
    returns = np.zeros((state.batch_size, core.num_players))
    for _ in range(plies):
        live = np.flatnonzero(~state.done)
        if live.size == 0:
            break
        now = state.take(live)
        mask, actions = core.legal_action_mask(now), np.full(live.size, -1, np.int64)
        for seat, agent in enumerate(agents):
            rows = np.flatnonzero(now.current_player == seat)
            if rows.size:
                actions[rows] = agent(now.take(rows), mask[rows])
        core.step(now, actions)
        returns[live] += now.rewards
        state.put(live, now)
    return returns


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--first", default="greedy")
    ap.add_argument("--second", default="greedy")
    ap.add_argument("--games", type=int, default=30)
    ap.add_argument("--seed", type=int, default=5000)
    ap.add_argument("--budget", type=int, default=2_000_000, help="positions per proof")
    ap.add_argument("--depth", type=int, default=5, help="moves after the set-up (5: the first seat's third)")
    ap.add_argument("--last-placement", action="store_true")
    ap.add_argument("--play-out", action="store_true")
    args = ap.parse_args(argv)
    for name in ("games", "seed", "budget", "depth"):  # refused before any game is played
        least = 1 if name == "games" else 0
        if getattr(args, name) < least:
            ap.error(f"--{name} must be at least {least}, got {getattr(args, name)}")
    if args.last_placement and args.play_out:
        ap.error("--last-placement and --play-out are two different measurements: give one")
    if args.play_out and args.depth < 2:
        ap.error("--play-out needs --depth 2 or more (the first seat's first swim comes before the proof)")
    core = make_core("koi", board_size=9, directions=8)
    agents = [make_agent(args.first, core, seed=args.seed + 1), make_agent(args.second, core, seed=args.seed + 2)]
    state = core.init(np.arange(args.seed, args.seed + args.games, dtype=np.uint64))
    t0 = time.perf_counter()
    play(core, agents, state, SETUP_PLIES - (1 if args.last_placement else 0))
    t1 = time.perf_counter()
    print(f"koi 9x9, 8 directions: {args.games} set-ups, first seat {args.first}, second seat {args.second}; "
          f"proofs of {args.depth} moves, at most {args.budget:,} positions each")
    if args.play_out:
        returns = play(core, agents, state, 1)  # the first seat's first swim
        first_swim = state.copy()
        returns += play(core, agents, state, core.max_game_length)
        t1 = time.perf_counter()
        live = np.flatnonzero(~first_swim.done)
        lost = first_swim.done & (returns[:, 1] < 0)  # a game the first swim ended
        lost[live] = proven_for_mover(core, first_swim.take(live), args.budget, args.depth - 1) == -1
        won = returns[:, 1] > 0
        print(f"  second seat's first swim: proven lost in {lost.sum()} games (second seat won {(won & lost).sum()}), "
              f"not proven lost in {(~lost).sum()} (won {(won & ~lost).sum()}); second seat won {won.sum()} "
              f"of {args.games}")
    elif not args.last_placement:
        verdict = proven_for_mover(core, state, args.budget, args.depth)  # the first seat moves next
        print(f"  after the set-up: first seat proven to win {(verdict == 1).sum()}, "
              f"second seat proven to win {(verdict == -1).sum()}, unknown {(verdict == 0).sum()}")
    else:
        escapes = []
        for g in range(args.games):
            placements = np.flatnonzero(core.legal_action_mask(state.take([g]))[0])
            after = state.take(np.full(placements.size, g))
            core.step(after, placements)
            escaped = int((proven_for_mover(core, after, args.budget, args.depth) != 1).sum())  # first seat to move
            escapes.append(f"{escaped}/{placements.size}")
        print(f"  second seat's last koi: placements that escape a proven first-seat win, per game: "
              f"{', '.join(escapes)}")
    print(f"  games {t1 - t0:.1f} s, proofs {time.perf_counter() - t1:.1f} s")
    print(hardware())


if __name__ == "__main__":
    main()
