"""Behaviour beside other work: each task idle and beside CPU-bound competitors, as ratios to idle.

Tasks (each a fresh ``yyenvs`` process, numba's cache warmed first):

* ``demo``: the demo's PPO training (``configs/quick.yaml``) for ``--seconds``: steps/s;
* ``eval``: ``yyenvs eval --game <game> pretrained greedy --games 40``: the search agent's
  milliseconds per move (wall time, as eval prints it);
* ``az``: the search trainer (``configs/az_koi.yaml``) for ``--seconds``: moves/s;
* ``cold``: idle only, per game: ``gym.make`` and one game played to its end in a new process with an
  empty numba cache, then again with that cache warm (seconds of wall time).

Loads: ``idle``; ``same``: one busy loop (a Python ``while True``) at the benchmark's priority;
``same2``: two of them; ``low``: one at the lowest priority (nice 19).  The benchmark starts and
stops the competitors itself.  Each figure is the median of ``--repeats`` runs, loads taken in
turn within each repeat; the ratio is to the idle median of the same run (throughput: busy / idle,
higher is better; time per move: busy / idle, lower is better).

    .venv/bin/python benchmarks/under_load.py                          # demo, eval, az; 3 repeats
    .venv/bin/python benchmarks/under_load.py --tasks eval --repeats 5
    .venv/bin/python benchmarks/under_load.py --tasks cold
    OMP_WAIT_POLICY= .venv/bin/python benchmarks/under_load.py --tasks eval   # OpenMP's own spinning
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

ENV = dict(os.environ)  # the children's environment, as given (importing yyenvs sets OMP_WAIT_POLICY here)
from yyenvs.commands.bench import hardware  # noqa: E402

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
YYENVS = [sys.executable, "-m", "yyenvs"]
LOADS = {"idle": (0, 0), "same": (1, 0), "same2": (2, 0), "low": (1, 19)}  # competitors, their nice
#: what each task's figure is, and whether more is better
FIGURES = {"demo": ("steps/s", True), "eval": ("ms per move", False), "az": ("moves/s", True)}
#: the quick training runs' overrides: no evaluation, no logs, the time cap alone stops them
QUIET = ["total_timesteps=1000000000", "eval.every=0", "eval.every_minutes=0", "eval.final_games=0", "eval.table_games=0",
         "log.progress=false", "log.tensorboard=false", "checkpoint.every=1000000000",
         "selfplay.snapshot_every=1000000000"]


def competitors(count: int, nice: int) -> list[subprocess.Popen]:
    def lower():
        os.nice(nice)
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"], preexec_fn=lower) for _ in range(count)]


def trained_rate(config: str, seconds: float, extra=()) -> float:
    """steps (or moves) per second of a training run of ``seconds``, from its last line."""
    with tempfile.TemporaryDirectory(prefix="yyenvs-load-") as run_dir:
        out = subprocess.run(YYENVS + ["train", "--config", config, f"max_minutes={seconds / 60}",
                                       f"run_dir={run_dir}/run", *QUIET, *extra],
                             cwd=HERE, env=ENV, capture_output=True, text=True, check=True)
    line = next(x for x in out.stderr.splitlines()[::-1] if x.startswith("trained to step"))
    return float(line.split("(")[1].split()[0])


def eval_ms(game: str) -> float:
    with tempfile.TemporaryDirectory(prefix="yyenvs-load-") as out:
        subprocess.run(YYENVS + ["eval", "--game", game, "pretrained", "greedy", "--games", "40", "-o", out],
                       cwd=HERE, env=ENV, capture_output=True, text=True, check=True)
        with open(os.path.join(out, "eval.json")) as f:
            return 1000 * json.load(f)["entrants"][0]["seconds_per_move"]


def task(name: str, args):
    return {"demo": lambda: trained_rate("configs/quick.yaml", args.seconds),
            "eval": lambda: eval_ms(args.eval_game),
            "az": lambda: trained_rate("configs/az_koi.yaml", args.seconds, ["az.min_replay=1000"])}[name]


def measure(name: str, args) -> dict:
    run = task(name, args)
    run()  # numba's cache warm, the pretrained files read once
    figures = {load: [] for load in args.loads}
    for r in range(args.repeats):
        for load in args.loads:
            procs = competitors(*LOADS[load])
            try:
                time.sleep(0.5)  # the competitors are running
                figures[load].append(run())
            finally:
                for p in procs:
                    p.kill()
                    p.wait()
            print(f"  {name} repeat {r + 1} {load}: {figures[load][-1]:,.2f}", file=sys.stderr, flush=True)
    return {load: statistics.median(v) for load, v in figures.items()} | {"all": figures}


def report(name: str, result: dict) -> None:
    unit, more_is_better = FIGURES[name]
    idle = result.get("idle")
    for load in (k for k in result if k != "all"):
        runs = ", ".join(f"{x:,.2f}" for x in result["all"][load])
        ratio = f"{result[load] / idle:5.2f}x idle" if idle else ""
        print(f"{name:<6}{load:<7}{result[load]:>12,.2f} {unit:<12}{ratio:>12}   runs: {runs}")


COLD_GAME = """
import sys, time
t = time.perf_counter()
import gymnasium as gym, numpy as np, yyenvs
env = gym.make(yyenvs.GAMES[sys.argv[1]].gym_id)
obs, info = env.reset(seed=0)
done = False
while not done:
    obs, r, term, trunc, info = env.step(int(np.flatnonzero(env.unwrapped.action_masks())[0]))
    done = term or trunc
