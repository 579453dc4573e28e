"""Search with a policy-value network (yyenvs.agents.gumbel), its agents (az:) and its trainer.

The search is checked with plain evaluators (uniform logits, zero values) where
its answer is known, and with a random network on every game; the trainer by a
seconds-long run that checkpoints, resumes and plays its network.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from tests.chance_toy import FACES, PROBS, DiceRaceCore
from tests.test_mcts import dice_positions, forced_win_position, is_win_for_white, random_positions
from yyenvs.agents import make_agent
from yyenvs.agents.az import AZAgent, az_spec, parse_az_spec
from yyenvs.agents.gumbel import SEARCH_SETTINGS, GumbelSearch, considered_visits
from yyenvs.core.contract import CHANCE_PLAYER, OptionError
from yyenvs.games import make_core
from yyenvs.games.yoxii.core import YoxiiCore
from yyenvs.training.config import DEFAULTS, ConfigError, load_config


def flat_network(core):
    """An evaluator knowing nothing: equal logits, every value 0."""
    def evaluate(obs):
        n = obs.shape[0]
        return np.zeros((n, core.num_actions), np.float32), np.zeros((n, core.num_players), np.float32)
    return evaluate


def random_network(core, seed=0):
    import torch
    from yyenvs.agents.pvnet import make_network, network_description
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
    from yyenvs.agents.pvnet import NetworkEvaluator
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
    from yyenvs.agents.gumbel import _backup
    path = np.array([[0, 1, 2]])
    reward = np.array([[0.0, 0.0], [0.0, 0.0], [1.0, -1.0]])
    value_sum, visits = np.zeros((3, 2)), np.zeros(3, np.int32)
    # node 1 is a player's, then a chance node: the step from it into node 2 is discounted, then not
    for to_move, leaf in (([0, 1, 0], 1.0 + 0.5 * 0.25), ([0, CHANCE_PLAYER, 0], 1.0 + 0.25)):
        value_sum[:], visits[:] = 0.0, 0
        _backup(path, np.array([3]), np.array([[0.25, -0.25]]), reward, np.array(to_move, np.int8), 0.5,
                visits, value_sum)
        # node 1: no reward, then node 2's value after seat 0's step; the root: its child's value
        np.testing.assert_allclose(value_sum[:, 0], [0.5 * leaf, 0.5 * leaf, leaf])
        np.testing.assert_allclose(value_sum[:, 1], -value_sum[:, 0])
        assert visits.tolist() == [1, 1, 1]


@pytest.mark.parametrize("rollout_weight", [0.0, 0.5])
def test_same_state_same_search_in_any_batch(rollout_weight):
    core = make_core("koi")
    state = random_positions(core, np.arange(5), [1, 2, 3, 4, 5])
    net = random_network(core)
    from yyenvs.agents.pvnet import NetworkEvaluator
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
    from yyenvs.agents.rollout import Rollouts
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
    scale = search._rollout_scale
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
    from yyenvs.agents.gumbel import SymmetricEvaluator
    from yyenvs.agents.pvnet import NetworkEvaluator
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


# -- agents -------------------------------------------------------------------------------------
def test_az_spec_parsing():
    assert parse_az_spec("az:runs/x/final.safetensors:200") == ("runs/x/final.safetensors", 200, {})
    assert parse_az_spec("az:runs/x/final.safetensors") == ("runs/x/final.safetensors", None, {})
    assert parse_az_spec("az:C:/x.safetensors:8") == ("C:/x.safetensors", 8, {})
    assert parse_az_spec("az:C:/x.safetensors:8:gumbel_scale=0") == ("C:/x.safetensors", 8, {"gumbel_scale": 0.0})
    assert parse_az_spec("az:x:200:max_considered=8,c_puct=2.5") == ("x", 200,
                                                                     {"max_considered": 8, "c_puct": 2.5})
    assert parse_az_spec("az:x:200:find_wins=1") == ("x", 200, {"find_wins": True})
    assert parse_az_spec("az:x:200:rollout_weight=0.5") == ("x", 200, {"rollout_weight": 0.5})
    for spec in ("az:x:200:gumbel_scale=0.25,max_considered=8", "az:x:8:c_puct=1.23456789,value_scale=1e-07",
                 "az:x:5", "az:x", "az:x:200:find_wins=1", "az:x:200:find_wins=0",
                 "az:x:200:find_wins=1,rollout_weight=0.5", "az:x:200:rollout_weight=1",
                 "az:x:200:average_symmetries=1"):
        assert az_spec(*parse_az_spec(spec)) == spec  # the written form reads back the same
    for bad in ("az:", "az::5", "az:x:0", "az:x:100001"):
        with pytest.raises(OptionError, match="az"):
            parse_az_spec(bad)
    for bad, named in (("az:x:8:gumbel=0", "unknown search option 'gumbel'"),
                       ("az:x:8:gumbel_scale=nan", "gumbel_scale must be a finite number"),
                       ("az:x:8:gumbel_scale=inf", "gumbel_scale must be"),
                       ("az:x:8:c_puct=-1", "c_puct must be"),
                       ("az:x:8:c_puct=", "c_puct must be"),
                       ("az:x:8:max_considered=0", "max_considered must be an integer from 1"),
                       ("az:x:8:max_considered=2.5", "max_considered must be"),
                       ("az:x:8:max_considered=99999", "max_considered must be"),
                       ("az:x:8:c_puct=1,c_puct=2", "given twice"),
                       ("az:x:8:find_wins=2", "find_wins must be 0 or 1"),
                       ("az:x:8:find_wins=true", "find_wins must be 0 or 1"),
                       ("az:x:8:rollout_weight=1.5", "rollout_weight must be a number from 0 to 1"),
                       ("az:x:8:rollout_weight=nan", "rollout_weight must be"),
                       ("az:x:8:rollout_weight=-0.5", "rollout_weight must be"),
                       ("az:x:gumbel_scale=0", "need a number of simulations")):
        with pytest.raises(OptionError, match=named):
            parse_az_spec(bad)


@pytest.mark.parametrize("name", [k for k, (kind, _, _) in SEARCH_SETTINGS.items() if kind is not bool])
def test_search_settings_have_one_range_for_search_specs_and_configs(name):
    """A search setting's bounds are accepted, and a value just past them refused, alike by
    GumbelSearch, by ``az:`` specs and (for the settings a config has) by training configs."""
    kind, low, high = SEARCH_SETTINGS[name]
    core = make_core("koi", board_size=7, directions=4)
    net = flat_network(core)
    in_config = name in DEFAULTS["az"]
    inside = [low] + ([high] if math.isfinite(high) else [1e6])
    outside = [low - 1 if kind is int else low - 1e-3, float("nan"), "1", True, None]
    outside.append(high + 1 if kind is int else high + 1e-3 if math.isfinite(high) else math.inf)
    for v in inside:
        GumbelSearch(core, net, **{name: v})
        assert parse_az_spec(f"az:x:8:{name}={v!r}")[2] == {name: v}
        if in_config:
            assert load_config("configs/az_koi.yaml", [f"az.{name}={v!r}"])["az"][name] == v
    for v in outside:
        with pytest.raises(ValueError, match=f"{name} must be"):
            GumbelSearch(core, net, **{name: v})
        if not isinstance(v, (float, int)) or isinstance(v, bool):
            continue  # Python values a spec or config cannot spell
        with pytest.raises(OptionError, match=f"{name} must be"):
            parse_az_spec(f"az:x:8:{name}={v!r}")
        if in_config:
            with pytest.raises(ConfigError, match=f"az.{name}"):
                load_config("configs/az_koi.yaml", [f"az.{name}={v!r}"])


def test_az_spec_search_options_reach_the_search(tmp_path):
    """``az:<checkpoint>:<n>:gumbel_scale=0`` searches without root noise: the same moves from
    any agent seed, where the noisy search's moves change with it."""
    from yyenvs.agents.checkpoint import game_metadata, policy_tensors, write_checkpoint
    from yyenvs.agents.pvnet import network_description
    core = make_core("koi", board_size=7, directions=4)
    meta = {"kind": "final", **game_metadata(core), "policy": network_description(core, (32,)),
            "num_timesteps": 0, "algo": "GumbelAZ"}
    write_checkpoint(tmp_path / "net", policy_tensors(random_network(core)), meta)
    path = tmp_path / "net.safetensors"
    state = random_positions(core, np.arange(32), [3] * 32)
    mask = core.legal_action_mask(state)

    def moves(spec, seed):
        return make_agent(spec, core, seed).act(state, mask)

    quiet = make_agent(f"az:{path}:8:gumbel_scale=0,max_considered=4", core)
    assert quiet.search.gumbel_scale == 0 and quiet.search.max_considered == 4
    assert quiet.name == "net:8:gumbel_scale=0,max_considered=4"
    assert make_agent(f"az:{path}:8:rollout_weight=0.5", core).search.rollout_weight == 0.5
    np.testing.assert_array_equal(moves(f"az:{path}:8:gumbel_scale=0", 1), moves(f"az:{path}:8:gumbel_scale=0", 2))
    assert (moves(f"az:{path}:8", 1) != moves(f"az:{path}:8", 2)).any()


