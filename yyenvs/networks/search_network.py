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
    are returns discounted by ``discount`` per step (recorded only below 1)."""
    desc = {"class": PV_CLASS, "hidden": [int(h) for h in hidden], "channels": int(channels),
            "blocks": int(blocks), "num_players": int(core.num_players),
            "padding": "circular" if core.spec.board_wraps else "zeros"}
    if discount != 1.0:
        desc["discount"] = float(discount)
    check_description(desc, core)
    return desc


def check_description(desc: dict, core) -> None:
    """NetworkError unless ``desc`` can be built for ``core``."""
    hidden, channels, blocks = desc["hidden"], desc["channels"], desc["blocks"]
    if not hidden or any(not 1 <= h <= MAX_WIDTH for h in hidden):
        raise NetworkError(f"hidden must list 1 or more layer widths from 1 to {MAX_WIDTH}, got {hidden}")
    if not 0 <= blocks <= MAX_BLOCKS:
        raise NetworkError(f"blocks must be from 0 to {MAX_BLOCKS}, got {blocks}")
    if blocks and not 1 <= channels <= 4096:
        raise NetworkError(f"residual blocks need channels from 1 to 4096, got {channels}")
    if blocks and len(core.observation_shape) != 3:
        raise NetworkError(f"residual blocks need (H, W, C) observation planes; {core.name} "
                           f"observes {tuple(core.observation_shape)}")
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
    shape = tuple(core.observation_shape)
    n = 0
    if desc["blocks"]:
        h, w, c = shape
        ch = desc["channels"]
        n += (9 * c + 1) * ch + desc["blocks"] * 2 * (9 * ch + 1) * ch
        width = h * w * ch
    else:
        width = int(np.prod(shape))
    for hdim in desc["hidden"]:
        n += (width + 1) * hdim
        width = hdim
    return n + (width + 1) * (core.num_actions + core.num_players)


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
    """(B, *observation_shape) float32 -> (logits (B, A), values (B, P) in [-1, 1] from the viewer)."""

    def __init__(self, observation_shape, num_actions: int, num_players: int, hidden=(128, 128),
                 channels: int = 0, blocks: int = 0, padding: str = "zeros"):
        super().__init__()
        self.observation_shape = tuple(int(d) for d in observation_shape)
        self.num_actions = int(num_actions)
        self.num_players = int(num_players)
        layers: list[nn.Module] = []
        if blocks:
            h, w, c = self.observation_shape
            self.tower = nn.Sequential(_conv(c, channels, padding), nn.ReLU(),
                                       *[_Residual(channels, padding) for _ in range(blocks)])
            width = h * w * channels
        else:
            self.tower = None
            width = int(math.prod(self.observation_shape))
        for hdim in hidden:
            layers += [nn.Linear(width, int(hdim)), nn.ReLU()]
            width = int(hdim)
        self.mlp = nn.Sequential(*layers)
        self.head = nn.Linear(width, self.num_actions + self.num_players)

    def forward(self, obs):
        x = obs
        if self.tower is not None:
            x = self.tower(x.permute(0, 3, 1, 2))
        x = self.mlp(x.flatten(1))
        out = self.head(x)
        return out[:, :self.num_actions], torch.tanh(out[:, self.num_actions:])


def make_network(core, desc: dict) -> PolicyValueNet:
    """The network ``desc`` describes, for ``core`` (NetworkError if it does not fit)."""
    check_description(desc, core)
    return PolicyValueNet(core.observation_shape, core.num_actions, core.num_players,
                          desc["hidden"], desc["channels"], desc["blocks"], desc.get("padding", "zeros"))


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
