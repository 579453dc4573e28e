"""Training checkpoints as batched agents, and the checks that guard them.

A checkpoint is two files side by side:

* ``NAME.zip`` -- a stable-baselines3 / sb3-contrib ``MaskablePPO`` save;
* ``NAME.json`` -- metadata: the game, its options, the observation shape and
  action count, the step count, the SHA-256 of the zip (and, for training
  checkpoints, the self-play pool and the config).

:func:`load_policy_agent` refuses a checkpoint whose zip is missing, corrupt
or altered, whose metadata is missing or unreadable, or that was trained on
another game or with other options, with a :class:`CheckpointError` naming
the problem.  Needs torch and sb3-contrib (the ``train`` extra).
"""
from __future__ import annotations

import hashlib
import json
import os
import zipfile

import numpy as np

from yyenvs.agents.base import Agent
from yyenvs.core.contract import GameCore, OptionError

FORMAT = "yyenvs-checkpoint-1"


class CheckpointError(OptionError):
    """A checkpoint that cannot be used (missing, corrupt or for another game)."""


def sidecar_path(path) -> str:
    path = os.fspath(path)
    return (path[:-4] if path.endswith(".zip") else path) + ".json"


def zip_path(path) -> str:
    path = os.fspath(path)
    if path.endswith(".json"):
        path = path[:-5]
    return path if path.endswith(".zip") else path + ".zip"


def file_sha256(path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _canonical(options) -> str:
    return json.dumps(options, sort_keys=True, default=str)


def game_metadata(core: GameCore) -> dict:
    """What a checkpoint records about the game it was trained on."""
    return {"game": core.name, "options": json.loads(_canonical(core.options)),
            "observation_shape": list(core.observation_shape), "num_actions": int(core.num_actions),
            "num_players": int(core.num_players)}


def write_metadata(path, core: GameCore, **extra) -> dict:
    """Write ``NAME.json`` next to the saved ``NAME.zip`` (atomically)."""
    zpath = zip_path(path)
    meta = {"format": FORMAT, **game_metadata(core), "zip_sha256": file_sha256(zpath), **extra}
    side = sidecar_path(zpath)
    tmp = side + ".tmp"
    with open(tmp, "w") as f:
        json.dump(meta, f, indent=1, default=_json_default)
    os.replace(tmp, side)
    return meta


def _json_default(x):
    if isinstance(x, np.generic):
        return x.item()
    if isinstance(x, np.ndarray):
        return x.tolist()
    raise TypeError(f"not JSON serialisable: {type(x).__name__}")


def read_metadata(path, core: GameCore | None = None) -> dict:
    """The checkpoint's metadata, after checking the zip against it and
    (with ``core``) the game and options against ``core``."""
    zpath = zip_path(path)
    side = sidecar_path(zpath)
    if not os.path.exists(zpath):
        raise CheckpointError(f"checkpoint {zpath!r} does not exist")
    if not os.path.exists(side):
        raise CheckpointError(f"checkpoint {zpath!r} has no metadata file {side!r}; "
                              "it was not written by yyenvs training")
    try:
        with open(side) as f:
            meta = json.load(f)
    except (OSError, ValueError) as e:
        raise CheckpointError(f"checkpoint metadata {side!r} is unreadable or corrupt: {e}") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise CheckpointError(f"checkpoint metadata {side!r} is not in the {FORMAT} format")
    for key in ("game", "options", "zip_sha256", "observation_shape", "num_actions"):
        if key not in meta:
            raise CheckpointError(f"checkpoint metadata {side!r} lacks the field {key!r}")
    if not zipfile.is_zipfile(zpath):
        raise CheckpointError(f"checkpoint {zpath!r} is corrupt: not a readable zip file")
    if file_sha256(zpath) != meta["zip_sha256"]:
        raise CheckpointError(f"checkpoint {zpath!r} is corrupt: its contents do not match the "
                              f"SHA-256 recorded in {side!r} (truncated or altered file)")
    if core is not None:
        check_compatible(meta, core, what=f"checkpoint {zpath!r}")
    return meta


def check_compatible(meta: dict, core: GameCore, what: str = "checkpoint") -> None:
    """Raise :class:`CheckpointError` unless ``meta`` is for ``core``'s game and options."""
    if meta["game"] != core.name:
        raise CheckpointError(f"{what} was trained on game {meta['game']!r}, not {core.name!r}")
    want = json.loads(_canonical(core.options))
    if _canonical(meta["options"]) != _canonical(want):
        diff = sorted(k for k in set(want) | set(meta["options"])
                      if meta["options"].get(k, "<unset>") != want.get(k, "<unset>"))
        details = ", ".join(f"{k}: checkpoint {meta['options'].get(k, '<unset>')!r} vs "
                            f"requested {want.get(k, '<unset>')!r}" for k in diff)
        raise CheckpointError(f"{what} was trained on {core.name} with other options ({details})")
    if (list(meta["observation_shape"]) != list(core.observation_shape)
            or int(meta["num_actions"]) != int(core.num_actions)):
        raise CheckpointError(
            f"{what} expects observations {tuple(meta['observation_shape'])} and "
            f"{meta['num_actions']} actions; {core.name} has {tuple(core.observation_shape)} and "
            f"{core.num_actions}")


def load_model(path, core: GameCore | None = None, env=None, device: str = "cpu"):
    """The ``MaskablePPO`` model of a validated checkpoint, and its metadata."""
    meta = read_metadata(path, core)
    from sb3_contrib import MaskablePPO
    try:
        model = MaskablePPO.load(zip_path(path), env=env, device=device)
    except Exception as e:  # a zip with the right checksum but not an SB3 save
        raise CheckpointError(f"checkpoint {zip_path(path)!r} could not be loaded by MaskablePPO: "
                              f"{type(e).__name__}: {e}") from None
    return model, meta


def policy_logits(policy, obs: np.ndarray) -> np.ndarray:
    """Action logits (B, A) of an SB3 actor-critic policy for a batch of observations.

    One forward pass of the actor only (no value head, no distribution object).
    """
    import torch
    with torch.no_grad():
        t = torch.as_tensor(obs, device=policy.device)
        if hasattr(policy, "action_logits"):  # training.policy.FastMaskablePolicy
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
    """A batched agent playing a (Maskable)PPO policy from the seat to move.

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
        out = np.full(state.batch_size, -1, dtype=np.int64)
        live = np.flatnonzero(np.asarray(mask).any(axis=1))
        if live.size == 0:
            return out
        sub = state if live.size == state.batch_size else state.take(live)
        obs = self.core.observe(sub, sub.current_player)
        logits = policy_logits(self.policy, obs)
        u = None if self.deterministic else self.uniforms(sub, salt=0x5EED)
        out[live] = masked_choice(logits, np.asarray(mask)[live], u)
        return out

    def __repr__(self) -> str:
        return f"PolicyAgent({self.name}, deterministic={self.deterministic})"


def load_policy_agent(path, core: GameCore, seed: int = 0, deterministic: bool = True) -> PolicyAgent:
    """A :class:`PolicyAgent` from checkpoint ``path`` (validated against ``core``)."""
    model, meta = load_model(path, core)
    model.policy.set_training_mode(False)
    label = os.path.splitext(os.path.basename(zip_path(path)))[0]
    agent = PolicyAgent(core, model.policy, seed, deterministic, label=label)
    agent.metadata = meta
    return agent
