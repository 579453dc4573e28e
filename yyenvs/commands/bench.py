"""``yyenvs bench``: steps per second and memory, with the hardware, in one run.

Measures random legal play (legal-action mask + observation + step + auto-reset
of finished games) on each game's batched core at several batch sizes, then
one game through the PettingZoo AEC API, then PettingZoo's classic
``connect_four_v3`` through the same AEC loop as the reference.  Each figure
is the median of ``--repeats`` timed windows.  ``--threads 1 2`` also times
large batches with the kernels on each number of threads (1: the serial
kernels), with each figure's ratio to the first.  ``--compile`` also times the
numba compile cost in fresh subprocesses: empty cache (median of repeats, ratio
to Yoxii's) and warm cache.
"""
from __future__ import annotations

import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time

import numba
import numpy as np

from yyenvs.commands.cli import ArgumentParser, batch_int, positive_float, positive_int, run
from yyenvs.core import kernels
from yyenvs.core.moves import sample_legal
from yyenvs.core.rng import uniform01
from yyenvs.core.threads import set_threads
from yyenvs.games import GAMES, game_spec, make_core


def hardware() -> str:
    cpu = platform.processor() or "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    import numba
    return (f"{cpu}; {os.cpu_count()} logical cores (numba threads {numba.get_num_threads()}); "
            f"Python {platform.python_version()}, numpy {np.__version__}, numba {numba.__version__}; "
            f"{platform.system()} {platform.machine()}")


def core_steps_per_second(core, batch: int, seconds: float) -> tuple[float, float]:
    """Random legal play on the batched core; returns (steps/s, state bytes per game)."""
    state = core.init(np.arange(batch, dtype=np.uint64))
    actions = np.empty(batch, dtype=np.int64)
    next_seed = batch
    steps, start = 0, time.perf_counter()
    while True:
        mask = core.legal_action_mask(state)
        core.observe(state, state.current_player)
        sample_legal(mask, uniform01(state.seed, state.ply.astype(np.uint64)), actions)
        core.step(state, actions)
        steps += batch
        done = np.flatnonzero(state.done)
        if done.size:  # auto-reset
            state.put(done, core.init(np.arange(next_seed, next_seed + done.size, dtype=np.uint64)))
            next_seed += done.size
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return steps / elapsed, state.nbytes_per_game()


def aec_steps_per_second(env, seconds: float, seed: int = 0) -> float:
    """The PettingZoo AEC loop of the docs, random legal actions via rng.choice."""
    rng = np.random.default_rng(seed)
    steps, start = 0, time.perf_counter()
    env.reset(seed=seed)
    while True:
        for agent in env.agent_iter():
            obs, reward, termination, truncation, info = env.last()
            if termination or truncation:
                action = None
            else:
                action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
            env.step(action)
            steps += 1
        env.reset()
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return steps / elapsed


def median_of(fn, repeats: int):
    results = [fn() for _ in range(repeats)]
    return statistics.median(r if np.isscalar(r) else r[0] for r in results), results[-1]


COMPILE_CHILD = """
import time
import numba
import numpy as np
import numba
wall, cpu = time.perf_counter(), time.process_time()
from yyenvs.games import make_core
c = make_core({game!r})
s = c.init(np.arange(2, dtype=np.uint64))
m = c.legal_action_mask(s)
c.observe(s, s.current_player)
c.heuristic(s, s.current_player)
c.step(s, np.argmax(m, 1))
print(time.perf_counter() - wall, time.process_time() - cpu)
"""


def compile_seconds(game: str, cache: str) -> tuple[float, float]:
    """(wall, CPU) seconds of building ``game``'s core at its default options and the first call of
    each kernel, in a fresh process with numba's cache in ``cache`` (serial kernels; importing numpy
    and numba is not timed)."""
    env = {**os.environ, "NUMBA_CACHE_DIR": cache, "YYENVS_PARALLEL": "0"}
    r = subprocess.run([sys.executable, "-c", COMPILE_CHILD.format(game=game)], env=env, cwd=cache,
                       capture_output=True, text=True, check=False)
    if r.returncode != 0:
        raise RuntimeError(f"{game}: {r.stderr[-2000:]}")
    wall, cpu = r.stdout.strip().splitlines()[-1].split()
    return float(wall), float(cpu)


def print_compile_times(games: list[str], repeats: int) -> None:
    """Cold compiles (an empty cache each time), the games alternating within each repeat so that the
    machine's load hits them alike; medians, and each game's ratio to Yoxii's; then one warm start."""
    games = list(dict.fromkeys(["yoxii"] + games))  # Yoxii is the yardstick
    print(f"\ncompile: first init / mask / observe / heuristic / step at default options, fresh process, "
          f"serial kernels; median of {repeats} cold starts (CPU time is steadier on a shared machine)")
    cold = {g: [] for g in games}
    for _ in range(repeats):
        for g in games:
            with tempfile.TemporaryDirectory(prefix="numba_cold_") as cache:
                cold[g].append(compile_seconds(g, cache))
    median = {g: [statistics.median(x[k] for x in cold[g]) for k in (0, 1)] for g in games}
    base = median["yoxii"]
    for g in games:
        with tempfile.TemporaryDirectory(prefix="numba_warm_") as cache:
            compile_seconds(g, cache)
            warm = compile_seconds(g, cache)
        (w, c), ratios = median[g], [x[1] / y[1] for x, y in zip(cold[g], cold["yoxii"])]
        print(f"{g:<34} cold {w:6.1f}s wall, {c:6.1f}s CPU ({c / base[1]:.2f}x Yoxii; per repeat "
              f"{', '.join(f'{r:.2f}' for r in ratios)}); warm cache {warm[0]:.1f}s")


