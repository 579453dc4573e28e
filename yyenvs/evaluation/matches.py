"""Matches between agents: batched games, seats alternating, results pairwise.

Used by ``yyenvs play`` (:mod:`yyenvs.commands.play`), ``yyenvs eval`` and the
evaluations during training (:mod:`yyenvs.evaluation.tournament`):

* :func:`play_games` plays many games at once, each entrant called once per
  ply for all the rows where it is to move;
* :func:`seat_pattern` alternates who starts (A, B, A, B and B, A, B, A with
  3-4 players);
* :func:`pair_seeds` gives the games of a pairing their seeds
  (:func:`yyenvs.core.rng.derive_seeds`, the pairing as the stream);
* :func:`pairwise_from_scores` turns final scores into wins and draws between
  entrants (multi-player games: the better placed seat beats the worse one);
* :func:`play_match` is all of these for two agents;
* :class:`Entrant` and :func:`make_entrants`: the named agents of a cross-table, made from specs
  (so that Ray workers, :mod:`yyenvs.evaluation.cluster`, make the same ones), and
  :func:`play_pair`, the games between two of them.
"""
from __future__ import annotations

import os
import time

import numpy as np

from yyenvs.agents import make_agent
from yyenvs.core.contract import OptionError
from yyenvs.core.record import GameRecorder, save_records
from yyenvs.core.rng import derive_seeds
from yyenvs.networks.checkpoint import looks_like_checkpoint

#: the columns of play_games's ``timing``: wall seconds and CPU seconds in ``act``, moves made.  CPU
#: time counts what the agent's own calls computed, on any of this process's threads; another
#: process on the machine does not change it (idle threads sleep: yyenvs.core.threads)
TIMING = ("wall", "cpu", "moves")


def play_games(core, agents, seats: np.ndarray, seeds: np.ndarray, timing: np.ndarray | None = None,
               recorder=None) -> tuple[np.ndarray, int]:
    """Play ``len(seeds)`` games at once; ``seats[g, p]`` is the index into
    ``agents`` of the entrant in seat ``p`` of game ``g``.

    Returns the (G, P) final scores (the sum of each seat's rewards) and the
    number of actions played.  Truncated games keep the rewards they got
    (usually none: a draw).  ``timing`` (len(agents), 3), if given, gains each
    agent's seconds in ``act`` (:data:`TIMING`: wall time, and this process's CPU
    time over all its threads) and the moves it made.  A ``recorder``
    (:class:`~yyenvs.core.record.GameRecorder`) is shown every step's actions.
    With explicit chance, chance nodes take their outcomes from the row's own
    stream (:meth:`~yyenvs.core.contract.GameCore.sample_chance`), so the games
    are those of the sampled mode from the same seeds.
    """
    seats = np.asarray(seats, dtype=np.int64)
    state = core.init(np.asarray(seeds, dtype=np.uint64))
    G = state.batch_size
    scores = np.zeros((G, core.num_players))
    rows_all = np.arange(G)
    plies = 0
    for _ in range(core.max_game_length + 1):
        live = ~state.done
        if not live.any():
            break
        mask = core.legal_action_mask(state)
        actions = np.full(G, -1, dtype=np.int64)
        if core.explicit_chance:  # outcomes from each row's own stream, as the sampled mode draws them
            chance = core.is_chance_node(state)
            actions[chance] = core.sample_chance(state)[chance]
            live &= ~chance
        entrant = seats[rows_all, np.maximum(state.current_player, 0).astype(np.int64)]
        for e in np.unique(entrant[live]):
            rows = np.flatnonzero(live & (entrant == e))
            t, cpu = time.perf_counter(), time.process_time()
            actions[rows] = agents[e](state.take(rows), mask[rows])
            if timing is not None:
                timing[e] += (time.perf_counter() - t, time.process_time() - cpu, rows.size)
        if recorder is not None:
            recorder.step(state, actions)
        core.step(state, actions)
        scores += state.rewards
        plies += int((actions >= 0).sum())
    if not state.done.all():
        raise RuntimeError(f"{core.name}: games still running after max_game_length="
                           f"{core.max_game_length} plies")
    if recorder is not None:
        recorder.finish(core, state, scores)
    return scores, plies


