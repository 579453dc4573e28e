"""Cold numba compile time per game, and its ratio to Yoxii's.

    .venv/bin/python benchmarks/compile_time.py [--repeats 3] [--games yoxii yinyang] [--tree DIR]

For each game, a fresh Python process with an empty ``NUMBA_CACHE_DIR`` (a new
temporary directory, so nothing is reused from disk) times ``make_core`` at
the game's default options, then ``init``, ``legal_action_mask``, ``observe``,
``step`` and ``heuristic`` once each on a 2-row batch (serial kernels).
Importing numpy and numba is not timed.  The games alternate within each
repeat (the machine's load then hits them alike); the figures are medians.
Prints the hardware, then per game the seconds and the ratio to Yoxii's,
both wall-clock and CPU time of the process (numba compiles on one thread,
so on an idle machine they agree; on a shared one the CPU time is steadier).

``--tree`` measures another checkout of the project (e.g. an old commit in a
``git worktree``) instead of the one this script is in.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile

from yyenvs.bench import hardware  # one hardware line for every benchmark

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

CHILD = """
import time
import numpy as np
import numba
t = time.perf_counter()
cpu = time.process_time()
from yyenvs.games import make_core
c = make_core({game!r})
s = c.init(np.arange(2, dtype=np.uint64))
m = c.legal_action_mask(s)
c.observe(s, s.current_player)
c.step(s, np.argmax(m, 1))
c.heuristic(s, s.current_player)
print(time.perf_counter() - t, time.process_time() - cpu)
"""



def cold_compile_seconds(game: str, tree: str) -> tuple[float, float]:
    """(wall, CPU) seconds of one fresh process with an empty numba cache."""
    with tempfile.TemporaryDirectory(prefix="numba_cold_") as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache, "PYTHONPATH": tree, "YYENVS_PARALLEL": "0"}
        r = subprocess.run([sys.executable, "-c", CHILD.format(game=game)], env=env, cwd=cache,
                           capture_output=True, text=True, check=False)
    if r.returncode != 0:
        raise RuntimeError(f"{game}: {r.stderr[-2000:]}")
    wall, cpu = r.stdout.strip().splitlines()[-1].split()
    return float(wall), float(cpu)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--games", nargs="+", default=["yoxii", "koi", "yinyang"])
    parser.add_argument("--tree", default=HERE, help="the checkout to measure (default: this one)")
    args = parser.parse_args(argv)
    games = list(dict.fromkeys(["yoxii"] + args.games))  # Yoxii is the yardstick
    tree = os.path.abspath(args.tree)
    print(f"hardware: {hardware()}")
    print(f"tree: {tree}")
    wall = {g: [] for g in games}
    cpu = {g: [] for g in games}
    for r in range(args.repeats):
        for g in games:
            w, c = cold_compile_seconds(g, tree)
            wall[g].append(w)
            cpu[g].append(c)
        print(f"repeat {r + 1}: " + ", ".join(f"{g} {wall[g][-1]:.2f} s ({cpu[g][-1]:.2f} s CPU)"
                                             for g in games), flush=True)
    base_wall, base_cpu = statistics.median(wall["yoxii"]), statistics.median(cpu["yoxii"])
    print(f"medians of {args.repeats}:")
    for g in games:
        w, c = statistics.median(wall[g]), statistics.median(cpu[g])
        print(f"{g:8s} cold compile {w:6.2f} s wall, {w / base_wall:4.2f}x Yoxii; "
              f"{c:6.2f} s CPU, {c / base_cpu:4.2f}x Yoxii")
    return 0


if __name__ == "__main__":
    sys.exit(main())
