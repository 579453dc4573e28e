"""MCTS scripted baseline: legality, determinism, a forced win, strength, 1/3-player games,
the tree's arrays, and chance (on the dice-race toy of ``tests/agents/chance_toy.py``)."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from tests.agents.chance_toy import FACES, FIRST_FACE, PROBS, ROLL, WALK, DiceRaceCore
from yyenvs.agents import GreedyAgent, RandomAgent, make_agent
from yyenvs.agents.mcts import MCTSAgent
from yyenvs.search.mcts import DEFAULT_SIMULATIONS
from yyenvs.core.contract import CHANCE_PLAYER
from yyenvs.games import GAMES, make_core
from yyenvs.games.yoxii.core import YoxiiCore, YoxiiState


def random_positions(core, seeds, plies, seed=0):
    """States after ``plies[i]`` random moves in row i (finished rows stay finished)."""
    state = core.init(seeds)
    rnd = RandomAgent(core, seed)
    for t in range(max(plies)):
        a = rnd.act(state, core.legal_action_mask(state))
        a[(np.asarray(plies) <= t) | state.done] = -1
        core.step(state, a)
    return state


def test_make_agent_spec():
    core = YoxiiCore()
    a = make_agent("mcts", core)
    assert isinstance(a, MCTSAgent) and a.simulations == DEFAULT_SIMULATIONS
    assert make_agent("mcts:17", core).simulations == 17
    with pytest.raises(ValueError):
        MCTSAgent(core, rollout="bogus")


def test_legal_and_done_rows():
    core = YoxiiCore()
    state = random_positions(core, np.arange(6), [0, 3, 7, 12, 40, 40])
    assert state.done[4] and state.done[5]
    mask = core.legal_action_mask(state)
    agent = MCTSAgent(core, seed=3, simulations=24)
    a = agent.act(state, mask)
    assert a.shape == (6,)
    assert np.all(a[state.done] == -1)
    live = np.flatnonzero(~state.done)
    assert np.all(mask[live, a[live]])
    core.step(state, a)  # legal: does not raise


def test_deterministic_and_batch_independent():
    core = YoxiiCore()
    state = random_positions(core, np.arange(10, 14), [0, 2, 5, 9])
    mask = core.legal_action_mask(state)
    a4 = MCTSAgent(core, seed=5, simulations=40).act(state, mask)
    again = MCTSAgent(core, seed=5, simulations=40).act(state, mask)
    np.testing.assert_array_equal(a4, again)
    for i in range(4):
        one = state.take([i])
        a1 = MCTSAgent(core, seed=5, simulations=40).act(one, mask[[i]])
        assert a1[0] == a4[i], f"row {i}: batch of 4 gave {a4[i]}, alone {a1[0]}"
    # the rows reversed: same actions, reversed
    rev = state.take([3, 2, 1, 0])
    ar = MCTSAgent(core, seed=5, simulations=40).act(rev, mask[[3, 2, 1, 0]])
    np.testing.assert_array_equal(ar, a4[::-1])


def forced_win_position() -> YoxiiState:
    """White to move; totem N (to cell 0) then a piece on cell 4 blocks Red: White wins.

    Cell 0's neighbours are 1, 3, 4, 5 (the rest is off the board).  White
    holds 1, 3, 5; the totem stands on 4.  Red has pieces far away.
    """
    core = YoxiiCore()
    s = core.init(np.array([123]))
    s.board[0] = 0
    for c in (1, 3, 5):
        s.board[0, c] = 1
    for c in (30, 31, 32):
        s.board[0, c] = -2
    s.totem[0] = 4
    s.stock[0, 0] = (2, 5, 5, 3)
    s.stock[0, 1] = (5, 2, 5, 3)
    s.ply[0] = 6
    s.current_player[0] = 0
    return s


def is_win_for_white(core, state, action) -> bool:
    child = state.copy()
    core.step(child, np.array([action]))
    return bool(child.terminated[0] and child.rewards[0, 0] > 0)


def test_forced_win_in_one():
    core = YoxiiCore()
    s = forced_win_position()
    mask = core.legal_action_mask(s)
    legal = np.flatnonzero(mask[0])
    wins = [a for a in legal if is_win_for_white(core, s, a)]
    assert len(wins) >= 1 and len(wins) < legal.size / 4  # a real choice to make
    assert core.decode(wins[0])[:2] == (0, 4)  # totem N, place on cell 4
    assert GreedyAgent(core, 0).act(s, mask)[0] in wins
    for seed in range(3):
        for sims in (8, 32):
            a = MCTSAgent(core, seed=seed, simulations=sims).act(s, mask)[0]
            assert a in wins, f"seed {seed} sims {sims}: {core.action_to_string(a)}"
    # plain UCT (uniform prior, rollouts to the end) finds it too
    a = MCTSAgent(core, seed=1, simulations=256, prior="uniform", rollout="random",
                  max_rollout_steps=None).act(s, mask)[0]
    assert a in wins
    # an immediate win is taken even when the search has barely looked at it
    for seed in range(3):
        a = MCTSAgent(core, seed=seed, simulations=2, prior="uniform").act(s, mask)[0]
        assert a in wins, f"seed {seed}, 2 simulations: {core.action_to_string(a)}"
    # the tree agrees: every visit of a winning child is worth exactly +1 to White
    # (virtual losses undone, the terminal reward backed up), and -1 to Red
    tree = MCTSAgent(core, seed=0, simulations=64, wave=8).mcts.search(s)
    sl = tree.edges(0)
    for e in range(sl.start, sl.stop):
        ch = tree.edge_child[e]
        if tree.edge_action[e] in wins and ch >= 0:
            assert tree.terminal[ch] and tree.visits[ch] >= 1
            np.testing.assert_array_equal(tree.value_sum[ch], [tree.visits[ch], -tree.visits[ch]])


def test_does_not_blunder_a_win_to_the_opponent():
    """Red to move in the mirrored position must not leave White the win if it can stop it."""
    core = YoxiiCore()
    s = forced_win_position()
    # give the move to Red: Red can block by moving the totem away from cell 4
    s.current_player[0] = 1
    s.ply[0] = 7
    s.stock[0, 1] = (5, 2, 5, 2)
    mask = core.legal_action_mask(s)
    a = MCTSAgent(core, seed=0, simulations=64).act(s, mask)
    child = s.copy()
    core.step(child, a)
    if child.done[0]:
        assert child.rewards[0, 1] >= 0
        return
    # after Red's move White must not have an immediate win
    cm = core.legal_action_mask(child)
    assert not any(is_win_for_white(core, child, w) for w in np.flatnonzero(cm[0]))


def play_match(core, agents, seeds):
    state = core.init(seeds)
    total = np.zeros((state.batch_size, core.num_players))
    while not state.done.all():
        actions = np.full(state.batch_size, -1, dtype=np.int64)
        for p, agent in enumerate(agents):
            rows = np.flatnonzero((state.current_player == p) & ~state.done)
            if rows.size:
                sub = state.take(rows)
                actions[rows] = agent.act(sub, core.legal_action_mask(sub))
        core.step(state, actions)
        total += state.rewards
    return total


def test_beats_random_on_yoxii():
    core = YoxiiCore()
    mcts = MCTSAgent(core, seed=1, simulations=64)
    rnd = RandomAgent(core, seed=2)
    wins = 0
    r = play_match(core, [mcts, rnd], np.arange(5))
    wins += int((r[:, 0] > r[:, 1]).sum())
    r = play_match(core, [rnd, mcts], np.arange(5, 10))
    wins += int((r[:, 1] > r[:, 0]).sum())
    assert wins >= 8, f"MCTS(64) won only {wins}/10 against random"


def _multi_player_cores():
    out = []
    for name in list(GAMES):
        try:
            core = make_core(name)
        except Exception:  # a core being written
            continue
        if core.num_players != 2:
            out.append(core)
        if core.spec.players[1] >= 3:
            for n in (1, 3):
                try:
                    out.append(make_core(name, num_players=n))
                except Exception:
                    pass
    return out


def test_one_and_three_player_games():
    cores = _multi_player_cores()
    if not cores:
        pytest.skip("no 1- or 3-player game available")
    for core in cores:
        state = core.init(np.arange(3))
        agent = MCTSAgent(core, seed=0, simulations=12, max_rollout_steps=6)
        moves = 0
        while moves < 12 and not state.done.all():
            mask = core.legal_action_mask(state)
            a = agent.act(state, mask)
            live = ~state.done
            assert np.all(a[~live] == -1)
            assert np.all(mask[np.flatnonzero(live), a[live]]), core
            # batch independence on a multi-player game too
            if moves == 3:
                one = agent.act(state.take([1]), mask[[1]])
                assert one[0] == a[1]
            core.step(state, a)
            moves += 1


def test_input_state_unchanged():
    """The search works on copies: the given state (and its chance stream) is untouched."""
    for name in list(GAMES):
        try:
            core = make_core(name)
        except Exception:
            continue
        state = random_positions(core, np.arange(2), [2, 3])
        before = state.copy()
        MCTSAgent(core, seed=0, simulations=8, max_rollout_steps=4).act(
            state, core.legal_action_mask(state))
        for f in before.__dataclass_fields__:
            np.testing.assert_array_equal(getattr(state, f), getattr(before, f), err_msg=f)


# --------------------------------------------------------------------------
# the tree in arrays
# --------------------------------------------------------------------------
def check_tree(core, tree, sims, wave):
    """The invariants of a finished search's :class:`SearchTree`."""
    C = tree.nodes_per_row
    assert C == sims + 1
    fields = [f.name for f in dataclasses.fields(tree.states)]
    for r, root in enumerate(tree.roots):
        count = int(tree.node_count[r])
        assert 1 < count <= C
        nodes = root + np.arange(count)
        # every node made is expanded: its edges exist (none where the game is over), and no other
        assert ((tree.num_edges[nodes] > 0) | tree.terminal[nodes]).all()
        assert not tree.num_edges[root + count:root + C].any()
        assert tree.visits[root] == sims
        assert tree.parent[root] == -1 and (tree.parent[nodes[1:]] >= root).all()
        mask = core.legal_action_mask(tree.states.take(nodes))
        for i, n in enumerate(nodes):
            sl = tree.edges(n)
            acts = tree.edge_action[sl]
            # the edges are the legal actions (outcomes at a chance node), each once
            if tree.terminal[n]:
                assert acts.size == 0
            else:
                np.testing.assert_array_equal(acts, np.flatnonzero(mask[i]))
            kids = tree.edge_child[sl]
            made = kids[kids >= 0]
            assert ((made >= root) & (made < root + count)).all()
            np.testing.assert_array_equal(tree.parent[made], n)
            np.testing.assert_array_equal(tree.action[made], acts[kids >= 0])
            seen = int(tree.visits[made].sum())
            if n == root:
                assert seen == sims
            elif tree.terminal[n]:
                assert seen == 0
            elif wave == 1:  # one visit made the node, every later one went on down
                assert seen == tree.visits[n] - 1
            else:  # later visits of its own wave stop at it
                assert seen <= tree.visits[n] - 1
        # each node's state is its parent's stepped with its action
        kids = nodes[1:]
        child = tree.states.take(tree.parent[kids])
        core.step(child, tree.action[kids])
        for f in fields:
            np.testing.assert_array_equal(getattr(child, f), getattr(tree.states, f)[kids], err_msg=f)


