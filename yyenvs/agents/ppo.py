"""PPO policies as agents: the network of a PPO checkpoint rebuilt from its description
(:mod:`yyenvs.networks.ppo_network`), its tensors copied in, and played as :class:`PolicyAgent`.
A search network's checkpoint is :func:`yyenvs.agents.load_agent`'s (:mod:`yyenvs.agents.az`)."""
from __future__ import annotations

import numpy as np

from yyenvs.agents.base import Agent
from yyenvs.networks.checkpoint import (MAX_PARAMETERS, CheckpointError, checkpoint_label,
                                      load_policy_tensors, read_checkpoint, read_metadata)
from yyenvs.networks.search_description import PV_CLASS
from yyenvs.core.contract import GameCore, OptionError


def load_policy(path, core: GameCore):
    """The policy network of checkpoint ``path`` (validated against ``core``), in eval mode, and its metadata."""
    meta, tensors = read_checkpoint(path, core)
    return policy_from_tensors(meta, tensors, core), meta


def policy_from_tensors(meta: dict, tensors: dict, core: GameCore):
    """The policy network a read checkpoint (``meta``, ``tensors``) describes, for ``core``, in eval mode."""
    from yyenvs.networks.ppo_network import NetworkError, actor_parameter_count, make_policy
    what = f"checkpoint {meta['path']!r}"
    try:
        need = actor_parameter_count(core, meta["policy"])
        held = sum(t.numel() for k, t in tensors.items() if k.startswith("policy/"))
        if need > min(held, MAX_PARAMETERS):  # before building: a 100 kB file must not allocate gigabytes
            raise CheckpointError(f"{what}: its network description needs at least {need} parameters; "
                                  f"the file holds {held}")
        policy = make_policy(core, meta["policy"])
    except NetworkError as e:  # the description does not fit this game
        raise CheckpointError(f"{what}: {e}") from None
    load_policy_tensors(policy, tensors, what)
    policy.set_training_mode(False)
    return policy


def policy_logits(policy, obs: np.ndarray) -> np.ndarray:
    """Action logits (B, A) of a policy for a batch of observations (actor only)."""
    import torch
    with torch.no_grad():
        t = torch.as_tensor(obs, device=policy.device)
        if hasattr(policy, "action_logits"):  # yyenvs.networks.ppo_network.FastMaskablePolicy
            return policy.action_logits(t).cpu().numpy()
        features = policy.extract_features(t, policy.pi_features_extractor)
        latent = policy.mlp_extractor.forward_actor(features)
        return policy.action_net(latent).cpu().numpy()


def masked_choice(logits: np.ndarray, mask: np.ndarray, u: np.ndarray | None) -> np.ndarray:
    """Argmax (``u is None``) or a sample by inverse CDF with uniforms ``u`` of the
    masked softmax; -1 on rows without a legal action."""
    mask = np.asarray(mask, dtype=bool)
    x = np.where(mask, logits.astype(np.float64), -np.inf)
    if u is None:
        out = np.argmax(x, axis=1)
    else:
        x = x - x.max(axis=1, keepdims=True)
        p = np.exp(x)
        p[~mask] = 0.0
        cdf = np.cumsum(p, axis=1)
        target = np.asarray(u, dtype=np.float64) * cdf[:, -1]
        out = np.minimum((cdf <= target[:, None]).sum(axis=1), mask.shape[1] - 1)
    out = out.astype(np.int64)
    out[~mask.any(axis=1)] = -1
    return out


class PolicyAgent(Agent):
    """A batched agent playing a policy network from the seat to move.

    ``deterministic=True`` takes the most probable legal action; otherwise the
    action is sampled from the masked policy with the agent's per-game
    uniforms (reproducible at any batch size).  One forward pass per call.
    """

    name = "policy"

    def __init__(self, core: GameCore, policy, seed: int = 0, deterministic: bool = True,
                 label: str | None = None):
        super().__init__(core, seed)
        self.policy = policy
        self.deterministic = bool(deterministic)
        if label:
            self.name = label

    def act(self, state, mask):
        mask = self.legal_mask(state, mask)
        out = np.full(state.batch_size, -1, dtype=np.int64)
        live = np.flatnonzero(mask.any(axis=1))
        if live.size == 0:
            return out
        sub = state if live.size == state.batch_size else state.take(live)
        obs = self.core.observe(sub, sub.current_player)
        logits = policy_logits(self.policy, obs)
        u = None if self.deterministic else self.uniforms(sub, salt=0x5EED)
        out[live] = masked_choice(logits, mask[live], u)
        return out

    def __repr__(self) -> str:
        return f"PolicyAgent({self.name}, deterministic={self.deterministic})"


def observing_core(meta: dict, core: GameCore) -> GameCore:
    """``core``, or the same game with the checkpoint's values of the options that change only
    what a player observes or is rewarded (``Option.rules`` False, e.g. Yoxii's
    ``action_features``): the policy then plays ``core``'s games, seeing them as it was trained."""
    if meta["game"] != core.name:
        return core  # check_compatible names the mismatch
    changes = {o.name: meta["options"][o.name] for o in core.spec.options
               if not o.rules and o.name in meta["options"] and meta["options"][o.name] != core.options[o.name]}
    if not changes:
        return core
    try:
        return core.with_options(**changes)
    except OptionError as e:
        raise CheckpointError(f"checkpoint {meta['path']!r}: {e}") from None


def load_policy_agent(path, core: GameCore, seed: int = 0, deterministic: bool = True, meta=None) -> Agent:
    """A :class:`PolicyAgent` from the PPO checkpoint ``path`` (validated against ``core``, up to
    the options of :func:`observing_core`; ``meta``: its header, when already read).  A search
    network's checkpoint is :func:`yyenvs.agents.load_agent`'s to load."""
    meta = read_metadata(path) if meta is None else meta
    if meta["policy"].get("class") == PV_CLASS:
        raise CheckpointError(f"checkpoint {meta['path']!r} holds a search network: load it with "
                              "yyenvs.agents.load_agent or the agent spec 'az:<checkpoint>'")
    observer = observing_core(meta, core)
    policy, meta = load_policy(path, observer)
    agent = PolicyAgent(observer, policy, seed, deterministic, label=checkpoint_label(meta["path"]))
    agent.metadata = meta
    return agent