def seat_pattern(a: int, b: int, num_players: int, n_games: int) -> np.ndarray:
    """(n_games, P) seat assignment alternating who starts: A,B,A,.. then B,A,B,.."""
    first = np.array([a if p % 2 == 0 else b for p in range(num_players)])
    second = np.array([b if p % 2 == 0 else a for p in range(num_players)])
    return np.where((np.arange(n_games) % 2 == 0)[:, None], first[None, :], second[None, :])


def pair_stream(i: int, j: int) -> int:
    """The seed stream of the games between entrants ``i`` and ``j`` (indices below 2**32)."""
    return (int(i) << 32) | int(j)


def pair_seeds(seed: int, i: int, j: int, n_games: int) -> np.ndarray:
    """The seeds of the ``n_games`` games between entrants ``i`` and ``j`` under master seed ``seed``."""
    return derive_seeds(seed, pair_stream(i, j), np.arange(n_games, dtype=np.uint64))


def pairwise_from_scores(scores: np.ndarray, seats: np.ndarray, n_entrants: int):
    """Pairwise wins/draws/losses from final scores of multi-seat games.

    Args:
        scores: (G, P) final score (sum of rewards) of every seat of every game;
            a higher score is a better placement.
        seats: (G, P) the entrant index playing each seat.

    Returns ``(wins, draws)``, (n, n) arrays; every pair of seats held by two
    different entrants counts once.  For two-player games this is the usual
    win/draw/loss table.
    """
    scores = np.asarray(scores, dtype=np.float64)
    seats = np.asarray(seats, dtype=np.int64)
    wins = np.zeros((n_entrants, n_entrants))
    draws = np.zeros((n_entrants, n_entrants))
    P = scores.shape[1]
    for a in range(P):
        for b in range(a + 1, P):
            ea, eb = seats[:, a], seats[:, b]
            diff = ea != eb
            sa, sb = scores[diff, a], scores[diff, b]
            ea, eb = ea[diff], eb[diff]
            np.add.at(wins, (ea[sa > sb], eb[sa > sb]), 1)
            np.add.at(wins, (eb[sb > sa], ea[sb > sa]), 1)
            eq = sa == sb
            np.add.at(draws, (ea[eq], eb[eq]), 1)
            np.add.at(draws, (eb[eq], ea[eq]), 1)
    return wins, draws


def play_match(core, agent_a, agent_b, num_games: int, seed: int = 0, record_as=None) -> dict:
    """``agent_a`` against ``agent_b`` over ``num_games`` games, seats alternating
    (``agent_a`` takes seat 0 in even games).

    Returns a dict: ``wins``, ``draws`` and ``losses`` of ``agent_a`` (pairwise
    over the seats with 3-4 players), the same split by who started
    (``by_start``: ``{"first": (w, d, l), "second": (w, d, l)}``, ``agent_a``
    in seat 0 or not) and ``plies``, the actions played.  The games are those
    of pairing (0, 1) of :func:`pair_seeds` under ``seed``.  With ``record_as``,
    the agents' two names, the dict also holds ``records``: a
    :class:`~yyenvs.core.record.GameRecord` of every game.
    """
    if core.num_players < 2:
        raise ValueError(f"play_match needs a game of two or more players; {core.name} has "
                         f"{core.num_players}")
    seats = seat_pattern(0, 1, core.num_players, num_games)
    seeds = pair_seeds(seed, 0, 1, num_games)
    rec = None if record_as is None else GameRecorder(seeds, [[record_as[e] for e in row] for row in seats])
    scores, plies = play_games(core, [agent_a, agent_b], seats, seeds, recorder=rec)
    w, d = pairwise_from_scores(scores, seats, 2)
    by_start = {}
    for name, rows in (("first", seats[:, 0] == 0), ("second", seats[:, 0] != 0)):
        ws, ds = pairwise_from_scores(np.asarray(scores)[rows], seats[rows], 2)
        by_start[name] = (int(ws[0, 1]), int(ds[0, 1]), int(ws[1, 0]))
    out = {"wins": int(w[0, 1]), "draws": int(d[0, 1]), "losses": int(w[1, 0]), "by_start": by_start,
           "plies": plies}
    if rec is not None:
        out["records"] = rec.records
    return out


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
    entrants' timing (:data:`~yyenvs.evaluation.matches.TIMING`: wall and CPU seconds in act, moves made).  The games depend on the seed and
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
