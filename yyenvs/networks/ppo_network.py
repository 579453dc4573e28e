"""The policy network: its description, its rebuild from one, and the network itself.

A network is described by a small dict (:func:`network_spec`): the class
name (``"FastMaskablePolicy"``, the name checkpoints record), the layer
widths, the activation, the optional convolutions, the number of per-action
features and whether it has a value head.  Checkpoints store that
description and the parameters; :func:`make_policy` rebuilds the network
from it (no pickled objects), after :func:`actor_parameter_count` has bounded
what it will allocate.  Training builds its networks from here too.

:class:`FastMaskablePolicy` is sb3-contrib's ``MaskableActorCriticPolicy``
for large discrete action spaces: same network, same maths (illegal logits
set to -1e8, softmax over the rest), but the masked log-softmax is computed
once and the action's log-probability and the entropy are read from it,
instead of building a ``MaskableCategorical`` (which re-normalises the logits
several times).  With Yoxii's 1,184 actions this roughly halves the cost of a
policy forward pass and of a PPO gradient step.

Needs torch and sb3-contrib (the ``train`` extra); imported only when a
checkpoint is loaded or a run trains.  A description that does not fit the
game raises :class:`NetworkError`.
"""
from __future__ import annotations

import numpy as np
import torch as th
from gymnasium import spaces
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor

from yyenvs.networks import ppo_description
from yyenvs.networks.search_network import add_feature_logits, feature_summaries
from yyenvs.core.errors import NetworkError  # noqa: F401  (raised here; importers name it from here too)
from yyenvs.core.threads import apply_to_torch

apply_to_torch()  # torch's threads as the command chose them, where it had not imported torch yet

HUGE_NEG = -1e8
#: the layers of the activations a description may name (ppo_description.ACTIVATIONS)
ACTIVATIONS = dict(zip(ppo_description.ACTIVATIONS, (th.nn.ReLU, th.nn.Tanh)))
#: the class name a description (and so a checkpoint) records
POLICY_CLASS = ppo_description.PPO_CLASS


def network_spec(core, net_arch, activation: str = "relu", cnn_channels=()) -> dict:
    """The description of a network on ``core``: hidden layers ``net_arch`` (policy and value
    MLPs alike), ``activation`` (``"relu"`` / ``"tanh"``) and 3x3 convolutions of
    ``cnn_channels`` over (H, W, C) planes first (empty: none)."""
    spec = {"class": POLICY_CLASS, "net_arch": [int(n) for n in net_arch],
            "activation": activation, "cnn_channels": [int(c) for c in cnn_channels],
            "action_features": core.observed_action_features, "value_net": True}
    if spec["cnn_channels"]:
        if spec["action_features"]:
            raise NetworkError("cnn_channels does not apply with game option action_features "
                               "(the observation is a flat vector)")
        if len(core.observation_shape) != 3:
            raise NetworkError(f"cnn_channels needs (H, W, C) observation planes; "
                               f"{core.name} observations are {core.observation_shape}")
    return spec


def policy_kwargs(core, spec: dict) -> dict:
    """``policy_kwargs`` of ``FastMaskablePolicy`` for a network description."""
    if spec["action_features"] != core.observed_action_features:
        raise NetworkError(f"the network reads {spec['action_features']} per-action features; "
                           f"{core.name} with these options gives {core.observed_action_features}")
    if spec["cnn_channels"] and len(core.observation_shape) != 3:
        raise NetworkError(f"the network's convolutions need (H, W, C) observations; "
                           f"{core.name} observations are {core.observation_shape}")
    kwargs = {"net_arch": {"pi": list(spec["net_arch"]), "vf": list(spec["net_arch"])},
              "activation_fn": ACTIVATIONS[spec["activation"]]}
    if spec["action_features"]:
        kwargs["action_features"] = spec["action_features"]
    if spec["cnn_channels"]:
        kwargs["features_extractor_class"] = PlanesCNN
        kwargs["features_extractor_kwargs"] = {"channels": list(spec["cnn_channels"])}
    return kwargs


def actor_parameter_count(core, spec: dict) -> int:
    """The weights (biases aside) of the actor that ``spec`` describes on ``core``: a lower
    bound on what a checkpoint of it holds, computed without building anything."""
    num_actions, features = int(core.num_actions), int(spec["action_features"])
    total, width = 0, int(np.prod(core.observation_shape))
    if spec["cnn_channels"]:
        h, w, prev = core.observation_shape
        for ch in spec["cnn_channels"]:
            total, prev = total + 9 * prev * ch, ch
        width = h * w * prev
    elif features:
        width = width - num_actions * features + 2 * features  # ActionFeatureExtractor's output
    for hidden in spec["net_arch"]:
        total, width = total + width * hidden, hidden
    return total + width * num_actions + features


