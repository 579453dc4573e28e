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


#: the ``mask_dtype`` choices: int8 0/1 as in PettingZoo's classic games, or bool (what torch's masked
#: distributions, TorchRL's ``MaskedCategorical`` among them, accept)
MASK_DTYPES = {"int8": np.int8, "bool": np.bool_}


def observation_layout(dict_observation, mask_dtype) -> type | None:
    """The ``dict_observation`` and ``mask_dtype`` options, checked, as one value: None for the plain
    box, else the numpy type of the dict observation's ``"action_mask"`` (int8 unless ``"bool"``)."""
    as_dict = check_flag("dict_observation", dict_observation)
    if mask_dtype is None:
        return np.int8 if as_dict else None
    if not (isinstance(mask_dtype, str) and mask_dtype in MASK_DTYPES):
        raise OptionError(f"mask_dtype must be one of {list(MASK_DTYPES)} or None, got {show(mask_dtype)}")
    if not as_dict:
        raise OptionError(f"mask_dtype={mask_dtype!r} applies to the dict observation only: "
                          "give dict_observation=True too")
    return MASK_DTYPES[mask_dtype]


def observation_space(core, mask_dtype: type | None = None) -> spaces.Space:
    """The observation space of one env: the core's box, or with a ``mask_dtype`` (see
    :func:`observation_layout`) a ``Dict`` of that box (``"observation"``) and the legal actions
    (``"action_mask"``, 0/1 per action), the layout of PettingZoo's classic games."""
    box = observation_box(core)
    if mask_dtype is None:
        return box
    return spaces.Dict({"observation": box, "action_mask": spaces.Box(0, 1, (core.num_actions,), mask_dtype)})


def with_mask(obs: np.ndarray, mask: np.ndarray, mask_dtype: type | None):
    """``obs`` as the env returns it: itself, or the dict of :func:`observation_space`."""
    if mask_dtype is None:
        return obs
    return {"observation": obs, "action_mask": mask.astype(mask_dtype)}


def check_flag(name: str, value) -> bool:
    """``value`` as a bool option (True/False only), or OptionError naming ``name``."""
    if not isinstance(value, (bool, np.bool_)):
        raise OptionError(f"{name} must be True or False, got {show(value)}")
    return bool(value)
