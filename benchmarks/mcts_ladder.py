"""The scripted-baseline ladder: random < greedy < MCTS(n), for every 2-player game.

For each available two-player game plays, batched, N games per pairing with
seats alternating (half the games each way round):

* random vs greedy
* greedy vs mcts (default budget)
* mcts:<small> vs mcts (default budget)

and prints wins/draws/losses of the second agent (the stronger one on the
ladder), its score, and the seconds per move of each agent (per game, i.e.
wall time of a batched ``act`` divided by the rows it moved) with the hardware.

    .venv/bin/python benchmarks/mcts_ladder.py --games 40 --batch 20
    .venv/bin/python benchmarks/mcts_ladder.py --game yoxii --pair greedy,mcts
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from yyenvs.agents import make_agent
from yyenvs.commands.bench import hardware
from yyenvs.core.rng import derive_seeds
from yyenvs.games import GAMES, make_core


def play(core, agents, seeds):
    """Play one batch: ``agents[p]`` sits in seat p.  Returns (rewards (B, P), time, moves)."""
    state = core.init(seeds)
    B = state.batch_size
    P = core.num_players
    total = np.zeros((B, P))
    spent = np.zeros(len(agents))
    moves = np.zeros(len(agents))
    steps = 0
    while not state.done.all():
        actions = np.full(B, -1, dtype=np.int64)
        for p, agent in enumerate(agents):
            rows = np.flatnonzero((state.current_player == p) & ~state.done)
            if rows.size == 0:
                continue
            sub = state.take(rows)
            t = time.perf_counter()
            a = agent.act(sub, core.legal_action_mask(sub))
            spent[p] += time.perf_counter() - t
            moves[p] += rows.size
            actions[rows] = a
        core.step(state, actions)
        total += state.rewards
        steps += 1
        if steps > 10 * core.max_game_length + 10:
            raise RuntimeError("game did not finish")
    return total, spent, moves


def match(core, spec_a, spec_b, games, batch, seed=0):
    """``spec_b``'s win/draw/loss against ``spec_a`` over ``games`` games, seats alternating."""
    a = make_agent(spec_a, core, seed=seed + 1)
    b = make_agent(spec_b, core, seed=seed + 2)
    wdl = np.zeros(3, dtype=np.int64)
    spent = {spec_a: 0.0, spec_b: 0.0}
    moves = {spec_a: 0.0, spec_b: 0.0}
    seeds = derive_seeds(seed, 0, np.arange(games, dtype=np.uint64))
    for start in range(0, games, batch):
        chunk = seeds[start:start + batch]
        half = (chunk.size + 1) // 2
        for b_seat, part in ((1, chunk[:half]), (0, chunk[half:])):
            if part.size == 0:
                continue
            agents = [a, b] if b_seat == 1 else [b, a]
            total, sp, mv = play(core, agents, part)
            diff = total[:, b_seat] - total[:, 1 - b_seat]
            wdl += [(diff > 0).sum(), (diff == 0).sum(), (diff < 0).sum()]
            spent[spec_b] += sp[b_seat]
            moves[spec_b] += mv[b_seat]
            spent[spec_a] += sp[1 - b_seat]
            moves[spec_a] += mv[1 - b_seat]
    per_move = {k: spent[k] / max(moves[k], 1) for k in spent}
    return wdl, per_move


def time_per_move(core, spec, batch, positions=8, seed=0):
    """Seconds per move per game of ``spec`` at ``batch`` on random early/mid-game positions."""
    from yyenvs.agents import RandomAgent
    agent = make_agent(spec, core, seed=seed)
    rnd = RandomAgent(core, seed + 99)
    state = core.init(derive_seeds(seed + 5, 0, np.arange(batch, dtype=np.uint64)))
    spent = 0.0
    rows = 0
    for _ in range(positions):
        live = ~state.done
        if not live.any():
            break
        sub = state.take(live)
        mask = core.legal_action_mask(sub)
        t = time.perf_counter()
        agent.act(sub, mask)
        spent += time.perf_counter() - t
        rows += sub.batch_size
        for _ in range(2):  # move on with random play
            a = rnd.act(state, core.legal_action_mask(state))
            a[state.done] = -1
            core.step(state, a)
    return spent / max(rows, 1)




def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--game", action="append", help="game(s) to run (default: every 2-player game)")
    ap.add_argument("--games", type=int, default=20, help="games per pairing (seats alternate)")
    ap.add_argument("--batch", type=int, default=20, help="games played at once")
    ap.add_argument("--small", type=int, default=25, help="budget of the small MCTS")
    ap.add_argument("--pair", action="append",
                    help="A,B pairing(s) to run instead of the ladder, e.g. greedy,mcts:400")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--timing", action="store_true",
                    help="also time mcts (default budget) per move at batch 1 and 64")
    args = ap.parse_args(argv)
    print("hardware:", hardware())
    games = args.game or list(GAMES)
    pairs = ([tuple(p.split(",")) for p in args.pair] if args.pair else
             [("random", "greedy"), ("greedy", "mcts"), (f"mcts:{args.small}", "mcts")])
    for name in games:
        try:
            core = make_core(name)
        except Exception as exc:  # a core being written may not import yet
            print(f"{name}: skipped ({type(exc).__name__}: {exc})")
            continue
        if core.num_players != 2:
            print(f"{name}: skipped ({core.num_players} players)")
            continue
        if args.timing:
            make_agent("mcts", core).act(core.init(np.arange(2)),
                                         core.legal_action_mask(core.init(np.arange(2))))  # compile
            for b in (1, 64):
                print(f"{name:8s} mcts s/move/game at batch {b:3d}: "
                      f"{time_per_move(core, 'mcts', b):.4f}", flush=True)
        for spec_a, spec_b in pairs:
            t = time.perf_counter()
            wdl, per_move = match(core, spec_a, spec_b, args.games, args.batch, args.seed)
            n = wdl.sum()
            score = (wdl[0] + 0.5 * wdl[1]) / max(n, 1)
            print(f"{name:8s} {spec_b:>10s} vs {spec_a:<10s} W/D/L {wdl[0]:3d}/{wdl[1]:3d}/{wdl[2]:3d}"
                  f"  score {score:5.1%}  s/move {spec_b} {per_move[spec_b]:.4f}"
                  f" {spec_a} {per_move[spec_a]:.4f}  ({time.perf_counter() - t:.0f} s)", flush=True)


if __name__ == "__main__":
    main()
