"""Speed of the network-guided search: simulations per second, and where the time goes.

For each game, a batch of positions (``--batch`` games a few random moves in)
is searched with ``--simulations`` per position by
:class:`yyenvs.search.gumbel.GumbelSearch` and a policy-value network of
random weights (``--hidden``, an MLP, after ``--blocks`` residual blocks of
``--channels`` convolutions if asked) on ``--device``; ``--threads`` is the
number of torch and numba threads; the figure is the median over
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
    .venv/bin/python benchmarks/search_speed.py --in-flight 1 2  # whole, and as two parts in flight
    .venv/bin/python benchmarks/search_speed.py --games yoxii --option action_features=true  # features read
    .venv/bin/python benchmarks/search_speed.py --batch 1024 --threads 1 2   # scaling with threads
    .venv/bin/python benchmarks/search_speed.py --games koi --batch 1024 --blocks 6 --channels 64 \
        --hidden 256 --device cuda --threads 16                  # the tower on a GPU machine
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time

import numba
import numpy as np

import yyenvs  # noqa: F401  (first: OpenMP's idle threads sleep, docs/performance.md#threads)
import torch  # noqa: E402

from yyenvs.agents import RandomAgent
from yyenvs.networks.device import resolve_device
from yyenvs.search.gumbel import GumbelSearch
from yyenvs.networks.search_network import NetworkEvaluator, make_network, network_description
from yyenvs.commands.bench import hardware
from yyenvs.core.errors import OptionError
from yyenvs.games import GAMES, make_core
from yyenvs.values import parse_options

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


def measure(game: str, args, **search_options) -> dict:
    batch, simulations, repeats = args.batch, args.simulations, args.repeats
    options = {**OPTIONS.get(game, {}), **args.options}
    core = make_core(game, **options)
    torch.manual_seed(0)
    desc = network_description(core, args.hidden, args.channels, args.blocks)
    evaluate = NetworkEvaluator(make_network(core, desc), args.device)
    state = positions(core, batch)
    search = GumbelSearch(core, evaluate, simulations, **search_options)
    search.run(state)  # compiles the kernels, allocates the tree
    rates, shares, tree = [], [], []
    obs = core.observe(state, state.current_player)
    net_rates = []
    for _ in range(repeats):
        before = dict(search.timings)
        t = time.perf_counter()
        search.run(state)
        dt = time.perf_counter() - t
        rates.append(state.batch_size * simulations / dt)
        shares.append({k: (search.timings[k] - before[k]) / dt for k in before})
        tree.append(search.timings["tree"] - before["tree"])
        t = time.perf_counter()
        for _ in range(simulations):
            evaluate(obs)
        net_rates.append(state.batch_size * simulations / (time.perf_counter() - t))
    median = statistics.median(rates)
    return {"game": game, "options": options, "batch": state.batch_size, "sims/s": median,
            "network only": statistics.median(net_rates), "tree ms": 1e3 * statistics.median(tree),
            "share": {k: statistics.median(s[k] for s in shares) for k in shares[0]}}


def report(name: str, threads, r: dict, first, plain) -> None:
    """One result's line (``first``: the same search on the first thread count, ``plain``: the
    first variant on this one, for the ratios)."""
    sh = r["share"]
    other = 1 - sum(sh.values())
    label = name if threads is None else f"{name} {threads} threads"
    ratios = (f"; {r['sims/s'] / first['sims/s']:.2f}x the simulations/s, {first['tree ms'] / r['tree ms']:.2f}x "
              f"the tree's speed of the first thread count") if first else ""
    print(f"{label:28} {str(r['options'] or ''):34} {r['sims/s']:9,.0f} simulations/s "
          f"(network alone {r['network only']:9,.0f}/s, ratio {r['sims/s'] / r['network only']:.2f}); "
          f"time in network {100 * sh['network']:.0f}%, core {100 * sh['core']:.0f}%, "
          f"tree {100 * sh['tree']:.0f}% ({r['tree ms']:.0f} ms a search), other {100 * other:.0f}%{ratios}"
          + (f", {plain['sims/s'] / r['sims/s']:.2f}x the time of the first variant" if plain else ""))


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--games", nargs="+", default=["yoxii", "koi"], choices=list(GAMES))
    p.add_argument("--batch", type=int, default=256)
    p.add_argument("--simulations", type=int, default=32)
    p.add_argument("--hidden", type=int, nargs="+", default=[128, 128])
    p.add_argument("--repeats", type=int, default=7)
    p.add_argument("--blocks", type=int, default=0, help="residual blocks before the MLP (0: none)")
    p.add_argument("--channels", type=int, default=64, help="channels of the residual blocks")
    p.add_argument("--device", default="cpu", help="where the network runs: auto, cpu, cuda or cuda:<i>")
    p.add_argument("--threads", type=int, nargs="+", default=[2],
                   help="torch threads, and numba's for the game and tree kernels (several: each in turn, "
                        "with the ratios to the first)")
    p.add_argument("--find-wins", action="store_true",
                   help="each search also with find_wins, beside the plain search")
    p.add_argument("--rollout-weight", type=float, default=0.0,
                   help="each search also with rollouts mixed into the leaf values at this weight")
    p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                   help="a game option for every game measured (repeatable), over the benchmark's own; "
                        "e.g. --games yoxii --option action_features=true: the network reads the features")
    p.add_argument("--in-flight", type=int, nargs="+", default=[1],
                   help="parts of the batch in flight (each a variant; 2: the network evaluates one "
                        "part while the CPU works on the other)")
    args = p.parse_args(argv)
    args.options = parse_options(args.option)
    resolve_device(args.device)  # a GPU name torch cannot use is refused before anything runs
    if max(args.threads) > numba.config.NUMBA_NUM_THREADS:
        p.error(f"--threads: numba has {numba.config.NUMBA_NUM_THREADS} threads here (NUMBA_NUM_THREADS)")
    print(hardware())
    tower = f"{args.blocks} residual blocks x {args.channels} channels + " if args.blocks else ""
    print(f"search: {args.batch} games x {args.simulations} simulations, {tower}MLP {args.hidden} with random "
          f"weights on {args.device}, torch {torch.__version__}, torch and numba on "
          f"{' then '.join(map(str, args.threads))} threads; median of {args.repeats}")
    variants = [("" if k == 1 else f" in_flight={k}", {"in_flight": k}) for k in args.in_flight]
    if args.find_wins:
        variants.append((" find_wins", {"find_wins": True}))
    if args.rollout_weight > 0:
        variants.append((f" rollouts {args.rollout_weight:g}", {"rollout_weight": args.rollout_weight}))
    for game in args.games:
        plain = {}  # per thread count, the first variant's result
        for suffix, options in variants:
            first = None
            for threads in args.threads:
                torch.set_num_threads(threads)
                numba.set_num_threads(threads)
                r = measure(game, args, **options)
                report(game + suffix, threads if len(args.threads) > 1 else None, r, first, plain.get(threads))
                first = first or r
                plain.setdefault(threads, r)
    return 0


if __name__ == "__main__":
    try:
        raise SystemExit(main())
    except OptionError as e:  # e.g. --device cuda where torch has no GPU
        print(f"search_speed.py: error: {e}", file=sys.stderr)
        raise SystemExit(2) from None
