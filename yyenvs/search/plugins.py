"""The Gumbel search's optional parts, each a plug-in around its simulation loop.

* :class:`WinsAtOnce` (``find_wins``): a new node whose mover can end the game
  at once with the best reward a seat can get is a finished game, worth that
  win; a root that can plays a win.
* :class:`RolloutMix` (``rollout_weight``): a rollout's value mixed into the
  network's at every node the network evaluates.
* :class:`Proofs` (``solve_budget``): an exhaustive search of each root after
  the simulations decides the roots it proves.

A plug-in acts at four points of a search, each a method that does nothing
in :class:`Plugin`: ``start`` once the roots are known, ``screen`` on the new
leaves before the network sees them, ``mix`` on the network's values, and
``finish`` on what the search's statistics do not decide (:class:`Decision`).
"""
from __future__ import annotations

import dataclasses

import numpy as np

from yyenvs.search.rollout import Rollouts
from yyenvs.search.backup import step_discounts
from yyenvs.search.tree import Tree
from yyenvs.search.solver import loss_odds, prove
from yyenvs.core.contract import CHANCE_PLAYER, BatchState, GameCore


@dataclasses.dataclass
class Run:
    """One search of a batch of roots (a part of the batch when several are in flight)."""

    root: BatchState
    tree: Tree
    children: tuple | None = None  # the roots' children (:func:`children_of`), where a plug-in needs them
    rollout_scale: np.ndarray | None = None  # per root, set by :class:`RolloutMix`


@dataclasses.dataclass
class Leaves:
    """A wave's new nodes for the network: their indices, states, simulation rows and legal-action
    mask (``None`` until someone needed it)."""

    nodes: np.ndarray
    states: BatchState
    rows: np.ndarray
    mask: np.ndarray | None = None

    def keep(self, index: np.ndarray) -> Leaves:
        return Leaves(self.nodes[index], self.states.take(index), self.rows[index],
                      None if self.mask is None else self.mask[index])


@dataclasses.dataclass
class Decision:
    """Per root, what the search's statistics do not decide: a root with any action in ``only``
    (B, A) plays one of those; actions in ``barred`` are never played while another is left; the
    value of a root in ``exact`` (B,) is ``exact_value`` (B, P)."""

    only: np.ndarray
    barred: np.ndarray
    exact: np.ndarray
    exact_value: np.ndarray

    @classmethod
    def none(cls, batch: int, num_actions: int, num_players: int) -> Decision:
        return cls(np.zeros((batch, num_actions), np.bool_), np.zeros((batch, num_actions), np.bool_),
                   np.zeros(batch, np.bool_), np.zeros((batch, num_players)))


def children_of(core: GameCore, num_actions: int, st: BatchState, mask: np.ndarray | None = None):
    """Every legal player move (of the first ``num_actions``) of every row of ``st``, stepped as one
    batch: (rows, actions, the children's states, each child's mover).  ``mask``: ``st``'s legal
    actions, where the caller has them."""
    if mask is None:
        mask = core.legal_action_mask(st)
    player = st.current_player != CHANCE_PLAYER
    rows, acts = np.nonzero(mask[:, :num_actions] & player[:, None])
    children = st.take(rows)
    core.step(children, acts)
    return rows, acts, children, st.current_player[rows].astype(np.int64)


class Plugin:
    """A part of a search that is off unless asked for (see the module docstring)."""

    #: whether ``start`` needs the roots' children (:func:`children_of`, stepped once for all)
    wants_children = False

    def start(self, run: Run) -> None:
        pass

    def screen(self, run: Run, leaves: Leaves) -> Leaves:
        return leaves

    def mix(self, run: Run, nodes: np.ndarray, states: BatchState, value: np.ndarray, rows: np.ndarray) -> None:
        pass

    def finish(self, run: Run, decision: Decision) -> None:
        pass


class WinsAtOnce(Plugin):
    """A position whose mover can end the game at once with the top of ``core.reward_range`` is
    that win: in the tree a finished game (its reward a step later, discounted), at a root the
    move played."""

    wants_children = True

    def __init__(self, core: GameCore, search_core: GameCore, discount: float):
        self.core, self.search_core, self.discount = core, search_core, discount

    def wins(self, S: int, children):
        """Per row of the ``S`` whose ``children`` are given: whether its mover wins at once (S,),
        the (S, A) mask of the winning actions and the (S, P) rewards of one of them."""
        A, P = self.core.num_actions, self.search_core.num_players
        wins = np.zeros((S, A), np.bool_)
        rewards = np.zeros((S, P))
        rows, acts, ch, mover = children
        if rows.size:
            win = ch.done & (ch.rewards[np.arange(rows.size), mover] >= self.search_core.reward_range[1])
            wins[rows[win], acts[win]] = True
            rewards[rows[win]] = ch.rewards[win]
        return wins.any(axis=1), wins, rewards

    def screen(self, run: Run, leaves: Leaves) -> Leaves:
        if leaves.mask is None:
            leaves.mask = self.search_core.legal_action_mask(leaves.states)
        won, _, rewards = self.wins(leaves.nodes.size, children_of(self.search_core, self.core.num_actions,
                                                                     leaves.states, leaves.mask))
        if not won.any():
            return leaves
        tree, nodes = run.tree, leaves.nodes[won]
        tree.terminal[nodes] = True
        after = step_discounts(tree.to_move[tree.parent[nodes]], self.discount)  # the win, a step later
        tree.reward[nodes] += after[:, None] * rewards[won]
        return leaves.keep(np.flatnonzero(~won))

    def finish(self, run: Run, decision: Decision) -> None:
        decision.exact, decision.only, decision.exact_value = self.wins(run.root.batch_size, run.children)