def test_eval_sample_reaches_every_policy_played_without_search(tmp_path):
    """``yyenvs eval --sample`` (``make_entrants(..., deterministic=False)``) makes the shipped
    policy, a PPO checkpoint and a search network played alone (as a path or ``az:<checkpoint>``)
    draw their moves: over copies of one position they play several moves, where without it each
    plays one.  A search agent's spec is unchanged by it."""
    from yyenvs.training.evaluate import make_entrants
    from yyenvs.agents import pretrained_path
    from yyenvs.agents.checkpoint import game_metadata, policy_tensors, write_checkpoint
    from yyenvs.agents.pvnet import network_description
    core = make_core("koi", board_size=9, directions=8, win_fry=14)
    meta = {"kind": "final", **game_metadata(core), "policy": network_description(core, (32,)),
            "num_timesteps": 0, "algo": "GumbelAZ"}
    write_checkpoint(tmp_path / "net", policy_tensors(random_network(core)), meta)
    net = str(tmp_path / "net.safetensors")
    state = random_positions(core, np.array([7]), [11]).take(np.zeros(256, np.int64))  # swimming
    state.seed[:] = np.arange(256)  # one position, in 256 games that draw their own random numbers
    mask = core.legal_action_mask(state)
    specs = ["pretrained", pretrained_path(core), net, f"az:{net}"]
    for deterministic in (True, False):
        for entrant in make_entrants(specs, core, seed=1, deterministic=deterministic):
            moves = entrant.agent.act(state, mask)
            assert mask[np.arange(256), moves].all()
            assert (np.unique(moves).size == 1) == deterministic, (entrant.name, deterministic)
    searched = make_entrants([f"az:{net}:4"], core, deterministic=False)[0].agent
    assert searched.simulations == 4 and not searched.sample


