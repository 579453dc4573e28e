"""Yin Yang with explicit chance: the chance nodes, their outcomes and probabilities.

With ``chance="explicit"`` every chance event during play (the god coins, a
Divination throw, the free reroll, Mortal Will's rethrow, a bag draw) is a
node of the chance player; ``sample_chance`` draws its outcome the way the
sampled mode does inside ``step``.
"""
import itertools
from math import comb

import numpy as np
import pytest

from yyenvs.core.contract import CHANCE_PLAYER, IllegalActionError
from yyenvs.core.rng import hash_u64, uniform01
from yyenvs.games.yinyang import layout as L
from yyenvs.games.yinyang.core import YinYangCore

CORES = {}
FIELDS = ("current_player", "terminated", "truncated", "ply", "seed", "rng", "flow", "turn_order",
          "cities", "taiji", "goods", "players", "development", "beside_board", "scoring_tiles",
          "solo_tiles")  # every field but rewards (a chance step clears those of the rows it skips)


def cores(P):
    if P not in CORES:
        sampled = YinYangCore(num_players=P)
        CORES[P] = (sampled, sampled.with_options(chance="explicit"))
    return CORES[P]


def pick(mask, state, salt=0):
    """A legal action per row, a pure function of (seed, ply); -1 where none."""
    cnt = mask.sum(1)
    k = (uniform01(state.seed, state.ply.astype(np.uint64), np.uint64(salt)) * np.maximum(cnt, 1)).astype(np.int64)
    return np.where(cnt > 0, (np.cumsum(mask, 1) > k[:, None]).argmax(1), -1)


def play_explicit(P, seeds, until=None):
    """Random explicit games, chance nodes resolved by sample_chance; yields the state before each step."""
    _, explicit = cores(P)
    e = explicit.init(seeds)
    for _ in range(3 * explicit.max_game_length):
        if e.done.all() or (until is not None and until(e)):
            return
        yield e
        chance = explicit.is_chance_node(e)
        if chance.any():
            explicit.step(e, np.where(chance, explicit.sample_chance(e), -1))
        else:
            explicit.step(e, pick(explicit.legal_action_mask(e), e))
    raise AssertionError("games did not end")


def at_event(P, kind, seed=0):
    """A one-row explicit game stopped at its first chance event of ``kind``."""
    for e in play_explicit(P, np.array([seed], np.uint64), until=lambda e: e.flow[0, L.F_CHANCE] == kind):
        pass
    assert e.flow[0, L.F_CHANCE] == kind and e.current_player[0] == CHANCE_PLAYER
    return e


def same_fields(a, b, fields=FIELDS):
    return [f for f in fields if not np.array_equal(getattr(a, f), getattr(b, f))]


# --- (1) the explicit game, driven by sample_chance, is the sampled game ---------------------------
@pytest.mark.parametrize("P", [1, 2, 3, 4])
def test_sample_chance_replays_the_sampled_game(P):
    sampled, explicit = cores(P)
    A = sampled.num_actions
    assert explicit.num_actions == A + 64 + 7 + 4
    seeds = np.arange(24, dtype=np.uint64) * np.uint64(7919) + np.uint64(1000 * P)
    s, e = sampled.init(seeds), explicit.init(seeds)
    kinds = np.zeros(6, np.int64)
    for _ in range(sampled.max_game_length + 1):
        while True:  # the explicit game's chance nodes, drawn as the sampled step drew them
            chance = explicit.is_chance_node(e)
            if not chance.any():
                break
            np.add.at(kinds, e.flow[chance, L.F_CHANCE], 1)
            assert (e.current_player[chance] == CHANCE_PLAYER).all()
            explicit.step(e, np.where(chance, explicit.sample_chance(e), -1))
            assert not e.rewards.any(), "a chance step gave rewards"
        assert same_fields(s, e) == []
        ms, me = sampled.legal_action_mask(s), explicit.legal_action_mask(e)
        assert np.array_equal(ms, me[:, :A]) and not me[:, A:].any()
        seats = np.maximum(s.current_player, 0)
        assert np.array_equal(sampled.observe(s, seats), explicit.observe(e, seats))
        assert np.array_equal(sampled.heuristic(s, seats), explicit.heuristic(e, seats))
        if s.done.all():
            break
        a = pick(ms, s)
        sampled.step(s, a)
        explicit.step(e, a)
        assert np.array_equal(s.rewards, e.rewards)
    assert s.done.all() and e.done.all()
    assert np.array_equal(sampled.scores(s), explicit.scores(e))
    assert kinds[L.EV_GODS] == 5 * len(seeds) and kinds[L.EV_DIVINATION] == 5 * P * len(seeds)
    assert kinds[L.EV_MORTAL_WILL] > 0 and kinds[L.EV_BAG] > 0


