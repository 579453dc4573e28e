"""The exhaustive search for exact results (yyenvs.search.solver) and the search option that uses it.

The batched, level-by-level proof with its pruning is checked against a plain
recursive reading of the same rules, one position at a time.
"""
from __future__ import annotations

import numpy as np
import pytest

import yyenvs.search.plugins as plugins
import yyenvs.search.solver as solver
from tests.agents.chance_toy import DiceRaceCore
from yyenvs.agents import make_agent
from yyenvs.search.gumbel import GumbelSearch
from yyenvs.search.solver import prove
from yyenvs.core.contract import CHANCE_PLAYER
from yyenvs.games import game_spec, make_core

# positions chosen on the 9 x 9, 8-direction pond (Koi-v0's defaults)
KOI_V0 = game_spec("koi").earlier_defaults[0]


def reference(core, s, depth):
    """(known, result per seat, plies) of single-row state ``s`` by the solver's rules, recursively."""
    P, top = core.num_players, core.reward_range[1]
    if s.done[0]:
        return True, np.zeros(P), 0
    if depth == 0 or s.current_player[0] == CHANCE_PLAYER:
        return False, None, None
    m = int(s.current_player[0])
    best = win = None
    all_known = True
    for a in np.flatnonzero(core.legal_action_mask(s)[0]):
        child = s.take([0])
        core.step(child, np.array([a]))
        known, result, plies = reference(core, child, depth - 1)
        if not known:
            all_known = False
            continue
        line = (child.rewards[0].astype(np.float64) + result, plies + 1)
        if line[0][m] >= top and (win is None or line[1] < win[1]):
            win = line
        if best is None or _better(line, best, m, top):
            best = line
    pick = win if win is not None else (best if all_known else None)
    return (False, None, None) if pick is None else (True, pick[0], pick[1])


def _better(a, b, m, top):
    if a[0][m] != b[0][m]:
        return a[0][m] > b[0][m]
    return a[1] < b[1] if a[0][m] >= top else a[1] > b[1]


def greedy_positions(core, n, plies, seed=0):
    """``n`` positions of greedy self-play after ``plies`` moves, games still in progress."""
    state = core.init(np.arange(300, 300 + n, dtype=np.uint64))
    greedy = make_agent("greedy", core, seed=seed)
    for _ in range(plies):
        a = greedy(state, core.legal_action_mask(state))
        a[state.done] = -1
        core.step(state, a)
    return state.take(np.flatnonzero(~state.done))


@pytest.mark.parametrize("game,options,plies,depth", [("koi", KOI_V0, 12, 3),
                                                      ("koi", {**KOI_V0, "directions": 4}, 12, 3),
                                                      ("koi", KOI_V0, 13, 4),
                                                      ("yoxii", {}, 18, 2)])
def test_proof_agrees_with_a_plain_recursive_search(game, options, plies, depth):
    core = make_core(game, **options)
    n = 8 if depth < 4 else 4  # the reference steps one position at a time
    roots = greedy_positions(core, n, plies)
    assert roots.batch_size >= n // 2
    proof = prove(core, roots, budget=10**7, depth=depth)
    np.testing.assert_array_equal(proof.legal, core.legal_action_mask(roots))
    P = core.num_players
    seen_known = seen_unknown = 0
    for r in range(roots.batch_size):
        s = roots.take([r])
        m = int(s.current_player[0])
        legal = np.flatnonzero(core.legal_action_mask(s)[0])
        assert not proof.known[r][~core.legal_action_mask(s)[0]].any()  # illegal actions are never known
        root_won = any(proof.known[r, a] and proof.result[r, a, m] >= core.reward_range[1] for a in legal)
        for a in legal:
            child = s.take([0])
            core.step(child, np.array([a]))
            known, result, plies_ = reference(core, child, depth - 1)
            if proof.known[r, a]:
                assert known, (r, a)
                np.testing.assert_array_equal(proof.result[r, a], child.rewards[0] + result)
                assert proof.plies[r, a] == plies_ + 1
                seen_known += 1
            else:  # unknown only where the reference knows nothing or a win already settles the root
                assert not known or root_won, (r, a)
                seen_unknown += 1
        assert proof.result.shape == (roots.batch_size, core.legal_action_mask(s).shape[1], P)
        known, result, plies_ = reference(core, s, depth)  # the root's own result
        assert proof.root_known[r] == known
        if known:
            np.testing.assert_array_equal(proof.root_result[r], result)
            assert proof.root_plies[r] == plies_
    assert seen_known and seen_unknown  # the positions exercise both


