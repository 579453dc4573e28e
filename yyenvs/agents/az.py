"""The agents of a trained policy-value network: with Gumbel search, or the network alone.

Agent specs: ``az:<checkpoint>:<simulations>`` searches with that many
simulations per move (see :mod:`yyenvs.search.gumbel`), and
``az:<checkpoint>:<simulations>:<key>=<value>[,...]`` with other settings of
the search (the fields of :class:`~yyenvs.search.settings.GumbelSettings`, e.g. ``gumbel_scale=0`` for a search
without noise at the root, ``find_wins=1`` for one that checks every node for a
win at once, ``rollout_weight=0.5`` for leaf values half the network's and half
a rollout's, ``average_symmetries=1`` for a network averaged over the board's
symmetries, ``solve_budget=50000`` for exact results within 50,000 positions of
each root); ``az:<checkpoint>``, or the checkpoint path alone,
plays the network's most probable legal action.  ``device=<name>`` among the
settings (``az:<checkpoint>:200:device=cuda``, or ``az:<checkpoint>:device=cpu``
for the network alone) says where the network runs (:mod:`yyenvs.networks.device`;
default ``auto``).  In
code, ``AZAgent(..., sample=True)`` without simulations draws the network's move
from its policy instead (the trainer's ``prior`` self-play opponent).
The checkpoint must come from ``yyenvs train --algo az`` (its network is a
:class:`~yyenvs.networks.search_network.PolicyValueNet`).
"""
from __future__ import annotations

import os
import re

import numpy as np

from yyenvs.agents.base import Agent
from yyenvs.networks.device import DeviceError, check_device_name
from yyenvs.search.gumbel import GumbelSearch
from yyenvs.search.settings import GumbelSettings
from yyenvs.core.contract import GameCore, OptionError, show
from yyenvs.core.moves import sample_weighted
from yyenvs.core.rng import uniform01

#: the most simulations an ``az:`` spec may ask for per move
MAX_AZ_SIMULATIONS = 100_000
# the shortest path that leaves a budget and/or settings (a device name may hold a colon: cuda:1)
_SPEC_RE = re.compile(r"(?P<path>.+?)(?::(?P<sims>[0-9]{1,7}))?(?::(?P<settings>[A-Za-z_]+=.*))?")
_TAG_SAMPLE = 17  # the random-number stream of sampled moves
_AZ_FORMS = ("'az:<checkpoint>', 'az:<checkpoint>:<simulations>' or "
             "'az:<checkpoint>:<simulations>:<key>=<value>,...'")
#: settings of the agent rather than of its search (where its network runs): they need no simulations
AGENT_SETTINGS = ("device",)


def _search_options(text: str, spec: str) -> dict:
    """``"key=value,..."`` of an az spec -> {key: value}, each key a field of the search's
    :class:`~yyenvs.search.settings.GumbelSettings` (a flag written 0 or 1) or an agent setting."""
    out = {}
    names = GumbelSettings.names()
    for item in text.split(","):
        key, _, value = item.partition("=")
        if key not in names and key not in AGENT_SETTINGS:
            raise OptionError(f"az agent {show(spec)}: unknown search option {show(key)}; "
                              f"known: {', '.join([*names, *AGENT_SETTINGS])}")
        if key in out:
            raise OptionError(f"az agent {show(spec)}: search option {key!r} given twice")
        if key in AGENT_SETTINGS:
            try:
                out[key] = check_device_name(value)
            except DeviceError as e:
                raise DeviceError(f"az agent {show(spec)}: {e}") from None
            continue
        allowed = GumbelSettings.allowed(key)
        try:
            number = {"0": False, "1": True}[value] if allowed.kind is bool else allowed.kind(value)
        except (ValueError, KeyError):
            number = None
        if number is None or not allowed.admits(number):
            words = "0 or 1" if allowed.kind is bool else allowed.words()
            raise OptionError(f"az agent {show(spec)}: {key} must be {words}, got {show(value)}")
        out[key] = number
    return out