def root_spread(rollouts: Rollouts, root: BatchState, children) -> np.ndarray:
    """(B,) the spread of the one-ply heuristics of each root's moves for its mover (``children``:
    :func:`children_of` the roots): the scale of the rollouts' heuristic, as in the MCTS baseline."""
    rows, _, ch, mover = children
    one_ply = rollouts.one_ply(ch, mover, rows, root.batch_size)
    return np.ones(root.batch_size) if one_ply is None else one_ply[2]


class RolloutMix(Plugin):
    """A node's value is ``(1 - weight) * network + weight * rollout``, clipped to the reward range
    (AlphaGo's mixed evaluation); the rollouts (:mod:`yyenvs.search.rollout`) play four greedy
    moves, then squash the game's heuristic by the spread of the root's one-ply heuristics."""

    wants_children = True

    def __init__(self, search_core: GameCore, seed, weight: float):
        self.rollouts = Rollouts(search_core, seed)
        self.weight = weight
        self.reward_range = search_core.reward_range

    def start(self, run: Run) -> None:
        run.rollout_scale = root_spread(self.rollouts, run.root, run.children)

    def mix(self, run: Run, nodes: np.ndarray, states: BatchState, value: np.ndarray, rows: np.ndarray) -> None:
        tree = run.tree
        C = tree.nodes_per_row
        salt = (nodes % C).astype(np.uint64)  # the node's place in its row's tree: batch-independent
        played = self.rollouts.values(states.take(np.arange(states.batch_size)), salt,
                                      run.rollout_scale[nodes // C])
        w = self.weight
        mixed = np.clip((1 - w) * tree.raw_value[nodes] + w * played, *self.reward_range)
        tree.raw_value[nodes] = mixed
        value[rows] = mixed


class Proofs(Plugin):
    """An exhaustive search of ``budget`` positions per root (:func:`~yyenvs.search.solver.prove`)
    after the simulations.  A root with a proven win, or with every move proven, plays its best
    proven moves and is valued by them: where every move loses, those of least chance of the loss
    against opponents who move uniformly at random (:func:`~yyenvs.search.solver.loss_odds`),
    then the longest.  Elsewhere the moves proven to lose are barred.  Roots that already have
    wins at once keep them."""

    def __init__(self, core: GameCore, search_core: GameCore, budget: int, discount: float):
        self.core, self.search_core, self.budget, self.discount = core, search_core, budget, discount

    def finish(self, run: Run, decision: Decision) -> None:
        open_rows = np.flatnonzero(~decision.exact)  # a root that wins at once needs no proof
        if open_rows.size == 0:
            return
        A = self.core.num_actions
        roots = run.root.take(open_rows)
        proof = prove(self.search_core, roots, self.budget)
        mover = roots.current_player.astype(np.int64)
        mine = proof.result[np.arange(open_rows.size), :A, mover]  # each action's proven result for the mover
        for i, r in enumerate(open_rows):
            best = self._best(roots, proof, mine, i, A)
            known = proof.known[i, :A]
            if best is None:
                decision.barred[r] = known & (mine[i] <= self.search_core.reward_range[0])
                continue
            decision.only[r] = best
            decision.exact[r] = True
            a = int(np.flatnonzero(best)[0])  # equal results and lengths: any one gives the value
            decision.exact_value[r] = proof.result[i, a] * self.discount ** (proof.plies[i, a] - 1)

    def _best(self, roots: BatchState, proof, mine: np.ndarray, i: int, A: int):
        """Root ``i``'s best proven moves (A,) bool, or None where its moves are not all proven and
        none wins."""
        low, top = self.search_core.reward_range
        known, legal, plies = proof.known[i, :A], proof.legal[i, :A], proof.plies[i, :A]
        wins = known & (mine[i] >= top)
        if wins.any():  # all of the shortest length: a proof stops at the level of its first win
            return wins
        if (legal & ~known).any():
            return None
        v = mine[i][legal].max()  # the best result, then the longest game to it
        best = legal & (mine[i] == v)
        if v <= low:  # lost whatever it plays: first the moves an erring opponent least often wins after
            chance = loss_odds(self.search_core, roots.take([i]), self.budget).chance[:A]
            best &= chance <= chance[best].min() + 1e-12  # equal up to rounding
        return best & (plies == plies[best].max())
