"""The policy-value network of the search agents: its description, its rebuild, the network.

One network gives, for a batch of observations, the logits of every player
action and a value per player, in [-1, 1], *relative to the observing seat*:
entry ``k`` is the value for seat ``(viewer + k) % P`` (so a network is the
same whichever seat it plays).  The trunk is a residual tower of 3x3
convolutions over (H, W, C) planes when ``blocks > 0`` (the game has planes),
then a hidden MLP; with ``blocks = 0`` it is the MLP alone over the flattened
observation.  The convolutions pad with zeros, or circularly on a board whose
edges wrap (the spec's ``board_wraps``), so that a pattern across an edge
looks like the same pattern anywhere else.

Where the game's observation ends with per-action features (Yoxii with
``action_features=True``), the network reads them as the PPO policy does
(:class:`~yyenvs.networks.ppo_network.ActionFeatureExtractor`): each action's logit
gains learned weights times its features, and the MLP sees, beside the trunk's
output, each feature's mean over the legal actions and whether any action has it.
The tower then runs over the planes the observation starts with.

A network is described by a small dict (:func:`network_description`), which
checkpoints record next to the parameters; :func:`make_network` rebuilds it
from one after :func:`parameter_count` has bounded what it would allocate.
Needs torch (the ``train`` extra).
"""
from __future__ import annotations

import math

import numpy as np
import torch
from torch import nn

from yyenvs.networks.search_description import PV_CLASS, PV_PADDINGS  # what a checkpoint may name
from yyenvs.core.errors import NetworkError
from yyenvs.core.threads import apply_to_torch

apply_to_torch()  # torch's threads as the command chose them, where it had not imported torch yet

MAX_WIDTH = 1 << 16
MAX_BLOCKS = 64


def network_description(core, hidden=(128, 128), channels: int = 0, blocks: int = 0,
                        discount: float = 1.0) -> dict:
    """The description of a network for ``core``: ``blocks`` residual blocks of ``channels``
    3x3 convolutions over the planes (0: none), then hidden layers ``hidden``; values that
    are returns discounted by ``discount`` per step (recorded only below 1); the per-action
    features the observation ends with, if any (recorded only then)."""
    desc = {"class": PV_CLASS, "hidden": [int(h) for h in hidden], "channels": int(channels),
            "blocks": int(blocks), "num_players": int(core.num_players),
            "padding": "circular" if core.spec.board_wraps else "zeros"}
    if discount != 1.0:
        desc["discount"] = float(discount)
    if core.observed_action_features:
        desc["action_features"] = core.observed_action_features
    check_description(desc, core)
    return desc


def planes_shape(core) -> tuple[int, ...]:
    """The shape of the board planes an observation of ``core`` holds: the whole observation, or
    where it ends with per-action features, the planes before them (the core's ``planes_shape``)."""
    if core.observed_action_features:  # a core without planes_shape: the flat values before the features
        flat = int(np.prod(core.observation_shape)) - core.num_actions * core.observed_action_features
        return tuple(getattr(core, "planes_shape", (flat,)))
    return tuple(core.observation_shape)


def check_description(desc: dict, core) -> None:
    """NetworkError unless ``desc`` can be built for ``core``."""
    hidden, channels, blocks = desc["hidden"], desc["channels"], desc["blocks"]
    if not hidden or any(not 1 <= h <= MAX_WIDTH for h in hidden):
        raise NetworkError(f"hidden must list 1 or more layer widths from 1 to {MAX_WIDTH}, got {hidden}")
    if not 0 <= blocks <= MAX_BLOCKS:
        raise NetworkError(f"blocks must be from 0 to {MAX_BLOCKS}, got {blocks}")
    if blocks and not 1 <= channels <= 4096:
        raise NetworkError(f"residual blocks need channels from 1 to 4096, got {channels}")
    if blocks and len(planes_shape(core)) != 3:
        raise NetworkError(f"residual blocks need (H, W, C) observation planes; {core.name} "
                           f"observes {tuple(core.observation_shape)}")
    if desc.get("action_features", 0) != core.observed_action_features:
        raise NetworkError(f"the network reads {desc.get('action_features', 0)} per-action features; "
                           f"{core.name} with these options observes {core.observed_action_features}")
    if desc.get("padding", "zeros") not in PV_PADDINGS:  # absent in descriptions older than it: zeros
        raise NetworkError(f"padding must be one of {PV_PADDINGS}, got {desc['padding']!r}")
    discount = desc.get("discount", 1.0)  # absent: undiscounted values
    if isinstance(discount, bool) or not isinstance(discount, (int, float)) or not 0.0 <= discount <= 1.0:
        raise NetworkError(f"discount must be a number from 0 to 1, got {discount!r}")
    if desc["num_players"] != core.num_players:
        raise NetworkError(f"the network values {desc['num_players']} players; {core.name} has "
                           f"{core.num_players}")


def parameter_count(core, desc: dict) -> int:
    """The parameters :func:`make_network` would allocate for ``desc`` on ``core``."""
    shape = planes_shape(core)
    features = desc.get("action_features", 0)
    n = features
    if desc["blocks"]:
        h, w, c = shape
        ch = desc["channels"]
        n += (9 * c + 1) * ch + desc["blocks"] * 2 * (9 * ch + 1) * ch
        width = h * w * ch
    else:
        width = int(np.prod(shape))
    width += 2 * features
    for hdim in desc["hidden"]:
        n += (width + 1) * hdim
        width = hdim
    return n + (width + 1) * (core.num_actions + core.num_players)


