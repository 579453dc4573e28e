"""A conformance check that any core can be run through (as Pgx ships ``api_test``).

``check_core(core)`` plays random games and checks the contract of
:mod:`yyenvs.core.contract` on them; the first broken promise raises
:class:`ConformanceError` saying which, in which row and at which ply.
What it checks:

* ``init`` / ``step`` / ``legal_action_mask`` / ``observe`` / ``heuristic``
  give the declared shapes, dtypes and ranges, rewards stay in
  ``core.reward_range`` (and are zero on rows a step skipped) and games end
  within ``core.max_game_length`` steps;
* a game in progress always has a legal action (at a chance node, an
  outcome), a finished game none, and ``current_player`` is a seat (or the
  chance player at a chance node);
* batch-size independence: every game of a batch plays exactly as it does
  alone (same fields, masks, observations and rewards at every ply);
* ``copy`` / ``take`` / ``put`` / ``concatenate`` give independent arrays
  with the same contents, and ``out=`` buffers give the same results;
* refused actions (illegal, out of range, on a finished game, not integers)
  raise :class:`~yyenvs.core.errors.IllegalActionError` and leave the whole
  batch unchanged;
* for games whose spec declares chance: the explicit-chance core, driven by
  :meth:`~yyenvs.core.contract.GameCore.sample_chance` at its chance nodes,
  plays exactly the sampled core's games; its probabilities are a
  distribution whose support is the mask.

The random play is a pure function of (seed, ply), so a failure replays.
"""
from __future__ import annotations

import dataclasses

import numpy as np

from yyenvs.core.contract import CHANCE_PLAYER, BatchState, GameCore
from yyenvs.core.errors import IllegalActionError
from yyenvs.core.rng import uniform01


class ConformanceError(AssertionError):
    """A core broke a promise of the contract."""


def _fail(core: GameCore, what: str) -> None:
    raise ConformanceError(f"{core!r}: {what}")


def _fields(state: BatchState) -> dict[str, np.ndarray]:
    return {f.name: getattr(state, f.name) for f in dataclasses.fields(state)}


def _first_difference(a: BatchState, b: BatchState, skip=()) -> str | None:
    """The first field (not in ``skip``) in which two states differ (None when equal)."""
    for name, x in _fields(a).items():
        if name in skip:
            continue
        y = getattr(b, name)
        if x.shape != y.shape or x.dtype != y.dtype or not np.array_equal(x, y):
            return name
    return None


def random_actions(mask: np.ndarray, state: BatchState, salt: int = 0) -> np.ndarray:
    """One legal action per row (-1 where none), a pure function of (game seed, ply, salt)."""
    u = uniform01(state.seed, state.ply.astype(np.uint64), np.uint64(salt))
    counts = mask.sum(axis=1)
    pick = np.minimum((u * counts).astype(np.int64), np.maximum(counts - 1, 0))
    order = np.cumsum(mask, axis=1) - 1  # rank of each legal action in its row
    actions = np.full(mask.shape[0], -1, np.int64)
    rows, cols = np.nonzero(mask & (order == pick[:, None]))
    actions[rows] = cols
    return actions


def _check_position(core: GameCore, state: BatchState, mask: np.ndarray, ply: int) -> None:
    B = state.batch_size
    if mask.shape != (B, core.num_actions) or mask.dtype != np.bool_:
        _fail(core, f"mask has shape {mask.shape} and dtype {mask.dtype} at ply {ply}")
    live = ~state.done
    chance = (state.current_player == CHANCE_PLAYER) & live
    if chance.any() and not core.explicit_chance:
        _fail(core, f"row {int(np.flatnonzero(chance)[0])} is a chance node without explicit chance")
    seats_ok = (state.current_player >= 0) & (state.current_player < core.num_players)
    if (live & ~chance & ~seats_ok).any():
        i = int(np.flatnonzero(live & ~chance & ~seats_ok)[0])
        _fail(core, f"row {i} names player {int(state.current_player[i])} to move at ply {ply}")
    empty = live & ~mask.any(axis=1)
    if empty.any():
        _fail(core, f"row {int(np.flatnonzero(empty)[0])} is in progress with no legal action at ply {ply}")
    if mask[state.done].any():
        _fail(core, f"a finished row has legal actions at ply {ply}")
    low, high = core.reward_range
    if not (np.isfinite(state.rewards).all() and (state.rewards >= low).all() and (state.rewards <= high).all()):
        _fail(core, f"rewards {state.rewards[~((state.rewards >= low) & (state.rewards <= high)).all(1)][:1]} "
                    f"outside reward_range {core.reward_range} at ply {ply}")
    if ply > core.max_game_length and live.any():
        _fail(core, f"a game is still going after max_game_length = {core.max_game_length} steps")
    for seat in range(core.num_players):
        obs = core.observe(state, np.full(B, seat, np.int8))
        if obs.shape != (B, *core.observation_shape) or obs.dtype != np.dtype(core.observation_dtype):
            _fail(core, f"observation has shape {obs.shape} and dtype {obs.dtype}")
        if not (np.all(obs >= core.observation_low) and np.all(obs <= core.observation_high)):
            _fail(core, f"observation of seat {seat} outside [{core.observation_low}, "
                        f"{core.observation_high}] at ply {ply}")
        h = core.heuristic(state, seat)
        if h.shape != (B,) or not np.isfinite(h).all():
            _fail(core, f"heuristic of seat {seat} is not a finite (B,) array at ply {ply}")
    if core.explicit_chance:
        p = core.chance_probabilities(state)
        if (p[~chance] != 0).any():
            _fail(core, f"chance probabilities outside chance nodes at ply {ply}")
        if chance.any():
            pc, mc = p[chance], mask[chance]
            if not np.allclose(pc.sum(axis=1), 1.0) or (pc < 0).any() or not np.array_equal(pc > 0, mc):
                _fail(core, f"at a chance node the probabilities are not a distribution over the mask "
                            f"(ply {ply})")