def parse_az_spec(spec: str) -> tuple[str, int | None, dict]:
    """``"az:<checkpoint>[:<simulations>[:<key>=<value>,...]]"`` -> (checkpoint path,
    simulations or None, search options)."""
    if not spec.startswith("az:") or len(spec) <= 3:
        raise OptionError(f"an az agent is {_AZ_FORMS}, got {show(spec)}")
    m = _SPEC_RE.fullmatch(spec[3:])
    path, sims, settings = m.group("path", "sims", "settings")
    if path.startswith(":"):
        raise OptionError(f"az agent {show(spec)} names no checkpoint")
    options = _search_options(settings, spec) if settings is not None else {}
    if sims is None:
        if set(options) - set(AGENT_SETTINGS):
            raise OptionError(f"az agent {show(spec)}: search options need a number of simulations "
                              f"before them; an az agent is {_AZ_FORMS}")
        return path, None, options
    if not 1 <= int(sims) <= MAX_AZ_SIMULATIONS:
        raise OptionError(f"az simulations must be from 1 to {MAX_AZ_SIMULATIONS:,}, got {show(spec)}")
    return path, int(sims), options


def _number(value) -> str:
    """``value`` written so that it reads back exactly (``repr``), without a float's trailing ``.0``;
    a flag as 0 or 1."""
    text = repr(int(value) if isinstance(value, bool) else value)
    return text[:-2] if text.endswith(".0") else text


def _budget_suffix(simulations: int | None, options: dict | None) -> str:
    """``":<simulations>[:<key>=<value>,...]"``; without a search only the agent's own settings."""
    settings = ",".join(f"{k}={v if isinstance(v, str) else _number(v)}" for k, v in (options or {}).items()
                        if simulations or k in AGENT_SETTINGS)
    return (f":{simulations}" if simulations else "") + (":" + settings if settings else "")


def az_spec(path, simulations: int | None = None, options: dict | None = None) -> str:
    """The ``az:`` spec of a checkpoint, a budget and search options (what parse_az_spec reads)."""
    return f"az:{os.fspath(path)}" + _budget_suffix(simulations, options)


class AZAgent(Agent):
    """A policy-value network playing the seat to move, searching ``simulations`` per move
    (None: the network alone, playing its most probable legal action, or with ``sample``
    a legal action drawn by its policy from the agent's per-game stream).

    Rows with one legal action are not searched; chance nodes (explicit
    chance) get -1, as the caller resolves them.
    """

    name = "az"

    def __init__(self, core: GameCore, net, seed: int = 0, simulations: int | None = None,
                 label: str | None = None, sample: bool = False, device="auto", **search_options):
        super().__init__(core, seed)
        if sample and simulations:
            raise ValueError("az: sample=True is for the network alone (no simulations); a search "
                             "chooses its own move")
        from yyenvs.networks.search_network import NetworkEvaluator
        self.evaluate = NetworkEvaluator(net, device)
        self.net = self.evaluate.net
        self.simulations = simulations
        self.sample = bool(sample)
        self.search = (GumbelSearch(core, self.evaluate, simulations, seed=int(self.seed), **search_options)
                       if simulations else None)
        if label:
            self.name = label

    def act(self, state, mask):
        mask = self.legal_mask(state, mask)
        out = np.full(state.batch_size, -1, np.int64)
        nlegal = mask.sum(axis=1)
        live = ~state.done & (nlegal > 0)
        single = live & (nlegal == 1)
        out[single] = np.argmax(mask[single], axis=1)
        rows = np.flatnonzero(live & (nlegal > 1))
        if rows.size == 0:
            return out
        sub = state.take(rows)
        if self.search is None:
            logits, _ = self.evaluate(self.core.observe(sub, sub.current_player))
            logits = np.where(mask[rows], logits.astype(np.float64), -np.inf)
            if self.sample:
                weights = np.exp(logits - logits.max(axis=1, keepdims=True))  # 0 where illegal
                u = uniform01(self.seed, sub.seed, sub.ply.astype(np.uint64), np.uint64(_TAG_SAMPLE))
                drawn = np.empty(rows.size, np.int64)
                sample_weighted(weights, u, drawn)
                out[rows] = drawn
            else:
                out[rows] = np.argmax(logits, axis=1)
        else:
            out[rows] = self.search.run(sub).action
        return out

    def __repr__(self) -> str:
        return f"AZAgent({self.name}, simulations={self.simulations}, sample={self.sample})"