def test_states_pass_between_the_modes():
    sampled, explicit = cores(2)
    s = sampled.init(np.arange(6, dtype=np.uint64))
    for _ in range(40):  # into Phase Three
        sampled.step(s, pick(sampled.legal_action_mask(s), s))
    e = s.copy()
    explicit.check_state(e)  # the same layout: the sampled state is taken as it is
    reached = set()
    for _ in range(400):
        chance = explicit.is_chance_node(e)
        reached |= set(e.flow[chance, L.F_CHANCE].tolist())
        explicit.step(e, np.where(chance, explicit.sample_chance(e), pick(explicit.legal_action_mask(e), e)))
    assert {L.EV_GODS, L.EV_DIVINATION} <= reached
    # back at a player node, the sampled core plays on from the explicit state
    while explicit.is_chance_node(e).any():
        explicit.step(e, np.where(explicit.is_chance_node(e), explicit.sample_chance(e), -1))
    sampled.step(e, pick(sampled.legal_action_mask(e), e))


def test_a_sampled_core_refuses_a_chance_node():
    sampled, _ = cores(2)
    e = at_event(2, L.EV_DIVINATION)
    before = e.copy()
    with pytest.raises(ValueError, match="row 0 waits for a chance outcome.*chance='explicit'"):
        sampled.legal_action_mask(e)  # no outcome actions in its space: no mask it could give
    with pytest.raises(ValueError, match="row 0 waits for a chance outcome"):
        sampled.step(e, [int(sampled.action_start[L.O_END])])
    assert same_fields(e, before, FIELDS + ("rewards",)) == []


# --- (2) the probabilities: a distribution over the mask at chance nodes, zero elsewhere -------------
@pytest.mark.parametrize("P", [1, 4])
def test_probabilities_are_a_distribution_over_the_mask(P):
    sampled, explicit = cores(P)
    nodes = 0
    for e in play_explicit(P, np.arange(12, dtype=np.uint64) + np.uint64(77)):
        p = explicit.chance_probabilities(e)
        m = explicit.legal_action_mask(e)
        chance = explicit.is_chance_node(e)
        assert (p >= 0).all() and (p <= 1).all()
        assert not p[~chance].any()
        if chance.any():
            nodes += int(chance.sum())
            assert np.allclose(p[chance].sum(1), 1.0, rtol=0, atol=1e-12)
            assert np.array_equal(p[chance] > 0, m[chance])  # never an empty mask at a chance node
            assert not m[chance, :sampled.num_actions].any()
            for seat in range(P):  # any seat may look at a chance node
                o = explicit.observe(e, seat)
                assert np.isfinite(o).all() and 0 <= o.min() and o.max() <= 1
                assert np.isfinite(explicit.heuristic(e, seat)).all()
        else:
            assert not m[:, sampled.num_actions:].any()
    assert nodes > 100
    assert not sampled.chance_probabilities(sampled.init([1])).any()


def test_probabilities_follow_the_coins_and_the_bag():
    _, explicit = cores(2)
    off = explicit.action_start
    e = at_event(2, L.EV_GODS)
    p = explicit.chance_probabilities(e)[0]
    assert (p[off[L.O_GODS]:off[L.O_COINS]] == 1 / 64).all() and p.sum() == 1
    e = at_event(2, L.EV_DIVINATION)
    for n in range(7):
        e.flow[0, L.F_CHANCE] = L.EV_MORTAL_WILL
        e.flow[0, L.F_CHANCE_N] = n
        p = explicit.chance_probabilities(e)[0]
        assert p[off[L.O_COINS]:off[L.O_COINS] + n + 1].tolist() == [comb(n, k) / 2 ** n for k in range(n + 1)]
        assert p.sum() == 1 and explicit.legal_action_mask(e)[0].sum() == n + 1
    e.flow[0, L.F_CHANCE] = L.EV_BAG
    e.goods[0, L.G_BAG] = [1, 0, 3, 2]
    p = explicit.chance_probabilities(e)[0]
    assert np.allclose(p[off[L.O_BAG]:off[L.O_TOTAL]], [1 / 6, 0, 3 / 6, 2 / 6])
    assert explicit.legal_action_mask(e)[0, off[L.O_BAG]:].tolist() == [True, False, True, True]


