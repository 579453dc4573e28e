"""Scripted baselines and the factory that turns an opponent spec into an agent.

An opponent spec is one of: ``"random"``, ``"greedy"``, ``"mcts"`` or
``"mcts:<simulations>"``, ``"az:<checkpoint>:<simulations>"`` (a trained
policy-value network searching that many simulations per move; settings of the
search may follow, ``az:<checkpoint>:<simulations>:gumbel_scale=0``) or
``"az:<checkpoint>"`` (the network alone), ``"pretrained"`` (the strongest agent that
ships with the package for this game and player count: a search network with its shipped budget
where one ships, see :func:`pretrained_spec`), ``"pretrained:fast"`` (the shipped agent that plays
without search, about a millisecond a move), an
:class:`Agent`, a callable ``f(state, mask) -> actions``, or a path to a checkpoint
(``.safetensors``).
"""
from __future__ import annotations

import difflib
import os

from yyenvs.agents.base import Agent
from yyenvs.core.moves import sample_legal
from yyenvs.agents.scripted import GreedyAgent, RandomAgent
from yyenvs.core.contract import GameCore, OptionError, show
from yyenvs.core.errors import require_modules

__all__ = ["Agent", "RandomAgent", "GreedyAgent", "make_agent", "sample_legal", "BASELINES"]

BASELINES = ("random", "greedy", "mcts")
#: what a network agent imports (the train extra): a search network; a PPO policy as well
SEARCH_NETWORK_MODULES = ("torch", "safetensors")
POLICY_MODULES = SEARCH_NETWORK_MODULES + ("sb3_contrib",)
PRETRAINED = "pretrained"
#: the shipped agent without search: for self-play pools, the browser and fast play
PRETRAINED_FAST = "pretrained:fast"
#: the search each shipped search network (``agents/pretrained/search/<file>``) plays ``pretrained``
#: with: what follows ``az:<file>:`` (its ratings are on its game's page in docs/games/)
PRETRAINED_SEARCH = {
    "koi.safetensors": "200:find_wins=1,gumbel_scale=0",
    "yoxii.safetensors": "200:find_wins=1,gumbel_scale=0",
}


def pretrained_path(core: GameCore, search: bool = False) -> str:
    """The packaged file for ``core``: ``agents/pretrained/<game>*.safetensors`` (a policy played
    without search), or with ``search`` ``agents/pretrained/search/<game>*.safetensors`` (a search
    network), trained on ``core``'s player count and rule options (``koi.safetensors`` for Koi's
    defaults, ``koi-v0.safetensors`` for Koi-v0's, ``yinyang-3p.safetensors``); OptionError
    listing what ships when none is."""
    from importlib import resources

    from yyenvs.networks.checkpoint import read_metadata
    folder = resources.files("yyenvs.agents").joinpath("pretrained", *(["search"] if search else []))
    files = sorted(p.name for p in folder.iterdir() if p.name.startswith(core.name)
                   and p.name.endswith(".safetensors")) if folder.is_dir() else []
    want = core.spec.deciding({o.name: core.options[o.name] for o in core.spec.options if o.rules})
    for name in files:
        meta = core.spec.deciding(read_metadata(os.fspath(folder.joinpath(name)))["options"])
        if all(meta.get(k) == v for k, v in want.items()):
            return os.fspath(folder.joinpath(name))
    kind = "pretrained search network" if search else "pretrained agent"
    raise OptionError(f"no {kind} ships for {core.name} with {core.num_players} player(s) and "
                      f"options {want}; the package has {files or 'none'} for {core.name}")


def pretrained_spec(core: GameCore, fast: bool = False) -> str:
    """The agent spec ``pretrained`` (or with ``fast`` ``pretrained:fast``) stands for on ``core``:
    the shipped search network with its budget from :data:`PRETRAINED_SEARCH` where one ships,
    else the shipped policy; fast: the shipped policy, else the search network alone."""
    try:
        network = pretrained_path(core, search=True)
    except OptionError:
        return pretrained_path(core)
    if not fast:
        return f"az:{network}:{PRETRAINED_SEARCH[os.path.basename(network)]}"
    try:
        return pretrained_path(core)
    except OptionError:
        return network


