"""The Gumbel search with a policy-value network (yyenvs.search.gumbel): its root schedule, its
targets and its plug-ins (wins at once, rollouts, symmetric evaluation, chance).

The search is checked with plain evaluators (uniform logits, zero values) where its answer is
known, and with a random network on every game.
"""
from __future__ import annotations


import numpy as np
import pytest

from tests.agents.chance_toy import FACES, PROBS, DiceRaceCore
from tests.agents.test_mcts import dice_positions, forced_win_position, is_win_for_white, random_positions
from yyenvs.search.gumbel import GumbelSearch
from yyenvs.search.seq_halving import considered_visits
from yyenvs.core.contract import CHANCE_PLAYER
from yyenvs.games import make_core
from yyenvs.games.yoxii.core import YoxiiCore


def flat_network(core):
    """An evaluator knowing nothing: equal logits, every value 0."""
    def evaluate(obs):
        n = obs.shape[0]
        return np.zeros((n, core.num_actions), np.float32), np.zeros((n, core.num_players), np.float32)
    return evaluate


def random_network(core, seed=0):
    import torch
    from yyenvs.networks.search_network import make_network, network_description
    torch.manual_seed(seed)
    return make_network(core, network_description(core, (32,)))


# -- the root schedule -----------------------------------------------------------------------
def test_sequential_halving_schedule():
    # 4 actions, 8 simulations: one visit each, then the better two twice more
    assert considered_visits(4, 8) == (0, 0, 0, 0, 1, 1, 2, 2)
    assert considered_visits(1, 3) == (0, 1, 2)
    for m in (2, 3, 5, 16):
        for n in (1, 7, 32, 100):
            seq = considered_visits(m, n)
            assert len(seq) == n and seq[:min(m, n)] == (0,) * min(m, n)
            # a count k is scheduled only once every considered action could have k
            counts = np.zeros(m, int)
            for k in seq:
                j = np.flatnonzero(counts == k)
                assert j.size, (m, n, seq)
                counts[j[0]] += 1


# -- the search --------------------------------------------------------------------------------
@pytest.mark.parametrize("rollout_weight", [0.0, 0.5])
@pytest.mark.parametrize("game,options", [("yoxii", {}), ("koi", {}), ("yinyang", {}),
                                          ("yinyang", {"num_players": 3})])
def test_search_targets_are_distributions_over_legal_actions(game, options, rollout_weight):
    core = make_core(game, **options)
    state = random_positions(core, np.arange(6), [0, 1, 3, 5, 8, 13])
    state = state.take(np.flatnonzero(~state.done))
    from yyenvs.networks.search_network import NetworkEvaluator
    sims = 12
    r = GumbelSearch(core, NetworkEvaluator(random_network(core)), sims, max_considered=4,
                     rollout_weight=rollout_weight).run(state)
    mask = core.legal_action_mask(state)
    np.testing.assert_allclose(r.policy.sum(axis=1), 1.0, rtol=1e-5)
    assert (r.policy >= 0).all() and (r.policy[~mask] == 0).all()
    assert mask[np.arange(state.batch_size), r.action].all()
    lo, hi = core.reward_range
    assert (r.value >= lo - 1e-9).all() and (r.value <= hi + 1e-9).all()
    t = r.tree
    roots = t.roots
    np.testing.assert_array_equal(t.visits[roots], sims + 1)  # the root's own evaluation + one per simulation
    assert (t.node_count <= sims + 1).all()
    for k, root in enumerate(roots):  # each simulation went through exactly one root edge
        kids = t.edge_child[t.first_edge[root]:t.first_edge[root] + t.num_edges[root]]
        assert t.visits[kids[kids >= 0]].sum() == sims
        assert (kids >= 0).sum() <= 4  # only the considered actions
    used = np.concatenate([np.arange(r * t.nodes_per_row, r * t.nodes_per_row + c)
                           for r, c in enumerate(t.node_count)])
    assert (np.abs(t.value_sum[used]) <= t.visits[used, None] * max(abs(lo), abs(hi)) + 1e-9).all()


