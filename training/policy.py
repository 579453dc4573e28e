"""A leaner ``MaskableActorCriticPolicy`` for large discrete action spaces.

Same network, same maths as sb3-contrib's policy (illegal logits set to
-1e8, softmax over the rest), but the masked log-softmax is computed once and
the action's log-probability and the entropy are read from it, instead of
building a ``MaskableCategorical`` (which re-normalises the logits several
times).  With Yoxii's 1,184 actions this roughly halves the cost of a policy
forward pass and of a PPO gradient step.  Used by ``MaskablePPO`` as its
policy class; checkpoints remain ordinary MaskablePPO saves.
"""
from __future__ import annotations

import torch as th
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

HUGE_NEG = -1e8


class FastMaskablePolicy(MaskableActorCriticPolicy):
    def _latents(self, obs):
        features = self.extract_features(obs)
        if self.share_features_extractor:
            return self.mlp_extractor(features)
        pi_features, vf_features = features
        return self.mlp_extractor.forward_actor(pi_features), self.mlp_extractor.forward_critic(vf_features)

    def _masked_log_probs(self, latent_pi, action_masks):
        logits = self.action_net(latent_pi)
        if action_masks is not None:
            mask = th.as_tensor(action_masks, device=logits.device).to(th.bool).reshape(logits.shape)
            logits = logits.masked_fill(~mask, HUGE_NEG)
        return th.log_softmax(logits, dim=-1)

    def forward(self, obs, deterministic: bool = False, action_masks=None):
        latent_pi, latent_vf = self._latents(obs)
        values = self.value_net(latent_vf)
        logp = self._masked_log_probs(latent_pi, action_masks)
        if deterministic:
            actions = logp.argmax(dim=-1)
        else:
            # inverse-CDF sampling (th.multinomial is several times slower over ~1000 actions)
            cdf = logp.exp().cumsum(dim=-1)
            u = th.rand((cdf.shape[0], 1), device=cdf.device) * cdf[:, -1:]
            actions = th.searchsorted(cdf, u, right=True).squeeze(1).clamp_(max=cdf.shape[1] - 1)
        log_prob = logp.gather(1, actions.unsqueeze(1)).squeeze(1)
        return actions, values, log_prob

    def evaluate_actions(self, obs, actions, action_masks=None):
        latent_pi, latent_vf = self._latents(obs)
        values = self.value_net(latent_vf)
        logp = self._masked_log_probs(latent_pi, action_masks)
        log_prob = logp.gather(1, actions.long().reshape(-1, 1)).squeeze(1)
        entropy = -(logp.exp() * logp).sum(dim=-1)
        return values, log_prob, entropy