def make_policy(core, spec: dict) -> "FastMaskablePolicy":
    """A freshly initialised network of the description ``spec`` for ``core`` (on the CPU)."""
    obs_space = spaces.Box(core.observation_low, core.observation_high, core.observation_shape,
                           core.observation_dtype)
    return FastMaskablePolicy(obs_space, spaces.Discrete(core.num_actions), lambda _: 0.0,
                              **policy_kwargs(core, spec))


class _LogSoftmax(th.autograd.Function):
    """log_softmax whose backward uses the softmax instead of ``exp(log_softmax)``.

    Same values and gradients as ``th.log_softmax``; PyTorch's CPU ``exp`` takes a
    slow path on large negative inputs (the masked logits), 10-20x slower than
    normal, and the stock backward calls it on every masked entry.
    """

    @staticmethod
    def forward(ctx, x):
        p = th.softmax(x, dim=-1)
        ctx.save_for_backward(p)
        return th.log_softmax(x, dim=-1)

    @staticmethod
    def backward(ctx, grad):
        (p,) = ctx.saved_tensors
        return grad - p * grad.sum(dim=-1, keepdim=True)


class ActionFeatureExtractor(BaseFeaturesExtractor):
    """For observations that end with per-action features (``core.observation_ends_with_action_features``).

    Input: flat ``[observation, features]`` where the features are F blocks of
    ``num_actions`` values (feature-major), the last block being "legal".
    Output for the MLPs: the observation, then for each feature its mean over
    the legal actions and whether any action has it (a crisp bit the MLP would
    find hard to read off a mean of 1/200).  The per-action features themselves
    reach the logits directly (see ``FastMaskablePolicy``).
    """

    def __init__(self, observation_space, num_actions: int, num_features: int):
        total = int(np.prod(observation_space.shape))
        self.num_actions, self.num_features = int(num_actions), int(num_features)
        self.split = total - self.num_actions * self.num_features
        super().__init__(observation_space, features_dim=self.split + 2 * self.num_features)

    def action_features(self, obs):
        """(B, F, num_actions) view of the features."""
        return obs[:, self.split:].reshape(obs.shape[0], self.num_features, self.num_actions)

    def forward(self, obs):
        obs = obs.reshape(obs.shape[0], -1)
        return th.cat([obs[:, :self.split], feature_summaries(self.action_features(obs))], dim=1)