def test_finds_the_win_in_one_and_targets_it():
    core = YoxiiCore()
    s = forced_win_position()
    legal = np.flatnonzero(core.legal_action_mask(s)[0])
    wins = [a for a in legal if is_win_for_white(core, s, a)]
    assert 1 <= len(wins) < legal.size / 4
    # a network that knows nothing, but every legal action considered: the search sees the win
    r = GumbelSearch(core, flat_network(core), simulations=2 * legal.size, max_considered=legal.size,
                     gumbel_scale=0.0).run(s)
    assert r.action[0] in wins
    assert r.policy[0, wins].sum() > 0.5  # the improved policy moves its mass onto the win
    assert r.policy[0, wins].min() > r.policy[0].max() / 2


def wins_at_once(core, state, row, action) -> bool:
    """Whether ``action`` ends row ``row``'s game with the best reward for its mover."""
    child = state.take([row])
    mover = int(child.current_player[0])
    core.step(child, np.array([action]))
    return bool(child.done[0] and child.rewards[0, mover] >= core.reward_range[1])


def test_find_wins_plays_a_win_at_once_whatever_the_network_thinks():
    core = YoxiiCore()
    s = forced_win_position()
    legal = np.flatnonzero(core.legal_action_mask(s)[0])
    wins = [a for a in legal if wins_at_once(core, s, 0, a)]
    assert 1 <= len(wins) < legal.size / 4

    def blind(obs):  # a network sure that the wins are the worst moves
        logits = np.zeros((obs.shape[0], core.num_actions), np.float32)
        logits[:, wins] = -20.0
        return logits, np.zeros((obs.shape[0], 2), np.float32)
    plain = GumbelSearch(core, blind, simulations=8, max_considered=4).run(s)
    assert plain.action[0] not in wins  # the wins are never considered
    r = GumbelSearch(core, blind, simulations=8, max_considered=4, find_wins=True).run(s)
    assert r.action[0] in wins
    np.testing.assert_allclose(r.policy[0].sum(), 1.0, rtol=1e-6)
    assert set(np.flatnonzero(r.policy[0])) == set(wins)  # the target: only the wins
    np.testing.assert_array_equal(r.value[0], [1.0, -1.0])


@pytest.mark.parametrize("discount", [1.0, 0.5])
def test_find_wins_sees_the_replies_that_win_at_once(discount):
    """A root move after which the opponent can win at once is valued as that loss, exactly (a step
    later, so discounted once)."""
    core = YoxiiCore()
    state = random_positions(core, np.arange(64), [24] * 64)
    rows = []
    for r in np.flatnonzero(~state.done):  # positions where some moves let the opponent win at once
        child = state.take([r])
        legal = np.flatnonzero(core.legal_action_mask(child)[0])
        losing = []
        for a in legal:
            after = child.take([0])
            core.step(after, np.array([a]))
            if not after.done[0]:
                replies = np.flatnonzero(core.legal_action_mask(after)[0])
                losing.append(any(wins_at_once(core, after, 0, b) for b in replies))
            else:
                losing.append(False)
        if 0 < sum(losing) < len(losing):
            rows.append((r, legal, np.array(losing)))
        if len(rows) == 3:
            break
    assert rows, "no test position"
    for r, legal, losing in rows:
        s = state.take([r])
        n = legal.size  # every legal move considered and visited once: the policy ranks them by value
        r_on = GumbelSearch(core, flat_network(core), simulations=n, max_considered=n, gumbel_scale=0.0,
                            find_wins=True, discount=discount).run(s)
        r_off = GumbelSearch(core, flat_network(core), simulations=n, max_considered=n,
                             gumbel_scale=0.0).run(s)
        np.testing.assert_allclose(r_off.policy[0, legal], 1.0 / n, rtol=1e-5)  # no evidence without it
        p = r_on.policy[0, legal]
        assert p[losing].max() < p[~losing].min()
        t = r_on.tree
        e = slice(t.first_edge[0], t.first_edge[0] + t.num_edges[0])
        kids = t.edge_child[e]
        mover = int(s.current_player[0])
        lost = kids[np.isin(t.edge_action[e], legal[losing])]
        assert t.terminal[lost].all()
        np.testing.assert_allclose(t.value_sum[lost, mover] / t.visits[lost], discount * core.reward_range[0])