def test_agent_plays_legal_moves_with_and_without_search():
    core = make_core("yinyang")
    net = random_network(core)
    state = random_positions(core, np.arange(4), [0, 3, 6, 40])
    mask = core.legal_action_mask(state)
    for sims in (None, 6):
        a = AZAgent(core, net, seed=1, simulations=sims).act(state, mask)
        live = ~state.done
        assert mask[np.flatnonzero(live), a[live]].all()
        assert (a[~live] == -1).all()
    explicit = core.with_options(chance="explicit")
    s = explicit.init(np.arange(8))
    while not (s.current_player == CHANCE_PLAYER).any():
        m = explicit.legal_action_mask(s)
        explicit.step(s, np.argmax(m, axis=1))
    agent = AZAgent(explicit, random_network(explicit), simulations=4)
    with pytest.raises(ValueError, match="az: row .* waits for a chance outcome"):  # the caller draws chance
        agent.act(s, explicit.legal_action_mask(s))
    players = s.take(np.flatnonzero(s.current_player != CHANCE_PLAYER))
    a = agent.act(players, explicit.legal_action_mask(players))
    assert explicit.legal_action_mask(players)[np.arange(players.batch_size), a].all()


def test_network_alone_draws_its_moves_by_its_policy():
    """AZAgent(sample=True): legal moves spread by the policy's weights, the same at any batch size."""
    import torch
    core = make_core("koi", board_size=7, directions=4)
    net = random_network(core)
    with torch.no_grad():  # a policy of known weights: logit 0 for action 3, log(3) for 5, the rest far below
        for p in net.parameters():
            p.zero_()
        net.head.bias[:core.num_actions] = -30.0  # the head: the policy's logits, then the values
        net.head.bias[3], net.head.bias[5] = 0.0, float(np.log(3.0))
    state = core.init(np.arange(2000))
    mask = core.legal_action_mask(state)
    assert mask[:, [3, 5]].all()  # every cell is free at the start
    a = AZAgent(core, net, seed=4, sample=True).act(state, mask)
    assert set(np.unique(a)) == {3, 5} and abs((a == 5).mean() - 0.75) < 0.04
    np.testing.assert_array_equal(AZAgent(core, net, seed=4, sample=True).act(state.take(np.arange(9)), mask[:9]),
                                  a[:9])
    assert (AZAgent(core, net, seed=5, sample=True).act(state, mask) != a).any()  # the seed matters
    np.testing.assert_array_equal(AZAgent(core, net, seed=4).act(state, mask), 5)  # the most probable
    mask[:, 5] = False  # never an illegal move, however likely
    assert (AZAgent(core, net, seed=4, sample=True).act(state, mask) == 3).all()
    with pytest.raises(ValueError, match="network alone"):
        AZAgent(core, net, simulations=8, sample=True)


