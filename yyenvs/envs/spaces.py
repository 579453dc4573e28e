"""The Gymnasium spaces of a core, built in one place for every env."""
from __future__ import annotations

from gymnasium import spaces


def observation_box(core) -> spaces.Box:
    """The ``Box`` of one observation of ``core`` (its shape, dtype and bounds)."""
    return spaces.Box(core.observation_low, core.observation_high, core.observation_shape,
                      core.observation_dtype)


def action_space(core) -> spaces.Discrete:
    """One action of ``core``: an integer in ``[0, num_actions)``."""
    return spaces.Discrete(core.num_actions)
