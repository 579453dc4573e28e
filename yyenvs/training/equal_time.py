"""Equal-time matches: a search agent's simulations chosen so that it thinks as long per move as its
opponent.

:func:`equal_time_match` plays the whole match, measures both sides' time per move (the wall time of
their ``act`` calls over the moves made in them, as every evaluation reports it: the games are batched,
so it is the time per move of a batch of games), scales the searcher's simulations by the ratio of the
opponent's time to its own, and plays again, until the two lie within ``tolerance`` of each other or
the simulations stop changing.  Each match is the same for its seed and simulations; which simulation
count the matching settles on depends on the machine's speed, so it is not.
"""
from __future__ import annotations

from yyenvs.agents.az import MAX_AZ_SIMULATIONS, az_spec, parse_az_spec
from yyenvs.agents.mcts import DEFAULT_SIMULATIONS, MAX_SIMULATIONS
from yyenvs.core.contract import OptionError, show
from yyenvs.training.matches import make_entrants

#: the most matches one matching plays
MAX_ROUNDS = 8


def search_budget(spec: str) -> tuple[int, int]:
    """(simulations per move, the most allowed) of a search agent's spec: ``mcts[:<n>]`` or
    ``az:<checkpoint>:<n>[:...]``."""
    if spec == "mcts":
        return DEFAULT_SIMULATIONS, MAX_SIMULATIONS
    if spec.startswith("mcts:") and spec[5:].isascii() and spec[5:].isdigit() and len(spec) <= 25:
        return int(spec[5:]), MAX_SIMULATIONS
    if spec.startswith("az:"):
        simulations = parse_az_spec(spec)[1]
        if simulations is not None:
            return simulations, MAX_AZ_SIMULATIONS
    raise OptionError(f"equal time: the first entrant must search a number of simulations per move "
                      f"(mcts:<n> or az:<checkpoint>:<n>), got {show(spec)}")


def with_simulations(spec: str, simulations: int) -> str:
    """``spec`` (see :func:`search_budget`) searching ``simulations`` per move, its settings kept."""
    search_budget(spec)
    if spec.startswith("az:"):
        path, _, options = parse_az_spec(spec)
        return az_spec(path, simulations, options)
    return f"mcts:{simulations}"


def equal_time_match(play, core, spec: str, opponent: str, games: int, seed: int = 0, tolerance: float = 0.15,
                     rounds: int = 4, progress=None) -> dict:
    """``spec`` (a search) against ``opponent``, the search's simulations matched to the opponent's time
    per move (see the module docstring), each match played by ``play`` (:func:`~.evaluate.tournament`);
    the last match's result with ``"equal_time"``: each match's simulations and both sides' seconds per
    move, and the tolerance.  ``progress(match)`` is told each match as it ends."""
    if not 0 < tolerance < 1:
        raise OptionError(f"equal time: the tolerance must lie between 0 and 1, got {show(tolerance)}")
    if not 1 <= rounds <= MAX_ROUNDS:
        raise OptionError(f"equal time: rounds must be from 1 to {MAX_ROUNDS}, got {show(rounds)}")
    simulations, most = search_budget(spec)
    history = []
    while True:
        entrants = make_entrants([with_simulations(spec, simulations), opponent], core, seed)
        result = play(core, entrants, games, seed)
        mine, theirs = (e["seconds_per_move"] for e in result["entrants"])
        history.append({"simulations": simulations, "seconds_per_move": [mine, theirs]})
        if progress:
            progress(history[-1])
        wanted = min(max(round(simulations * theirs / mine), 1), most)
        if abs(mine / theirs - 1) <= tolerance or wanted == simulations or len(history) == rounds:
            result["equal_time"] = {"matches": history, "tolerance": tolerance}
            return result
        simulations = wanted