def test_improved_policy_follows_the_network_without_evidence():
    """With one simulation per considered action and equal values, the target is the prior."""
    core = make_core("koi")
    state = random_positions(core, np.arange(3), [2, 4, 6])

    def biased(obs):
        n = obs.shape[0]
        logits = np.tile(np.linspace(0, 3, core.num_actions, dtype=np.float32), (n, 1))
        return logits, np.zeros((n, 2), np.float32)
    r = GumbelSearch(core, biased, simulations=4, max_considered=4, gumbel_scale=0.0).run(state)
    mask = core.legal_action_mask(state)
    # leaves valued 0 like the root: every completed Q is equal, sigma(q) is 0 for all
    prior = np.where(mask, np.exp(np.linspace(0, 3, core.num_actions)), 0.0)
    prior /= prior.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(r.policy, prior, rtol=1e-5, atol=1e-7)
    # without noise the search takes the top-prior legal action
    np.testing.assert_array_equal(r.action, np.argmax(np.where(mask, prior, -1), axis=1))


def test_discount_counts_a_players_step_and_not_a_chance_outcome():
    """A child's value is its step's reward plus the discount times the value after it."""
    core = make_core("koi")
    state = core.init(np.arange(2))  # the set-up: the seats alternate, nothing ends at once

    def confident(obs):  # every position looks +0.5 for the seat that observes it
        n = obs.shape[0]
        return np.zeros((n, core.num_actions), np.float32), np.tile(np.float32([0.5, -0.5]), (n, 1))
    for d in (1.0, 0.8, 0.0):
        r = GumbelSearch(core, confident, simulations=1, gumbel_scale=0.0, discount=d).run(state)
        # the root's own value and one child, where the other seat moves: d x (-0.5) for the root's mover
        np.testing.assert_allclose(r.value[:, 0], (0.5 - 0.5 * d) / 2)
    from yyenvs.search.backup import backup
    from yyenvs.search.tree import Nodes, Walk
    path = np.array([[0, 1, 2]])
    reward = np.array([[0.0, 0.0], [0.0, 0.0], [1.0, -1.0]])
    value_sum, visits = np.zeros((3, 2)), np.zeros(3, np.int32)
    # node 1 is a player's, then a chance node: the step from it into node 2 is discounted, then not
    for to_move, leaf in (([0, 1, 0], 1.0 + 0.5 * 0.25), ([0, CHANCE_PLAYER, 0], 1.0 + 0.25)):
        value_sum[:], visits[:] = 0.0, 0
        nodes = Nodes(np.ones(1, np.int64), None, None, np.array(to_move, np.int8), None, visits, value_sum,
                      reward, None, None, None)
        backup(Walk(np.zeros(1, np.int64), np.zeros(1, np.bool_), path, np.array([3])), np.array([[0.25, -0.25]]), nodes, 0.5, 0.0, 1)
        # node 1: no reward, then node 2's value after seat 0's step; the root: its child's value
        np.testing.assert_allclose(value_sum[:, 0], [0.5 * leaf, 0.5 * leaf, leaf])
        np.testing.assert_allclose(value_sum[:, 1], -value_sum[:, 0])
        assert visits.tolist() == [1, 1, 1]


@pytest.mark.parametrize("rollout_weight", [0.0, 0.5])
def test_same_state_same_search_in_any_batch(rollout_weight):
    core = make_core("koi")
    state = random_positions(core, np.arange(5), [1, 2, 3, 4, 5])
    net = random_network(core)
    from yyenvs.networks.search_network import NetworkEvaluator
    search = GumbelSearch(core, NetworkEvaluator(net), simulations=16, seed=5, rollout_weight=rollout_weight)
    whole = search.run(state)
    for i in (0, 3):
        alone = search.run(state.take([i]))
        assert alone.action[0] == whole.action[i]
        # float32 products differ in the last bits with the batch's shape (torch picks its kernels by size)
        np.testing.assert_allclose(alone.policy[0], whole.policy[i], rtol=1e-5, atol=1e-6)
    again = GumbelSearch(core, NetworkEvaluator(net), simulations=16, seed=5,
                         rollout_weight=rollout_weight).run(state.take([4, 2, 0]))
    np.testing.assert_array_equal(again.action, whole.action[[4, 2, 0]])
    other_seed = GumbelSearch(core, NetworkEvaluator(net), simulations=16, seed=6).run(state)
    assert not np.array_equal(other_seed.policy, whole.policy)  # the seed salts the Gumbel draws