@pytest.mark.parametrize("wave", [1, 8])
def test_tree_arrays_are_consistent(wave):
    core = YoxiiCore()
    state = random_positions(core, np.arange(20, 23), [1, 4, 9])
    sims = 48
    agent = MCTSAgent(core, seed=2, simulations=sims, wave=wave)
    tree = agent.mcts.search(state)
    check_tree(core, tree, sims, wave)
    # the decision is the most visited root child (no immediate win in these positions)
    for r, root in enumerate(tree.roots):
        sl = tree.edges(root)
        kids = tree.edge_child[sl]
        visits = np.where(kids >= 0, tree.visits[np.maximum(kids, 0)], 0)
        assert visits.max() == visits[tree.edge_action[sl] == agent.mcts.best_actions(tree)[r]][0]


# --------------------------------------------------------------------------
# chance: the dice-race toy (explicit chance nodes; the game's own stream)
# --------------------------------------------------------------------------
def dice_positions(core, n, seed=0):
    """``n`` games in progress, each a few random turns in (sampled core)."""
    state = core.init(np.arange(100, 100 + n))
    rnd = RandomAgent(core, seed)
    for t in range(6):
        a = rnd.act(state, core.legal_action_mask(state))
        a[(np.arange(n) % 4 <= t % 4) | state.done] = -1
        core.step(state, a)
    state.pos[state.pos >= 7] = 6  # keep them in progress
    state.terminated[:] = False
    return state


