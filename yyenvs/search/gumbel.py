"""Search with a policy-value network: Gumbel at the root, PUCT below it, chance sampled.

:class:`GumbelSearch` searches every row of a batch at once; each of its
``simulations`` waves adds one node to the tree of every row, evaluates all
the new nodes in one network call and backs their values up.

* **Tree.**  :class:`~yyenvs.search.tree.Tree`, the layout the MCTS
  baseline shares; here it also holds each node's network value
  (``raw_value``) and the seat the network observed it from, and each edge
  its normalised logit and, at the roots, a Gumbel draw (``edge_noise``).
* **Root** (Danihelka et al., *Policy improvement by planning with Gumbel*,
  ICLR 2022).  Sequential halving over the ``max_considered`` actions of
  highest ``gumbel + logit``: simulation ``s`` visits, among the actions whose
  visit count is the schedule's count for ``s``, the one of highest
  ``gumbel + logit + sigma(q)``, where ``q`` is the completed Q-value (the
  mean value for the mover of a visited child, else the mix of the network's
  value and the visited Q-values), rescaled to [0, 1] over the siblings, and
  ``sigma(q) = (maxvisit_init + max visits) * value_scale * q``.  The chosen
  action is the best of the most visited by the same score; the improved
  policy, the training target, is ``softmax(logit + sigma(q))``.
* **Below the root**: PUCT, ``Q + c_puct * prior * sqrt(N) / (1 + n)``, with
  an unvisited child valued at its parent's mean.
* **Chance** (games whose spec declares chance): the search runs on the
  core's ``chance="explicit"`` twin; a chance node's edges are its outcomes
  with their probabilities, and a simulation through it draws one with the
  search's own random numbers, never the game's stream.
* **Wins at once** (``find_wins``): every new node, and the root, also
  steps each legal move of its mover; a node whose mover can end the game
  with the top of ``core.reward_range`` is a finished game in the tree, worth
  that win, and a root that can plays the win, its policy the prior over the
  winning moves.  This and the next two are plug-ins around the simulation
  loop (:mod:`yyenvs.search.plugins`).
* **Proofs** (``solve_budget`` n > 0): after the search, every root is also
  searched exhaustively over the game's own rules, up to n positions
  (:func:`~yyenvs.search.solver.prove`).  A root with a proven win, or with
  every move proven, plays its best proven moves (the policy is the prior
  over them, the value the proven result, discounted by its length as the
  game's final reward would be).  A root lost whatever it plays first keeps
  the moves with the least chance of that loss against opponents who pick
  their moves uniformly at random (:func:`~yyenvs.search.solver.loss_odds`,
  with a second budget of n): an opponent that errs has the most ways to.
  Then the longest.  Elsewhere a move proven to give its mover the worst result is
  never played while another is left, and it gets no policy.  An option of
  the agents, off in training.
* **Rollouts** (``rollout_weight`` w > 0): a node the network evaluates is
  also played on by a rollout of :mod:`yyenvs.search.rollout` (four greedy
  moves, then the game's heuristic squashed by the spread of the root's
  one-ply heuristics, as the MCTS baseline values its leaves), and its value
  is ``(1 - w) * network + w * rollout`` (AlphaGo's mixed evaluation).  It
  uses the game's heuristic, so it is an option of the agents, off in
  training.
* **Symmetric evaluation** (``average_symmetries``): the network sees each
  position in every transform the game declares (``core.symmetries()``) and
  the search takes the mean of its logits (moved back to the position's own
  actions) and values, so that its view of a position is the same in any
  transform (test-time augmentation; one network call of 8 times the
  positions on a square board).  An option of the agents, off in training.
* **Discount** (``discount`` d, 1 by default): a player's step is worth its
  reward plus d times the value after it (a chance outcome is not
  discounted), so a win sooner is worth more than a win later and a loss
  later less than a loss sooner: a seat that loses whatever it does still
  prefers the moves that hold the other off longest.  A network trained with
  a discount predicts discounted returns, and its agents search with the
  same discount (the network's description records it).
* **Values** are vectors, one entry per seat, so 1-4 players and a player
  moving several times in a row need nothing special: a node's value is read
  for the player who moves at its parent.  The network's values are relative
  to the seat it observes from (see :mod:`yyenvs.networks.search_network`); a chance
  node is observed from the seat of the last player who moved before it.

* **Parts in flight** (``in_flight`` k > 1): the batch is searched as k
  parts, each with its own trees, and the network evaluates one part's leaves
  while the CPU selects, steps and backs up the next, so that neither waits.
  Each root's tree is its own, so the results are the same for any k.

Random numbers are a pure function of (search seed, game seed, ply,
simulation), so a state gets the same search whatever batch it is in.
"""
from __future__ import annotations

