"""Where the policy classes lived before :mod:`yyenvs.agents.ppo_network`.

Checkpoints of the earlier stable-baselines3 zip format name the policy class
by this module's path (their unpickling imports it), so ``yyenvs checkpoint
convert --trust`` needs these names here; new code imports from
:mod:`yyenvs.agents.ppo_network`.
"""
from yyenvs.agents.ppo_network import ActionFeatureExtractor, FastMaskablePolicy, PlanesCNN

__all__ = ["ActionFeatureExtractor", "FastMaskablePolicy", "PlanesCNN"]