def play(core: GameCore, seeds: np.ndarray, salt: int = 0, check: bool = True):
    """Random games from ``seeds``, checked at every ply; yields (ply, state, mask) before each step."""
    state = core.init(seeds)
    for ply in range(core.max_game_length + 2):
        mask = core.legal_action_mask(state)
        if check:
            _check_position(core, state, mask, ply)
        yield ply, state, mask
        if state.done.all():
            return
        actions = random_actions(mask, state, salt)
        if core.explicit_chance:
            chance = core.is_chance_node(state)
            if chance.any():
                drawn = core.sample_chance(state)
                actions[chance] = drawn[chance]
        core.step(state, actions)
        if check and (state.rewards[actions < 0] != 0).any():
            _fail(core, f"a row the step skipped (action -1) kept non-zero rewards at ply {ply}")
    _fail(core, f"random games did not end within max_game_length = {core.max_game_length} steps")


def check_batch_independence(core: GameCore, seeds: np.ndarray, singles: int = 3) -> None:
    """Each of the first ``singles`` games of a batch plays exactly as it does alone."""
    seeds = np.asarray(seeds, np.uint64)
    batch = [(ply, s.copy(), m.copy()) for ply, s, m in play(core, seeds)]
    for i in range(min(singles, seeds.size)):
        for (ply, one, mask1), (_, many, mask) in zip(play(core, seeds[i:i + 1], check=False), batch):
            row = many.take([i])
            diff = _first_difference(one, row)
            if diff is not None or not np.array_equal(mask1[0], mask[i]):
                _fail(core, f"game {i} alone differs from game {i} in a batch of {seeds.size} "
                            f"at ply {ply} ({diff or 'legal mask'})")
            if not np.array_equal(core.observe(one, 0), core.observe(row, 0)):
                _fail(core, f"game {i}'s observation depends on the batch at ply {ply}")


def check_state_methods(core: GameCore, state: BatchState) -> None:
    """copy / take / put / concatenate, and ``out=`` buffers, on a batch of at least 3 rows."""
    B = state.batch_size
    copy = state.copy()
    if _first_difference(copy, state) is not None:
        _fail(core, "copy() differs from the original")
    for name, a in _fields(copy).items():
        if np.shares_memory(a, getattr(state, name)):
            _fail(core, f"copy() shares the memory of field {name}")
    rows = np.array([B - 1, 0])
    taken = state.take(rows)
    for name, a in _fields(taken).items():
        if not np.array_equal(a, getattr(state, name)[rows]):
            _fail(core, f"take() gives other contents in field {name}")
    other = core.init(np.arange(2, dtype=np.uint64) + np.uint64(10**6))
    target = state.copy()
    target.put(rows, other)
    if _first_difference(target.take(rows), other) is not None:
        _fail(core, "put() does not write the given rows")
    keep = np.setdiff1d(np.arange(B), rows)
    if _first_difference(target.take(keep), state.take(keep)) is not None:
        _fail(core, "put() changes rows it was not given")
    joined = type(state).concatenate([state.take([0]), state.take(np.arange(1, B))])
    if _first_difference(joined, state) is not None:
        _fail(core, "concatenate() of a split batch differs from the batch")
    mask = core.legal_action_mask(state)
    buf = np.zeros_like(mask)
    if core.legal_action_mask(state, out=buf) is not buf or not np.array_equal(buf, mask):
        _fail(core, "legal_action_mask(out=) differs from legal_action_mask()")
    obs = core.observe(state, 0)
    buf = np.full_like(obs, -7)
    if core.observe(state, 0, out=buf) is not buf or not np.array_equal(buf, obs):
        _fail(core, "observe(out=) differs from observe()")


