"""What the learner plays against in the Gymnasium and vector envs: the :class:`Opponent` protocol.

A :class:`~yyenvs.envs.learner.LearnerBatch` (under both envs) speaks to its
opponent through these four methods only:

* ``opponent(state, mask, env_ids)``: one action per row of ``state`` (the
  rows where an opponent is to move), ``env_ids[k]`` being the env of row k;
* ``on_episode_start(env_ids)``: new games start in those envs (before any
  opponent move in them);
* ``on_episode_end(env_ids, outcomes, learner_seats)``: games ended there
  (+1 / 0 / -1 for the learner), called before the envs restart;
* ``names(env_ids)``: who plays in each of those envs (the vector env's
  ``infos["episode"]["opponent"]``).

Subclass :class:`Opponent` for an opponent that keeps per-env state (the
training pool does); any agent or plain callable ``f(state, mask)`` is wrapped
by :func:`as_opponent`.
"""
from __future__ import annotations

import numpy as np

from yyenvs.core.errors import OptionError, show


class Opponent:
    """The base class: every hook is a no-op; subclasses write ``__call__``."""

    def __call__(self, state, mask, env_ids) -> np.ndarray:
        raise NotImplementedError

    def on_episode_start(self, env_ids) -> None:
        """New games start in envs ``env_ids``."""

    def on_episode_end(self, env_ids, outcomes, learner_seats) -> None:
        """Games ended in envs ``env_ids`` with ``outcomes`` (+1 / 0 / -1) for the learner."""

    def names(self, env_ids) -> list[str]:
        """The name of the opponent playing in each of envs ``env_ids``."""
        return [self.label] * len(env_ids)

    @property
    def label(self) -> str:
        """The opponent in words, for messages."""
        return show(self, limit=120)


class AgentOpponent(Opponent):
    """Any agent or plain callable ``f(state, mask) -> actions`` as an :class:`Opponent`."""

    def __init__(self, agent):
        if not callable(agent):
            raise OptionError(f"an opponent must be callable as f(state, mask), got {show(agent)}")
        self.agent = agent

    def __call__(self, state, mask, env_ids) -> np.ndarray:
        return self.agent(state, mask)

    def names(self, env_ids) -> list[str]:
        name = getattr(self.agent, "name", None)
        return [name if isinstance(name, str) else self.label] * len(env_ids)

    @property
    def label(self) -> str:
        name = getattr(self.agent, "__qualname__", None)  # a function: its name beats its repr
        return name if isinstance(name, str) else show(self.agent, limit=120)

    def __repr__(self) -> str:
        return f"AgentOpponent({self.label})"


def as_opponent(opponent) -> Opponent:
    """``opponent`` itself when it is an :class:`Opponent`, else wrapped in :class:`AgentOpponent`."""
    return opponent if isinstance(opponent, Opponent) else AgentOpponent(opponent)
