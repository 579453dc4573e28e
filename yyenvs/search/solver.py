"""Exact outcomes within reach: an exhaustive search over the game's own rules.

:func:`prove` steps every line of play from each root, level by level in
batches, for as long as the next level fits a budget of positions per root,
then reads off which root actions have a known result.  It knows nothing of
any game beyond its core: no heuristic, no network.

* A finished game is proven; its result is the sum of the rewards of the
  steps that led to it.
* A position whose mover has a proven line that gives it the top of the
  reward range (a win) is proven: the mover takes the shortest such win.
* A position all of whose moves are proven is proven: its mover takes the
  best of them for itself (max^n: with two players, the minimax value), and
  among equal results the shortest win, or else the longest game (a lost
  player holds out as long as the rules let it).
* Anything else is unknown, and so is every chance node: a chance outcome
  is never guessed.

Once a position is proven, nothing below it is stepped: a root with a proven
win leaves its other moves unknown, even those that would lose.  The results
are the sums of each step's rewards; where, as in every game here, rewards
come only at the end, the first win a proof finds is the shortest.

A proof is a pure function of the root's state and the budget, so the same
position gets the same proof in any batch.  A game with chance is proven on
its explicit-chance core only (a sampled core would draw the game's own
future).

:func:`loss_odds` serves a player who is lost whatever it plays: for each of
its moves, the chance that opponents who pick their moves uniformly at random
still beat it, when it picks the most stubborn move at each later turn (as
far as its budget searches every line; beyond that, by the proofs above).
"""
from __future__ import annotations

import dataclasses
import numbers

import numpy as np
from numba import njit

from yyenvs.core.contract import CHANCE_PLAYER, BatchState, GameCore

#: positions stepped per batch at most, so that a level's states fit in memory
CHUNK_POSITIONS = 1 << 20


@dataclasses.dataclass
class Proof:
    """Per root and root action (A = the width of the core's legal mask)."""

    legal: np.ndarray  # (B, A) bool   the core's legal mask of each root
    known: np.ndarray  # (B, A) bool   the action's result is proven (False where illegal)
    result: np.ndarray  # (B, A, P) float64 the proven sum of rewards per seat from the root on
    plies: np.ndarray  # (B, A) int64   the moves to the game's end along the proven line
    stepped: np.ndarray  # (B,) int64   positions stepped for the root
    root_known: np.ndarray  # (B,) bool  the root's own result is proven (a finished root: nothing after it)
    root_result: np.ndarray  # (B, P) float64 its proven result: its mover's choice by the rules above
    root_plies: np.ndarray  # (B,) int64


@njit(cache=True)
def _better(a_val, a_plies, b_val, b_plies, top):
    """Whether result (a_val, a_plies) is better than (b_val, b_plies) for the seat they are read for."""
    if a_val != b_val:
        return a_val > b_val
    if a_val >= top:
        return a_plies < b_plies
    return a_plies > b_plies


@njit(cache=True)
def _back_up(first, count, mover, child_reward, below, top, out):
    """One level of the backward pass: each expanded position (count > 0) from its children,
    which lie at first[i] .. first[i] + count[i] - 1 of the level below.  ``below`` and ``out``
    are (known, result, plies) of the level below and of this one; the result below does not
    yet hold the reward of the step into the child."""
    child_known, child_result, child_plies = below
    known, result, plies = out
    P = child_reward.shape[1]
    for i in range(first.shape[0]):
        n = count[i]
        if n == 0:
            continue
        m = mover[i]
        best = -1
        best_win = -1
        all_known = True
        for c in range(first[i], first[i] + n):
            if not child_known[c]:
                all_known = False
                continue
            v = child_reward[c, m] + child_result[c, m]
            if v >= top and (best_win < 0 or child_plies[c] < child_plies[best_win]):
                best_win = c
            if best < 0 or _better(v, child_plies[c], child_reward[best, m] + child_result[best, m],
                                   child_plies[best], top):
                best = c
        pick = best_win if best_win >= 0 else (best if all_known else -1)
        if pick >= 0:
            known[i] = True
            plies[i] = child_plies[pick] + 1
            for p in range(P):
                result[i, p] = child_reward[pick, p] + child_result[pick, p]


@dataclasses.dataclass
class _Level:
    parent: np.ndarray  # index into the level above
    action: np.ndarray  # the action from it
    reward: np.ndarray  # (n, P) the step's rewards
    done: np.ndarray
    mover: np.ndarray
    first: np.ndarray | None = None  # its children's range in the level below, once expanded
    count: np.ndarray | None = None