def test_proof_is_the_same_in_any_batch_and_any_chunk(monkeypatch):
    core = make_core("koi", **KOI_V0)
    roots = greedy_positions(core, 8, 13)
    whole = prove(core, roots, budget=5000)
    assert whole.known.any() and (whole.stepped <= 5000).all() and whole.stepped.max() > 0
    monkeypatch.setattr(solver, "CHUNK_POSITIONS", 5000 * 3)  # three roots per chunk
    chunked = prove(core, roots, budget=5000)
    for r in range(roots.batch_size):
        alone = prove(core, roots.take([r]), budget=5000)
        for name in ("known", "result", "plies", "stepped"):
            np.testing.assert_array_equal(getattr(alone, name)[0], getattr(whole, name)[r])
            np.testing.assert_array_equal(getattr(chunked, name)[r], getattr(whole, name)[r])


def test_budget_bounds_the_positions_stepped():
    core = make_core("koi", **KOI_V0)
    roots = greedy_positions(core, 8, 12)
    legal = core.legal_action_mask(roots).sum(axis=1)
    assert not prove(core, roots, budget=0).known.any()
    small = prove(core, roots, budget=int(legal.max()))  # one move deep: the roots' own moves
    np.testing.assert_array_equal(small.stepped, legal)
    for budget in (100, 2000, 30000):
        assert (prove(core, roots, budget=budget).stepped <= budget).all()
    for bad in (-1, 1.5, None, True, float("inf")):
        with pytest.raises(ValueError, match="budget must be an integer"):
            prove(core, roots, budget=bad)
    for bad in (-1, 2.5, True, "3"):
        with pytest.raises(ValueError, match="depth must be None or an integer"):
            prove(core, roots, budget=10, depth=bad)


def test_back_up_takes_the_shortest_win_and_holds_out_longest_in_a_loss():
    """One level of the backward pass on a hand-made tree: parent 0 (seat 0 to move) has three
    children, all known losses for it, of 1, 3 and 2 more moves; parent 1 (seat 1) has a win in
    2 moves, an unknown child and a win at once; parent 2 (seat 0) a known draw and an unknown
    child, so it stays unknown."""
    first, count = np.array([0, 3, 6]), np.array([3, 3, 2])
    mover = np.array([0, 1, 0])
    reward = np.zeros((8, 2))
    reward[5] = [-1.0, 1.0]  # the step into child 5 wins for seat 1 at once
    known = np.array([True, True, True, True, False, True, True, False])
    result = np.zeros((8, 2))
    result[:3] = [-1.0, 1.0]
    result[3] = [-1.0, 1.0]
    plies = np.array([1, 3, 2, 2, 0, 0, 0, 0])
    out = (np.zeros(3, np.bool_), np.zeros((3, 2)), np.zeros(3, np.int64))
    solver._back_up(first, count, mover, reward, (known, result, plies), 1.0, out)
    np.testing.assert_array_equal(out[0], [True, True, False])
    np.testing.assert_array_equal(out[1][:2], [[-1.0, 1.0], [-1.0, 1.0]])
    np.testing.assert_array_equal(out[2][:2], [4, 1])


def test_a_proven_root_stops_the_proof():
    """Where the mover wins at once, one level is all a proof steps, whatever its budget."""
    core = make_core("koi", **KOI_V0)
    roots = greedy_positions(core, 64, 14)
    proof = prove(core, roots, budget=10**6)
    legal = core.legal_action_mask(roots)
    mover = roots.current_player.astype(np.int64)
    at_once = [r for r in range(roots.batch_size)
               if (proof.known[r] & (proof.result[r, :, mover[r]] >= 1) & (proof.plies[r] == 1)).any()]
    assert len(at_once) >= 2
    np.testing.assert_array_equal(proof.stepped[at_once], legal[at_once].sum(axis=1))


