"""Every kernel of every game variant under numba's bounds checking.

A fresh interpreter runs with ``NUMBA_BOUNDSCHECK=1`` and a numba cache
directory of its own (numba's cache key ignores the bounds-check flag, so the
checked builds must never mix with the normal cache): it plays
random games at batch sizes 1 and 7 through every core function, runs the
agents' kernels, and throws hostile arguments at the entry points, which must
be refused cleanly.  An index past an array's end inside a kernel raises
IndexError there and the script fails.

Compiling everything with bounds checks takes about 100 s on two cores, so
the directory persists between runs (in the system's temporary directory, or
``$YYENVS_BOUNDSCHECK_CACHE``); numba recompiles whatever source changed, and
a warm run takes a few seconds.
"""
import os
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

SCRIPT = textwrap.dedent(r'''
    import time
    import numpy as np
    from yyenvs.games import GAMES, make_core
    from yyenvs.agents import GreedyAgent, RandomAgent
    from yyenvs.agents.mcts import MCTSAgent

    VARIANTS = {
        "yoxii": [{}, {"action_features": True}],
        "koi": [{}, {"board_size": 7, "directions": 4}],
        "yinyang": [{"num_players": n} for n in (1, 2, 3, 4)],
    }
    MAX_STEPS = 1200  # a cap only: every game here ends well before

    def refused(fn, *args, **kwargs):
        try:
            fn(*args, **kwargs)
        except ValueError:  # IllegalActionError and OptionError are ValueErrors too
            return
        raise AssertionError(f"{fn.__name__}{args[1:]} {kwargs} was not refused")

    def hostile(core, state):
        B, A = state.batch_size, core.num_actions
        obs_shape = (B, *core.observation_shape)
        before = {k: v.copy() for k, v in vars(state).items()}
        for out in (np.empty((max(B - 1, 0), A), bool), np.empty((B, A + 1), bool),
                    np.empty((B, A), np.int8), np.empty((B, A), bool, order="F")[:, ::-1]):
            refused(core.legal_action_mask, state, out=out)
        for out in (np.empty((max(B - 1, 0),) + obs_shape[1:], np.float32),
                    np.empty(obs_shape, np.float64), np.empty((B, 1), np.float32)):
            refused(core.observe, state, 0, out=out)
        for seat in (core.num_players, -1, 10**6, 1.5, np.nan, True, "0", [0] * (B + 1),
                     np.full(B, core.num_players, np.int8), np.full(B, -1, np.int8)):
            refused(core.observe, state, seat)
            refused(core.heuristic, state, seat)
        for bad in (np.inf, -np.inf, np.nan, 1e20, 2.5, A, 2**63):
            refused(core.step, state, np.full(B, bad, dtype=np.float64 if isinstance(bad, float)
                                                else np.uint64))
        refused(core.step, state, np.full(B + 1, -1))
        for k, v in vars(state).items():
            assert np.array_equal(before[k], v), f"{core!r}: {k} changed by a refused call"

    def play(core, batch, seed):
        state = core.init(np.arange(seed, seed + batch, dtype=np.uint64))
        agent = RandomAgent(core, seed)
        mask_out = np.empty((batch, core.num_actions), bool)
        obs_out = np.empty((batch, *core.observation_shape), np.float32)
        steps = 0
        while not state.done.all():
            assert steps < MAX_STEPS, f"{core!r}: no end after {MAX_STEPS} steps"
            mask = core.legal_action_mask(state)
            core.legal_action_mask(state, out=mask_out)
            assert np.array_equal(mask, mask_out)
            assert mask[~state.done].any(axis=1).all(), "a live game with no legal action"
            for seat in range(core.num_players):
                obs = core.observe(state, seat)
                core.observe(state, np.full(batch, seat, np.int8), out=obs_out)
                assert np.array_equal(obs, obs_out)
                core.heuristic(state, seat)
            if steps % 25 == 0:
                hostile(core, state)
                extras(core, state)
            actions = agent(state, mask)
            actions[state.done] = -1
            core.step(state, actions)
            steps += 1
        core.legal_action_mask(state)
        for seat in range(core.num_players):
            core.observe(state, seat)
            core.heuristic(state, seat)
        hostile(core, state)
        extras(core, state)
        return steps

    def extras(core, state):
        """The other functions with kernels inside."""
        if core.name == "yoxii":
            core.scores(state)
            core.action_features(state, 0)
        elif core.name == "koi":
            core.count_moves(state, 1)
        elif core.name == "yinyang":
            core.scores(state)
            core.solo_level(state)

    def search(core, seed):
        """Greedy and a small MCTS from a position a few moves in."""
        state = core.init(np.array([seed, seed + 1], dtype=np.uint64))
        agent = RandomAgent(core, seed)
        for _ in range(6):
            a = agent(state, core.legal_action_mask(state))
            a[state.done] = -1
            core.step(state, a)
        mask = core.legal_action_mask(state)
        GreedyAgent(core, seed)(state, mask)
        MCTSAgent(core, seed, simulations=12, max_rollout_steps=3)(state, mask)

    total = time.perf_counter()
    for game in list(GAMES):
        for options in VARIANTS.get(game, [{}]):
            start = time.perf_counter()
            core = make_core(game, **options)
            steps = [play(core, batch, seed) for batch in (1, 7) for seed in (0, 100)]
            search(core, 3)
            print(f"{core!r}: {steps} steps, {time.perf_counter() - start:.1f} s", flush=True)
    print(f"total {time.perf_counter() - total:.1f} s")
''')


def cache_dir() -> str:
    user = os.getuid() if hasattr(os, "getuid") else "user"
    default = Path(tempfile.gettempdir()) / f"yyenvs-numba-boundscheck-{user}"
    return os.environ.get("YYENVS_BOUNDSCHECK_CACHE", str(default))


def test_every_kernel_under_boundscheck():
    # serial kernels only: the batches are small, and the parallel builds would double the compiling
    env = dict(os.environ, NUMBA_BOUNDSCHECK="1", NUMBA_CACHE_DIR=cache_dir(), YYENVS_PARALLEL="0")
    proc = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True,
                          timeout=900)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-6000:]
    assert "total" in proc.stdout
