"""The errors the package raises, and ``show``, the short ``repr`` its messages use."""
from __future__ import annotations

import importlib.util
import math
import reprlib

import numpy as np


class IllegalActionError(ValueError):
    """An action that the rules (or the action space) do not allow."""


class OptionError(ValueError):
    """A game option with a bad name or value."""


class UnknownOptionError(OptionError, TypeError):
    """A keyword that is no option of the game: also a ``TypeError``, as Python's own "unexpected
    keyword argument" is, which libraries that probe keywords (TorchRL's ``GymEnv``) catch."""


class NetworkError(OptionError):
    """A network description that does not fit the game (or asks for what cannot be built)."""


class RecordError(OptionError):
    """A game record that cannot be read, or that is not the game it claims to be (a user error,
    like every :class:`OptionError`: the command line prints it as one line)."""


class OpponentError(RuntimeError):
    """An opponent (of a Gymnasium or vector env) answered with an action it may not play.

    The learner's env is then mid-turn and must be reset.
    """


class MissingExtraError(ModuleNotFoundError):
    """Something asked for needs a module of an extra that is not installed (the message names both)."""


def require_modules(what: str, *modules: str, extra: str = "train") -> None:
    """MissingExtraError, in one line naming ``what``, the missing modules and the extra to install,
    unless every one of ``modules`` can be imported (found without importing it)."""
    missing = [m for m in modules if not _installed(m)]
    if missing:
        names = " and ".join([", ".join(missing[:-1]), missing[-1]] if len(missing) > 1 else missing)
        raise MissingExtraError(f"{what} needs {names}, not installed here: "
                                f"pip install 'yyenvs[{extra}]'", name=missing[0])


def _installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # a blocked or half-removed package
        return False


_REPR = reprlib.Repr()
_REPR.maxstring = _REPR.maxother = 80


def show(value, limit: int = 80) -> str:
    """A short ``repr`` for messages: numpy scalars as Python ones; long or deeply nested values cut."""
    if isinstance(value, np.generic):
        value = value.item()
    try:
        text = _REPR.repr(value)
    except ValueError:  # an integer with too many digits to print
        return f"a {type(value).__name__} too large to print"
    return text if len(text) <= limit else text[:limit - 3] + "..."


def finite_number(value, what: str, low: float = -math.inf, high: float = math.inf) -> float:
    """``value`` as a float if it is a real number (not a bool or a string), finite and in
    [``low``, ``high``]; else ValueError ``"<what> must be a finite number ..., got <value>"``."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)) \
            or not math.isfinite(value) or not low <= value <= high:
        bound = "" if (low, high) == (-math.inf, math.inf) else \
            f" in [{low:g}, {'inf)' if high == math.inf else f'{high:g}]'}"
        raise ValueError(f"{what} must be a finite number{bound}, got {show(value)}")
    return float(value)