def feature_summaries(feats):
    """(B, F, A) per-action features (the last one "legal") -> (B, 2F): each feature's mean over the
    legal actions, then whether any action has it (a crisp bit an MLP would find hard to read off a
    mean of 1/200).  The PPO policy's and the search network's inputs alike."""
    sums = feats.sum(dim=2)
    return torch.cat([sums / sums[:, -1:].clamp(min=1.0), (sums > 0).to(feats.dtype)], dim=1)


def add_feature_logits(logits, feats, weights):
    """``logits`` (B, A) plus each action's features (B, F, A) times ``weights`` (F,)."""
    for f in range(feats.shape[1]):  # contiguous (B, A) blocks: 2x faster than a matmul
        logits = logits + weights[f] * feats[:, f]
    return logits


def _conv(cin: int, cout: int, padding: str) -> nn.Conv2d:
    return nn.Conv2d(cin, cout, 3, padding=1, padding_mode=padding)


class _Residual(nn.Module):
    def __init__(self, channels: int, padding: str):
        super().__init__()
        self.a = _conv(channels, channels, padding)
        self.b = _conv(channels, channels, padding)

    def forward(self, x):
        return torch.relu(x + self.b(torch.relu(self.a(x))))


class PolicyValueNet(nn.Module):
    """(B, *observation_shape) float32 -> (logits (B, A), values (B, P) in [-1, 1] from the viewer).

    ``action_features`` F > 0: the observation is flat, the planes of ``planes_shape`` then F blocks
    of ``num_actions`` values (feature-major, the last one "legal"; see the module docstring)."""

    #: the features' weights are scaled so that they learn at a useful pace (as the PPO policy's)
    FEATURE_GAIN = 20.0

    def __init__(self, observation_shape, num_actions: int, num_players: int, hidden=(128, 128),
                 channels: int = 0, blocks: int = 0, padding: str = "zeros", action_features: int = 0,
                 planes_shape=None):
        super().__init__()
        self.observation_shape = tuple(int(d) for d in observation_shape)
        self.num_actions = int(num_actions)
        self.num_players = int(num_players)
        self.action_features = int(action_features)
        self.planes_shape = tuple(int(d) for d in (planes_shape or self.observation_shape))
        self.planes_size = int(math.prod(self.planes_shape))
        if self.action_features:
            self.feature_weights = nn.Parameter(torch.zeros(self.action_features))
        layers: list[nn.Module] = []
        if blocks:
            h, w, c = self.planes_shape
            self.tower = nn.Sequential(_conv(c, channels, padding), nn.ReLU(),
                                       *[_Residual(channels, padding) for _ in range(blocks)])
            width = h * w * channels
        else:
            self.tower = None
            width = self.planes_size
        width += 2 * self.action_features
        for hdim in hidden:
            layers += [nn.Linear(width, int(hdim)), nn.ReLU()]
            width = int(hdim)
        self.mlp = nn.Sequential(*layers)
        self.head = nn.Linear(width, self.num_actions + self.num_players)

    def action_features_of(self, obs):
        """(B, F, A): the per-action features an observation ends with."""
        return obs.reshape(obs.shape[0], -1)[:, self.planes_size:].reshape(
            obs.shape[0], self.action_features, self.num_actions)

    def forward(self, obs):
        x = obs.reshape(obs.shape[0], *self.planes_shape) if not self.action_features else \
            obs.reshape(obs.shape[0], -1)[:, :self.planes_size].reshape(obs.shape[0], *self.planes_shape)
        if self.tower is not None:
            x = self.tower(x.permute(0, 3, 1, 2))
        x = x.flatten(1)
        if self.action_features:
            feats = self.action_features_of(obs)
            x = torch.cat([x, feature_summaries(feats)], dim=1)
        out = self.head(self.mlp(x))
        logits = out[:, :self.num_actions]
        if self.action_features:
            logits = add_feature_logits(logits, feats, self.FEATURE_GAIN * self.feature_weights)
        return logits, torch.tanh(out[:, self.num_actions:])


def make_network(core, desc: dict) -> PolicyValueNet:
    """The network ``desc`` describes, for ``core`` (NetworkError if it does not fit)."""
    check_description(desc, core)
    return PolicyValueNet(core.observation_shape, core.num_actions, core.num_players,
                          desc["hidden"], desc["channels"], desc["blocks"], desc.get("padding", "zeros"),
                          desc.get("action_features", 0), planes_shape(core))


class NetworkEvaluator:
    """The search's view of a network: ``evaluate(obs) -> (logits, values)``, numpy arrays.

    ``logits`` (S, A) float32 over the player actions, ``values`` (S, P) relative
    to the observing seat; no gradients.  The network has no layer that behaves
    differently in training, so its mode does not matter.  ``device`` (a name of
    :mod:`yyenvs.networks.device`) is where the network runs: it is moved there; on a
    GPU under bf16 autocast, its inputs staged in a pinned buffer.
    """

    def __init__(self, net: PolicyValueNet, device="cpu"):
        from yyenvs.networks.device import resolve_device
        self.device = resolve_device(device) if isinstance(device, str) else torch.device(device)
        self.net = net.to(self.device)
        self._pinned = torch.empty(0)  # host staging buffer for GPU copies, grown as needed

    def __call__(self, obs: np.ndarray):
        x = torch.from_numpy(np.ascontiguousarray(obs, dtype=np.float32))
        with torch.inference_mode():
            if self.device.type == "cpu":
                logits, values = self.net(x)
                return logits.numpy(), values.numpy()
            if self._pinned.numel() < x.numel():
                self._pinned = torch.empty(x.numel(), dtype=torch.float32).pin_memory()
            host = self._pinned[:x.numel()].view(x.shape)
            host.copy_(x)
            with torch.autocast(self.device.type, dtype=torch.bfloat16):
                logits, values = self.net(host.to(self.device, non_blocking=True))
            return logits.float().cpu().numpy(), values.float().cpu().numpy()