import dataclasses
import math
import time
from collections import namedtuple
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from numba import njit, prange

from yyenvs.search.action_selection import gumbel_root_edge, puct_edge, sample_edge
from yyenvs.search.backup import backup, step_discount
from yyenvs.search.plugins import (Decision, Leaves, Plugin, Proofs, RolloutMix, Run, WinsAtOnce,
                                          children_of)
from yyenvs.search.qtransforms import QTRANSFORMS, sigma_q
from yyenvs.search.seq_halving import consider, considered_table
from yyenvs.search.settings import GumbelSettings
from yyenvs.search.tree import Tree, Walk, follow_edge
from yyenvs.core.contract import CHANCE_PLAYER, BatchState, GameCore
from yyenvs.core.kernels import batch_kernel, block_rows, num_blocks
from yyenvs.core.rng import hash_u64, uniform01, uniform3

#: random-number tags (one stream per use)
_TAG_GUMBEL, _TAG_CHANCE = 11, 13

# --------------------------------------------------------------------------
# tree kernels
# --------------------------------------------------------------------------
#: per root: its considered edges (their count) and schedule, and its chance key
Roots = namedtuple("Roots", "considered n_considered table chance_key nodes_per_row")
#: what the search's plug-ins decided at the roots: actions to play only from, and actions never to play
Restrict = namedtuple("Restrict", "only barred")
#: the settings the selection reads
Selection = namedtuple("Selection", "c_puct maxvisit_init value_scale discount qtransform")


@batch_kernel(parallel_min_batch=64)
def _select(walk, nodes, edges, roots, selection, sim, q):
    """Simulation ``sim`` of every row, in blocks of rows (each with its scratch row of ``q``); the
    walks into ``walk`` (its arrays' first axis is the batch's rows)."""
    nb = nodes.node_count.shape[0]
    for k in prange(num_blocks(nb)):
        lo, hi = block_rows(k, nb)
        _select_rows(sim, nodes, edges, roots, selection, walk, q[k], lo, hi)


@njit(cache=True)
def _select_rows(sim, nodes, edges, roots, selection, walk, q, lo, hi):
    """Simulation ``sim`` of rows lo..hi-1: from the root (sequential halving over its considered
    edges) down by PUCT, through chance nodes by their probabilities, to an edge no
    simulation has taken (its new child is the leaf) or to a finished game."""
    _, parent, _, to_move, terminal, visits, _, _, _, first_edge, num_edges = nodes
    _, edge_child, edge_prior, edge_logit, edge_noise = edges
    considered, n_considered, table, chance_key, C = roots
    c_puct, _, _, discount, _ = selection
    leaf, is_new, path, depth = walk
    for r in range(lo, hi):
        node = r * C
        path[r, 0] = node
        d = 1
        is_new[r] = False
        while not terminal[node]:
            if d == 1:
                m = n_considered[r]
                sigma_q(node, to_move[node], considered[r], m, m == num_edges[node], nodes, edges, selection, q)
                e = gumbel_root_edge(considered[r], m, table[m, sim], q, edge_child, edge_logit, edge_noise,
                                     visits)
            elif to_move[node] == CHANCE_PLAYER:
                e0 = first_edge[node]
                e = sample_edge(edge_prior, e0, e0 + num_edges[node],
                                uniform3(chance_key[r], np.uint64(sim), np.uint64(d)))
            else:
                e = puct_edge(node, to_move[node], nodes, edges, c_puct,
                              step_discount(to_move[parent[node]], discount))
            node, new = follow_edge(nodes, edges, r, C, node, e)
            path[r, d] = node
            d += 1
            if new:  # the leaf
                is_new[r] = True
                break
        leaf[r] = node
        depth[r] = d