# -- the trainer ----------------------------------------------------------------------------------
TINY = {  # per game: options, games at once, moves in all (enough for games to finish)
    "koi": ({"board_size": 7, "directions": 4}, 16, 400),
    "yoxii": ({}, 16, 400),
    "yinyang": ({"num_players": 2}, 2, 1200),
}


def tiny_config(run_dir, game="koi", **extra):
    from yyenvs.training.config import load_config
    options, games, moves = TINY[game]
    overrides = {"algo": "az", "game": game, "game_options": options, "run_dir": str(run_dir),
                 "num_envs": games, "total_timesteps": moves, "torch_threads": 1,
                 "az.simulations": 4, "az.max_considered": 4, "az.hidden": [16], "az.min_replay": 32,
                 "az.batch_size": 32, "az.eval_simulations": 2, "selfplay.snapshot_every": moves // 2,
                 "checkpoint.every": moves // 2, "eval.every": 0, "eval.final_games": 4, "eval.table_games": 2,
                 "eval.table_snapshots": 2, "log.progress": False, "log.tensorboard": False, **extra}
    return load_config(None, list(overrides.items()))


@pytest.mark.parametrize("game", list(TINY))
def test_trainer_machinery(tmp_path, game):
    """A seconds-long run: games finish, targets are distributions and results, the network learns."""
    from yyenvs.training.az import AZTrainer
    t = AZTrainer(tiny_config(tmp_path / "run", game), log=lambda m: None)
    try:
        info = t.train()
        assert info["steps"] >= TINY[game][2] and t.games_finished > 0 and t.replay.size > 0
        n = t.replay.size
        policy = t.replay.policy[:n].astype(np.float64)
        np.testing.assert_allclose(policy.sum(axis=1), 1.0, atol=2e-3)
        assert not policy[~t.replay.mask[:n]].any()  # only legal actions
        lo, hi = t.core.reward_range
        v = t.replay.value[:n]
        assert (v >= lo).all() and (v <= hi).all()
        assert set(np.unique(v)) <= {-1.0, 0.0, 1.0}  # win / loss rewards: results from the mover's seat
        assert t.n_updates > 0
        for name in ("checkpoints", "snapshots"):
            assert list((tmp_path / "run" / name).glob("*.safetensors")), name
        assert (tmp_path / "run" / "final.safetensors").exists()
    finally:
        t.close()


def test_trainer_searches_with_find_wins(tmp_path):
    """``az.find_wins`` reaches the self-play search, the quick evaluation and the final entrant,
    with the other search settings that differ from an agent's defaults."""
    from yyenvs.training.az import AZTrainer
    t = AZTrainer(tiny_config(tmp_path / "run", "yoxii", **{"az.find_wins": True, "az.c_puct": 2.0}),
                  log=lambda m: None)
    try:
        t.train()
        assert t.search.find_wins
        n = t.replay.size
        np.testing.assert_allclose(t.replay.policy[:n].astype(np.float64).sum(axis=1), 1.0, atol=2e-3)
        assert not t.replay.policy[:n][~t.replay.mask[:n]].any()
        assert t.final_entrant("f.safetensors") == "az:f.safetensors:2:max_considered=4,c_puct=2,find_wins=1"
        assert t.search.c_puct == 2.0
    finally:
        t.close()
    with pytest.raises(ConfigError, match="find_wins"):
        tiny_config(tmp_path / "bad", "yoxii", **{"az.find_wins": 1})