def test_a_chance_node_is_never_guessed():
    """Dice race, explicit chance: walking to the target is a proven win, a roll stays unknown
    even where every face would win; a walk that lets the other side walk home is a proven loss."""
    core = DiceRaceCore(chance="explicit")
    s = core.init(np.array([1, 2], np.uint64))
    s.pos[0] = [7, 0]  # row 0: the mover is one step from the target
    s.pos[1] = [6, 7]  # row 1: the other side is
    s.current_player[:] = 0
    proof = prove(core, s, budget=10**6)
    assert proof.known[0, 0] and proof.result[0, 0, 0] == 1.0 and proof.plies[0, 0] == 1
    assert not proof.known[0, 1]  # the roll: a chance node
    assert proof.known[1, 0] and proof.result[1, 0, 0] == -1.0 and proof.plies[1, 0] == 2
    assert not proof.known[1, 1]


# -- the search option -------------------------------------------------------------------------
def _positions_with(core, want, plies=12, n=64):
    """Positions (and their proofs) where ``want(known, mover's results, legal, plies)`` holds."""
    roots = greedy_positions(core, n, plies)
    proof = prove(core, roots, budget=200_000)
    legal = core.legal_action_mask(roots)
    rows = [r for r in range(roots.batch_size)
            if want(proof.known[r] & legal[r], proof.result[r, :, int(roots.current_player[r])], legal[r],
                    proof.plies[r])]
    assert rows, "no test position"
    return roots.take(rows), [proof.known[r] for r in rows], [proof.result[r] for r in rows], [
        proof.plies[r] for r in rows]


def _network_favouring(core, actions, weight):
    def evaluate(obs):
        logits = np.zeros((obs.shape[0], core.num_actions), np.float32)
        logits[:, actions] = weight
        return logits, np.zeros((obs.shape[0], core.num_players), np.float32)
    return evaluate


def test_solve_budget_plays_a_proven_win_the_network_does_not_see():
    core = make_core("koi", **KOI_V0)
    roots, known, result, plies = _positions_with(
        core, lambda k, mine, legal, _: (k & (mine >= 1)).any() and (legal & ~(k & (mine >= 1))).sum() >= 4)
    for r in range(min(roots.batch_size, 4)):
        s, m = roots.take([r]), int(roots.current_player[r])
        wins = np.flatnonzero(known[r] & (result[r][:, m] >= 1))
        assert np.unique(plies[r][wins]).size == 1  # a proof stops at the level of its first win
        shortest = wins
        blind = _network_favouring(core, wins, -20.0)  # sure the wins are the worst moves
        plain = GumbelSearch(core, blind, simulations=8, max_considered=4).run(s)
        assert plain.action[0] not in wins
        out = GumbelSearch(core, blind, simulations=8, max_considered=4, solve_budget=200_000).run(s)
        assert out.action[0] in shortest
        assert set(np.flatnonzero(out.policy[0])) == set(shortest)
        np.testing.assert_allclose(out.policy[0].sum(), 1.0, rtol=1e-6)
        assert out.value[0, m] == 1.0 and out.value[0, 1 - m] == -1.0


def test_solve_budget_never_plays_a_proven_loss_while_another_move_is_left():
    core = make_core("koi", **KOI_V0)
    roots, known, result, _ = _positions_with(
        core, lambda k, mine, legal, _: (k & (mine <= -1)).any() and (legal & ~(k & (mine <= -1))).any()
        and not (k & (mine >= 1)).any())
    for r in range(min(roots.batch_size, 4)):
        s, m = roots.take([r]), int(roots.current_player[r])
        losses = np.flatnonzero(known[r] & (result[r][:, m] <= -1))
        keen = _network_favouring(core, losses, 20.0)  # sure the losses are the best moves
        assert GumbelSearch(core, keen, simulations=8, max_considered=2).run(s).action[0] in losses
        out = GumbelSearch(core, keen, simulations=8, max_considered=2, solve_budget=200_000).run(s)
        assert out.action[0] not in losses
        assert out.policy[0, losses].sum() == 0.0
        np.testing.assert_allclose(out.policy[0].sum(), 1.0, rtol=1e-6)