def _settings(batch: int, args) -> list[tuple[str, str, int]]:
    """(row label, kernel mode, numba threads) of each figure to take at ``batch``."""
    out = [("core", "auto", args.default_threads)]
    if batch >= kernels.PARALLEL_MIN_BATCH:
        if args.parallel:
            out += [("core serial", "serial", args.default_threads), ("core parallel", "parallel", args.default_threads)]
        out += [(f"core {t} threads", "serial" if t == 1 else "parallel", t) for t in args.threads]
    return out


def main(argv: list[str] | None = None) -> int:
    parser = ArgumentParser(prog="yyenvs bench", description=__doc__.splitlines()[0])
    parser.add_argument("--games", nargs="*", default=None, help="games to measure (default: all); each runs the variants its spec declares")
    parser.add_argument("--batches", nargs="+", type=batch_int, default=[1, 64, 1024, 4096],
                        help="batch sizes to time, games stepped at once (default: 1 64 1024 4096)")
    parser.add_argument("--seconds", type=positive_float, default=0.5, help="length of one timed window")
    parser.add_argument("--repeats", type=positive_int, default=5, help="timed windows per figure (median)")
    parser.add_argument("--compile", action="store_true",
                        help="also time numba compilation per game: empty cache (and its ratio to Yoxii's), warm cache")
    parser.add_argument("--compile-repeats", type=positive_int, default=3, help="cold compiles per game (median)")
    parser.add_argument("--parallel", action="store_true",
                        help="also measure forced serial and forced parallel kernels at large batches "
                             "(the default 'auto' picks the faster as it goes)")
    parser.add_argument("--threads", nargs="+", type=positive_int, default=[],
                        help="also measure large batches with the kernels on each of these numbers of "
                             f"threads (1: serial; at most {numba.config.NUMBA_NUM_THREADS} here), "
                             "with each figure's ratio to the first")
    args = parser.parse_args(argv)
    args.default_threads = set_threads()["threads"]  # the cores this process may use, or YYENVS_THREADS
    if any(t > numba.config.NUMBA_NUM_THREADS for t in args.threads):
        parser.error(f"--threads: numba has {numba.config.NUMBA_NUM_THREADS} threads here (set NUMBA_NUM_THREADS "
                     "before the run for more)")
    games = args.games or list(GAMES)
    unknown = sorted(set(games) - set(GAMES))
    if unknown:
        parser.error(f"unknown game(s) {unknown}; choose from {list(GAMES)}")

    print(f"hardware: {hardware()}")
    print(f"load average before the run: {os.getloadavg()[0]:.2f} (other processes slow every figure)")
    print(f"method: random legal play with mask + observation + step + auto-reset; "
          f"median of {args.repeats} windows of {args.seconds}s")
    from pettingzoo.classic import connect_four_v3
    ref, _ = median_of(lambda: aec_steps_per_second(connect_four_v3.env(), args.seconds), args.repeats)
    print(f"\nreference  pettingzoo connect_four_v3 AEC: {ref:,.0f} steps/s")
    print(f"\n{'game':<34} {'layer':<15}{'batch':>6}{'steps/s':>14}{'vs C4 AEC':>10}{'B/game':>9}")
    parallel_default = kernels.parallel_mode()
    for game in games:
        for options in game_spec(game).variants:
            core = make_core(game, **options)
            label = game + "".join(f" {k}={v}" for k, v in options.items())
            core_steps_per_second(core, 8, 0.05)  # compile / warm up
            for batch in args.batches:
                first = None
                for layer, mode, threads in _settings(batch, args):
                    kernels.set_parallel(mode)
                    numba.set_num_threads(threads)
                    core_steps_per_second(core, batch, 0.05)
                    sps, (_, nbytes) = median_of(
                        lambda: core_steps_per_second(core, batch, args.seconds), args.repeats)
                    scaling = ""
                    if layer.endswith("threads"):
                        first = first or sps
                        scaling = f"   {sps / first:.2f}x the first thread count"
                    print(f"{label:<34} {layer:<15}{batch:>6}{sps:>14,.0f}{sps / ref:>9.1f}x"
                          f"{nbytes:>9.0f}{scaling}")
                kernels.set_parallel(parallel_default)
                numba.set_num_threads(args.default_threads)
            from yyenvs.envs.aec import aec_factories
            _, env_fn = aec_factories(game)
            env = env_fn(**options)
            aec_steps_per_second(env, 0.05)
            sps, _ = median_of(lambda: aec_steps_per_second(env, args.seconds), args.repeats)
            print(f"{label:<34} {'AEC':<15}{1:>6}{sps:>14,.0f}{sps / ref:>9.1f}x{'':>9}")
    if args.compile:
        print_compile_times(games, args.compile_repeats)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"\npeak resident memory of this process: {peak:,.0f} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(run("bench", main, sys.argv[1:]))