def load_network(path, core: GameCore):
    """The policy-value network of checkpoint ``path`` (validated against ``core``) and its metadata.  A PPO
    policy's checkpoint gives the policy seen as a search network (its logits and its critic's value,
    :class:`~yyenvs.networks.ppo_network.PolicyAsSearchNetwork`)."""
    from yyenvs.networks.checkpoint import MAX_PARAMETERS, CheckpointError, load_policy_tensors, read_checkpoint
    from yyenvs.networks.ppo_description import PPO_CLASS
    from yyenvs.networks.search_description import PV_CLASS
    from yyenvs.networks.search_network import make_network, parameter_count
    from yyenvs.core.errors import NetworkError
    meta, tensors = read_checkpoint(path, core)
    what = f"checkpoint {meta['path']!r}"
    desc = meta["policy"]
    if desc.get("class") == PPO_CLASS:
        from yyenvs.agents.ppo import policy_from_tensors
        from yyenvs.networks.ppo_network import PolicyAsSearchNetwork
        net = PolicyAsSearchNetwork(policy_from_tensors(meta, tensors, core), core.num_players, desc["value_net"])
        net.eval()
        return net, meta
    if desc.get("class") != PV_CLASS:
        raise CheckpointError(f"{what} holds a {desc.get('class')} policy, not a search agent's network "
                              f"(train one with 'yyenvs train --algo az')")
    try:
        need = parameter_count(core, desc)
        held = sum(t.numel() for k, t in tensors.items() if k.startswith("policy/"))
        if need != held or need > MAX_PARAMETERS:
            raise CheckpointError(f"{what}: its network description needs {need} parameters; "
                                  f"the file holds {held}")
        net = make_network(core, desc)
    except NetworkError as e:
        raise CheckpointError(f"{what}: {e}") from None
    load_policy_tensors(net, tensors, what)  # names, shapes, finite values: as for every checkpoint
    net.eval()
    return net, meta


def load_az_agent(path, core: GameCore, seed: int = 0, simulations: int | None = None, sample: bool = False,
                  **search_options) -> AZAgent:
    """An :class:`AZAgent` from checkpoint ``path`` (validated against ``core``)."""
    from yyenvs.networks.checkpoint import checkpoint_label
    net, meta = load_network(path, core)
    if simulations and not getattr(net, "has_value", True) and search_options.get("rollout_weight", 0.0) < 1.0:
        raise OptionError(f"az agent: checkpoint {meta['path']!r} holds a policy without its critic (no "
                          f"values); search it with rollout values: az:<checkpoint>:{simulations}:rollout_weight=1")
    label = checkpoint_label(meta["path"]) + _budget_suffix(simulations, search_options)
    if simulations:  # a network of discounted values is searched with its discount unless told otherwise
        search_options.setdefault("discount", meta["policy"].get("discount", 1.0))
    agent = AZAgent(core, net, seed, simulations, label=label, sample=sample, **search_options)
    agent.metadata = meta
    return agent


def az_checkpoint_path(spec) -> str | None:
    """The checkpoint an ``az:`` spec names (None for other specs)."""
    if isinstance(spec, (str, os.PathLike)) and os.fspath(spec).startswith("az:"):
        return parse_az_spec(os.fspath(spec))[0]
    return None
