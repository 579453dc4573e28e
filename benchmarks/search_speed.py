"""Speed of the network-guided search: simulations per second, and where the time goes.

For each game, a batch of positions (``--batch`` games a few random moves in)
is searched with ``--simulations`` per position by
:class:`yyenvs.agents.gumbel.GumbelSearch` and a policy-value network of
random weights (``--hidden``, an MLP); the figure is the median over
``--repeats`` searches of (batch x simulations) / seconds, with the share of
that time spent in the network, in the game core (step, mask, observe, state
copies) and in the tree kernels, the rest being Python glue.  As a reference
measured in the same run, the network alone: forward passes of one batch per
second times the batch, i.e. the most simulations per second a search that
did nothing but evaluate could reach.

    .venv/bin/python benchmarks/search_speed.py                 # Yoxii and Koi, 256 x 32, 2x128 MLP
    .venv/bin/python benchmarks/search_speed.py --games koi --batch 1024
    .venv/bin/python benchmarks/search_speed.py --find-wins      # also with the check for wins at once
    .venv/bin/python benchmarks/search_speed.py --rollout-weight 0.5   # also with rollouts in the leaf values
"""
from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
import torch

from yyenvs.agents import RandomAgent
from yyenvs.agents.gumbel import GumbelSearch
from yyenvs.agents.search_network import NetworkEvaluator, make_network, network_description
from yyenvs.bench import hardware
from yyenvs.games import GAMES, make_core

#: the benchmark's game options: Koi on its full board
OPTIONS = {"koi": {"board_size": 9, "directions": 8}}


def positions(core, batch: int, seed: int = 0):
    """``batch`` games in progress, 0-7 random moves in."""
    state = core.init(np.arange(seed, seed + batch))
    rnd = RandomAgent(core, seed)
    plies = np.arange(batch) % 8
    for t in range(8):
        a = rnd.act(state, core.legal_action_mask(state))
        a[(plies <= t) | state.done] = -1
        core.step(state, a)
    return state.take(np.flatnonzero(~state.done))


def measure(game: str, batch: int, simulations: int, hidden, repeats: int, **search_options) -> dict:
    core = make_core(game, **OPTIONS.get(game, {}))
    torch.manual_seed(0)
    evaluate = NetworkEvaluator(make_network(core, network_description(core, hidden)))
    state = positions(core, batch)
    search = GumbelSearch(core, evaluate, simulations, **search_options)
    search.run(state)  # compiles the kernels, allocates the tree
    rates, shares = [], []
    obs = core.observe(state, state.current_player)
    net_rates = []
    for _ in range(repeats):
        before = dict(search.timings)
        t = time.perf_counter()
        search.run(state)
        dt = time.perf_counter() - t
        rates.append(state.batch_size * simulations / dt)
        shares.append({k: (search.timings[k] - before[k]) / dt for k in before})
        t = time.perf_counter()
        for _ in range(simulations):
            evaluate(obs)
        net_rates.append(state.batch_size * simulations / (time.perf_counter() - t))
    median = statistics.median(rates)
    return {"game": game, "options": OPTIONS.get(game, {}), "batch": state.batch_size, "sims/s": median,
            "network only": statistics.median(net_rates),
            "share": {k: statistics.median(s[k] for s in shares) for k in shares[0]}}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--games", nargs="+", default=["yoxii", "koi"], choices=list(GAMES))
    p.add_argument("--batch", type=int, default=256)
    p.add_argument("--simulations", type=int, default=32)
    p.add_argument("--hidden", type=int, nargs="+", default=[128, 128])
    p.add_argument("--repeats", type=int, default=7)
    p.add_argument("--threads", type=int, default=2, help="torch threads")
    p.add_argument("--find-wins", action="store_true",
                   help="each search also with find_wins, beside the plain search")
    p.add_argument("--rollout-weight", type=float, default=0.0,
                   help="each search also with rollouts mixed into the leaf values at this weight")
    args = p.parse_args(argv)
    torch.set_num_threads(args.threads)
    print(hardware())
    print(f"search: {args.batch} games x {args.simulations} simulations, MLP {args.hidden} with random weights, "
          f"torch {torch.__version__} on {args.threads} threads; median of {args.repeats}")
    variants = [("", {})]
    if args.find_wins:
        variants.append((" find_wins", {"find_wins": True}))
    if args.rollout_weight > 0:
        variants.append((f" rollouts {args.rollout_weight:g}", {"rollout_weight": args.rollout_weight}))
    for game in args.games:
        plain = None
        for suffix, options in variants:
            r = measure(game, args.batch, args.simulations, args.hidden, args.repeats, **options)
            sh = r["share"]
            other = 1 - sum(sh.values())
            slower = f", {plain / r['sims/s']:.2f}x the time of the plain search" if plain else ""
            print(f"{game + suffix:18} {str(r['options'] or ''):34} {r['sims/s']:9,.0f} simulations/s "
                  f"(network alone {r['network only']:9,.0f}/s, ratio {r['sims/s'] / r['network only']:.2f}); "
                  f"time in network {100 * sh['network']:.0f}%, core {100 * sh['core']:.0f}%, "
                  f"tree {100 * sh['tree']:.0f}%, other {100 * other:.0f}%{slower}")
            plain = plain or r["sims/s"]
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
