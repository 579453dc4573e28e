"""Random Yin Yang Koi games with invariants checked at every step.

Actions are chosen by a per-game hash of (seed, ply), so a game depends only on
its seed: the same games are replayed at batch 1 and compared.  A slow,
independent plain-Python move generator (written from ``seeds/koi.md``
sections 4 and 5, not from the core) checks the masks and the effect of moves
on a sample of positions.
"""
from __future__ import annotations


import numpy as np
import pytest

from yyenvs.core.rng import uniform01
from yyenvs.games.koi.core import KoiCore

CONFIGS = [
    dict(board_size=9, directions=8),
    dict(board_size=9, directions=4, quick_start=True),
    dict(board_size=7, directions=8, quick_start=True),
    dict(board_size=5, directions=4, win_fry=14),
    dict(board_size=5, directions=8, quick_start=True, quick_layout="row", win_fry=14),
    dict(board_size=11, directions=8, win_fry=20),
]
VEC8 = [(-1, 0), (-1, 1), (0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1)]
VEC4 = [(-1, 0), (0, 1), (1, 0), (0, -1)]


# -- the reference rules (plain Python, one position) ------------------------------------
def ref_decode(core, state, i):
    """Board as a dict-free grid of strings: '.', 'T', 'y', 'g', ('Y', k), ('G', k)."""
    n = core.board_size
    grid = [["."] * n for _ in range(n)]
    grid[n // 2][n // 2] = "T"
    for p in range(n * n):
        v = int(state.board[i, p])
        if v in (1, 2):
            grid[p // n][p % n] = "y" if v == 1 else "g"
    koi = {}
    for seat in range(2):
        for k in range(5):
            p = int(state.koi[i, seat, k])
            if p >= 0:
                koi[(seat, k)] = (p // n, p % n)
                grid[p // n][p % n] = ("YG"[seat], k)
    return grid, koi


def ref_swim(n, grid, seat, start, vec):
    """The points swum over and the final point, or None when illegal (spec 4.2-4.5)."""
    own_koi, own_fry = "YG"[seat], "yg"[seat]
    r, c = start
    path = []
    for _ in range(n):  # at most a full cycle
        r, c = (r + vec[0]) % n, (c + vec[1]) % n
        if (r, c) == start:
            return None  # back home without a block
        cell = grid[r][c]
        if cell == "T" or cell == own_fry or (isinstance(cell, tuple) and cell[0] == own_koi):
            return path if path else None  # blocked (at least one point needed)
        if isinstance(cell, tuple):
            return None  # an opposing koi: touch
        path.append((r, c))
    raise AssertionError("unreachable")


def ref_legal(core, state, i):
    n = core.board_size
    grid, koi = ref_decode(core, state, i)
    seat = int(state.current_player[i])
    out = set()
    if state.terminated[i] or state.truncated[i]:
        return out
    if state.phase[i] == 0:
        return {p for p in range(n * n) if grid[p // n][p % n] == "."}
    vecs = VEC8 if core.num_dirs == 8 else VEC4
    for k in range(5):
        for d, vec in enumerate(vecs):
            if ref_swim(n, grid, seat, koi[(seat, k)], vec) is not None:
                out.add(n * n + k * core.num_dirs + d)
    return out


def ref_after_swim(core, state, i, action):
    """(grid, yin fry, yang fry) after a legal swim, by spec 5."""
    n = core.board_size
    grid, koi = ref_decode(core, state, i)
    seat = int(state.current_player[i])
    k, d = divmod(action - n * n, core.num_dirs)
    vecs = VEC8 if core.num_dirs == 8 else VEC4
    start = koi[(seat, k)]
    path = ref_swim(n, grid, seat, start, vecs[d])
    grid[start[0]][start[1]] = "yg"[seat]
    for r, c in path[:-1]:
        grid[r][c] = "yg"[seat]
    r, c = path[-1]
    grid[r][c] = ("YG"[seat], k)
    flat = [x for row in grid for x in row]
    return grid, flat.count("y"), flat.count("g")


# -- driving random games ---------------------------------------------------------------
def pick(mask, seeds, ply):
    """The floor(u * count)-th legal action of each row, u = hash(seed, ply); -1 if none."""
    u = uniform01(seeds, ply.astype(np.uint64))
    cnt = mask.sum(1)
    k = np.minimum((u * cnt).astype(np.int64), np.maximum(cnt - 1, 0))
    a = (np.cumsum(mask, 1) <= k[:, None]).sum(1)
    return np.where(cnt > 0, a, -1)


def check_invariants(core, s, mask):
    n2 = core.num_points
    live = ~s.done
    # a point holds one thing: koi positions agree with the board, one slot per koi point
    for seat in range(2):
        placed = s.koi[:, seat] >= 0
        vals = np.take_along_axis(s.board, np.where(placed, s.koi[:, seat], 0).astype(np.int64), 1)
        assert np.all(~placed | (vals == 3 + seat))
        assert np.array_equal((s.board == 3 + seat).sum(1), placed.sum(1))
    play = s.phase == 1
    assert np.all((s.koi[play] >= 0).all(axis=(1, 2)))
    assert np.all((s.board == 3)[play].sum(1) == 5) and np.all((s.board == 4)[play].sum(1) == 5)
    assert np.all(s.board[:, core.taiji] == 5) and np.all((s.board == 5).sum(1) == 1)
    # fry counts agree with the board
    assert np.array_equal(s.fry[:, 0], (s.board == 1).sum(1))
    assert np.array_equal(s.fry[:, 1], (s.board == 2).sum(1))
    assert not np.any(s.fry[~play])  # no fry during set-up
    # masks: a live game always has a legal action; a finished one none
    assert np.all(mask[live].any(1))
    assert not np.any(mask[~live])
    assert not np.any(mask[play, :n2]) and not np.any(mask[~play, n2:])
    assert np.all(s.ply <= core.max_plies)
    # spec 6.1: a game in progress has nobody at the target (the mover would have won)
    assert np.all(s.fry[live] < core.win_fry)
    assert not np.any(s.terminated & s.truncated)
    assert np.all((s.winner >= 0) == s.terminated)


def run_games(core, seeds, ref_rows_per_step=0, rng=None):
    """Play the games of ``seeds`` to the end; returns the final state and the action log."""
    s = core.init(seeds)
    log = []
    for _ in range(core.max_plies + 1):
        mask = core.legal_action_mask(s)
        check_invariants(core, s, mask)
        if s.done.all():
            break
        acts = pick(mask, s.seed, s.ply)
        acts[s.done] = -1
        if ref_rows_per_step:
            live = np.flatnonzero(~s.done)
            for i in rng.choice(live, size=min(ref_rows_per_step, live.size), replace=False):
                assert set(np.flatnonzero(mask[i])) == ref_legal(core, s, i), core.to_text(s, i)
        before = s.copy() if ref_rows_per_step else None
        obs = core.observe(s, s.current_player)
        assert obs.shape == (s.batch_size, *core.observation_shape)
        core.step(s, acts)
        log.append(acts)
        # rewards only on the step that ends a game, and zero-sum
        assert np.all(s.rewards.sum(1) == 0)
        assert np.array_equal(s.rewards[:, 0] != 0, s.terminated & (acts >= 0))
        if ref_rows_per_step:
            for i in rng.choice(np.flatnonzero((acts >= 0) & (before.phase == 1)),
                                size=min(ref_rows_per_step,
                                         int(((acts >= 0) & (before.phase == 1)).sum())),
                                replace=False):
                grid, ny, ng = ref_after_swim(core, before, i, int(acts[i]))
                got, _ = ref_decode(core, s, i)
                assert got == grid and (ny, ng) == tuple(s.fry[i])
    assert s.done.all(), "games must end or truncate within max_plies"
    return s, np.array(log)


@pytest.mark.parametrize("opts", CONFIGS, ids=lambda o: "-".join(f"{k}{v}" for k, v in o.items()))
def test_random_games_invariants_and_reference(opts):
    core = KoiCore(**opts)
    seeds = np.arange(400, dtype=np.uint64) + 1000 * len(opts)
    s, _log = run_games(core, seeds, ref_rows_per_step=6, rng=np.random.default_rng(0))
    # games end by the rules or by the cap; the cap only at max_plies
    assert np.all(s.terminated | (s.ply == core.max_plies))
    assert s.terminated.sum() > 0


@pytest.mark.parametrize("opts", [CONFIGS[0], CONFIGS[3], CONFIGS[4]],
                         ids=["9x9-8", "5x5-4", "5x5-8-quick"])
def test_many_games_end_and_winners_are_plausible(opts):
    core = KoiCore(**opts)
    s, _ = run_games(core, np.arange(2000, dtype=np.uint64))
    assert s.done.all()
    won = s.terminated
    # the winner is the player who moved last: the one not to move
    assert np.all(s.winner[won] == 1 - s.current_player[won])
    by_fry = s.fry[won, s.winner[won]] >= core.win_fry
    # a game not won by fry was won because the loser had no move
    loser_state = s.take(np.flatnonzero(won)[~by_fry])
    loser_state.terminated[:] = False
    assert not core.legal_action_mask(loser_state).any()
    assert by_fry.sum() + (~by_fry).sum() == won.sum() > 0
    # spec 6.3: truncated games stopped exactly at the cap
    assert np.all(s.ply[s.truncated] == core.max_plies)


def test_heuristic_on_random_positions():
    core = KoiCore()
    s = core.init(np.arange(64, dtype=np.uint64))
    for _ in range(30):
        mask = core.legal_action_mask(s)
        acts = pick(mask, s.seed, s.ply)
        core.step(s, np.where(s.done, -1, acts))
        h0 = core.heuristic(s, np.zeros(64, dtype=np.int8))
        h1 = core.heuristic(s, np.ones(64, dtype=np.int8))
        assert np.allclose(h0, -h1)
        assert np.all(np.abs(h0[s.terminated]) == 1000.0)
        assert np.all(np.abs(h0[~s.done]) < 1000.0)