def load_agent(path, core: GameCore, seed: int = 0, deterministic: bool = True) -> Agent:
    """The agent of checkpoint ``path``, its header read once: a PPO policy
    (:class:`~yyenvs.agents.ppo.PolicyAgent`) or a search network played alone
    (:class:`~yyenvs.agents.az.AZAgent`); ``deterministic``: the most probable legal move, or a
    move drawn from the policy."""
    from yyenvs.networks.checkpoint import read_metadata
    from yyenvs.networks.search_description import PV_CLASS
    from yyenvs.agents.ppo import load_policy_agent
    meta = read_metadata(path)
    if meta["policy"].get("class") == PV_CLASS:
        from yyenvs.agents.az import load_az_agent
        return load_az_agent(meta["path"], core, seed, sample=not deterministic)
    return load_policy_agent(meta["path"], core, seed, deterministic, meta=meta)


def make_agent(spec, core: GameCore, seed: int = 0, deterministic: bool = True):
    """An agent for ``core`` from an opponent spec (see the module docstring).  ``deterministic``:
    whether a policy without search (a checkpoint, ``pretrained``, ``az:<checkpoint>``) plays its
    most probable legal move, or draws its move from its policy."""
    if isinstance(spec, Agent) or (callable(spec) and not isinstance(spec, str)):
        return spec
    if not isinstance(spec, (str, os.PathLike)):
        raise OptionError(f"opponent must be a name {BASELINES}, a callable or a checkpoint path; "
                          f"got {show(spec)}")
    spec = os.fspath(spec)
    name, colon, arg = spec.partition(":")
    if spec == "random":
        return RandomAgent(core, seed)
    if spec == "greedy":
        return GreedyAgent(core, seed)
    if spec in (PRETRAINED, PRETRAINED_FAST):
        require_modules(f"the agent {spec!r}", *POLICY_MODULES)
        agent = make_agent(pretrained_spec(core, fast=spec == PRETRAINED_FAST), core, seed, deterministic)
        agent.name = spec
        return agent
    if name in ("random", "greedy", PRETRAINED) and colon:
        other = f" other than 'fast' ({PRETRAINED_FAST!r})" if name == PRETRAINED else ""
        raise OptionError(f"opponent {name!r} takes no argument{other}, got {show(spec)}")
    if name == "mcts":
        from yyenvs.agents.mcts import MCTSAgent
        from yyenvs.search.mcts import MAX_SIMULATIONS
        if colon and not (arg.isascii() and arg.isdigit() and len(arg) <= 20
                          and 1 <= int(arg) <= MAX_SIMULATIONS):
            raise OptionError(f"mcts strength must be 'mcts:<n>' with n an integer number of "
                              f"simulations from 1 to {MAX_SIMULATIONS:,}, got {show(spec)}")
        return MCTSAgent(core, seed, simulations=int(arg) if colon else None)
    if name == "az":
        require_modules("an 'az:' agent", *SEARCH_NETWORK_MODULES)
        from yyenvs.agents.az import load_az_agent, parse_az_spec
        path, simulations, options = parse_az_spec(spec)
        return load_az_agent(path, core, seed, simulations, sample=not (deterministic or simulations), **options)
    from yyenvs.networks.checkpoint import looks_like_checkpoint
    if looks_like_checkpoint(spec):
        require_modules(f"the checkpoint agent {show(spec)}", *POLICY_MODULES)
        return load_agent(spec, core, seed, deterministic)
    near = difflib.get_close_matches(spec.split(":")[0], [*BASELINES, "pretrained", "az"], n=1) \
        if isinstance(spec, str) else []
    hint = f" (did you mean {near[0]!r}?)" if near else ""
    raise OptionError(f"unknown opponent {show(spec)}{hint}; use one of {BASELINES}, 'mcts:<n>', "
                      "'az:<checkpoint>[:<n>]', 'pretrained', 'pretrained:fast', a callable or a checkpoint path")