def odds_reference(core, s, me, mine, depth, leaf_budget):
    """The chance that ``me`` ends single-row ``s`` with the worst result (``mine``: its rewards so
    far), by :func:`solver.loss_odds`' rules, recursively: ``me`` takes its least chance, another
    player averages over its moves, a chance node weighs its outcomes; after ``depth`` moves an
    unfinished position counts 1 where a proof of ``leaf_budget`` shows ``me`` lost there."""
    low = core.reward_range[0]
    if s.done[0]:
        return float(mine <= low)
    if depth == 0:
        p = prove(core, s, leaf_budget)
        return float(p.root_known[0] and mine + p.root_result[0, me] <= low)
    moves = np.flatnonzero(core.legal_action_mask(s)[0])
    values = []
    for a in moves:
        child = s.take([0])
        core.step(child, np.array([a]))
        values.append(odds_reference(core, child, me, mine + float(child.rewards[0, me]), depth - 1, leaf_budget))
    mover = int(s.current_player[0])
    if mover == me:
        return min(values)
    if mover == CHANCE_PLAYER:
        return float(np.dot(core.chance_probabilities(s)[0, moves], values))
    return float(np.mean(values))


def full_levels(core, s, depth):
    """The sizes of the first ``depth`` levels of every line from ``s`` (finished positions end
    theirs), and the positions of the last of them."""
    sizes = []
    for _ in range(depth):
        rows, acts = np.nonzero(core.legal_action_mask(s) & ~s.done[:, None])
        if rows.size == 0:
            break
        s = s.take(rows)
        core.step(s, acts)
        sizes.append(rows.size)
    return sizes, s


def _dice_positions():
    core = DiceRaceCore(chance="explicit")
    s = core.init(np.arange(1, 7, dtype=np.uint64))
    s.pos[:] = [[5, 6], [6, 5], [7, 4], [4, 7], [6, 6], [3, 6]]
    return core, s


@pytest.mark.parametrize("game,plies,budget,depth", [("koi", 13, 3000, None), ("koi", 13, 200_000, 2),
                                                      ("dicerace", 0, 400, None)])