print(time.perf_counter() - t)
"""


def cold_starts(games, repeats: int) -> None:
    print(f"\n{'game':<10}{'cold (empty cache)':>20}{'warm cache':>14}   seconds, median of {repeats}")
    for game in games:
        cold, warm = [], []
        for _ in range(repeats):
            with tempfile.TemporaryDirectory(prefix="numba-cold-") as cache:
                env = dict(ENV, NUMBA_CACHE_DIR=cache)
                for into in (cold, warm):
                    out = subprocess.run([sys.executable, "-c", COLD_GAME, game], env=env, cwd=HERE,
                                         capture_output=True, text=True, check=True)
                    into.append(float(out.stdout.split()[-1]))
        print(f"{game:<10}{statistics.median(cold):>20.1f}{statistics.median(warm):>14.1f}   "
              f"runs: {', '.join(f'{c:.1f}' for c in cold)} / {', '.join(f'{w:.1f}' for w in warm)}")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--tasks", nargs="+", choices=("demo", "eval", "az", "cold"), default=["demo", "eval", "az"])
    p.add_argument("--loads", nargs="+", choices=tuple(LOADS), default=list(LOADS))
    p.add_argument("--repeats", type=int, default=3, help="runs of each task under each load (median)")
    p.add_argument("--seconds", type=float, default=60.0, help="length of each training run (demo, az)")
    p.add_argument("--eval-game", default="koi", help="the game of the eval task (default koi)")
    p.add_argument("--games", nargs="+", default=["yoxii", "koi", "yinyang"], help="the games of the cold task")
    args = p.parse_args(argv)
    if args.repeats < 1 or args.seconds <= 0:
        p.error("--repeats and --seconds must be positive")
    if "idle" in args.loads:
        args.loads = ["idle"] + [x for x in args.loads if x != "idle"]
    print(f"hardware: {hardware()}")
    print(f"OMP_WAIT_POLICY={ENV.get('OMP_WAIT_POLICY', '(unset: yyenvs sets PASSIVE)')}; "
          f"YYENVS_THREADS={ENV.get('YYENVS_THREADS', '(unset: the cores)')}; "
          f"load average before the run {os.getloadavg()[0]:.2f}")
    print(f"loads: {', '.join(f'{k}: {c} competitor(s) at nice {n}' for k, (c, n) in LOADS.items())}")
    print(f"median of {args.repeats} runs; training runs {args.seconds:g} s; eval: {args.eval_game} "
          "pretrained vs greedy, 40 games\n")
    for name in args.tasks:
        if name == "cold":
            cold_starts(args.games, args.repeats)
        else:
            report(name, measure(name, args))
    return 0


if __name__ == "__main__":
    sys.exit(main())