@batch_kernel(parallel_min_batch=64)
def _set_priors(nodes, logits, first_edge, num_edges, edge_action, edge_logit, edge_prior):
    """Each node's edges' logits (actions past the logits' width, chance outcomes, get 0) less the
    node's largest, and their softmax as the priors."""
    A = logits.shape[1]
    for s in prange(nodes.shape[0]):
        e0 = first_edge[nodes[s]]
        e1 = e0 + num_edges[nodes[s]]
        top = -np.inf
        for e in range(e0, e1):
            a = edge_action[e]
            edge_logit[e] = logits[s, a] if a < A else 0.0
            top = max(top, edge_logit[e])
        total = 0.0
        for e in range(e0, e1):
            edge_logit[e] -= top
            edge_prior[e] = math.exp(edge_logit[e])
            total += edge_prior[e]
        for e in range(e0, e1):
            edge_prior[e] /= total


@batch_kernel(parallel_min_batch=64)
def _record_children(new, rewards, done, current_player, parent, reward, terminal, to_move, observer):
    """The stepped states' rewards, end and player to move into the new nodes ``new``; a chance
    node is observed from its parent's observer (made in an earlier wave)."""
    for j in prange(new.shape[0]):
        n = new[j]
        reward[n, :] = rewards[j]
        terminal[n] = done[j]
        to_move[n] = current_player[j]
        observer[n] = observer[parent[n]] if current_player[j] == CHANCE_PLAYER else current_player[j]


@batch_kernel(parallel_min_batch=64)
def _record_values(nodes, rows, relative, viewer, raw_value, value):
    """The network's values (relative to ``viewer``) per absolute seat, into ``raw_value`` of
    ``nodes`` and ``value`` of the simulation ``rows``."""
    P = relative.shape[1]
    for j in prange(nodes.shape[0]):
        for k in range(P):
            seat = (viewer[j] + k) % P
            raw_value[nodes[j], seat] = relative[j, k]
            value[rows[j], seat] = relative[j, k]


@njit(cache=True)
def _root_results(C, nodes, edges, selection, restrict, policy, chosen, scratch, q):
    """Per root: the improved policy softmax(logit + sigma(q)) into ``policy`` (B, A) and the
    chosen action, the best of the most visited by gumbel + logit + sigma(q).  A root with
    actions in ``restrict.only`` (B, A) plays the one of best gumbel + logit among them instead, and its
    policy is the prior over them alone.  Actions in ``restrict.barred`` are left out of both,
    unless every action is."""
    for r in range(policy.shape[0]):
        node = r * C
        e0 = nodes.first_edge[node]
        k = nodes.num_edges[node]
        for j in range(k):
            scratch[j] = e0 + j
        top_n = sigma_q(node, nodes.to_move[node], scratch, k, True, nodes, edges, selection, q)
        chosen[r] = _root_choice(r, e0, k, top_n, nodes.visits, edges, restrict, policy, q)


