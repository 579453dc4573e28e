"""MCTS scripted baseline: legality, determinism, a forced win, strength, 1/3-player games."""
from __future__ import annotations

import numpy as np
import pytest

from yyenvs.agents import GreedyAgent, RandomAgent, make_agent
from yyenvs.agents.mcts import DEFAULT_SIMULATIONS, MCTSAgent
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