def _backward(levels: list[_Level], P: int, top: float) -> list[tuple]:
    """(known, result, plies) of every level's positions from the finished games up; an
    unexpanded position that is not finished is unknown."""
    last = levels[-1]
    out = [(last.done.copy(), np.zeros((last.done.size, P)), np.zeros(last.done.size, np.int64))]
    for k in range(len(levels) - 2, -1, -1):
        level, below = levels[k], levels[k + 1]
        n = level.done.size
        k_out = (level.done.copy(), np.zeros((n, P)), np.zeros(n, np.int64))
        _back_up(level.first, level.count, level.mover, below.reward, out[0], top, k_out)
        out.insert(0, k_out)
    return out


def _prove_chunk(core: GameCore, roots: BatchState, budget: int, depth: int) -> Proof:
    B, P = roots.batch_size, core.num_players
    top = float(core.reward_range[1])
    levels = [_Level(np.arange(B), np.full(B, -1), np.zeros((B, P)), roots.done.copy(),
                     roots.current_player.astype(np.int64))]
    root_of = np.arange(B)
    settled = np.zeros(B, np.bool_)  # the position or one above it is proven: nothing below it matters
    stepped = np.zeros(B, np.int64)
    frontier = roots
    legal = core.legal_action_mask(roots)
    proven = None  # _backward of the levels so far
    for k in range(depth):
        level = levels[-1]
        n = frontier.batch_size
        level.first, level.count = np.zeros(n, np.int64), np.zeros(n, np.int64)
        open_ = ~level.done & (level.mover != CHANCE_PLAYER) & ~settled
        if not open_.any():
            break
        mask = (legal if k == 0 else core.legal_action_mask(frontier)) & open_[:, None]
        need = np.bincount(root_of, weights=mask.sum(axis=1), minlength=B).astype(np.int64)
        grow = (need > 0) & (stepped + need <= budget)  # a root goes one level deeper only in full
        mask &= grow[root_of][:, None]
        rows, acts = np.nonzero(mask)  # row-major: each position's children lie together
        if rows.size == 0:
            break
        stepped += np.where(grow, need, 0)
        level.count = np.bincount(rows, minlength=n).astype(np.int64)
        level.first = np.cumsum(level.count) - level.count
        frontier = frontier.take(rows)
        core.step(frontier, acts)
        levels.append(_Level(rows, acts, frontier.rewards.astype(np.float64), frontier.done.copy(),
                             frontier.current_player.astype(np.int64)))
        root_of = root_of[rows]
        # what the new level proves, so that nothing below a proven position is stepped
        proven = _backward(levels, P, top)
        settled = np.zeros(B, np.bool_)
        for level, (known, _, _) in zip(levels, proven):
            settled = known | settled[level.parent] if level is not levels[0] else known
    width = legal.shape[1]
    out = Proof(legal, np.zeros((B, width), np.bool_), np.zeros((B, width, P)), np.zeros((B, width), np.int64), stepped,
                roots.done.copy(), np.zeros((B, P)), np.zeros(B, np.int64))
    if proven is not None:
        (out.root_known, out.root_result, out.root_plies), (known, result, plies) = proven[:2]
        first = levels[1]
        out.known[first.parent, first.action] = known
        out.result[first.parent, first.action] = first.reward + result
        out.plies[first.parent, first.action] = plies + 1
    return out


def _check(who: str, core: GameCore, budget, depth) -> None:
    if not isinstance(budget, numbers.Integral) or isinstance(budget, (bool, np.bool_)) or budget < 0:
        raise ValueError(f"{who}: budget must be an integer of at least 0, got {budget!r}")
    if core.spec.chance and not core.explicit_chance:
        raise ValueError(f"{who}: {core.name} has chance; use core.with_options(chance='explicit'), "
                         "whose chance nodes wait for an outcome instead of drawing the game's own")
    if depth is not None and (not isinstance(depth, numbers.Integral) or isinstance(depth, (bool, np.bool_))
                              or depth < 0):
        raise ValueError(f"{who}: depth must be None or an integer of at least 0, got {depth!r}")


