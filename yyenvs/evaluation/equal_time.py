"""Equal-time matches: a search agent's simulations chosen so that it thinks as long per move as its
opponent.

:func:`equal_time_match` plays the whole match, measures both sides' time per move (their ``act``
calls' time over the moves made in them: the games are batched, so it is the time per move of a batch
of games), scales the searcher's simulations by the ratio of the opponent's time to its own, and plays
again, until the two lie within ``tolerance`` of each other, the simulations stop changing or
``rounds`` matches are played.  The result says whether the last match is matched (within the
tolerance); the command exits non-zero when it is not.

The clock (``clock``):

* ``cpu`` (the default): the CPU time of the agents' own calls, over all of the process's threads.
  Another process on the machine does not change it (idle threads sleep rather than spin,
  :mod:`yyenvs.core.threads`), so equal time holds on a busy machine too.  A side that computes on
  two threads at once is charged for both.
* ``wall``: wall time, for agents whose work is not CPU time of this process (a network on a GPU).
  Other processes change it, so each match also measures the cores they kept busy meanwhile, and a
  match beside more than :data:`BUSY_CORES` of other work is not matched.

Each match is the same for its seed and simulations; which simulation count the matching settles
on depends on the machine's speed, so it is not.
"""
from __future__ import annotations

import os
import time

from yyenvs.agents.az import MAX_AZ_SIMULATIONS, az_spec, parse_az_spec
from yyenvs.search.mcts import DEFAULT_SIMULATIONS, MAX_SIMULATIONS
from yyenvs.core.contract import OptionError, show
from yyenvs.evaluation.matches import make_entrants

#: the most matches one matching plays
MAX_ROUNDS = 8
#: the clocks a matching may use (see the module docstring)
CLOCKS = {"cpu": "cpu_seconds_per_move", "wall": "seconds_per_move"}
#: with the wall clock, a match beside more than this many cores of other processes' work is not matched
BUSY_CORES = 0.2


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
                     rounds: int = 4, progress=None, clock: str = "cpu") -> dict:
    """``spec`` (a search) against ``opponent``, the search's simulations matched to the opponent's time
    per move on ``clock`` (see the module docstring), each match played by ``play``
    (:func:`~yyenvs.evaluation.tournament.tournament`); the last match's result with ``"equal_time"``: each match's
    simulations, both sides' seconds per move on the clock, the other processes' busy cores, the
    tolerance, the clock and ``matched``.  ``progress(match)`` is told each match as it ends."""
    if not 0 < tolerance < 1:
        raise OptionError(f"equal time: the tolerance must lie between 0 and 1, got {show(tolerance)}")
    if not 1 <= rounds <= MAX_ROUNDS:
        raise OptionError(f"equal time: rounds must be from 1 to {MAX_ROUNDS}, got {show(rounds)}")
    if clock not in CLOCKS:
        raise OptionError(f"equal time: the clock must be one of {list(CLOCKS)}, got {show(clock)}")
    simulations, most = search_budget(spec)
    history = []
    while True:
        entrants = make_entrants([with_simulations(spec, simulations), opponent], core, seed)
        before = busy_seconds()
        result = play(core, entrants, games, seed)
        mine, theirs = (e[CLOCKS[clock]] for e in result["entrants"])
        history.append({"simulations": simulations, "seconds_per_move": [mine, theirs],
                        "other_processes_cores": others_busy(before)})
        if progress:
            progress(history[-1])
        wanted = min(max(round(simulations * theirs / mine), 1), most)
        if with_simulations(spec, wanted) == opponent:  # the opponent itself: the same entrant twice;
            wanted += 1 if wanted < most else -1         # one simulation off, which no clock tells apart
        if within(history[-1], tolerance, clock) or wanted == simulations or len(history) == rounds:
            result["equal_time"] = {"matches": history, "tolerance": tolerance, "clock": clock,
                                    "matched": within(history[-1], tolerance, clock)}
            return result
        simulations = wanted


def within(match: dict, tolerance: float, clock: str) -> bool:
    """Whether ``match``'s two times per move lie within ``tolerance`` of each other (on the wall
    clock, also that other processes kept at most :data:`BUSY_CORES` cores busy meanwhile)."""
    mine, theirs = match["seconds_per_move"]
    busy = match["other_processes_cores"]
    quiet = clock == "cpu" or (busy is not None and busy <= BUSY_CORES)
    return abs(mine / theirs - 1) <= tolerance and quiet


def busy_seconds() -> tuple[float, float, float] | None:
    """(wall, the machine's busy CPU seconds, this process's CPU seconds) now; None without /proc/stat."""
    try:
        with open("/proc/stat") as f:
            fields = [int(x) for x in f.readline().split()[1:9]]
    except (OSError, ValueError):
        return None
    user, nice, system, _idle, _iowait, irq, softirq, steal = fields
    ticks = os.sysconf("SC_CLK_TCK")
    own = os.times()
    return time.time(), (user + nice + system + irq + softirq + steal) / ticks, own.user + own.system


def others_busy(before) -> float | None:
    """The cores other processes kept busy on average since ``before`` (:func:`busy_seconds`)."""
    after = busy_seconds()
    if before is None or after is None or after[0] <= before[0]:
        return None
    return round(max(0.0, (after[1] - before[1]) - (after[2] - before[2])) / (after[0] - before[0]), 3)