@pytest.mark.parametrize("game", ["yoxii", "yinyang"])
def test_rollouts_mix_into_the_leaf_values(game):
    """With ``rollout_weight`` w, every node the network evaluates is worth (1 - w) times the
    network's value plus w times a rollout's from it (the MCTS baseline's rollouts)."""
    from yyenvs.search.rollout import Rollouts
    core = make_core(game)
    state = random_positions(core, np.arange(4), [4, 6, 8, 10])
    state = state.take(np.flatnonzero(~state.done & (state.current_player != CHANCE_PLAYER)))

    def hopeful(obs):  # flat logits; every seat the network observes from is sure to win
        n = obs.shape[0]
        values = np.full((n, core.num_players), -1.0, np.float32)
        values[:, 0] = 1.0
        return np.zeros((n, core.num_actions), np.float32), values
    w = 0.25
    search = GumbelSearch(core, hopeful, simulations=16, max_considered=4, seed=3, rollout_weight=w)
    t = search.run(state).tree
    C = t.nodes_per_row
    from yyenvs.search.plugins import children_of, root_spread
    scale = root_spread(search.rollouts, state, children_of(search.search_core, core.num_actions, state))
    assert scale.shape == (state.batch_size,) and (scale > 0).all() and np.isfinite(scale).all()
    rollouts = Rollouts(search.search_core, search.seed)
    lo, hi = core.reward_range
    checked = 0
    for r, count in enumerate(t.node_count):
        for n in range(r * C, r * C + count):
            if t.terminal[n]:
                continue
            net = np.full(core.num_players, -1.0)
            net[t.observer[n]] = 1.0
            played = rollouts.values(t.states.take([n]), np.array([n % C], np.uint64), scale[[r]])[0]
            np.testing.assert_allclose(t.raw_value[n], np.clip((1 - w) * net + w * played, lo, hi), atol=1e-6)
            checked += 1
    assert checked > 20
    plain = GumbelSearch(core, hopeful, simulations=16, max_considered=4, seed=3).run(state).tree
    assert not np.allclose(plain.raw_value[t.roots], t.raw_value[t.roots])
    for bad in (-0.1, 1.5, float("nan")):
        with pytest.raises(ValueError, match="rollout_weight must be a number from 0 to 1"):
            GumbelSearch(core, hopeful, rollout_weight=bad)


@pytest.mark.parametrize("game,options", [("yoxii", {}), ("koi", {"board_size": 7, "directions": 8})])
def test_symmetric_evaluation_is_the_same_in_every_transform(game, options):
    """``average_symmetries``: the averaged network gives a turned or mirrored position the
    logits of the position, moved with its actions, and the same values, where the network
    itself does not; a search with it plays legal moves, and a game without symmetries refuses it."""
    from yyenvs.search.gumbel import SymmetricEvaluator
    from yyenvs.networks.search_network import NetworkEvaluator
    core = make_core(game, **options)
    net = NetworkEvaluator(random_network(core))
    symmetries = core.symmetries()
    assert len(symmetries) == 8
    state = random_positions(core, np.arange(6), [1, 3, 5, 7, 9, 11])
    state = state.take(np.flatnonzero(~state.done))
    obs = core.observe(state, state.current_player)
    averaged = SymmetricEvaluator(net, symmetries)
    logits, values = averaged(obs)
    for sym in symmetries[1:]:
        turned_logits, turned_values = averaged(sym.observations(obs))
        np.testing.assert_allclose(turned_logits[:, sym.action], logits, atol=1e-5)
        np.testing.assert_allclose(turned_values, values, atol=1e-6)
    raw_turned = net(symmetries[1].observations(obs))[0][:, symmetries[1].action]
    assert not np.allclose(raw_turned, net(obs)[0], atol=1e-3)  # the network alone is not symmetric
    np.testing.assert_allclose(SymmetricEvaluator(net, symmetries[:1])(obs)[0], net(obs)[0])
    result = GumbelSearch(core, net, simulations=8, max_considered=4, average_symmetries=True).run(state)
    assert core.legal_action_mask(state)[np.arange(state.batch_size), result.action].all()
    with pytest.raises(ValueError, match="average_symmetries: yinyang"):
        GumbelSearch(make_core("yinyang"), net, average_symmetries=True)