@njit(cache=True)
def _root_choice(r, e0, k, top_n, visits, edges, restrict, policy, q):
    """:func:`_root_results` of root ``r`` (edges ``e0..e0+k-1``, ``q`` their sigma(q)): fills its
    policy row, returns its action."""
    edge_action, edge_child, edge_logit, edge_noise = edges.action, edges.child, edges.logit, edges.noise
    only, barred = restrict
    has_only = False
    all_barred = True
    for j in range(k):
        has_only = has_only or only[r, edge_action[e0 + j]]
        all_barred = all_barred and barred[r, edge_action[e0 + j]]
    if has_only:  # only these count, by the prior alone
        for j in range(k):
            q[j] = 0.0 if only[r, edge_action[e0 + j]] else -np.inf
    elif not all_barred:
        top_n = -1
        for j in range(k):
            if barred[r, edge_action[e0 + j]]:
                q[j] = -np.inf
            else:
                ch = edge_child[e0 + j]
                top_n = max(top_n, visits[ch] if ch >= 0 else 0)
    hi = -np.inf
    for j in range(k):
        hi = max(hi, edge_logit[e0 + j] + q[j])
    total = 0.0
    for j in range(k):
        total += math.exp(edge_logit[e0 + j] + q[j] - hi)
    policy[r, :] = 0.0
    best = -1
    best_score = -np.inf
    for j in range(k):
        a = edge_action[e0 + j]
        policy[r, a] = math.exp(edge_logit[e0 + j] + q[j] - hi) / total
        ch = edge_child[e0 + j]
        n = visits[ch] if ch >= 0 else 0
        score = edge_noise[e0 + j] + edge_logit[e0 + j] + q[j]
        if has_only:
            eligible = only[r, a]
        else:
            eligible = n == top_n and (all_barred or not barred[r, a])
        if eligible and (best < 0 or score > best_score):
            best = a
            best_score = score
    return best


# --------------------------------------------------------------------------
# the search
# --------------------------------------------------------------------------
class SymmetricEvaluator:
    """``evaluate`` averaged over board ``symmetries`` (the identity among them): a position's
    logits and values are the mean of the network's over its transforms, the logits taken back to
    the position's own actions."""

    def __init__(self, evaluate, symmetries):
        self.evaluate = evaluate
        self.symmetries = tuple(symmetries)

    def __call__(self, obs: np.ndarray):
        S, n = obs.shape[0], len(self.symmetries)
        logits, values = self.evaluate(np.concatenate([sym.observations(obs) for sym in self.symmetries]))
        mean = np.zeros((S, logits.shape[1]), np.float32)
        for g, sym in enumerate(self.symmetries):  # transformed action sym.action[a] is a's
            mean += logits[g * S:(g + 1) * S, sym.action]
        return mean / n, values.reshape(n, S, -1).mean(axis=0)


@dataclasses.dataclass
class SearchResult:
    """What one search gives per root."""

    action: np.ndarray  # (B,) int64 the chosen action
    policy: np.ndarray  # (B, A) float32 the improved policy over the player actions
    value: np.ndarray  # (B, P) float64 the root's mean value per seat (absolute seats)
    tree: Tree  # the trees (of the first part, where several were in flight)