def test_trainer_plays_a_share_of_games_against_the_baselines(tmp_path):
    """With selfplay.baseline_share, one seat of those games is the baseline's: played by it, not recorded."""
    from yyenvs.training.az import AZTrainer
    from yyenvs.training.selfplay import SelfPlay
    t = AZTrainer(tiny_config(tmp_path / "run", **{"selfplay.baseline_share": 0.5,
                                                   "selfplay.baselines": ["random", "greedy"]}),
                  log=lambda m: None)
    try:
        assert [a.name for a in t.baselines] == ["random", "greedy"]
        # 16 slots: 8 play baselines (random in even slots, greedy in odd), seats alternating per game
        selfplay = SelfPlay(t.core, t.search, 16, 0, 0, t.baselines, 0.5)
        seats = selfplay.baseline_seats(np.zeros(16, np.int64))
        np.testing.assert_array_equal(seats, [0, 0, 1, 1, 0, 0, 1, 1] + [-1] * 8)
        np.testing.assert_array_equal(selfplay.baseline_seats(np.arange(16))[:4], [0, 1, 1, 0])
        played = {"search": 0, "baseline": 0}
        run, act = t.search.run, t.baselines[1].act

        def searched(state):
            played["search"] += state.batch_size
            return run(state)

        def by_greedy(state, mask):
            played["baseline"] += state.batch_size
            assert mask.sum(axis=1).min() > 1  # forced moves are played without asking
            return act(state, mask)
        t.search.run, t.baselines[1].act = searched, by_greedy
        t.train()
        assert played["baseline"] > 0 and played["search"] > 0
        assert t.samples_played == played["search"]  # only the network's positions are recorded
    finally:
        t.close()
    with pytest.raises(ConfigError, match="one player"):
        AZTrainer(tiny_config(tmp_path / "solo", "yinyang", game_options={"num_players": 1},
                              **{"selfplay.baseline_share": 0.5}), log=lambda m: None)


def test_trainer_plays_the_networks_own_prior_as_a_baseline(tmp_path):
    """selfplay.baselines=[prior]: that seat is the network being trained, unsearched, drawing its moves."""
    from yyenvs.training.az import AZTrainer
    t = AZTrainer(tiny_config(tmp_path / "run", **{"selfplay.baseline_share": 0.5, "selfplay.baselines": ["prior"]}),
                  log=lambda m: None)
    try:
        (prior,) = t.baselines
        assert isinstance(prior, AZAgent) and prior.net is t.net and prior.sample and prior.search is None
        played = {"search": 0, "prior": 0}
        run, act = t.search.run, prior.act

        def searched(state):
            played["search"] += state.batch_size
            return run(state)

        def by_prior(state, mask):
            played["prior"] += state.batch_size
            return act(state, mask)
        t.search.run, prior.act = searched, by_prior
        t.train()
        assert played["prior"] > 0 and t.samples_played == played["search"]  # the prior's seat is not recorded
    finally:
        t.close()
    from yyenvs.training.config import load_config
    run_dir = f"run_dir={tmp_path / 'cfg'}"
    with pytest.raises(ConfigError, match="'prior'.*--algo az only"):
        load_config(None, [run_dir, "selfplay.baselines=[prior]"])  # PPO, the default algo
    with pytest.raises(ConfigError, match="eval.opponents"):
        load_config(None, [run_dir, "algo=az", "eval.opponents=[prior]"])


def test_value_targets_are_returns_from_the_movers_seat():
    from yyenvs.training.selfplay import PendingGames
    pg = PendingGames(2, (1,), 3, 3, max_length=10)
    zero = np.zeros((1, 3))
    searched = ([0.5, 0, -0.5], [0, 0.25, 0], [-1, 1, 0])  # the search's values, absolute seats

    def play():
        for (mover, before), q in zip(((0, [0, 0, 0]), (2, [1.0, 0, 0]), (1, [1.0, 0, -0.5])), searched):
            pg.record(np.array([1]), np.zeros((1, 1)), np.ones((1, 3), bool), np.full((1, 3), 1 / 3),
                      np.array([mover]), np.array([before]) + zero, np.array([q]) + zero, np.array([0]))
    play()
    obs, mask, policy, value = pg.finish(1, np.array([2.0, -1.0, -0.5]))
    # returns from each position on, seat by seat: [2, -1, -.5], [1, -1, -.5], [1, -1, 0]; rotated to the mover
    outcome = np.array([[2, -1, -0.5], [-0.5, 1, -1], [-1, 0, 1]])
    np.testing.assert_allclose(value, outcome)
    assert pg.length[1] == 0 and obs.shape == (3, 1)
    # az.q_weight w: (1 - w) x the return + w x the search's value, both from the mover's seat
    play()
    mixed = pg.finish(1, np.array([2.0, -1.0, -0.5]), q_weight=0.25)[3]
    q_from_mover = np.array([[0.5, 0, -0.5], [0, 0, 0.25], [1, 0, -1]])
    np.testing.assert_allclose(mixed, 0.75 * outcome + 0.25 * q_from_mover)