def test_search_refuses_finished_games_and_chance_nodes():
    core = make_core("koi", board_size=7, directions=4)
    state = random_positions(core, np.arange(2), [1, 2])
    state.terminated[1] = True
    with pytest.raises(ValueError, match="row 1 is a finished game"):
        GumbelSearch(core, flat_network(core), 4).run(state)


def test_root_state_not_changed():
    core = make_core("yinyang")
    state = random_positions(core, np.arange(3), [5, 9, 14])
    before = state.copy()
    GumbelSearch(core, flat_network(core), simulations=8).run(state)
    for name in vars(before):
        np.testing.assert_array_equal(getattr(state, name), getattr(before, name), err_msg=name)


def test_chance_nodes_are_sampled_by_their_probabilities():
    core = DiceRaceCore()
    state = dice_positions(core, 4, seed=1)
    r = GumbelSearch(core, flat_network(core), simulations=200, max_considered=2).run(state)
    t = r.tree
    chance = np.flatnonzero((t.to_move == CHANCE_PLAYER) & (t.visits > 0))
    assert chance.size
    counts = np.zeros(len(FACES))
    for n in chance:
        e = slice(t.first_edge[n], t.first_edge[n] + t.num_edges[n])
        kids = t.edge_child[e]
        faces = t.edge_action[e] - 2
        np.testing.assert_allclose(t.edge_prior[e], PROBS[faces])
        counts[faces] += np.where(kids >= 0, t.visits[np.maximum(kids, 0)], 0)
    total = counts.sum()
    assert total > 150, counts
    chi2 = ((counts - total * PROBS) ** 2 / (total * PROBS)).sum()
    assert chi2 < 18.4, counts  # 2 degrees of freedom, p = 1e-4


def test_search_never_reads_the_games_stream():
    core = DiceRaceCore()
    state = dice_positions(core, 6)
    other = state.copy()
    other.rng[:] = other.rng * np.uint64(6364136223846793005) + np.uint64(1442695040888963407)
    a = GumbelSearch(core, flat_network(core), simulations=40, seed=2).run(state)
    b = GumbelSearch(core, flat_network(core), simulations=40, seed=2).run(other)
    np.testing.assert_array_equal(a.tree.visits, b.tree.visits)
    np.testing.assert_array_equal(a.action, b.action)
    core_y = make_core("yinyang")
    s = random_positions(core_y, np.arange(3), [20, 25, 30])
    o = s.copy()
    o.rng[:] = o.rng * np.uint64(3) + np.uint64(12345)
    ra = GumbelSearch(core_y, flat_network(core_y), simulations=24, seed=1).run(s)
    rb = GumbelSearch(core_y, flat_network(core_y), simulations=24, seed=1).run(o)
    assert (ra.tree.to_move == CHANCE_PLAYER).any()  # the search met chance on the way
    np.testing.assert_array_equal(ra.tree.visits, rb.tree.visits)
    np.testing.assert_array_equal(ra.policy, rb.policy)




# -- threads and parts in flight -----------------------------------------------------------------
def row_network(core):
    """A stub network whose answer for a row depends on that row alone, bit for bit (whatever the
    batch's size or order, unlike a matrix product): logits and values from each observation's
    sum, which numpy reduces row by row."""
    A, P = core.num_actions, core.num_players

    def evaluate(obs):
        total = obs.reshape(obs.shape[0], -1).astype(np.float64).sum(axis=1)
        logits = np.cos(np.outer(total, 0.37 * np.arange(1, A + 1)))
        values = np.tanh(np.outer(np.sin(total), np.linspace(1.0, -1.0, P)))
        return logits.astype(np.float32), values.astype(np.float32)
    return evaluate


@pytest.mark.parametrize("game, options, settings", [
    ("koi", {}, {}), ("yoxii", {}, {"find_wins": True}), ("yinyang", {"num_players": 3}, {}),
    ("koi", {"board_size": 9, "directions": 8, "win_fry": 14}, {"discount": 0.97}),
    ("yinyang", {"num_players": 2}, {"rollout_weight": 0.3, "find_wins": True})])
