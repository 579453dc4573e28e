"""The Gymnasium spaces of a core, built in one place for every env."""
from __future__ import annotations

import numpy as np
from gymnasium import spaces

from yyenvs.core.errors import OptionError, show


def observation_box(core) -> spaces.Box:
    """The ``Box`` of one observation of ``core`` (its shape, dtype and bounds)."""
    return spaces.Box(core.observation_low, core.observation_high, core.observation_shape,
                      core.observation_dtype)


def action_space(core) -> spaces.Discrete:
    """One action of ``core``: an integer in ``[0, num_actions)``."""
    return spaces.Discrete(core.num_actions)


def observation_space(core, dict_observation: bool = False) -> spaces.Space:
    """The observation space of one env: the core's box, or with ``dict_observation``
    a ``Dict`` of that box (``"observation"``) and the legal actions (``"action_mask"``,
    int8 0/1 per action), the layout of PettingZoo's classic games."""
    box = observation_box(core)
    if not dict_observation:
        return box
    return spaces.Dict({"observation": box, "action_mask": spaces.Box(0, 1, (core.num_actions,), np.int8)})


def with_mask(obs: np.ndarray, mask: np.ndarray, dict_observation: bool):
    """``obs`` as the env returns it: itself, or the dict of :func:`observation_space`."""
    if not dict_observation:
        return obs
    return {"observation": obs, "action_mask": mask.astype(np.int8)}


def check_flag(name: str, value) -> bool:
    """``value`` as a bool option (True/False only), or OptionError naming ``name``."""
    if not isinstance(value, (bool, np.bool_)):
        raise OptionError(f"{name} must be True or False, got {show(value)}")
    return bool(value)