def test_value_targets_are_discounted_per_step_to_the_games_end():
    from yyenvs.training.selfplay import PendingGames
    pg = PendingGames(1, (1,), 3, 2, max_length=10)
    for mover, step in ((0, 0), (1, 1), (1, 3)):  # step 2 was not recorded (a forced move, say)
        pg.record(np.array([0]), np.zeros((1, 1)), np.ones((1, 3), bool), np.full((1, 3), 1 / 3),
                  np.array([mover]), np.zeros((1, 2)), np.zeros((1, 2)), np.array([step]))
    value = pg.finish(0, np.array([1.0, -1.0]), steps=5, discount=0.9)[3]
    # seat 0 wins with the fifth step: 4, 3 and 1 steps after the positions' own
    np.testing.assert_allclose(value[:, 0], [0.9 ** 4, -0.9 ** 3, -0.9 ** 1], rtol=1e-6)
    np.testing.assert_allclose(value[:, 1], -value[:, 0])


def test_trainer_with_a_discount_records_it_for_its_agents(tmp_path):
    """az.discount: discounted targets, the network's description keeps it, its agents search with it."""
    from yyenvs.training.az import AZTrainer
    from yyenvs.agents.checkpoint import CheckpointError, read_checkpoint, write_checkpoint
    t = AZTrainer(tiny_config(tmp_path / "run", **{"az.discount": 0.9}), log=lambda m: None)
    try:
        t.train()
        v = np.abs(t.replay.value[:t.replay.size, 0])
        assert t.replay.size > 0 and v.max() <= 1.0 and (v < 0.9 ** 2).any()
        k = np.log(v[v > 0]) / np.log(0.9)  # each target is +-0.9 to a whole number of steps
        np.testing.assert_allclose(k, np.round(k), atol=1e-3)
        assert t.search.discount == 0.9
    finally:
        t.close()
    core = t.core
    final = str(tmp_path / "run" / "final.safetensors")
    meta, tensors = read_checkpoint(final, core)
    assert meta["policy"]["discount"] == 0.9
    assert make_agent(f"az:{final}:3", core).search.discount == 0.9
    assert make_agent(f"az:{final}:3:discount=1", core).search.discount == 1.0
    meta.pop("path", None)
    meta.pop("tensors_sha256", None)
    meta.pop("format", None)
    for bad in (1.5, None, "0.9", True):
        with pytest.raises(CheckpointError, match="discount"):
            write_checkpoint(tmp_path / "bad", tensors, {**meta, "policy": {**meta["policy"], "discount": bad}})
            make_agent(f"az:{tmp_path / 'bad.safetensors'}:3", core)


def test_cosine_learning_rate_schedule(tmp_path):
    """az.lr_schedule=cosine: from learning_rate down to lr_final x it over the run's budget."""
    from yyenvs.training.az import AZTrainer, cosine_rate
    assert cosine_rate(1e-3, 0.1, 0.0) == pytest.approx(1e-3)
    assert cosine_rate(1e-3, 0.1, 0.5) == pytest.approx(0.55e-3)
    assert cosine_rate(1e-3, 0.1, 1.0) == pytest.approx(1e-4) == cosine_rate(1e-3, 0.1, 3.0)
    rates = []
    t = AZTrainer(tiny_config(tmp_path / "run", **{"az.lr_schedule": "cosine", "az.lr_final": 0.2}),
                  log=lambda m: None)
    try:
        step = t.train_step
        t.train_step = lambda: (rates.append(t.opt.param_groups[0]["lr"]), step())[1]
        t.train()
        lr = t.az["learning_rate"]
        # training starts once games have finished; by the last of the run's moves the rate is near the end's
        assert rates and rates[0] <= lr and 0.2 * lr <= min(rates) < 0.3 * lr
        assert all(a >= b for a, b in zip(rates, rates[1:])) and rates[0] > rates[-1]  # only ever down
    finally:
        t.close()


def test_trainer_mixes_the_searchs_values_into_its_targets(tmp_path):
    """az.q_weight: the value targets are no longer results only, and stay in the reward range."""
    from yyenvs.training.az import AZTrainer
    t = AZTrainer(tiny_config(tmp_path / "run", **{"az.q_weight": 0.5}), log=lambda m: None)
    try:
        t.train()
        v = t.replay.value[:t.replay.size]
        assert t.replay.size > 0 and np.abs(v).max() <= 1.0
        assert not np.isin(v[:, 0], [-1.0, 0.0, 1.0]).all()
    finally:
        t.close()


