"""Scripted baselines and the factory that turns an opponent spec into an agent.

An opponent spec is one of: ``"random"``, ``"greedy"``, ``"mcts"`` or
``"mcts:<simulations>"``, an :class:`Agent`, a callable
``f(state, mask) -> actions``, or a path to a checkpoint (``.safetensors``).
"""
from __future__ import annotations

import os

from yyenvs.agents.base import Agent, sample_legal
from yyenvs.agents.scripted import GreedyAgent, RandomAgent
from yyenvs.core.contract import GameCore, OptionError

__all__ = ["Agent", "RandomAgent", "GreedyAgent", "make_agent", "sample_legal", "BASELINES"]

BASELINES = ("random", "greedy", "mcts")


def make_agent(spec, core: GameCore, seed: int = 0):
    """An agent for ``core`` from an opponent spec (see the module docstring)."""
    if isinstance(spec, Agent) or (callable(spec) and not isinstance(spec, str)):
        return spec
    if not isinstance(spec, (str, os.PathLike)):
        raise OptionError(f"opponent must be a name {BASELINES}, a callable or a checkpoint path; "
                          f"got {spec!r}")
    spec = os.fspath(spec)
    name, _, arg = spec.partition(":")
    if name == "random" and not arg:
        return RandomAgent(core, seed)
    if name == "greedy" and not arg:
        return GreedyAgent(core, seed)
    if name == "mcts":
        from yyenvs.agents.mcts import MCTSAgent
        if arg and not (arg.isascii() and arg.isdigit() and int(arg) >= 1):
            raise OptionError(f"mcts strength must be an integer number of simulations: {spec!r}")
        return MCTSAgent(core, seed, simulations=int(arg) if arg else None)
    from yyenvs.agents.checkpoint import load_policy_agent, looks_like_checkpoint
    if looks_like_checkpoint(spec):
        return load_policy_agent(spec, core, seed)
    raise OptionError(f"unknown opponent {spec!r}; use one of {BASELINES}, 'mcts:<n>', "
                      "a callable or a checkpoint path")
