"""Thousands of random Yoxii games: invariants at every step, masks against a
plain-Python reading of seeds/yoxii.md, and batch-size independence."""
import numpy as np
import pytest

from yyenvs.core.moves import sample_legal
from yyenvs.core.contract import IllegalActionError
from yyenvs.core.rng import uniform01
from yyenvs.games.yoxii.core import YoxiiCore
from yyenvs.games.yoxii.rules import CELL_RC, STOCK

CORE = YoxiiCore()
DELTAS = [(-1, 0), (-1, 1), (0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1)]
CELL_OF = {(int(r), int(c)): i for i, (r, c) in enumerate(CELL_RC)}


def reference_actions(board, totem, stock, player):
    """Every legal action, computed square by square from the written rules."""
    sign = 1 if player == 0 else -1
    out = set()
    tr, tc = (int(x) for x in CELL_RC[totem])
    for d, (dr, dc) in enumerate(DELTAS):
        r, c = tr + dr, tc + dc
        while (r, c) in CELL_OF and board[CELL_OF[r, c]] * sign > 0:
            r, c = r + dr, c + dc
        if (r, c) not in CELL_OF or board[CELL_OF[r, c]] != 0:
            continue
        dest = CELL_OF[r, c]
        around = [CELL_OF[r + a, c + b] for a, b in DELTAS if (r + a, c + b) in CELL_OF]
        free = [x for x in around if board[x] == 0]
        if not free:
            free = [x for x in range(37) if board[x] == 0 and x != dest]
        for x in free:
            for v in range(4):
                if stock[player][v] > 0:
                    out.add((d * 37 + x) * 4 + v)
    return out


def play_random(seeds, max_steps=40, check=None):
    """Random legal play (per-game uniforms); returns the action history (steps, B)."""
    s = CORE.init(np.asarray(seeds, dtype=np.uint64))
    history = []
    actions = np.empty(s.batch_size, dtype=np.int64)
    for _ in range(max_steps):
        mask = CORE.legal_action_mask(s)
        sample_legal(mask, uniform01(s.seed, s.ply.astype(np.uint64)), actions)
        if check:
            check(s, mask, actions)
        history.append(actions.copy())
        if s.done.all():
            break
        CORE.step(s, actions)
    return s, np.array(history)


def test_invariants_over_thousands_of_random_games():
    def check(s, mask, actions):
        live = ~s.done
        # never an all-false mask for a game in progress, none for a finished one
        assert mask[live].any(axis=1).all()
        assert not mask[~live].any()
        assert (actions[~live] == -1).all()
        # piece counts: on board + in stock = 18 for each player; stock never negative
        assert (s.stock >= 0).all()
        on_board = np.stack([(s.board > 0).sum(1), (s.board < 0).sum(1)], 1)
        assert (on_board + s.stock.sum(2) == 18).all()
        assert (s.board[np.arange(s.batch_size), s.totem] == 0).all()
        # the mover alternates: white has placed as many pieces as red, or one more
        assert np.array_equal(on_board[:, 0] - on_board[:, 1], (s.current_player == 1).astype(int)
                              | ((on_board[:, 0] - on_board[:, 1]) * s.terminated))
        assert (s.ply <= 36).all() and np.array_equal(s.ply, on_board.sum(1))
        # rewards are zero-sum and non-zero only on the step that ends a game
        assert (s.rewards.sum(1) == 0).all()
        ended = s.terminated & (s.ply == last_ply)
        assert not s.rewards[~ended].any()
        outcome[ended] = s.rewards[ended, 0]
        last_ply[:] = s.ply + 1

    outcome = np.full(3000, np.nan)
    last_ply = np.zeros(3000, dtype=np.int64)
    s, _ = play_random(np.arange(3000), check=check)
    assert s.terminated.all(), "every game ends within 36 turns"
    # both colours win many games
    assert (outcome == 1).sum() > 300 and (outcome == -1).sum() > 300


def test_mask_matches_the_written_rules_on_random_positions():
    s = CORE.init(np.arange(200, dtype=np.uint64))
    actions = np.empty(200, dtype=np.int64)
    checked = 0
    for _ in range(36):
        mask = CORE.legal_action_mask(s)
        for b in range(0, 200, 5):
            if s.done[b]:
                continue
            expected = reference_actions(s.board[b].tolist(), int(s.totem[b]),
                                         s.stock[b].tolist(), int(s.current_player[b]))
            assert set(np.flatnonzero(mask[b]).tolist()) == expected
            checked += 1
        sample_legal(mask, uniform01(s.seed, s.ply.astype(np.uint64), np.uint64(9)), actions)
        CORE.step(s, actions)
    assert checked > 500


def test_end_is_exactly_when_the_player_to_move_has_no_totem_move():
    s, _ = play_random(np.arange(500))
    for b in range(500):
        ref = reference_actions(s.board[b].tolist(), int(s.totem[b]), s.stock[b].tolist(),
                                int(s.current_player[b]))
        assert ref == set()
        # the totem is surrounded whenever the game is over
        assert s.ply[b] >= 8


def test_stepping_an_illegal_action_is_refused_clearly():
    s = CORE.init(np.arange(4, dtype=np.uint64))
    mask = CORE.legal_action_mask(s)
    bad = int(np.flatnonzero(~mask[2])[0])
    acts = np.argmax(mask, 1)
    acts[2] = bad
    with pytest.raises(IllegalActionError, match=r"illegal in row 2"):
        CORE.step(s, acts)
    assert (s.ply == 0).all()


def test_stock_matches_the_rules():
    s = CORE.init(np.arange(3, dtype=np.uint64))
    assert s.stock.tolist() == [[list(STOCK)] * 2] * 3