# --- (3) sample_chance draws by those probabilities ----------------------------------------------
def many(state, n):
    """n copies of a one-row state, each with a stream of its own."""
    big = state.take(np.zeros(n, np.int64))
    big.rng[:] = hash_u64(np.arange(n, dtype=np.uint64), np.uint64(0xC0FFEE))
    return big


def chi_square(counts, probs):
    n = counts.sum()
    keep = probs > 0
    assert counts[~keep].sum() == 0, "an outcome of probability 0 was drawn"
    expected = n * probs[keep]
    return float(((counts[keep] - expected) ** 2 / expected).sum()), int(keep.sum()) - 1


@pytest.mark.parametrize("event, n, bag", [
    (L.EV_GODS, 6, None), (L.EV_DIVINATION, 6, None), (L.EV_REROLL, 6, None),
    (L.EV_MORTAL_WILL, 3, None), (L.EV_MORTAL_WILL, 1, None), (L.EV_BAG, 0, [2, 5, 0, 1])])
def test_sample_chance_frequencies_match_the_probabilities(event, n, bag):
    _, explicit = cores(3)
    e = at_event(3, L.EV_GODS if event == L.EV_GODS else L.EV_DIVINATION, seed=5)
    e.flow[0, L.F_CHANCE] = event
    e.flow[0, L.F_CHANCE_N] = n
    if bag is not None:
        e.goods[0, L.G_BAG] = bag
    big = many(e, 6000)
    probs = explicit.chance_probabilities(big)[0]
    streams = big.rng.copy()
    drawn = explicit.sample_chance(big)
    assert (drawn >= 0).all() and (big.rng != streams).all()  # each draw advanced its stream
    stat, df = chi_square(np.bincount(drawn, minlength=explicit.num_actions).astype(float), probs)
    assert stat < df + 6 * np.sqrt(2 * df), (stat, df)  # far beyond chance for a fair draw


# --- (4) outcomes only at chance nodes, player actions only at player nodes -----------------------
def test_illegal_mixes_are_refused_and_change_nothing():
    _, explicit = cores(2)
    off = explicit.action_start
    chance_row = at_event(2, L.EV_DIVINATION, seed=3)
    player_row = chance_row.copy()
    explicit.step(player_row, explicit.sample_chance(player_row))
    assert not explicit.is_chance_node(player_row)[0]
    batch = type(chance_row).concatenate([chance_row, player_row])
    outcome = int(off[L.O_COINS] + 2)
    player_action = int(pick(explicit.legal_action_mask(player_row), player_row)[0])
    for actions, bad_row in (([player_action, player_action], 0),  # a player action at a chance node
                             ([outcome, outcome], 1),  # an outcome at a player node
                             ([int(off[L.O_GODS]), player_action], 0)):  # the wrong kind of outcome
        before = batch.copy()
        with pytest.raises(IllegalActionError, match=f"row {bad_row}"):
            explicit.step(batch, actions)
        assert same_fields(batch, before, FIELDS + ("rewards",)) == []
    with pytest.raises(IllegalActionError, match="chance to move"):
        explicit.step(batch, [player_action, -1])
    A = cores(2)[0].num_actions
    before = batch.copy()
    for a in range(explicit.num_actions):  # each action is refused in one of the two rows
        row = 0 if a < A else 1
        with pytest.raises(IllegalActionError, match=f"row {row}"):
            explicit.step(batch, [a, -1] if row == 0 else [-1, a])
    assert same_fields(batch, before) == []
    explicit.step(batch, [outcome, player_action])  # the right kinds are taken
    sampled, _ = cores(2)
    with pytest.raises(IllegalActionError, match="out of range"):
        sampled.step(player_row, [outcome])