def test_search_is_the_same_on_any_number_of_threads_and_parts_in_flight(game, options, settings):
    """The tree kernels run rows (and nodes) on numba's threads, and the batch may be searched as
    parts in flight (the network evaluating one while the CPU works on another): serial, parallel
    on one thread and on two, whole or in two or three parts, give the same search, bit for bit."""
    from tests.agents.threads import TWO, assert_same_on_each
    core = make_core(game, **options)
    state = random_positions(core, np.arange(160), np.arange(160) % 7)
    state = state.take(np.flatnonzero(~state.done & (state.current_player != CHANCE_PLAYER)))
    assert state.batch_size > 2 * 64  # past the kernels' parallel threshold, in two parts too

    def search(parts):
        r = GumbelSearch(core, row_network(core), 12, seed=3, in_flight=parts, **settings).run(state)
        return r.action, r.policy, r.value
    assert_same_on_each(search, (("serial", 1, 1), ("parallel", 1, 1), ("parallel", TWO, 1), ("parallel", TWO, 2),
                                 ("serial", 1, 3)))


def test_parts_in_flight_overlap_the_network_and_the_cpu():
    """With two parts in flight, one part's network call is under way while the other part's
    search goes on: the calls come from a thread of their own, and a slow network's waits overlap."""
    import threading
    import time

    core = make_core("koi")
    state = random_positions(core, np.arange(8), np.arange(8) % 5)
    inner = row_network(core)
    callers, busy, overlaps = set(), [0], [0]

    def slow(obs):
        callers.add(threading.get_ident())
        busy[0] += 1
        overlaps[0] += busy[0] > 1
        time.sleep(0.002)
        busy[0] -= 1
        return inner(obs)
    whole = GumbelSearch(core, slow, 8, seed=1).run(state)
    assert callers == {threading.get_ident()}
    callers.clear()
    search = GumbelSearch(core, slow, 8, seed=1, in_flight=2)
    descend, during = search._descend, [0]

    def watched(*args):  # a part's simulation, counted when the network is busy with the other's
        during[0] += busy[0] > 0
        return descend(*args)
    search._descend = watched
    halves = search.run(state)
    assert callers and threading.get_ident() not in callers
    assert overlaps[0] == 0  # one network call at a time
    assert during[0] >= 4, during  # of 16 simulations (8 per part)
    np.testing.assert_array_equal(whole.policy, halves.policy)
    for bad in (0, 9, 1.5):
        with pytest.raises(ValueError, match="in_flight must be an integer from 1 to 8"):
            GumbelSearch(core, slow, in_flight=bad)


def test_the_q_transform_is_a_setting_of_the_search():
    """``qtransform`` chooses the value an unvisited root action takes: the network's value mixed with
    the visited ones (the default), or the root's own mean value.  With a network whose value differs
    from every rollout of the position, the two give different improved policies; the default is
    what a search without the setting does."""
    from yyenvs.search.settings import GumbelSettings
    core = make_core("koi", quick_start=True)
    state = random_positions(core, np.arange(6), np.full(6, 3))
    state = state.take(np.flatnonzero(~state.done))
    net = row_network(core)

    def policy(**settings):
        return GumbelSearch(core, net, 6, seed=1, max_considered=16, **settings).run(state).policy
    plain, mixed, parent = policy(), policy(qtransform="mix_value"), policy(qtransform="parent")
    assert np.array_equal(plain, mixed) and not np.array_equal(mixed, parent)
    assert np.allclose(parent.sum(1), 1.0)
    with pytest.raises(ValueError, match="qtransform must be 'mix_value' or 'parent'"):
        GumbelSettings(qtransform="min_max")
    from yyenvs.agents.az import parse_az_spec
    from yyenvs.training.config import ConfigError, load_config
    assert parse_az_spec("az:x:8:qtransform=parent")[2] == {"qtransform": "parent"}
    with pytest.raises(ValueError, match="qtransform must be 'mix_value' or 'parent', got 'nan'"):
        parse_az_spec("az:x:8:qtransform=nan")
    assert load_config("configs/az_koi.yaml", ["az.qtransform=parent"])["az"]["qtransform"] == "parent"
    with pytest.raises(ConfigError, match="az.qtransform"):
        load_config("configs/az_koi.yaml", ["az.qtransform=3"])