def test_trainer_resumes_and_its_network_plays(tmp_path):
    from yyenvs.training.az import AZTrainer
    t = AZTrainer(tiny_config(tmp_path / "run"), log=lambda m: None)
    try:
        info = t.train()
        result = t.final_evaluation(print_fn=lambda *a: None)
        assert result is not None and any(r["player"] == "final" for r in result["table"])
    finally:
        t.close()
    t2 = AZTrainer(tiny_config(tmp_path / "run", total_timesteps=800), log=lambda m: None)
    try:  # the step count goes on from the checkpoint
        assert t2.num_timesteps == info["steps"] and t2.resumed_from is not None
        assert t2.n_updates == t.n_updates
        assert t2.train()["steps"] >= 800
    finally:
        t2.close()
    core = make_core("koi", board_size=7, directions=4)
    final = str(tmp_path / "run" / "final.safetensors")
    for spec in (f"az:{final}:3", f"az:{final}", final):
        agent = make_agent(spec, core, seed=0)
        assert isinstance(agent, AZAgent)
        state = core.init(np.arange(3))
        mask = core.legal_action_mask(state)
        assert mask[np.arange(3), agent.act(state, mask)].all()
    assert make_agent(f"az:{final}:3", core).simulations == 3
    assert make_agent(final, core).simulations is None
    # export keeps the whole network (the search needs its values), in float16
    from yyenvs.training.checkpoint_command import export, info
    assert "policy-value network" in info(final)
    export(final, str(tmp_path / "small"))
    small = make_agent(f"az:{tmp_path / 'small.safetensors'}:3", core)
    state = core.init(np.arange(3))
    mask = core.legal_action_mask(state)
    assert mask[np.arange(3), small.act(state, mask)].all()
    with pytest.raises(OptionError, match="other options"):
        make_agent(f"az:{final}:3", make_core("koi", board_size=9))


def test_az_spec_refuses_what_is_not_a_search_network(tmp_path):
    core = make_core("koi", board_size=7, directions=4)
    with pytest.raises(OptionError, match="does not exist"):
        make_agent(f"az:{tmp_path}/missing.safetensors:4", core)
    with pytest.raises(OptionError, match="az"):
        make_agent("az:", core)


def test_search_checkpoints_are_checked_like_every_checkpoint(tmp_path):
    """A file holding NaN weights, or a description far larger than its tensors, is refused by name."""
    import torch
    from yyenvs.agents.checkpoint import CheckpointError, game_metadata, policy_tensors, write_checkpoint
    from yyenvs.agents.pvnet import network_description
    core = make_core("koi", board_size=7, directions=4)
    net = random_network(core)
    desc = network_description(core, (32,))
    meta = {"kind": "final", **game_metadata(core), "policy": desc, "num_timesteps": 0, "algo": "GumbelAZ"}
    tensors = policy_tensors(net)
    write_checkpoint(tmp_path / "good", tensors, meta)
    assert isinstance(make_agent(f"az:{tmp_path / 'good.safetensors'}:2", core), AZAgent)
    bad = dict(tensors)
    bad["policy/head.bias"] = torch.full_like(bad["policy/head.bias"], float("nan"))
    write_checkpoint(tmp_path / "nan", bad, meta)
    with pytest.raises(CheckpointError, match="head.bias.*NaN"):
        make_agent(f"az:{tmp_path / 'nan.safetensors'}:2", core)
    write_checkpoint(tmp_path / "huge", tensors, {**meta, "policy": {**desc, "hidden": [65536, 65536]}})
    with pytest.raises(CheckpointError, match="needs .* parameters"):
        make_agent(f"az:{tmp_path / 'huge.safetensors'}", core)


