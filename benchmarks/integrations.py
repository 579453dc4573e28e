"""Speed of the games through other libraries, next to the project's own envs, in one run.

Each figure is the median over ``--repeats`` timings of uniformly random
games, in decisions (steps, chance outcomes included) per second, one game at
a time unless said:

* ``openspiel``: the OpenSpiel Python game (``yyenvs.integrations.openspiel``),
  ``state.apply_action`` with a random legal action (or a chance outcome drawn
  by its probabilities);
* ``torchrl``: TorchRL's ``PettingZooWrapper(use_mask=True)`` over the AEC env,
  ``env.rollout`` with its random masked actions;
* ``tianshou``: Tianshou's ``PettingZooEnv`` over the AEC env, random legal actions;
* ``aec``: the project's PettingZoo AEC env, random legal actions from the mask;
* ``core x1024``: the batched core itself, 1024 games at once (the reference:
  what the project's own trainers and search stand on).

The ratios are to the AEC env of the same game in the same run.

    .venv/bin/python benchmarks/integrations.py
    .venv/bin/python benchmarks/integrations.py --games koi --seconds 3
"""
from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from yyenvs.commands.bench import hardware
from yyenvs.games import GAMES, make_core

OPTIONS = {"koi": {"board_size": 9, "directions": 8}, "yinyang": {"num_players": 2}}


def _timed(run, seconds: float) -> float:
    """Decisions per second of ``run()`` (returns the decisions it made) over about ``seconds``."""
    steps, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        steps += run()
    return steps / (time.perf_counter() - t0)


def openspiel_rate(game: str, seconds: float, rng) -> float:
    import pyspiel

    import yyenvs.integrations.openspiel  # noqa: F401  (registers the games)
    params = ",".join(f"{k}={v}" for k, v in OPTIONS.get(game, {}).items())
    g = pyspiel.load_game(f"yyenvs_{game}({params})" if params else f"yyenvs_{game}")

    def one_game():
        state, n = g.new_initial_state(), 0
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes())
                state.apply_action(int(rng.choice(outcomes, p=probs)))
            else:
                legal = state.legal_actions()
                state.apply_action(legal[rng.integers(len(legal))])
            n += 1
        return n
    return _timed(one_game, seconds)


def aec_rate(game: str, seconds: float, rng) -> float:
    module = __import__(f"yyenvs.{GAMES[game].pettingzoo_module}", fromlist=["env"])
    env = module.env(**OPTIONS.get(game, {}))

    def one_game():
        env.reset(seed=int(rng.integers(1 << 30)))
        n = 0
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[rng.integers(legal.size)]))
            n += 1
        return n
    return _timed(one_game, seconds)


def torchrl_rate(game: str, seconds: float, rng) -> float:
    from torchrl.envs import PettingZooWrapper
    module = __import__(f"yyenvs.{GAMES[game].pettingzoo_module}", fromlist=["env"])
    env = PettingZooWrapper(env=module.env(**OPTIONS.get(game, {})), use_mask=True,
                            seed=int(rng.integers(1 << 30)))
    return _timed(lambda: int(env.rollout(100_000).batch_size[0]), seconds)


def tianshou_rate(game: str, seconds: float, rng) -> float:
    from tianshou.env import PettingZooEnv
    module = __import__(f"yyenvs.{GAMES[game].pettingzoo_module}", fromlist=["env"])
    env = PettingZooEnv(module.env(**OPTIONS.get(game, {})))

    def one_game():
        obs, _ = env.reset(seed=int(rng.integers(1 << 30)))
        n, over = 0, False
        while not over:
            legal = np.flatnonzero(obs["mask"])
            obs, _, term, trunc, _ = env.step(int(legal[rng.integers(legal.size)]))
            n, over = n + 1, term or trunc
        return n
    return _timed(one_game, seconds)


LIBRARIES = {"openspiel": (openspiel_rate, "pyspiel"), "torchrl": (torchrl_rate, "torchrl"),
             "tianshou": (tianshou_rate, "tianshou")}


def core_rate(game: str, seconds: float, rng, batch: int = 1024) -> float:
    from yyenvs.agents import RandomAgent
    core = make_core(game, **OPTIONS.get(game, {}))
    agent = RandomAgent(core, 0)

    def games():
        state, n = core.init(rng.integers(0, 1 << 62, batch)), 0
        while not state.done.all():
            a = agent.act(state, core.legal_action_mask(state))
            n += int((a >= 0).sum())
            core.step(state, a)
        return n
    return _timed(games, seconds)


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--games", nargs="+", default=list(GAMES), choices=list(GAMES))
    p.add_argument("--seconds", type=float, default=2.0, help="per timing")
    p.add_argument("--repeats", type=int, default=3)
    args = p.parse_args(argv)
    print(hardware())
    print(f"{'game':8} {'library':12} {'decisions/s':>12} {'vs aec':>8}")
    import importlib.util
    runs = [(name, f) for name, (f, module) in LIBRARIES.items() if importlib.util.find_spec(module)]
    runs += [("aec", aec_rate), ("core x1024", core_rate)]
    for game in args.games:
        rng = np.random.default_rng(0)
        for _, f in runs:  # compile and warm up
            f(game, 0.2, rng)
        rates = {name: statistics.median(f(game, args.seconds, rng) for _ in range(args.repeats)) for name, f in runs}
        for name, r in rates.items():
            print(f"{game:8} {name:12} {r:12,.0f} {r / rates['aec']:8.2f}")


if __name__ == "__main__":
    main()