def test_loss_odds_agree_with_a_plain_recursive_search(game, plies, budget, depth):
    if game == "dicerace":
        core, roots = _dice_positions()
    else:
        core = make_core(game)
        roots = greedy_positions(core, 6, plies)
    seen_between = 0
    for r in range(roots.batch_size):
        s = roots.take([r])
        me = int(s.current_player[0])
        odds = solver.loss_odds(core, s, budget, depth)
        assert odds.stepped <= budget and odds.depth == (depth or odds.depth) >= 1
        # the deepest whole level that fits, then an equal share of the rest per open position
        sizes, _ = full_levels(core, s, odds.depth + 1)
        searched = sum(sizes[:odds.depth])
        assert len(sizes) == odds.depth or odds.depth == depth or searched + sizes[odds.depth] > budget
        open_ = int((~full_levels(core, s, odds.depth)[1].done).sum())
        assert odds.leaf_budget == ((budget - searched) // open_ if open_ else 0)
        legal = core.legal_action_mask(s)[0]
        assert (odds.chance[~legal] == 0).all()
        for a in np.flatnonzero(legal):
            child = s.take([0])
            core.step(child, np.array([a]))
            want = odds_reference(core, child, me, float(child.rewards[0, me]), odds.depth - 1, odds.leaf_budget)
            assert odds.chance[a] == pytest.approx(want, abs=1e-12), (r, a)
            seen_between += 0 < want < 1
    assert seen_between  # chances strictly between 0 and 1: both averaging and choosing matter


def test_loss_odds_refuses_what_it_cannot_search():
    core = make_core("koi", **KOI_V0)
    roots = greedy_positions(core, 4, 12)
    with pytest.raises(ValueError, match="single row"):
        solver.loss_odds(core, roots, 100)
    with pytest.raises(ValueError, match="budget must be an integer"):
        solver.loss_odds(core, roots.take([0]), -5)
    sampled = DiceRaceCore()
    with pytest.raises(ValueError, match="explicit"):
        solver.loss_odds(sampled, sampled.init(np.array([1], np.uint64)), 100)
    s = roots.take([0])
    moves = int(core.legal_action_mask(s).sum())
    for budget, depth in ((moves - 1, None), (10**5, 0)):  # nothing fits: every move gets 0
        odds = solver.loss_odds(core, s, budget, depth)
        assert odds.depth == 0 and odds.stepped == 0 and not odds.chance.any()
    core, s = _dice_positions()
    s = s.take([0])
    core.step(s, np.array([1]))  # a roll: the die's chance node
    assert s.current_player[0] == CHANCE_PLAYER
    with pytest.raises(ValueError, match="not a finished game or a chance node"):
        solver.loss_odds(core, s, 100)


def test_solve_budget_plays_the_move_an_erring_opponent_least_often_wins_after_where_every_move_is_lost():
    """Lost whatever it plays, the search plays a move of least chance of losing against an
    opponent that picks uniformly (an opponent that errs has the most ways to), then the longest."""
    core = make_core("koi", **KOI_V0)
    roots, known, result, plies = _positions_with(
        core, lambda k, mine, legal, plies: (k == legal).all() and (mine[legal] <= -1).all(), plies=13)
    checked = 0
    for r in range(min(roots.batch_size, 6)):
        s, m = roots.take([r]), int(roots.current_player[r])
        legal = np.flatnonzero(core.legal_action_mask(s)[0])
        chance = solver.loss_odds(core, s, 200_000).chance[legal]
        least = legal[chance <= chance.min() + 1e-12]
        best = least[plies[r][least] == plies[r][least].max()]
        out = GumbelSearch(core, _network_favouring(core, [], 0.0), simulations=8, max_considered=4,
                           solve_budget=200_000).run(s)
        assert out.action[0] in best
        assert out.value[0, m] == -1.0
        checked += least.size < legal.size
    assert checked  # positions where the chances tell the moves apart


def test_solve_budget_holds_out_longest_among_moves_of_equal_chance(monkeypatch):
    """Where the chances tie, the longest of the lost games is played."""
    core = make_core("koi", **KOI_V0)
    roots, known, result, plies = _positions_with(
        core, lambda k, mine, legal, plies: (k == legal).all() and (mine[legal] <= -1).all()
        and np.unique(plies[legal]).size > 1, plies=13)
    monkeypatch.setattr(plugins, "loss_odds", lambda core, root, budget: solver.LossOdds(
        np.zeros(core.legal_action_mask(root).shape[1]), 0, 0, 0))
    for r in range(min(roots.batch_size, 4)):
        s = roots.take([r])
        legal = core.legal_action_mask(s)[0]
        longest = np.flatnonzero(legal & (plies[r] == plies[r][legal].max()))
        out = GumbelSearch(core, _network_favouring(core, [], 0.0), simulations=8, max_considered=4,
                           solve_budget=200_000).run(s)
        assert out.action[0] in longest


def test_a_game_with_chance_is_proven_on_its_explicit_core_only():
    sampled = DiceRaceCore()
    with pytest.raises(ValueError, match="explicit"):
        prove(sampled, sampled.init(np.array([1], np.uint64)), budget=100)


def test_solve_budget_searches_a_game_with_chance():
    """The search proves on the explicit twin of a sampled core: a walk home is played even by a
    network sure that rolling is better, and its value is the win."""
    core = DiceRaceCore()
    s = core.init(np.array([1, 2], np.uint64))
    s.pos[:] = [7, 0]
    out = GumbelSearch(core, _network_favouring(core, [1], 20.0), simulations=8, max_considered=2,
                       solve_budget=1000).run(s)
    np.testing.assert_array_equal(out.action, [0, 0])
    np.testing.assert_array_equal(out.value[:, 0], [1.0, 1.0])


def test_solve_budget_with_find_wins_keeps_both_rules():
    """With the check for wins at once as well, a win at once is still played (valued as the
    win) and a proven loss is still never played while another move is left."""
    core = make_core("koi", **KOI_V0)
    roots, known, result, plies = _positions_with(
        core, lambda k, mine, legal, plies: (k & (mine >= 1) & (plies == 1)).any(), plies=14)
    s, m = roots.take([0]), int(roots.current_player[0])
    wins = np.flatnonzero(known[0] & (result[0][:, m] >= 1))
    blind = _network_favouring(core, wins, -20.0)
    out = GumbelSearch(core, blind, simulations=8, max_considered=4, find_wins=True,
                       solve_budget=200_000).run(s)
    assert out.action[0] in wins and out.value[0, m] == 1.0
    roots, known, result, _ = _positions_with(
        core, lambda k, mine, legal, _: (k & (mine <= -1)).any() and (legal & ~(k & (mine <= -1))).any()
        and not (k & (mine >= 1)).any())
    s, m = roots.take([0]), int(roots.current_player[0])
    losses = np.flatnonzero(known[0] & (result[0][:, m] <= -1))
    out = GumbelSearch(core, _network_favouring(core, losses, 20.0), simulations=8, max_considered=2,
                       find_wins=True, solve_budget=200_000).run(s)
    assert out.action[0] not in losses and out.policy[0, losses].sum() == 0.0
