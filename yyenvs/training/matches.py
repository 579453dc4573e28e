"""The entrants of a match and the games between two of them, in this process (the Ray
workers of :mod:`yyenvs.training.distributed` play the same games)."""
from __future__ import annotations

import os

import numpy as np

from yyenvs.agents import make_agent
from yyenvs.networks.checkpoint import looks_like_checkpoint
from yyenvs.agents.match import TIMING, pair_seeds, pairwise_from_scores, play_games, seat_pattern
from yyenvs.core.contract import OptionError
from yyenvs.core.record import GameRecorder, save_records


class Entrant:
    def __init__(self, name: str, agent, step: int | None = None, kind: str = "baseline", spec: str | None = None):
        self.name, self.agent, self.step, self.kind = name, agent, step, kind
        self.spec = spec  #: what it was made from (a baseline name, an az: spec, a path)


def make_entrants(specs, core, seed: int = 0, deterministic: bool = True) -> list[Entrant]:
    """Entrants from specs: baseline names, ``az:`` specs or checkpoint paths (name = file stem,
    with ``:<n>`` and any search settings for a search agent)."""
    out, seen = [], set()
    for k, spec in enumerate(specs):
        spec = os.fspath(spec)
        if spec.startswith("az:") or looks_like_checkpoint(spec):
            agent = make_agent(spec, core, seed + k, deterministic)
            name = agent.name
            parent = os.path.basename(os.path.dirname(os.path.abspath(agent.metadata["path"])))
            if name in seen:
                name = f"{parent}/{name}"
            out.append(Entrant(name, agent, int(agent.metadata.get("num_timesteps", 0)), "checkpoint", spec))
        else:
            out.append(Entrant(spec, make_agent(spec, core, seed + k, deterministic), None, "baseline", spec))
        if out[-1].name in seen:
            raise OptionError(f"entrant {out[-1].name!r} given twice")
        seen.add(out[-1].name)
    return out


def play_pair(core, entrants: list[Entrant], i: int, j: int, games: int, seed: int, save_games=None):
    """The games of pair (i, j): wins and draws (n x n, row against column) and the
    entrants' timing (:data:`~yyenvs.agents.match.TIMING`: wall and CPU seconds in act, moves made).  The games depend on the seed and
    the pair only, so any process that builds the same entrants plays the same ones.
    With ``save_games`` (a directory) each game is written there as a record,
    ``<i>-<j>-<k>.json``."""
    n = len(entrants)
    seats = seat_pattern(i, j, core.num_players, games)
    timing = np.zeros((n, len(TIMING)))
    seeds = pair_seeds(seed, i, j, games)
    recorder = None if save_games is None else GameRecorder(
        seeds, [[entrants[e].name for e in row] for row in seats])
    scores, _ = play_games(core, [e.agent for e in entrants], seats, seeds, timing, recorder)
    if recorder is not None:
        save_records(recorder.records, save_games, f"{i}-{j}")
    w, d = pairwise_from_scores(scores, seats, n)
    return w, d, timing
