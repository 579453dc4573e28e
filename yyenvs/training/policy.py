"""Where the policy classes lived before :mod:`yyenvs.networks.ppo_network`.

Checkpoints of the earlier stable-baselines3 zip format name the policy class
by this module's path (their unpickling imports it), so ``yyenvs checkpoint
convert --trust`` needs these names here; new code imports from
:mod:`yyenvs.networks.ppo_network`.
"""
from yyenvs.networks.ppo_network import ActionFeatureExtractor, FastMaskablePolicy, PlanesCNN

__all__ = ["ActionFeatureExtractor", "FastMaskablePolicy", "PlanesCNN"]