def _expect_refusal(core: GameCore, state: BatchState, actions, what: str) -> None:
    before = state.copy()
    try:
        core.step(state, actions)
    except IllegalActionError:
        pass
    else:
        _fail(core, f"{what} was accepted")
    diff = _first_difference(before, state)
    if diff is not None:
        _fail(core, f"refusing {what} changed field {diff}")


def check_refusals(core: GameCore, state: BatchState) -> None:
    """Refused actions raise IllegalActionError and change nothing in the batch."""
    B = state.batch_size
    mask = core.legal_action_mask(state)
    good = random_actions(mask, state, salt=1)
    if core.explicit_chance:
        chance = core.is_chance_node(state)
        good[chance] = -1  # the other rows carry the refusal
    live = np.flatnonzero(~state.done)
    if live.size:
        i = int(live[-1])
        illegal = np.flatnonzero(~mask[i])
        if illegal.size:
            actions = good.copy()
            actions[i] = illegal[0]
            _expect_refusal(core, state, actions, f"an illegal action in row {i}")
        actions = good.copy()
        actions[i] = core.num_actions
        _expect_refusal(core, state, actions, f"action num_actions in row {i}")
    for bad in (np.nan, 2.5, "0", True):
        actions = list(good)
        actions[B - 1] = bad
        _expect_refusal(core, state, actions, f"action {bad!r}")
    done = np.flatnonzero(state.done)
    if done.size:
        actions = good.copy()
        actions[done[0]] = 0
        _expect_refusal(core, state, actions, f"an action on finished row {int(done[0])}")


def check_chance_modes_agree(core: GameCore, seeds: np.ndarray) -> None:
    """The explicit-chance core, its chance nodes resolved by ``sample_chance``, plays the sampled games."""
    sampled = core if not core.explicit_chance else core.with_options(chance="sampled")
    explicit = sampled.with_options(chance="explicit")
    A = sampled.num_actions
    s = sampled.init(seeds)
    e = explicit.init(seeds)
    nodes = 0
    # rewards are compared as sums: a chance step gives none and rewrites the rows it skips
    returns_s = np.zeros(s.rewards.shape)
    returns_e = np.zeros(e.rewards.shape)
    for ply in range(sampled.max_game_length + 2):
        # resolve the explicit game's chance nodes the way the sampled game draws them
        for _ in range(64):
            chance = explicit.is_chance_node(e)
            if not chance.any():
                break
            nodes += int(chance.sum())
            explicit.step(e, np.where(chance, explicit.sample_chance(e), -1))
            returns_e += e.rewards
        else:
            _fail(explicit, "more than 64 chance nodes in a row")
        ms, me = sampled.legal_action_mask(s), explicit.legal_action_mask(e)
        diff = _first_difference(s, e, skip=("rewards",))
        if diff is None and not np.array_equal(returns_s, returns_e):
            diff = "rewards"
        if diff is not None or not np.array_equal(ms, me[:, :A]) or me[:, A:].any():
            _fail(explicit, f"the explicit-chance game differs from the sampled one at ply {ply} "
                            f"({diff or 'legal mask'})")
        if s.done.all():
            if nodes == 0:
                _fail(explicit, "the game declares chance, yet explicit chance never stopped at a chance node")
            return
        actions = random_actions(ms, s)
        sampled.step(s, actions)
        explicit.step(e, actions)
        returns_s += s.rewards
        returns_e += e.rewards
    _fail(sampled, "random games did not end within max_game_length steps")


def check_core(core: GameCore, num_games: int = 16, seed: int = 0) -> None:
    """Run every check above on ``num_games`` random games of ``core``."""
    seeds = np.arange(num_games, dtype=np.uint64) * np.uint64(7919) + np.uint64(seed)
    check_batch_independence(core, seeds)
    positions = 0
    for ply, state, _mask in play(core, seeds, salt=2, check=False):
        if (ply % 7 == 0 or state.done.any()) and positions < 40:
            check_state_methods(core, state)
            check_refusals(core, state)
            positions += 1
    if core.spec.chance:
        check_chance_modes_agree(core, seeds)