class GumbelSearch:
    """Batched search with a network (see the module docstring).

    ``evaluate(obs) -> (logits (S, A), values (S, P))`` is the network (see
    :class:`~yyenvs.networks.search_network.NetworkEvaluator`): logits of the
    ``core.num_actions`` player actions and values relative to the observing
    seat.  ``seed`` salts the Gumbel and chance draws.  The other settings are
    keywords, the fields of :class:`~yyenvs.search.settings.GumbelSettings`, held in
    ``self.settings``.
    """

    def __init__(self, core: GameCore, evaluate, simulations: int = 32, seed: int = 0, **settings):
        if simulations < 1:
            raise ValueError(f"simulations must be at least 1, got {simulations!r}")
        self.settings = GumbelSettings.make(settings)
        s = self.settings
        self.selection = Selection(s.c_puct, s.maxvisit_init, s.value_scale, s.discount, QTRANSFORMS[s.qtransform])
        self.core = core
        self.search_core = core.with_options(chance="explicit") if core.spec.chance else core
        self.evaluate = self._symmetric(evaluate) if self.settings.average_symmetries else evaluate
        self.simulations = int(simulations)
        self.seed = np.uint64(seed % (1 << 64))
        self.plugins = self._plugins()
        self._table = considered_table(self.settings.max_considered, self.simulations)
        self._trees: dict[int, Tree] = {}  # per part, kept for the next search
        #: seconds spent so far in the network (waiting on it, where parts are in flight), the core
        #: (step, mask, observe, state copies, plug-ins) and the tree kernels; the rest of a
        #: search's time is its Python glue
        self.timings = {"network": 0.0, "core": 0.0, "tree": 0.0}
        #: simulations run so far (roots x simulations) and the seconds their searches took
        self.simulated, self.seconds = 0, 0.0

    def _symmetric(self, evaluate):
        symmetries = self.core.symmetries()
        if len(symmetries) < 2:
            raise ValueError(f"average_symmetries: {self.core.name} with options {self.core.options} declares "
                             "no board symmetries for its observations")
        return SymmetricEvaluator(evaluate, symmetries)

    def _plugins(self) -> list[Plugin]:
        """The optional parts asked for, in the order they act."""
        plugins: list[Plugin] = []
        s = self.settings
        if s.find_wins:
            plugins.append(WinsAtOnce(self.core, self.search_core, s.discount))
        if s.rollout_weight > 0:
            plugins.append(RolloutMix(self.search_core, self.seed, s.rollout_weight))
        if s.solve_budget:
            plugins.append(Proofs(self.core, self.search_core, s.solve_budget, s.discount))
        return plugins

    @property
    def rollouts(self):
        """The rollouts mixed into the network's values, or None."""
        return next((p.rollouts for p in self.plugins if isinstance(p, RolloutMix)), None)

    # -- one search: a generator that yields observations and is sent the network's outputs --------
    def run(self, root: BatchState) -> SearchResult:
        """Search from every row of ``root`` (games in progress with a player to move; not changed)."""
        self.search_core.check_state(root)
        if root.done.any() or (root.current_player == CHANCE_PLAYER).any():
            bad = int(np.flatnonzero(root.done | (root.current_player == CHANCE_PLAYER))[0])
            raise ValueError(f"search: row {bad} is a finished game or a chance node; search rows where "
                             "a player is to move")
        start = time.perf_counter()
        parts = [p for p in np.array_split(np.arange(root.batch_size), self.settings.in_flight) if p.size]
        if len(parts) == 1:
            results = [self._drive(self._search(root, 0))]
        else:
            results = self._drive_in_flight([self._search(root.take(p), k) for k, p in enumerate(parts)])
        self.simulated += root.batch_size * self.simulations
        self.seconds += time.perf_counter() - start
        if len(results) == 1:
            return results[0]
        return SearchResult(*(np.concatenate([getattr(r, f) for r in results]) for f in ("action", "policy", "value")),
                            results[0].tree)

    def _drive(self, search):
        """Run one search generator to its end, evaluating what it asks for; its result."""
        try:
            request = next(search)
            while True:
                t0 = time.perf_counter()
                answer = self.evaluate(request)
                self.timings["network"] += time.perf_counter() - t0
                request = search.send(answer)
        except StopIteration as stop:
            return stop.value

    def _drive_in_flight(self, searches):
        """Run the search generators of the parts side by side: the network (on a thread of its own)
        evaluates one part's request while this thread works on the next part's; their results."""
        results = [None] * len(searches)
        with ThreadPoolExecutor(max_workers=1) as network:
            pending = [(k, s, network.submit(self.evaluate, next(s))) for k, s in enumerate(searches)]
            while pending:
                k, search, answer = pending.pop(0)
                t0 = time.perf_counter()
                reply = answer.result()
                self.timings["network"] += time.perf_counter() - t0
                try:
                    pending.append((k, search, network.submit(self.evaluate, search.send(reply))))
                except StopIteration as stop:
                    results[k] = stop.value
        return results

    def _search(self, root: BatchState, part: int):
        """The search of ``root``'s rows (part ``part`` of the batch): yields each batch of
        observations for the network, is sent its (logits, values), returns the SearchResult."""
        run = self._start(root, part)
        B, P = root.batch_size, self.search_core.num_players
        value = np.zeros((B, P))
        yield from self._evaluate(run, Leaves(run.tree.roots, root, np.arange(B)), value)
        walk, kernel_args = self._prepare_roots(run, value)
        for sim in range(self.simulations):
            value = np.zeros((B, P))
            leaves = self._descend(run, sim, walk, kernel_args)
            if leaves.nodes.size:
                yield from self._evaluate(run, leaves, value)
            t0 = time.perf_counter()
            backup(walk, value, run.tree.node_arrays(), self.settings.discount, 0.0, 1)
            self.timings["tree"] += time.perf_counter() - t0
        return self._results(run)

    def _start(self, root: BatchState, part: int) -> Run:
        """A fresh tree for ``root`` (reusing the part's arrays: fresh pages cost more than the
        search's writes to them) and the plug-ins' start."""
        B, C, P = root.batch_size, self.simulations + 1, self.search_core.num_players
        tree = self._trees.get(part)
        if tree is None or tree.node_count.shape[0] != B or type(tree.states) is not type(root):
            tree = self._trees[part] = Tree.allocate(root, C, P, edges=max(64 * B, 1))
        else:
            tree.states.put(tree.roots, root)
        roots = tree.roots
        tree.node_count[:] = 1
        tree.num_used_edges = 0
        tree.parent[roots] = -1
        tree.action[roots] = -1
        tree.terminal[roots] = False
        tree.reward[roots] = 0.0
        tree.to_move[roots] = root.current_player
        tree.observer[roots] = root.current_player
        run = Run(root, tree)
        t0 = time.perf_counter()
        if any(p.wants_children for p in self.plugins):  # stepped once for all the plug-ins
            run.children = children_of(self.search_core, self.core.num_actions, root)
        for plugin in self.plugins:
            plugin.start(run)
        self.timings["core"] += time.perf_counter() - t0
        return run

    def _prepare_roots(self, run: Run, value: np.ndarray):
        """After the roots' evaluation: their statistics, Gumbel draws and considered actions; the
        walk's arrays and the selection's other arguments."""
        tree, root = run.tree, run.root
        B, C = root.batch_size, tree.nodes_per_row
        roots = tree.roots
        tree.visits[roots] = 1
        tree.value_sum[roots] = value
        tree.reserve_edges(int(1.5 * tree.num_used_edges * C))  # one doubling at most, usually none
        # Gumbel noise on the roots' edges, a pure function of the game and the action
        n_root = int(tree.num_edges[roots].sum())
        rows = np.repeat(np.arange(B), tree.num_edges[roots])
        tree.edge_noise[:n_root] = 0.0
        if self.settings.gumbel_scale > 0 and n_root:
            u = uniform01(self.seed, root.seed[rows], root.ply[rows].astype(np.uint64),
                          tree.edge_action[:n_root].astype(np.uint64), np.uint64(_TAG_GUMBEL))
            tree.edge_noise[:n_root] = -np.log(-np.log(np.maximum(u, 1e-300))) * self.settings.gumbel_scale
        considered = np.zeros((B, self.settings.max_considered), np.int64)
        n_considered = np.zeros(B, np.int64)
        consider(C, tree.first_edge, tree.num_edges, tree.edge_logit, tree.edge_noise, considered, n_considered)
        chance_key = hash_u64(self.seed, root.seed, root.ply.astype(np.uint64), np.uint64(_TAG_CHANCE))
        walk = Walk(np.zeros(B, np.int64), np.zeros(B, np.bool_), np.zeros((B, C), np.int64),
                    np.zeros(B, np.int64))
        q = np.zeros((num_blocks(B), self.search_core.num_actions))  # scratch per block of rows
        return walk, (Roots(considered, n_considered, self._table, chance_key, C),
                      self.selection, q)

    def _descend(self, run: Run, sim: int, walk: Walk, kernel_args) -> Leaves:
        """Simulation ``sim`` of every row down to its leaf; the new leaves stepped and recorded;
        those the network is to evaluate."""
        tree, core, clock = run.tree, self.search_core, self.timings
        roots, selection, q = kernel_args
        t0 = time.perf_counter()
        _select(walk, tree.node_arrays(), tree.edge_arrays(), roots, selection, sim, q)
        new = walk.leaf[walk.is_new]
        t1 = time.perf_counter()
        clock["tree"] += t1 - t0
        if new.size == 0:
            return Leaves(new, run.root.take(new), new)
        ch = tree.states.take(tree.parent[new])
        core.step(ch, tree.action[new])
        tree.states.put(new, ch)
        _record_children(new, ch.rewards, ch.done, ch.current_player, tree.parent, tree.reward, tree.terminal,
                         tree.to_move, tree.observer)
        leaves = Leaves(new, ch, np.flatnonzero(walk.is_new))
        if ch.done.any():  # finished games are valued by their rewards alone
            leaves = leaves.keep(np.flatnonzero(~ch.done))
        for plugin in self.plugins:
            if leaves.nodes.size:
                leaves = plugin.screen(run, leaves)
        clock["core"] += time.perf_counter() - t1
        return leaves

    def _evaluate(self, run: Run, leaves: Leaves, value: np.ndarray):
        """Evaluate and expand ``leaves`` (none finished; a generator: it yields their observations
        and is sent the network's answer); their values per absolute seat go into ``value``."""
        core, clock, tree = self.search_core, self.timings, run.tree
        nodes, st = leaves.nodes, leaves.states
        t0 = time.perf_counter()
        viewer = tree.observer[nodes].astype(np.int64)
        obs = core.observe(st, viewer)
        mask = core.legal_action_mask(st) if leaves.mask is None else leaves.mask
        clock["core"] += time.perf_counter() - t0
        logits, relative = yield obs
        t1 = time.perf_counter()
        _record_values(nodes, leaves.rows, np.ascontiguousarray(relative, np.float32), viewer, tree.raw_value,
                       value)
        tree.add_edges(nodes, mask)
        _set_priors(nodes, np.ascontiguousarray(logits, np.float32), tree.first_edge, tree.num_edges,
                    tree.edge_action, tree.edge_logit, tree.edge_prior)
        t2 = time.perf_counter()
        clock["tree"] += t2 - t1
        for plugin in self.plugins:
            plugin.mix(run, nodes, st, value, leaves.rows)
        chance = np.flatnonzero(st.current_player == CHANCE_PLAYER)
        if chance.size:  # a chance node's edges are its outcomes: their probabilities, not a policy
            probs = core.chance_probabilities(st.take(chance))
            for k, n in enumerate(nodes[chance]):
                e = tree.edges(n)
                p = probs[k, tree.edge_action[e]]
                tree.edge_prior[e] = p
                with np.errstate(divide="ignore"):
                    tree.edge_logit[e] = np.log(p)
        clock["core"] += time.perf_counter() - t2

    def _results(self, run: Run) -> SearchResult:
        """The roots' actions, improved policies and values, after the plug-ins' decisions."""
        tree, B = run.tree, run.root.batch_size
        A, P = self.core.num_actions, self.search_core.num_players
        decision = Decision.none(B, A, P)
        t0 = time.perf_counter()
        for plugin in self.plugins:
            plugin.finish(run, decision)
        t1 = time.perf_counter()
        self.timings["core"] += t1 - t0
        policy = np.zeros((B, A), np.float32)
        chosen = np.zeros(B, np.int64)
        scratch = np.zeros(self.search_core.num_actions, np.int64)
        _root_results(tree.nodes_per_row, tree.node_arrays(), tree.edge_arrays(), self.selection,
                      Restrict(decision.only, decision.barred), policy, chosen, scratch,
                      np.zeros(self.search_core.num_actions))
        roots = tree.roots
        root_value = tree.value_sum[roots] / tree.visits[roots][:, None]
        root_value[decision.exact] = decision.exact_value[decision.exact]
        self.timings["tree"] += time.perf_counter() - t1
        return SearchResult(chosen, policy, root_value, tree)