# --- (5) what each outcome does ------------------------------------------------------------------
@pytest.mark.parametrize("k", range(7))
def test_divination_throw_outcome_raises_yin_and_yang(k):
    """Example 3: a throw of k Yang faces gives +k Yang and +(6 - k) Yin, each capped at 8."""
    _, explicit = cores(2)
    e = at_event(2, L.EV_DIVINATION, seed=11)
    p = e.turn_order[0, e.flow[0, L.F_TURN]]
    e.players[0, p, L.Q_YIN] = 2
    e.players[0, p, L.Q_YANG] = 7
    explicit.step(e, [int(explicit.action_start[L.O_COINS] + k)])
    assert e.players[0, p, L.Q_YIN] == min(8, 2 + 6 - k) and e.players[0, p, L.Q_YANG] == min(8, 7 + k)
    assert (e.players[0, p, L.Q_COINS_YANG], e.players[0, p, L.Q_COINS_YIN]) == (k, 6 - k)
    assert e.current_player[0] == p and e.flow[0, L.F_CHANCE] == L.EV_NONE
    assert e.flow[0, L.F_PHASE] == L.PH_DIVINATION and e.flow[0, L.F_SPLIT_DONE] == 0


def test_god_coins_outcome_blocks_its_trigrams_then_the_first_throw_waits():
    _, explicit = cores(3)
    e = at_event(3, L.EV_GODS, seed=2)
    e.players[0, :, L.Q_CARDS] = 0  # no Special Anytime Action: the window before the throw is skipped
    e.cities[0, :, L.C_TEMPLE] = -1
    lower, upper = 5, 2
    explicit.step(e, [int(explicit.action_start[L.O_GODS] + lower * 8 + upper)])
    assert e.taiji[0, :, L.T_LOWER_BLOCK].tolist() == [int(t == lower) for t in range(8)]
    assert e.taiji[0, :, L.T_UPPER_BLOCK].tolist() == [int(t == upper) for t in range(8)]
    assert (e.flow[0, L.F_GODS_LOWER], e.flow[0, L.F_GODS_UPPER]) == (lower, upper)
    assert e.flow[0, L.F_CHANCE] == L.EV_DIVINATION and e.current_player[0] == CHANCE_PLAYER
    assert e.flow[0, L.F_TURN] == 0 and not e.rewards.any()


def test_bag_and_rethrow_outcomes():
    _, explicit = cores(2)
    off = explicit.action_start
    e = at_event(2, L.EV_BAG, seed=1)
    area = e.flow[0, L.F_CHANCE_N]
    g = int(np.flatnonzero(e.goods[0, L.G_BAG])[0])
    bag, shown = e.goods[0, L.G_BAG].copy(), e.goods[0, L.G_YIN + area].copy()
    explicit.step(e, [int(off[L.O_BAG] + g)])
    assert e.goods[0, L.G_BAG, g] == bag[g] - 1 and e.goods[0, L.G_YIN + area, g] == shown[g] + 1
    e = at_event(2, L.EV_MORTAL_WILL, seed=4)
    n = e.flow[0, L.F_CHANCE_N]
    p = e.turn_order[0, e.flow[0, L.F_TURN]]
    yin, yang = e.players[0, p, L.Q_YIN], e.players[0, p, L.Q_YANG]
    explicit.step(e, [int(off[L.O_COINS])])  # no Yang face
    assert (e.players[0, p, L.Q_COINS_YANG], e.players[0, p, L.Q_COINS_YIN]) == (0, n)
    assert (e.players[0, p, L.Q_YIN], e.players[0, p, L.Q_YANG]) == (yin, yang)  # no gain


def test_outcomes_are_named_and_tabled():
    sampled, explicit = cores(2)
    table = explicit.action_table()
    assert table[:len(sampled.action_table())] == sampled.action_table()
    assert sum(count for _, count, _ in table) == explicit.num_actions
    assert all(first + count == nxt for (first, count, _), (nxt, _, _) in itertools.pairwise(table))
    off = explicit.action_start
    assert "upper Li" in explicit.action_to_string(off[L.O_GODS] + 5 * 8 + 2)
    assert explicit.action_to_string(off[L.O_COINS] + 1) == "chance: 1 Yang face"
    assert "silk" in explicit.action_to_string(off[L.O_BAG] + 3)
    assert sampled.action_to_string(off[L.O_GODS]) == str(int(off[L.O_GODS]))  # not an action there