def test_convolutions_wrap_where_the_board_wraps(tmp_path):
    """Koi's pond is a torus: its tower pads circularly, so turning the pond's rows and columns
    round turns the feature maps alike; Yoxii's board pads with zeros.  A description without
    ``padding`` (older checkpoints) means zeros; an unknown one is refused by name."""
    import torch
    from yyenvs.agents.checkpoint import CheckpointError, game_metadata, policy_tensors, write_checkpoint
    from yyenvs.agents.pvnet import make_network, network_description
    from yyenvs.core.errors import NetworkError
    koi, yoxii = make_core("koi", board_size=7, directions=4), YoxiiCore()
    assert network_description(koi, (8,), 4, 1)["padding"] == "circular"
    assert network_description(yoxii, (8,), 4, 1)["padding"] == "zeros"
    torch.manual_seed(0)
    x = torch.rand(2, *koi.observation_shape)
    for core, wraps in ((koi, True), (make_core("koi", board_size=7, directions=4), False)):
        desc = network_description(core, (8,), 4, 2)
        if not wraps:
            desc = {k: v for k, v in desc.items() if k != "padding"}
        tower = make_network(core, desc).tower
        with torch.no_grad():
            a = tower(x.roll((2, 3), (1, 2)).permute(0, 3, 1, 2))
            b = tower(x.permute(0, 3, 1, 2)).roll((2, 3), (2, 3))
        assert torch.allclose(a, b, atol=1e-5) == wraps
    with pytest.raises(NetworkError, match="padding must be one of"):
        make_network(koi, {**network_description(koi, (8,), 4, 1), "padding": "reflect"})
    desc = network_description(koi, (8,), 4, 1)
    meta = {"kind": "final", **game_metadata(koi), "policy": {**desc, "padding": "mirror"}, "num_timesteps": 0,
            "algo": "GumbelAZ"}
    with pytest.raises(CheckpointError, match="'policy.padding': expected one of"):  # what reading checks too
        write_checkpoint(tmp_path / "bad", policy_tensors(make_network(koi, desc)), meta)


def test_sampled_opening_moves_follow_the_improved_policy():
    """az.sample_plies: moves drawn from the policy target, legal, reproducible, spread by its weights."""
    from yyenvs.training.selfplay import sample_policy
    policy = np.zeros((4000, 5))
    policy[:, 1], policy[:, 3] = 0.25, 0.75
    seeds = np.arange(4000, dtype=np.uint64)
    picks = sample_policy(policy, seeds, np.zeros(4000, np.int64))
    assert set(np.unique(picks)) == {1, 3} and abs((picks == 3).mean() - 0.75) < 0.03
    again = sample_policy(policy[:7], seeds[:7], np.zeros(7, np.int64))
    np.testing.assert_array_equal(again, picks[:7])  # the same draw at any batch size
    other_ply = sample_policy(policy, seeds, np.ones(4000, np.int64))
    assert (other_ply != picks).any()


def test_trainer_with_sampled_openings_records_valid_targets(tmp_path, monkeypatch):
    import yyenvs.training.az as az
    import yyenvs.training.selfplay as selfplay
    plies = []

    def counting(policy, seeds, ply):
        plies.extend(ply.tolist())
        return sample(policy, seeds, ply)
    sample = selfplay.sample_policy
    monkeypatch.setattr(selfplay, "sample_policy", counting)
    t = az.AZTrainer(tiny_config(tmp_path / "run", **{"az.sample_plies": 6}), log=lambda m: None)
    try:
        t.train()
        n = t.replay.size
        assert n > 0 and not t.replay.policy[:n][~t.replay.mask[:n]].any()
        assert plies and max(plies) < 6  # the opening moves only, and they were sampled
    finally:
        t.close()


def test_score_margins_rank_lost_games_and_blend_into_value_targets(tmp_path):
    """az.score_weight: a close loss gets a higher target than a heavy one; targets stay in [-1, 1]."""
    import yyenvs.training.az as az
    from yyenvs.games import make_core
    core = make_core("koi")
    st = core.init(np.zeros(3, np.uint64))
    st.fry[:] = [[14, 13], [14, 2], [5, 14]]
    from yyenvs.training.selfplay import score_margins
    m = score_margins(core, st)
    np.testing.assert_allclose(m, [[1 / 27, -1 / 27], [12 / 16, -12 / 16], [-9 / 19, 9 / 19]])
    t = az.AZTrainer(tiny_config(tmp_path / "run", **{"az.score_weight": 0.5}), log=lambda m: None)
    try:
        t.train()
        v = t.replay.value[:t.replay.size]
        assert t.replay.size > 0 and np.abs(v).max() <= 1.0
        assert not np.isin(np.abs(v[:, 0]), [0.0, 1.0]).all()  # graded, not only the outcome
    finally:
        t.close()
    with pytest.raises(ConfigError, match="no scores to compare"):
        az.AZTrainer(tiny_config(tmp_path / "solo", "yinyang", game_options={"num_players": 1},
                                 **{"az.score_weight": 0.5}), log=lambda m: None)