def test_chance_search_runs_on_the_explicit_core():
    core = DiceRaceCore()
    agent = MCTSAgent(core, seed=0, simulations=40)
    assert agent.mcts.search_core.explicit_chance and not core.explicit_chance
    state = dice_positions(core, 6)
    tree = agent.mcts.search(state)
    check_tree(agent.mcts.search_core, tree, 40, 8)
    chance = np.flatnonzero(tree.is_chance)
    assert chance.size and (tree.to_move[chance] == CHANCE_PLAYER).all()
    for n in chance:
        sl = tree.edges(n)
        np.testing.assert_array_equal(tree.edge_action[sl], FIRST_FACE + np.arange(len(FACES)))
        np.testing.assert_allclose(tree.edge_prior[sl], PROBS, rtol=1e-6)
    a = agent.act(state, core.legal_action_mask(state))
    assert ((a == WALK) | (a == ROLL)).all()  # player actions of the sampled core only
    core.step(state, a)  # the real game goes on with the sampled core


def test_search_never_reads_the_games_stream():
    """Two games that differ only in their own random stream get the same search."""
    core = DiceRaceCore()
    state = dice_positions(core, 8)
    other = state.copy()
    other.rng[:] = other.rng * np.uint64(6364136223846793005) + np.uint64(1442695040888963407)
    agent = MCTSAgent(core, seed=4, simulations=60)
    t1, t2 = agent.mcts.search(state), agent.mcts.search(other)
    np.testing.assert_array_equal(t1.node_count, t2.node_count)
    for name in ("visits", "value_sum", "parent", "action", "is_chance"):
        np.testing.assert_array_equal(getattr(t1, name), getattr(t2, name), err_msg=name)
    mask = core.legal_action_mask(state)
    np.testing.assert_array_equal(agent.act(state, mask), agent.act(other, mask))