def prove(core: GameCore, roots: BatchState, budget: int, depth: int | None = None) -> Proof:
    """The proven results of every legal action of every root (see the module docstring).

    ``budget``: the most positions stepped per root; a root goes one more move
    deep only while the whole next level fits.  ``depth``: the most moves
    deep (None: as deep as the budget reaches).  ``roots`` is not changed.
    """
    _check("prove", core, budget, depth)
    budget = int(budget)
    depth = core.max_game_length if depth is None else int(depth)
    B = roots.batch_size
    per_chunk = max(1, CHUNK_POSITIONS // max(budget, 1))
    parts = [_prove_chunk(core, roots.take(np.arange(lo, min(B, lo + per_chunk))), budget, depth)
             for lo in range(0, max(B, 1), per_chunk)]
    return Proof(*(np.concatenate([getattr(p, f.name) for p in parts]) for f in dataclasses.fields(Proof)))


@dataclasses.dataclass
class LossOdds:
    """What :func:`loss_odds` found for its root (A = the width of the core's legal mask)."""

    chance: np.ndarray  # (A,) float64 per legal move, the chance of ending with the worst result; 0 where illegal
    depth: int  # moves searched in full; positions this deep were then proven one by one
    leaf_budget: int  # the budget of each of those proofs
    stepped: int  # positions stepped, both parts together


def loss_odds(core: GameCore, root: BatchState, budget: int, depth: int | None = None) -> LossOdds:
    """For each legal move of single-row ``root``'s mover, the chance that it ends the game with
    the bottom of the reward range, when every other player picks uniformly among its legal moves,
    chance outcomes fall by their probabilities, and the mover takes the move of least chance at
    each of its later turns.

    Every line is searched to the deepest level that fits ``budget`` positions (at most ``depth``
    moves); each unfinished position at that level is then proven (:func:`prove`) with an equal
    share of what is left, and counts 1 where the mover is proven to lose there against any play,
    0 otherwise (an unknown position, a chance node among them, counts as one the mover escapes).
    So beyond the searched depth the opponents no longer err.  Where not even the root's own moves
    fit (or ``depth`` is 0), every move gets 0 and ``LossOdds.depth`` is 0.
    """
    _check("loss_odds", core, budget, depth)
    if root.batch_size != 1:
        raise ValueError(f"loss_odds: root must be a single row, got {root.batch_size}")
    if root.done[0] or root.current_player[0] == CHANCE_PLAYER:
        raise ValueError("loss_odds: root must be a position where a player moves, not a finished game "
                         "or a chance node")
    budget = int(budget)
    depth = core.max_game_length if depth is None else int(depth)
    me, low = int(root.current_player[0]), float(core.reward_range[0])
    legal = core.legal_action_mask(root)
    # level k: parent, action, the mover's rewards summed from the root, done, mover; level 0 the root
    levels = [(np.zeros(1, np.int64), np.full(1, -1), np.zeros(1), root.done.copy(),
               root.current_player.astype(np.int64))]
    weights = []  # per level below the root: each position's weight in its parent's average

    def lost_there(level):  # 1 where the game ended with the mover's worst result, else 0
        _, _, mine, done, _ = level
        return (done & (mine <= low)).astype(np.float64)

    frontier, stepped = root, 0
    while len(levels) <= depth:
        _, _, mine, done, mover = levels[-1]
        mask = (legal if len(levels) == 1 else core.legal_action_mask(frontier)) & ~done[:, None]
        rows, acts = np.nonzero(mask)  # every move of every unfinished position
        if rows.size == 0 or stepped + rows.size > budget:
            break
        stepped += rows.size
        count = mask.sum(axis=1)
        odds = core.chance_probabilities(frontier) if (mover == CHANCE_PLAYER).any() else None
        weights.append(np.where(mover[rows] == CHANCE_PLAYER,
                                odds[rows, acts] if odds is not None else 0.0, 1.0 / np.maximum(count[rows], 1)))
        frontier = frontier.take(rows)
        core.step(frontier, acts)
        levels.append((rows, acts, mine[rows] + frontier.rewards[:, me], frontier.done.copy(),
                       frontier.current_player.astype(np.int64)))
    _, _, mine, done, _ = levels[-1]
    lost = lost_there(levels[-1])
    leaf_budget = 0
    open_ = np.flatnonzero(~done)
    if open_.size and len(levels) > 1:
        leaf_budget = (budget - stepped) // open_.size
        frontier = frontier.take(open_)  # drop the finished states before the proofs take memory of their own
        proof = prove(core, frontier, leaf_budget)
        stepped += int(proof.stepped.sum())
        lost[open_] = proof.root_known & (mine[open_] + proof.root_result[:, me] <= low)
    value = lost
    for k in range(len(levels) - 1, 1, -1):  # back up to the root's moves: the mover's least, others' average
        rows = levels[k][0]
        _, _, _, done_up, mover_up = levels[k - 1]  # above the last level, every unfinished position has children
        n = mover_up.size
        least = np.full(n, np.inf)
        np.minimum.at(least, rows, value)
        average = np.bincount(rows, weights=weights[k - 1] * value, minlength=n)
        value = np.where(done_up, lost_there(levels[k - 1]), np.where(mover_up == me, least, average))
    chance = np.zeros(legal.shape[1])
    if len(levels) > 1:
        chance[levels[1][1]] = value
    return LossOdds(chance, len(levels) - 1, leaf_budget, stepped)