class FastMaskablePolicy(MaskableActorCriticPolicy):
    """See the module docstring.  ``action_features=F`` (> 0): the observation
    ends with F features per action; each action's logit gains ``F`` learned
    weights times its features (scaled by ``FEATURE_GAIN`` so they learn at a
    useful pace), and the MLPs see the observation plus feature summaries."""

    FEATURE_GAIN = 20.0

    def __init__(self, observation_space, action_space, lr_schedule, *args,
                 action_features: int = 0, **kwargs):
        self.action_features = int(action_features)
        if self.action_features:
            kwargs["features_extractor_class"] = ActionFeatureExtractor
            kwargs["features_extractor_kwargs"] = {"num_actions": int(action_space.n),
                                                   "num_features": self.action_features}
        super().__init__(observation_space, action_space, lr_schedule, *args, **kwargs)

    def _build(self, lr_schedule) -> None:
        if self.action_features:  # before the optimizer is built
            self.feature_weights = th.nn.Parameter(th.zeros(self.action_features))
        super()._build(lr_schedule)

    def _get_constructor_parameters(self):
        data = super()._get_constructor_parameters()
        data["action_features"] = self.action_features
        return data

    def _latents(self, obs):
        features = self.extract_features(obs)
        if self.share_features_extractor:
            return self.mlp_extractor(features)
        pi_features, vf_features = features
        return self.mlp_extractor.forward_actor(pi_features), self.mlp_extractor.forward_critic(vf_features)

    def _logits(self, obs, latent_pi):
        logits = self.action_net(latent_pi)
        if self.action_features:
            feats = self.features_extractor.action_features(obs.reshape(obs.shape[0], -1).float())
            logits = add_feature_logits(logits, feats, self.FEATURE_GAIN * self.feature_weights)
        return logits

    def action_logits(self, obs):
        """Unmasked action logits of a batch of observations (actor only)."""
        features = self.extract_features(obs, self.pi_features_extractor)
        return self._logits(obs, self.mlp_extractor.forward_actor(features))

    def get_distribution(self, obs, action_masks=None):
        """SB3's ``predict`` path, with the same logits as ``forward``."""
        distribution = self.action_dist.proba_distribution(action_logits=self.action_logits(obs))
        if action_masks is not None:
            distribution.apply_masking(action_masks)
        return distribution

    def _masked_logits(self, obs, latent_pi, action_masks):
        logits = self._logits(obs, latent_pi)
        if action_masks is not None:
            mask = th.as_tensor(action_masks, device=logits.device).to(th.bool).reshape(logits.shape)
            logits = logits.masked_fill(~mask, HUGE_NEG)
        return logits

    def forward(self, obs, deterministic: bool = False, action_masks=None):
        latent_pi, latent_vf = self._latents(obs)
        values = self.value_net(latent_vf)
        logits = self._masked_logits(obs, latent_pi, action_masks)
        logp = th.log_softmax(logits, dim=-1)
        if deterministic:
            actions = logp.argmax(dim=-1)
        else:
            # inverse-CDF sampling (th.multinomial is several times slower over ~1000 actions)
            cdf = th.softmax(logits, dim=-1).cumsum(dim=-1)
            u = th.rand((cdf.shape[0], 1), device=cdf.device) * cdf[:, -1:]
            actions = th.searchsorted(cdf, u, right=True).squeeze(1).clamp_(max=cdf.shape[1] - 1)
        log_prob = logp.gather(1, actions.unsqueeze(1)).squeeze(1)
        return actions, values, log_prob

    def evaluate_actions(self, obs, actions, action_masks=None):
        latent_pi, latent_vf = self._latents(obs)
        values = self.value_net(latent_vf)
        logits = self._masked_logits(obs, latent_pi, action_masks)
        logp = _LogSoftmax.apply(logits)
        log_prob = logp.gather(1, actions.long().reshape(-1, 1)).squeeze(1)
        entropy = -(th.softmax(logits, dim=-1) * logp).sum(dim=-1)
        return values, log_prob, entropy


class PlanesCNN(BaseFeaturesExtractor):
    """3x3 'same' convolutions over (H, W, C) observation planes, then flatten.

    ``channels`` lists the output channels of each convolution (ReLU after
    each).  Enabled by ``ppo.cnn_channels`` (e.g. ``[32, 32]``); the MLP of
    ``ppo.net_arch`` follows it for the policy and the value.
    """

    def __init__(self, observation_space, channels=(32, 32)):
        import torch.nn as nn
        h, w, c = observation_space.shape
        super().__init__(observation_space, features_dim=h * w * int(channels[-1]))
        layers, prev = [], c
        for ch in channels:
            layers += [nn.Conv2d(prev, int(ch), 3, padding=1), nn.ReLU()]
            prev = int(ch)
        self.cnn = nn.Sequential(*layers, nn.Flatten())

    def forward(self, obs):
        return self.cnn(obs.permute(0, 3, 1, 2))


class PolicyAsSearchNetwork(th.nn.Module):
    """A PPO policy seen as a search network (:class:`~yyenvs.networks.search_network.PolicyValueNet`'s
    interface): the actor's logits, and per seat a value relative to the observing seat, the critic's
    estimate of the observer's return for entry 0 and, for each other seat, minus it shared among them
    (exact for two players; for more, the critic says nothing of how the others fare).  A checkpoint
    that holds the actor only (``value_net: false``, as the shipped policies) values every position 0
    (``has_value`` False): a search over it takes its values from rollouts."""

    def __init__(self, policy: FastMaskablePolicy, num_players: int, has_value: bool = True):
        super().__init__()
        self.policy = policy
        self.num_actions = int(policy.action_space.n)
        self.num_players = int(num_players)
        self.has_value = bool(has_value)

    def forward(self, obs):
        logits = self.policy.action_logits(obs)
        if not self.has_value:
            return logits, logits.new_zeros((logits.shape[0], self.num_players))
        own = self.policy.predict_values(obs).clamp(-1.0, 1.0)  # (B, 1): a return of the game's result
        others = (-own / max(self.num_players - 1, 1)).expand(-1, self.num_players - 1)
        return logits, th.cat([own, others], dim=1)