@pytest.mark.parametrize("game", [g for g, spec in GAMES.items() if spec.chance])
def test_search_never_reads_a_real_games_stream(game):
    """The same on each game with chance whose state keeps its stream in ``rng``."""
    core = make_core(game)
    state = random_positions(core, np.arange(3), [20, 25, 30])
    if not hasattr(state, "rng"):
        pytest.skip(f"{game} keeps no stream named rng")
    other = state.copy()
    other.rng[:] = other.rng * np.uint64(3) + np.uint64(12345)
    agent = MCTSAgent(core, seed=1, simulations=24)
    t1, t2 = agent.mcts.search(state), agent.mcts.search(other)
    assert t1.is_chance.any()  # the search met chance on the way
    for name in ("visits", "value_sum", "action"):
        np.testing.assert_array_equal(getattr(t1, name), getattr(t2, name), err_msg=name)


def test_chance_nodes_are_sampled_by_their_probabilities():
    core = DiceRaceCore()
    state = dice_positions(core, 4, seed=1)
    tree = MCTSAgent(core, seed=7, simulations=400, prior="uniform").mcts.search(state)
    counts = np.zeros(len(FACES))
    for n in np.flatnonzero(tree.is_chance):
        kids = tree.edge_child[tree.edges(n)]
        counts += np.where(kids >= 0, tree.visits[np.maximum(kids, 0)], 0)
    total = counts.sum()
    assert total > 300, counts
    expected = total * PROBS
    chi2 = ((counts - expected) ** 2 / expected).sum()
    assert chi2 < 18.4, (counts, expected)  # 2 degrees of freedom, p = 1e-4


def test_values_are_per_player_and_zero_sum_on_a_zero_sum_game():
    """Dice race is zero-sum (rewards and heuristic): so is every node's value, virtual
    losses and chance nodes included."""
    core = DiceRaceCore()
    tree = MCTSAgent(core, seed=3, simulations=64, wave=8).mcts.search(dice_positions(core, 5, seed=2))
    used = tree.visits > 0
    np.testing.assert_allclose(tree.value_sum[used, 0], -tree.value_sum[used, 1], atol=1e-3)
    assert np.abs(tree.value_sum[used]).max() > 1  # not trivially zero


def test_chance_game_deterministic_across_batches_and_finds_the_sure_win():
    core = DiceRaceCore()
    state = dice_positions(core, 5, seed=3)
    state.pos[0] = (7, 5)  # player 0 to move: walking wins at once, rolling may not
    state.current_player[0] = 0
    mask = core.legal_action_mask(state)
    agent = MCTSAgent(core, seed=5, simulations=32)
    whole = agent.act(state, mask)
    assert whole[0] == WALK
    tree = agent.mcts.search(state)
    C = tree.nodes_per_row
    for i in range(state.batch_size):
        assert MCTSAgent(core, seed=5, simulations=32).act(state.take([i]), mask[[i]])[0] == whole[i]
        # the whole tree of row i, not just its decision (node numbers are per row)
        alone = agent.mcts.search(state.take([i]))
        rows = slice(i * C, (i + 1) * C)
        for name in ("visits", "value_sum", "parent", "action", "is_chance"):
            got, want = getattr(alone, name), getattr(tree, name)[rows]
            if name in ("parent",):
                got = np.where(got >= 0, got + i * C, got)
            np.testing.assert_array_equal(got, want, err_msg=f"row {i}: {name}")
    np.testing.assert_array_equal(agent.act(state.take([4, 3, 2, 1, 0]), mask[[4, 3, 2, 1, 0]]),
                                  whole[::-1])


def test_explicit_core_given_chance_rows_refuses_them_by_name():
    core = DiceRaceCore(chance="explicit")
    state = dice_positions(DiceRaceCore(), 3)
    core.step(state, np.array([ROLL, -1, -1]))
    assert core.is_chance_node(state)[0]
    with pytest.raises(ValueError, match="mcts: row 0 waits for a chance outcome"):
        MCTSAgent(core, seed=0, simulations=16).act(state, core.legal_action_mask(state))
    rest = state.take([1, 2])  # the players' rows alone are searched
    a = MCTSAgent(core, seed=0, simulations=16).act(rest, core.legal_action_mask(rest))
    assert a[0] in (WALK, ROLL) and a[1] in (WALK, ROLL)


@pytest.mark.parametrize("game, options", [("yoxii", {}), ("yinyang", {"num_players": 3})])
def test_search_is_the_same_on_any_number_of_threads(game, options):
    """Selection and backup run each row's tree on numba's threads: serial, parallel on one thread
    and on two give the same trees, bit for bit."""
    from tests.agents.threads import assert_same_on_each
    core = make_core(game, **options)
    state = random_positions(core, np.arange(80), np.arange(80) % 5)
    state = state.take(np.flatnonzero(~state.done & (state.current_player != CHANCE_PLAYER)))
    assert state.batch_size > 64  # past the kernels' parallel threshold

    def search():
        agent = MCTSAgent(core, seed=4, simulations=24)
        tree = agent.mcts.search(state)
        return agent.mcts.best_actions(tree), tree.visits, tree.value_sum, tree.edge_child[:tree.num_used_edges]
    assert_same_on_each(search)
