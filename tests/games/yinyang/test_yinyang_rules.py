"""Yin Yang rule tests from constructed states.

"Example n" refers to the numbered worked examples of seeds/yinyang.md.
"""
import json

import numpy as np
import pytest

from yyenvs.core.contract import OptionError
from yyenvs.games.yinyang import layout as L
from yyenvs.games.yinyang.core import YinYangCore
from yyenvs.games.yinyang.data import DEFAULT_DATA_FILE, DataFileError, load_data

CORES = {}


def core(P=2, **kw):
    key = (P, tuple(sorted(kw.items())))
    if key not in CORES:
        CORES[key] = YinYangCore(num_players=P, **kw)
    return CORES[key]


def city(c, name):
    return c.data.city_names.index(name)


def first_legal(c, s):
    return np.flatnonzero(c.legal_action_mask(s)[0])[0]


def throw(c, s):
    """Close the window before the Divination throw: the coins are thrown."""
    c.step(s, [int(c.action_start[L.O_THROW])])


def to_divination(c, seed=0):
    """A one-row game after set-up and the disaster removal (divination, first player), the
    first player's coins thrown (their window before the throw closed with ``throw``)."""
    s = c.init([seed])
    while s.flow[0, L.F_PHASE] in (L.PH_SETUP, L.PH_GODS):
        c.step(s, [first_legal(c, s)])
    if s.flow[0, L.F_BEFORE_THROW]:
        throw(c, s)
    assert s.flow[0, L.F_BEFORE_THROW] == 0 and s.flow[0, L.F_CHANCE] == L.EV_NONE
    return s


def at_gods(c, seed=0):
    """A one-row game after set-up: Phase One of round 1, the first player to remove a Disaster."""
    s = c.init([seed])
    while s.flow[0, L.F_PHASE] == L.PH_SETUP:
        c.step(s, [first_legal(c, s)])
    assert s.flow[0, L.F_PHASE] == L.PH_GODS
    return s


def start_divination(c, seed=0, cards=0, yin=0, yang=0):
    """Round 1 up to the first player's Divination turn, every seat with ``cards`` cards, Yin
    ``yin``, Yang ``yang`` and no temple on the map (explicit chance: the god coins fall on
    lower Qian, upper Kun).  Returns the state and the first player."""
    s = at_gods(c, seed)
    s.players[0, :, L.Q_CARDS] = cards
    s.players[0, :, L.Q_YIN] = yin
    s.players[0, :, L.Q_YANG] = yang
    s.cities[0, :, L.C_TEMPLE] = -1
    act(c, s, first_legal(c, s))  # remove a Disaster; the god coins follow
    if c.explicit_chance:
        assert s.current_player[0] == L.CHANCE_PLAYER and s.flow[0, L.F_CHANCE] == L.EV_GODS
        act(c, s, int(c.action_start[L.O_GODS] + 0 * 8 + 7))
    assert s.flow[0, L.F_PHASE] == L.PH_DIVINATION and s.flow[0, L.F_TURN] == 0
    return s, int(s.turn_order[0, 0])


def clear_board(s):
    s.cities[0, :, L.C_GOOD] = -1
    s.cities[0, :, L.C_DISASTER] = 0
    s.cities[0, :, L.C_TEMPLE] = -1


def action_state(c, p=0, yang=3, seed=0):
    """Row 0 in the action phase with seat p to act, coins (yang, 6 - yang), clean board."""
    s = to_divination(c, seed)
    clear_board(s)
    P = c.num_players
    s.flow[0, L.F_PHASE] = L.PH_ACTIONS
    s.flow[0, L.F_SPLIT_DONE] = 0
    s.flow[0, L.F_PENDING] = 0
    s.flow[0, L.F_SOLO_GAINS] = 0
    s.flow[0, L.F_TURN] = 0
    s.turn_order[0, :P] = [(p + r) % P for r in range(P)]
    s.current_player[0] = p
    s.players[0, :, L.Q_COINS_YANG] = yang
    s.players[0, :, L.Q_COINS_YIN] = 6 - yang
    s.players[0, :, L.Q_CARDS] = 0
    s.players[0, :, L.Q_TILES:L.Q_TILES + 8] = 0
    return s


def rule_order(s, i, P):
    """Turn order by the rule text: furthest on the track first, on a shared space the top token."""
    q = s.players[i, :P]
    return sorted(range(P), key=lambda p: (-int(q[p, L.Q_TRACK]), -int(q[p, L.Q_ARRIVAL])))


def legal(c, s):
    return set(np.flatnonzero(c.legal_action_mask(s)[0]).tolist())


def act(c, s, a):
    c.step(s, [a])


# --- set-up (Example 1) ----------------------------------------------------------
@pytest.mark.parametrize("P", [1, 2, 3, 4])
def test_setup_per_player_count(P):
    c = core(P)
    d = c.data
    s = c.init(np.arange(20))
    red = d.colour == 0
    cap = d.capital
    for i in range(20):
        good = s.cities[i, :, L.C_GOOD]
        dis = s.cities[i, :, L.C_DISASTER]
        token = (good >= 0) | (dis == 1)
        assert not token[cap]
        if P <= 2:  # red cities only, 28 tokens: 5 disasters, bronze 6, bone 6, jade 6, silk 5
            assert token[red & (np.arange(c.num_cities) != cap)].all() and not token[~red].any()
            assert token.sum() == 28
            assert [int((good == g).sum()) for g in range(4)] == [6, 6, 6, 5]
        else:  # every city but Luo, 49 tokens: 5 disasters, 11 of each good
            assert token.sum() == 49
            assert [int((good == g).sum()) for g in range(4)] == [11, 11, 11, 11]
        assert dis.sum() == 5
        g = s.goods[i].astype(int)
        assert g[L.G_YIN].sum() == 2 and g[L.G_YANG].sum() == 2 and g[L.G_BAG].sum() == 20
        on_map = np.array([(good == k).sum() for k in range(4)])
        assert (g.sum(0) + on_map == 17).all()
        # action tile stacks: 8 stacks of 5, two of each type
        assert (s.taiji[i, :, L.T_STACK] == 5).all()
        assert sorted(s.taiji[i, :, L.T_TILE_TYPE].tolist()) == [0, 0, 1, 1, 2, 2, 3, 3]
        # turn order stacked on the start space, first player on top; cards 2, 2, 3, 4
        order = s.turn_order[i, :P]
        assert sorted(order.tolist()) == list(range(P))
        assert all((order[(r + 1) % P] - order[r]) % P == 1 for r in range(P - 1))
        assert [int(s.players[i, q, L.Q_CARDS]) for q in order] == [2, 2, 3, 4][:P]
        assert (s.players[i, :, L.Q_TRACK] == 0).all() and (s.players[i, :, L.Q_TEMPLES] == 13).all()
        assert (s.players[i, :, L.Q_YIN] == 0).all() and (s.players[i, :, L.Q_YANG] == 0).all()
        for q in range(P):
            assert sorted(s.scoring_tiles[i, q, :, 0].tolist()) == list(range(10))
        if P == 1:
            assert (s.players[i, 0, L.Q_GOODS_MISSION] == -1) and (s.players[i, 0, L.Q_TEMPLE_MISSION] == -1)
            assert s.scoring_tiles[i, 0, :, 1].sum() == 4
            assert sorted(s.solo_tiles[i].tolist()) == list(range(7))
        else:
            assert len(set(s.players[i, :, L.Q_GOODS_MISSION].tolist())) == P
            assert len(set(s.players[i, :, L.Q_TEMPLE_MISSION].tolist())) == P
        # pawns are placed from the last player in turn order backwards
        assert s.current_player[i] == order[P - 1]


def test_pawn_placement_order_and_cities():
    c = core(3)
    s = c.init([5])
    order = s.turn_order[0, :3].tolist()
    m = c.legal_action_mask(s)[0]
    dis = s.cities[0, :, L.C_DISASTER] == 1
    placeable = np.flatnonzero(m[:c.num_cities])
    assert c.data.capital not in placeable
    assert not dis[placeable].any()
    assert len(placeable) == c.num_cities - 1 - 5
    seen = []
    for _ in range(3):
        seen.append(int(s.current_player[0]))
        act(c, s, placeable[0])  # several pawns may share a city
    assert seen == order[::-1]
    assert s.flow[0, L.F_PHASE] == L.PH_GODS and s.current_player[0] == order[0]


def test_solo_pawn_may_start_anywhere_but_luo():
    c = core(1)
    s = c.init([3])
    m = c.legal_action_mask(s)[0]
    assert m[:c.num_cities].sum() == c.num_cities - 1 and not m[c.data.capital]


def test_default_map_facts_through_the_core():
    """The default stand-in map (seeds/yinyang.md §13): Luo + 49 cities (28 red,
    21 blue); 2 players: tokens on the 28 red cities only (5 Disasters, Bronze 6, Bone 6, Jade 6,
    Silk 5); 4 players: on all 49 (5 Disasters, 11 of each); the "4" side has rows for 4 players only."""
    c = core(2)
    d = c.data
    assert c.num_cities == 50 and d.city_names[d.capital] == "Luoyang"
    cities = np.arange(c.num_cities) != d.capital
    red = cities & (d.colour == 0)
    assert red.sum() == 28 and (cities & (d.colour == 1)).sum() == 21
    per_kingdom = {k: int((d.kingdom == j).sum()) for j, k in enumerate(d.kingdom_names)}
    assert per_kingdom == {"Qi": 8, "Qin": 7, "Zhao": 7, "Wei": 7, "Yan": 7, "Chu": 7, "Han": 6}
    points = {k: c.tables.kingdom_points[j].tolist() for j, k in enumerate(d.kingdom_names)}
    assert points == {"Qin": [10, 5], "Chu": [10, 5], "Qi": [8, 4], "Zhao": [8, 4], "Wei": [8, 4],
                      "Yan": [8, 4], "Han": [6, 3]}
    for P, eligible, goods in ((2, red, [6, 6, 6, 5]), (4, cities, [11, 11, 11, 11])):
        s = core(P).init(np.arange(10))
        for i in range(10):
            good, dis = s.cities[i, :, L.C_GOOD], s.cities[i, :, L.C_DISASTER]
            assert [int((good == g).sum()) for g in range(4)] == goods and dis.sum() == 5
            assert not ((good >= 0) & (dis == 1)).any()  # one token per city
            assert (((good >= 0) | (dis == 1)) == eligible).all()
    for P in (1, 2, 3):
        with pytest.raises(OptionError, match="board_side"):
            YinYangCore(num_players=P, board_side="4")
    with pytest.raises(OptionError, match="board_side"):
        YinYangCore(num_players=4, board_side="2-3")


# --- Phase One (Example 2) ---------------------------------------------------------
def test_disaster_removal_and_gods_will():
    c = core(2)
    s = c.init([11])
    for _ in range(2):
        act(c, s, first_legal(c, s))
    dis = np.flatnonzero(s.cities[0, :, L.C_DISASTER])
    m = legal(c, s)
    assert m == {int(c.action_start[L.O_DISASTER] + x) for x in dis}
    act(c, s, int(c.action_start[L.O_DISASTER] + dis[2]))
    assert s.cities[0, dis[2], L.C_DISASTER] == 0 and s.cities[0, :, L.C_DISASTER].sum() == 4
    assert (s.taiji[0, :, L.T_UPPER_BLOCK] == 1).sum() == 1 and (s.taiji[0, :, L.T_LOWER_BLOCK] == 1).sum() == 1
    assert s.flow[0, L.F_PHASE] == L.PH_DIVINATION


# --- Phase Two (Examples 3-5) -----------------------------------------------------
def test_divination_gain_and_cap():
    c = core(2)
    s = to_divination(c)
    p = s.current_player[0]
    y, n = s.players[0, p, L.Q_COINS_YANG], s.players[0, p, L.Q_COINS_YIN]
    assert y + n == 6 and s.players[0, p, L.Q_YANG] == y and s.players[0, p, L.Q_YIN] == n
    # second player: Yin 7, Yang 7 before the throw -> both capped at 8 (Example 3)
    q = s.turn_order[0, 1]
    s.players[0, q, L.Q_YIN] = 7
    s.players[0, q, L.Q_YANG] = 7
    s.flow[0, L.F_SPLIT_DONE] = 1  # pretend the first player resolved the split
    act(c, s, int(c.action_start[L.O_END]))
    assert s.current_player[0] == q
    # q holds cards (+1 Yin / +1 Yang legal): the window before the throw is open, nothing gained yet
    assert s.flow[0, L.F_BEFORE_THROW] == 1 and int(c.action_start[L.O_THROW]) in legal(c, s)
    assert s.players[0, q, L.Q_YIN] == 7 and s.players[0, q, L.Q_YANG] == 7
    throw(c, s)
    assert s.current_player[0] == q and s.flow[0, L.F_BEFORE_THROW] == 0
    y = s.players[0, q, L.Q_COINS_YANG]
    assert s.players[0, q, L.Q_YANG] == min(8, 7 + y) and s.players[0, q, L.Q_YIN] == min(8, 7 + 6 - y)


def test_split_follows_yang_count_and_blocks():
    c = core(3)
    s = to_divination(c, seed=2)
    clear_board(s)
    p = s.current_player[0]
    s.players[0, p, L.Q_PAWN] = city(c, "Linzi")
    s.cities[0, city(c, "Linzi"), L.C_GOOD] = 0
    s.taiji[0, :, L.T_UPPER_BLOCK] = 0
    s.taiji[0, :, L.T_LOWER_BLOCK] = 0
    s.players[0, p, L.Q_COINS_YANG] = 4
    s.players[0, p, L.Q_COINS_YIN] = 2
    o = c.action_start[L.O_SPLIT]
    splits = {a - o for a in legal(c, s) if o <= a < o + 64}
    yc = L.YANG_COUNT
    assert splits == {u * 8 + l for u in range(8) for l in range(8) if yc[u] + yc[l] == 4}
    # Example 4: block upper Li (gods), empty stack Dui, block lower Zhen; no good -> no Dui lower
    s.taiji[0, 2, L.T_UPPER_BLOCK] = 1
    s.taiji[0, 1, L.T_STACK] = 0
    s.taiji[0, 3, L.T_LOWER_BLOCK] = 1
    s.cities[0, city(c, "Linzi"), L.C_GOOD] = -1
    splits = {a - o for a in legal(c, s) if o <= a < o + 64}
    assert splits == {u * 8 + l for u in range(8) for l in range(8) if yc[u] + yc[l] == 4
                      and u not in (1, 2) and l not in (3, 1)}
    # take Qian tile + Gen (2 cards): tile gained, stack blocked for later players
    t = s.taiji[0, 0, L.T_TILE_TYPE]
    h = s.players[0, p, L.Q_CARDS]
    act(c, s, int(o + 0 * 8 + 6))
    assert s.taiji[0, 0, L.T_STACK] == 4 and s.taiji[0, 0, L.T_UPPER_BLOCK] == 2
    assert s.players[0, p, L.Q_TILES + t] == 1 and s.players[0, p, L.Q_CARDS] == min(8, h + 2)
    assert legal(c, s) >= {int(c.action_start[L.O_END])}


def test_last_player_does_not_block():
    c = core(2)
    s = to_divination(c, seed=4)
    s.flow[0, L.F_TURN] = 1
    p = s.turn_order[0, 1]
    s.current_player[0] = p
    s.taiji[0, :, L.T_UPPER_BLOCK] = 0
    s.taiji[0, :, L.T_LOWER_BLOCK] = 0
    s.players[0, p, L.Q_COINS_YANG] = 6
    s.players[0, p, L.Q_COINS_YIN] = 0
    act(c, s, int(c.action_start[L.O_SPLIT] + 0 * 8 + 0))  # Qian / Qian
    assert s.taiji[0, 0, L.T_UPPER_BLOCK] == 0


def test_xun_moves_turn_order_three_and_stacks_on_top():
    c = core(2)
    s = to_divination(c, seed=4)
    p = s.current_player[0]
    q = 1 - p
    s.taiji[0, :, L.T_UPPER_BLOCK] = 0
    s.taiji[0, :, L.T_LOWER_BLOCK] = 0
    s.players[0, q, L.Q_TRACK] = 3
    s.players[0, p, L.Q_COINS_YANG] = 4
    s.players[0, p, L.Q_COINS_YIN] = 2
    act(c, s, int(c.action_start[L.O_SPLIT] + 4 * 8 + 4))  # Xun upper, Xun lower
    assert s.players[0, p, L.Q_TRACK] == 3 and s.players[0, p, L.Q_ARRIVAL] > s.players[0, q, L.Q_ARRIVAL]
    assert rule_order(s, 0, 2)[0] == p  # on top of the stack: earlier in turn order (Example 13)


def test_free_reroll():
    c = core(2)
    s = to_divination(c, seed=7)
    p = s.current_player[0]
    s.taiji[0, :, L.T_UPPER_BLOCK] = 0
    s.taiji[0, :, L.T_LOWER_BLOCK] = 0
    s.taiji[0, 7, L.T_UPPER_BLOCK] = 1  # Kun blocked by the gods
    s.players[0, p, L.Q_COINS_YANG] = 0
    s.players[0, p, L.Q_COINS_YIN] = 6
    s.players[0, p, L.Q_CARDS] = 0
    yin, yang = s.players[0, p, L.Q_YIN], s.players[0, p, L.Q_YANG]
    m = legal(c, s)
    assert int(c.action_start[L.O_REROLL]) in m  # Example 5: no legal split
    assert not any(c.action_start[L.O_SPLIT] <= a < c.action_start[L.O_SPLIT] + 64 for a in m)
    act(c, s, int(c.action_start[L.O_REROLL]))
    assert s.players[0, p, L.Q_COINS_YANG] + s.players[0, p, L.Q_COINS_YIN] == 6
    assert s.players[0, p, L.Q_YIN] == yin and s.players[0, p, L.Q_YANG] == yang  # no gain again
    # a legal split exists -> no reroll offered
    s.players[0, p, L.Q_COINS_YANG] = 3
    s.players[0, p, L.Q_COINS_YIN] = 3
    assert int(c.action_start[L.O_REROLL]) not in legal(c, s)


# --- the window before the Divination throw (seeds/yinyang.md §4, Examples 23-24) ---------------
def split_or_reroll(c, s):
    """Whether the mask offers the interpretation of a throw: a split or the free reroll."""
    o = c.action_start
    return any(o[L.O_SPLIT] <= a <= o[L.O_REROLL] for a in legal(c, s))


def test_window_before_the_throw_text_example():
    """The text's example: at 7 Yang a throw of 2 Yang would end at 8 and lose 1; a card before the
    throw raises Yang to exactly 8, the Gift from the Gods resets it to 0 and the throw gains in full."""
    c = core(2, chance="explicit")
    off = c.action_start
    assert off[L.O_THROW + 1] - off[L.O_THROW] == 1 and off[L.O_THROW + 1] == off[L.O_GODS]
    assert c.action_to_string(int(off[L.O_THROW])) == "throw the Divination coins"
    s, p = start_divination(c, seed=3, cards=2, yin=1, yang=7)
    assert s.current_player[0] == p and s.flow[0, L.F_BEFORE_THROW] == 1
    assert s.flow[0, L.F_CHANCE] == L.EV_NONE and s.players[0, p, L.Q_YANG] == 7  # nothing thrown yet
    assert c.observe(s, s.current_player)[0, 16] == 1  # the observation's "before the throw" flag
    m = legal(c, s)
    assert {int(off[L.O_THROW]), int(off[L.O_CARD] + 1)} <= m
    assert not any(off[L.O_GIFT] <= a < off[L.O_MORTAL] for a in m)  # Yang 7, Yin 1: no Gift yet
    assert not any(off[L.O_FLIP] <= a < off[L.O_SWAP] for a in m)  # no coin lies before the throw
    assert not split_or_reroll(c, s)  # nothing to interpret yet
    act(c, s, int(off[L.O_CARD] + 1))  # +1 Yang: exactly 8
    assert s.players[0, p, L.Q_YANG] == 8 and s.players[0, p, L.Q_CARDS] == 1
    m = legal(c, s)
    targets = sorted(a - off[L.O_GIFT] - 20 for a in m if off[L.O_GIFT] + 20 <= a < off[L.O_MORTAL])
    assert targets and int(off[L.O_THROW]) in m  # the Gift (Yang area) is offered now
    assert not any(off[L.O_GIFT] <= a < off[L.O_GIFT] + 20 for a in m)  # Yin area: Yin not at 8
    area, bag = s.goods[0, L.G_YANG].copy(), s.goods[0, L.G_BAG].copy()
    t = targets[0]
    g = int(c.tables.development_spaces[t]) if t < 16 else t - 16
    act(c, s, int(off[L.O_GIFT] + 20 + t))
    assert s.players[0, p, L.Q_YANG] == 0 and s.goods[0, L.G_YANG, g] == area[g] - 1
    assert t < 16 and s.development[0, p, t] == 1  # an empty space of that kind (a fresh board)
    # the Yang area is refilled from the bag: an explicit chance node, then the window again
    assert s.current_player[0] == L.CHANCE_PLAYER and s.flow[0, L.F_CHANCE] == L.EV_BAG
    assert s.flow[0, L.F_CHANCE_N] == 1
    h = int(np.flatnonzero(bag)[0])
    act(c, s, int(off[L.O_BAG] + h))
    assert s.goods[0, L.G_YANG].sum() == area.sum() and s.goods[0, L.G_BAG].sum() == bag.sum() - 1
    assert s.current_player[0] == p and s.flow[0, L.F_BEFORE_THROW] == 1  # 1 card left: still a choice
    yin = int(s.players[0, p, L.Q_YIN])
    throw(c, s)
    assert s.current_player[0] == L.CHANCE_PLAYER and s.flow[0, L.F_CHANCE] == L.EV_DIVINATION
    assert s.flow[0, L.F_BEFORE_THROW] == 0
    assert legal(c, s) == {int(off[L.O_COINS] + k) for k in range(7)}
    act(c, s, int(off[L.O_COINS] + 2))  # 2 Yang faces: Yang 0 + 2, nothing lost
    assert s.players[0, p, L.Q_YANG] == 2 and s.players[0, p, L.Q_YIN] == min(8, yin + 4)
    assert (s.players[0, p, L.Q_COINS_YANG], s.players[0, p, L.Q_COINS_YIN]) == (2, 4)
    assert s.current_player[0] == p and c.observe(s, s.current_player)[0, 16] == 0
    assert int(off[L.O_THROW]) not in legal(c, s) and split_or_reroll(c, s)


@pytest.mark.parametrize("chance", ["sampled", "explicit"])
def test_window_before_the_throw_skipped_without_a_choice(chance):
    """No card, Yin and Yang below 8, no temple on the map: no Special Anytime Action, so no `throw`
    decision: the coins are thrown at once (explicit chance: the throw is the pending chance node),
    for the first player (after the god coins) and for the next one (after an end of turn)."""
    c = core(2, chance=chance)
    off = c.action_start
    s, p = start_divination(c, seed=5, cards=0, yin=5, yang=6)
    for turn, seat in ((0, p), (1, int(s.turn_order[0, 1]))):
        assert s.flow[0, L.F_TURN] == turn and s.flow[0, L.F_BEFORE_THROW] == 0
        if c.explicit_chance:
            assert s.current_player[0] == L.CHANCE_PLAYER and s.flow[0, L.F_CHANCE] == L.EV_DIVINATION
            assert legal(c, s) == {int(off[L.O_COINS] + k) for k in range(7)}
            act(c, s, int(off[L.O_COINS] + 4))
        assert s.current_player[0] == seat and s.flow[0, L.F_CHANCE] == L.EV_NONE
        k = int(s.players[0, seat, L.Q_COINS_YANG])
        assert k + s.players[0, seat, L.Q_COINS_YIN] == 6
        assert s.players[0, seat, L.Q_YANG] == min(8, 6 + k) and s.players[0, seat, L.Q_YIN] == min(8, 5 + 6 - k)
        assert int(off[L.O_THROW]) not in legal(c, s) and split_or_reroll(c, s)
        s.flow[0, L.F_SPLIT_DONE] = 1  # pretend the split is resolved
        if turn == 0:
            act(c, s, int(off[L.O_END]))


@pytest.mark.parametrize("chance", ["sampled", "explicit"])
def test_window_before_the_throw_closes_by_itself(chance):
    """The window stays open while some Special Anytime Action is legal and closes by itself after
    the last one: one card at Yang 6: +1 Yang (7), then the throw comes without a `throw` action."""
    c = core(2, chance=chance)
    off = c.action_start
    s, p = start_divination(c, seed=6, cards=1, yin=2, yang=6)
    assert s.current_player[0] == p and s.flow[0, L.F_BEFORE_THROW] == 1
    assert legal(c, s) == {int(off[L.O_THROW]), int(off[L.O_CARD]), int(off[L.O_CARD] + 1)}
    act(c, s, int(off[L.O_CARD] + 1))
    assert s.flow[0, L.F_BEFORE_THROW] == 0 and s.players[0, p, L.Q_CARDS] == 0
    if c.explicit_chance:
        assert s.current_player[0] == L.CHANCE_PLAYER and s.flow[0, L.F_CHANCE] == L.EV_DIVINATION
        act(c, s, int(off[L.O_COINS] + 3))
        assert (s.players[0, p, L.Q_COINS_YANG], s.players[0, p, L.Q_COINS_YIN]) == (3, 3)
    assert s.current_player[0] == p and s.flow[0, L.F_CHANCE] == L.EV_NONE
    k = int(s.players[0, p, L.Q_COINS_YANG])
    assert k + s.players[0, p, L.Q_COINS_YIN] == 6
    assert s.players[0, p, L.Q_YANG] == min(8, 7 + k) and s.players[0, p, L.Q_YIN] == min(8, 2 + 6 - k)
    assert int(off[L.O_THROW]) not in legal(c, s) and split_or_reroll(c, s)


# --- Phase Three (Examples 6-9) ----------------------------------------------------------
def test_coin_pairs_and_tiles():
    c = core(2)
    s = action_state(c, yang=6)
    s.players[0, 0, L.Q_PAWN] = city(c, "Luoyang")
    m = legal(c, s)
    # Example 6: 6 Yang = three Laoyang pairs: carriage only
    assert any(c.action_start[L.O_ROAD] <= a < c.action_start[L.O_BOAT] for a in m)
    assert not any(c.action_start[L.O_BOAT] <= a < c.action_start[L.O_GOODS] for a in m)
    for _ in range(3):
        a = min(x for x in legal(c, s) if c.action_start[L.O_ROAD] <= x < c.action_start[L.O_BOAT])
        act(c, s, a)
    assert not any(c.action_start[L.O_ROAD] <= x < c.action_start[L.O_BOAT] for x in legal(c, s))
    # an accumulated boat tile gives one boat move (tiles used first)
    s.players[0, 0, L.Q_TILES + L.BOAT] = 1
    assert any(c.action_start[L.O_BOAT] <= x < c.action_start[L.O_GOODS] for x in legal(c, s))
    # 3 Yang 3 Yin: mixed pairs -> goods or temple
    s = action_state(c, yang=3)
    here = city(c, "Handan")
    s.players[0, 0, L.Q_PAWN] = here
    s.cities[0, here, L.C_GOOD] = 3
    m = legal(c, s)
    assert int(c.action_start[L.O_TEMPLE]) in m and any(c.action_start[L.O_GOODS] <= x < c.action_start[L.O_TEMPLE] for x in m)
    act(c, s, int(c.action_start[L.O_TEMPLE]))
    assert s.players[0, 0, L.Q_COINS_YANG] == 2 and s.players[0, 0, L.Q_COINS_YIN] == 2


def test_forfeit_and_end_turn_cards():
    c = core(2)
    s = action_state(c, yang=4)
    s.players[0, 0, L.Q_TILES + L.TEMPLE_TILE] = 2
    act(c, s, int(c.action_start[L.O_FORFEIT] + 3))  # forfeit a temple tile
    assert s.players[0, 0, L.Q_CARDS] == 1 and s.players[0, 0, L.Q_TILES_USED + L.TEMPLE_TILE] == 1
    act(c, s, int(c.action_start[L.O_FORFEIT] + 4))  # forfeit a Laoyang pair
    assert s.players[0, 0, L.Q_COINS_YANG] == 2 and s.players[0, 0, L.Q_CARDS] == 2
    # Example 7: end turn with 1 tile + 2 pairs left -> 3 more cards
    act(c, s, int(c.action_start[L.O_END]))
    assert s.players[0, 0, L.Q_CARDS] == 5 and s.current_player[0] == 1


def test_hand_limit():
    c = core(2)
    s = action_state(c, yang=6)
    s.players[0, 0, L.Q_CARDS] = 7
    act(c, s, int(c.action_start[L.O_END]))  # 3 pairs forfeited, hand stops at 8
    assert s.players[0, 0, L.Q_CARDS] == 8


def test_disasters_block_movement_and_luo_bonus_once_per_round():
    c = core(2)
    s = action_state(c, yang=6)
    xin, luo, dal = city(c, "Xinzheng"), city(c, "Luoyang"), city(c, "Daliang")
    s.players[0, 0, L.Q_PAWN] = xin
    s.cities[0, dal, L.C_DISASTER] = 1
    m = legal(c, s)
    o = c.action_start[L.O_ROAD]
    assert o + dal not in m and o + luo in m  # Example 8
    act(c, s, int(o + luo))
    assert s.players[0, 0, L.Q_CARDS] == 2 and s.players[0, 0, L.Q_LUO_BONUS] == 1
    act(c, s, int(o + xin))
    act(c, s, int(o + luo))
    assert s.players[0, 0, L.Q_CARDS] == 2  # only once per round
    s.players[0, 0, L.Q_LUO_BONUS] = 0  # a new round resets it
    s.players[0, 0, L.Q_TILES + L.CARRIAGE] = 2
    act(c, s, int(o + xin))
    act(c, s, int(o + luo))
    assert s.players[0, 0, L.Q_CARDS] == 4


def test_temple_rules():
    c = core(2)
    s = action_state(c, yang=3)
    luo, han = city(c, "Luoyang"), city(c, "Handan")
    s.players[0, 0, L.Q_PAWN] = luo
    assert int(c.action_start[L.O_TEMPLE]) not in legal(c, s)  # never in Luo
    s.players[0, 0, L.Q_PAWN] = han
    s.cities[0, han, L.C_TEMPLE] = 1
    assert int(c.action_start[L.O_TEMPLE]) not in legal(c, s)  # one temple per city
    s.cities[0, han, L.C_TEMPLE] = -1
    act(c, s, int(c.action_start[L.O_TEMPLE]))
    assert s.cities[0, han, L.C_TEMPLE] == 0 and s.players[0, 0, L.Q_TEMPLES] == 12
    s.players[0, 0, L.Q_PAWN] = city(c, "Jinyang")
    s.players[0, 0, L.Q_TEMPLES] = 0
    assert int(c.action_start[L.O_TEMPLE]) not in legal(c, s)  # supply empty


def test_goods_placement_and_overflow():
    c = core(2)
    s = action_state(c, yang=3)
    here = city(c, "Linzi")
    s.players[0, 0, L.Q_PAWN] = here
    s.cities[0, here, L.C_GOOD] = 3  # silk
    silk = np.flatnonzero(c.tables.development_spaces == 3)
    og = c.action_start[L.O_GOODS]
    assert {a - og for a in legal(c, s) if og <= a < og + 17} == set(silk.tolist())
    act(c, s, int(og + silk[1]))
    assert s.development[0, 0, silk[1]] == 1 and s.cities[0, here, L.C_GOOD] == -1
    # Example 9: every silk space full -> the good goes beside the board
    s.development[0, 0, silk] = 1
    s.cities[0, here, L.C_GOOD] = 3
    assert {a - og for a in legal(c, s) if og <= a < og + 17} == {16}
    act(c, s, int(og + 16))
    assert s.beside_board[0, 0, 3] == 1


# --- Special Anytime Actions (Examples 10-12) -----------------------------------------------
def test_gift_from_the_gods_and_refill():
    c = core(2)
    s = action_state(c, yang=3)
    s.players[0, 0, L.Q_YANG] = 8
    s.goods[0, L.G_YANG] = [1, 0, 0, 1]
    bag = s.goods[0, L.G_BAG].sum()
    o = c.action_start[L.O_GIFT] + 20  # Yang area
    targets = {a - o for a in legal(c, s) if o <= a < o + 20}
    assert targets == set(np.flatnonzero(c.tables.development_spaces == 0).tolist()) | set(np.flatnonzero(c.tables.development_spaces == 3).tolist())
    assert not any(c.action_start[L.O_GIFT] <= a < c.action_start[L.O_GIFT] + 20 for a in legal(c, s))  # Yin not at 8
    t = int(np.flatnonzero(c.tables.development_spaces == 3)[0])
    act(c, s, int(o + t))  # Example 10
    assert s.players[0, 0, L.Q_YANG] == 0 and s.development[0, 0, t] == 1
    assert s.goods[0, L.G_YANG].sum() == 2 and s.goods[0, L.G_BAG].sum() == bag - 1


def test_gift_with_empty_bag():
    c = core(2)
    s = action_state(c, yang=3)
    s.players[0, 0, L.Q_YIN] = 8
    s.goods[0, L.G_OUT] += s.goods[0, L.G_BAG]
    s.goods[0, L.G_BAG] = 0
    s.goods[0, L.G_YIN] = [0, 2, 0, 0]
    s.development[0, 0, c.tables.development_spaces == 1] = 1  # bone spaces full -> beside the board
    o = c.action_start[L.O_GIFT]
    assert {a - o for a in legal(c, s) if o <= a < o + 20} == {16 + 1}
    act(c, s, int(o + 17))
    assert s.beside_board[0, 0, 1] == 1 and s.goods[0, L.G_YIN].tolist() == [0, 1, 0, 0]


def test_mortal_will():
    c = core(2)
    s = action_state(c, yang=3)
    han = city(c, "Handan")
    s.cities[0, han, L.C_TEMPLE] = 0
    s.players[0, 0, L.Q_TEMPLES] = 12
    s.players[0, 0, L.Q_COINS_YANG] = 1  # two pairs already used: 2 coins left
    s.players[0, 0, L.Q_COINS_YIN] = 1
    yin, yang = s.players[0, 0, L.Q_YIN], s.players[0, 0, L.Q_YANG]
    m = legal(c, s)
    assert int(c.action_start[L.O_MORTAL] + han) in m and sum(
        1 for a in m if c.action_start[L.O_MORTAL] <= a < c.action_start[L.O_CARD]) == 1
    act(c, s, int(c.action_start[L.O_MORTAL] + han))  # Example 11
    assert s.cities[0, han, L.C_TEMPLE] == -1 and s.players[0, 0, L.Q_TEMPLES] == 13
    assert s.players[0, 0, L.Q_COINS_YANG] + s.players[0, 0, L.Q_COINS_YIN] == 2
    assert s.players[0, 0, L.Q_YIN] == yin and s.players[0, 0, L.Q_YANG] == yang


def test_mortal_will_in_divination_keeps_gains():
    c = core(2)
    s = to_divination(c, seed=9)
    p = s.current_player[0]
    s.cities[0, city(c, "Jimo"), L.C_TEMPLE] = p
    yin, yang = s.players[0, p, L.Q_YIN], s.players[0, p, L.Q_YANG]
    act(c, s, int(c.action_start[L.O_MORTAL] + city(c, "Jimo")))
    assert s.players[0, p, L.Q_COINS_YANG] + s.players[0, p, L.Q_COINS_YIN] == 6
    assert s.players[0, p, L.Q_YIN] == yin and s.players[0, p, L.Q_YANG] == yang


def test_divine_intervention_benefits():
    c = core(2)
    s = action_state(c, yang=3)
    s.players[0, 0, L.Q_CARDS] = 8
    s.players[0, 0, L.Q_YIN] = 7
    act(c, s, int(c.action_start[L.O_CARD]))  # Example 12: +1 Yin reaches exactly 8
    assert s.players[0, 0, L.Q_YIN] == 8 and s.players[0, 0, L.Q_CARDS] == 7
    assert int(c.action_start[L.O_CARD]) not in legal(c, s)  # not above 8
    act(c, s, int(c.action_start[L.O_FLIP]))  # flip a Yang coin to Yin
    assert (s.players[0, 0, L.Q_COINS_YANG], s.players[0, 0, L.Q_COINS_YIN], s.players[0, 0, L.Q_CARDS]) == (2, 4, 5)
    before = s.scoring_tiles[0, 0].copy()
    act(c, s, int(c.action_start[L.O_SWAP] + 0))  # swap lines 0 and 1
    assert (s.scoring_tiles[0, 0, 0] == before[1]).all() and (s.scoring_tiles[0, 0, 1] == before[0]).all()
    assert s.players[0, 0, L.Q_CARDS] == 2
    assert not any(c.action_start[L.O_SWAP] <= a < c.action_start[L.O_SOLO] for a in legal(c, s))  # needs 3 cards


# --- scoring (Examples 14-18) ---------------------------------------------------------------
def scoring_state(P):
    c = core(P)
    s = action_state(c)
    s.players[0, :, L.Q_GOODS_MISSION] = 0
    s.players[0, :, L.Q_TEMPLE_MISSION] = 0
    s.development[0] = 0
    s.beside_board[0] = 0
    s.players[0, :, L.Q_TRACK] = 0
    s.players[0, :, L.Q_YIN] = 0
    s.players[0, :, L.Q_YANG] = 0
    return c, s


def put_temples(c, s, p, kingdom, n):
    k = c.data.kingdom_names.index(kingdom)
    free = [x for x in np.flatnonzero(c.data.kingdom == k) if s.cities[0, x, L.C_TEMPLE] < 0]
    for x in free[:n]:
        s.cities[0, x, L.C_TEMPLE] = p


def kingdom_points(c, s):
    s.players[0, :, L.Q_GOODS_MISSION] = 11  # S3 O2 B1: unmet
    s.players[0, :, L.Q_TEMPLE_MISSION] = 2  # 3 + 2: unmet with these temples
    return c.scores(s)[0].tolist()


def test_kingdom_scoring_text_example():
    c, s = scoring_state(4)
    # Example 14 with other points: Qin (10/5); the text's own Qi example: test_kingdom_scoring_qi_example_on_the_map
    put_temples(c, s, 0, "Qin", 2)
    put_temples(c, s, 1, "Qin", 1)
    put_temples(c, s, 2, "Qin", 1)
    assert kingdom_points(c, s) == [10, 2, 2, 0]
    c, s = scoring_state(3)
    put_temples(c, s, 0, "Qi", 3)  # the only player in Qi: first + second = 12
    assert kingdom_points(c, s) == [12, 0, 0]


def test_kingdom_scoring_qi_example_on_the_map():
    """The text's Qi example itself (Qi 8 / 4, 8 cities, one temple per city): temples 4, 2 and 2
    score 8 for the first and the second prize 4 shared by the two tied, rounded down: 2 each."""
    c, s = scoring_state(3)
    qi = c.data.kingdom_names.index("Qi")
    assert (c.data.kingdom == qi).sum() == 8 and c.tables.kingdom_points[qi].tolist() == [8, 4]
    assert kingdom_points(c, s) == [0, 0, 0]  # without the temples nothing scores: the rest is isolated
    put_temples(c, s, 0, "Qi", 4)
    put_temples(c, s, 1, "Qi", 2)
    put_temples(c, s, 2, "Qi", 2)
    assert sorted(s.cities[0, c.data.kingdom == qi, L.C_TEMPLE].tolist()) == [0, 0, 0, 0, 1, 1, 2, 2]
    assert (s.cities[0, c.data.kingdom != qi, L.C_TEMPLE] == -1).all()
    assert kingdom_points(c, s) == [8, 2, 2]


def test_kingdom_scoring_ties():
    c, s = scoring_state(3)
    put_temples(c, s, 0, "Qi", 1)
    put_temples(c, s, 1, "Qi", 1)
    put_temples(c, s, 2, "Qi", 1)
    assert kingdom_points(c, s) == [4, 4, 4]  # Example 15: (8 + 4) // 3
    c, s = scoring_state(3)
    put_temples(c, s, 0, "Qin", 2)
    put_temples(c, s, 1, "Qin", 2)
    assert kingdom_points(c, s) == [7, 7, 0]  # (10 + 5) // 2, rounded down
    c, s = scoring_state(3)
    put_temples(c, s, 0, "Wei", 2)
    put_temples(c, s, 1, "Wei", 1)
    assert kingdom_points(c, s) == [8, 4, 0]


def test_mission_scoring():
    c, s = scoring_state(2)
    s.players[0, 0, L.Q_GOODS_MISSION] = 9  # S3 J2 O1 (the text's example)
    s.players[0, 0, L.Q_TEMPLE_MISSION] = 0  # 2, 2, 2 and 1
    for g, n in ((3, 3), (2, 2), (1, 1)):
        s.beside_board[0, 0, g] = n  # goods beside the board count for missions
    for k, n in (("Qin", 2), ("Zhao", 2), ("Yan", 2), ("Qi", 1)):
        put_temples(c, s, 1, k, n)
    sc = c.scores(s)[0]
    temples1 = (10 + 5) + (8 + 4) + (8 + 4) + (8 + 4)  # sole player in Qin, Zhao, Yan, Qi: first + second
    assert sc[0] == 6  # Example 16: goods mission met
    assert sc[1] == temples1 + 6
    s.beside_board[0, 0, 1] = 0
    assert c.scores(s)[0][0] == 0


def test_turn_order_track_scoring():
    c, s = scoring_state(2)
    s.players[0, 0, L.Q_TRACK] = 7
    s.players[0, 0, L.Q_GOODS_MISSION] = 11
    s.players[0, 0, L.Q_TEMPLE_MISSION] = 2
    assert c.scores(s)[0][0] == 4  # Example 17: ceil(7 / 2)


def test_development_scoring_text_example():
    c, s = scoring_state(2)
    s.players[0, :, L.Q_GOODS_MISSION] = -1
    s.players[0, :, L.Q_TEMPLE_MISSION] = -1
    # lines 0, 1, 2 complete with Silk, Yang and Approval tiles (Example 18)
    s.scoring_tiles[0, 0, :, 0] = [3, 8, 7, 0, 1, 2, 4, 5, 6, 9]
    s.development[0, 0, :12] = 1  # rows 1-3: 3 silk spaces filled
    s.beside_board[0, 0, 3] = 2  # 5 silk with two beside the board
    s.players[0, 0, L.Q_YANG] = 7
    for k in ("Qin", "Zhao", "Han"):
        put_temples(c, s, 0, k, 1)
    kp = (10 + 5) + (8 + 4) + (6 + 3)  # alone in Qin, Zhao and Han: first + second
    assert c.scores(s)[0][0] == kp + 15 + 9 + 9
    # the other tiles
    for tile, expect in ((4, 3 * (3 // 2)), (5, 0), (6, 3 * (8 // 2)), (9, 0), (0, 6), (1, 6), (2, 6)):
        s.scoring_tiles[0, 0, 0, 0] = tile
        assert c.scores(s)[0][0] == kp + expect + 9 + 9, tile
    s.players[0, 0, L.Q_TRACK] = 9
    s.scoring_tiles[0, 0, 0, 0] = 5
    assert c.scores(s)[0][0] == kp + 3 * 2 + 9 + 9 + 5


def finish_game(c, s):
    """Jump to the last player's end of round 5 and end it."""
    P = c.num_players
    s.flow[0, L.F_ROUND] = 5
    s.flow[0, L.F_TURN] = P - 1
    s.turn_order[0, :P] = rule_order(s, 0, P)
    s.current_player[0] = s.turn_order[0, P - 1]
    act(c, s, int(c.action_start[L.O_END]))
    assert s.terminated[0]


def test_winner_tie_goes_to_earlier_turn_order():
    c, s = scoring_state(2)
    s.players[0, :, L.Q_GOODS_MISSION] = 11
    s.players[0, :, L.Q_TEMPLE_MISSION] = 2
    s.players[0, 0, L.Q_TRACK] = 4
    s.players[0, 1, L.Q_TRACK] = 4
    s.players[0, 0, L.Q_ARRIVAL] = 5
    s.players[0, 1, L.Q_ARRIVAL] = 9  # seat 1 on top: earlier
    finish_game(c, s)
    assert s.players[0, 0, L.Q_SCORE] == s.players[0, 1, L.Q_SCORE]
    assert s.rewards[0].tolist() == [-1.0, 1.0]  # Example 19


def test_score_reward_option():
    c = core(2, reward="score")
    s = action_state(c)
    s.players[0, :, L.Q_GOODS_MISSION] = 11
    s.players[0, :, L.Q_TEMPLE_MISSION] = 2
    s.players[0, 0, L.Q_TRACK] = 10
    s.players[0, 1, L.Q_TRACK] = 2
    finish_game(c, s)
    assert s.rewards[0].tolist() == [4.0, -4.0]


def test_game_ends_after_round_five_and_phase_four_clears_blocks():
    c = core(2)
    s = action_state(c)
    s.flow[0, L.F_ROUND] = 4
    s.flow[0, L.F_TURN] = 1
    s.current_player[0] = s.turn_order[0, 1]
    s.taiji[0, 3, L.T_UPPER_BLOCK] = 2
    act(c, s, int(c.action_start[L.O_END]))
    assert not s.terminated[0] and s.flow[0, L.F_ROUND] == 5
    assert (s.taiji[0, :, L.T_UPPER_BLOCK] == 2).sum() == 0 and (s.taiji[0, :, L.T_UPPER_BLOCK] == 1).sum() == 1


# --- solo (Examples 20-22) ------------------------------------------------------------------
def test_solo_turn_order_gains():
    c = core(1)
    s = to_divination(c, seed=1)
    s.taiji[0, :, L.T_UPPER_BLOCK] = 0
    s.taiji[0, :, L.T_LOWER_BLOCK] = 0
    s.players[0, 0, L.Q_YIN] = 0
    s.players[0, 0, L.Q_YANG] = 0
    s.players[0, 0, L.Q_COINS_YANG] = 4
    s.players[0, 0, L.Q_COINS_YIN] = 2
    act(c, s, int(c.action_start[L.O_SPLIT] + 4 * 8 + 4))  # Xun lower: 0 -> 3, printed 0 -> 2
    assert s.flow[0, L.F_SOLO_GAINS] == 2
    assert legal(c, s) == {int(c.action_start[L.O_SOLO]), int(c.action_start[L.O_SOLO] + 1)}
    act(c, s, int(c.action_start[L.O_SOLO]))
    act(c, s, int(c.action_start[L.O_SOLO] + 1))
    assert (s.players[0, 0, L.Q_YIN], s.players[0, 0, L.Q_YANG]) == (2, 2)  # Example 20
    assert s.flow[0, L.F_SOLO_GAINS] == 0


def test_solo_tiles_flip_in_order():
    c = core(1)
    s = action_state(c, p=0, yang=3)
    s.solo_tiles[0] = [c.data.kingdom_names.index(k) for k in ("Yan", "Wei", "Qin", "Zhao", "Han", "Qi", "Chu")]
    s.players[0, 0, L.Q_TILES + L.TEMPLE_TILE] = 3
    s.players[0, 0, L.Q_PAWN] = city(c, "Anyi")  # Wei: not the leftmost tile
    act(c, s, int(c.action_start[L.O_TEMPLE]))
    assert s.flow[0, L.F_SOLO_FLIPPED] == 0
    s.players[0, 0, L.Q_PAWN] = city(c, "Ji")  # Yan
    act(c, s, int(c.action_start[L.O_TEMPLE]))
    assert s.flow[0, L.F_SOLO_FLIPPED] == 1
    s.players[0, 0, L.Q_PAWN] = city(c, "Daliang")  # Wei now
    act(c, s, int(c.action_start[L.O_TEMPLE]))
    assert s.flow[0, L.F_SOLO_FLIPPED] == 2  # Example 21


@pytest.mark.parametrize("lines,kingdoms,level", [
    (1, 7, 0), (4, 3, 0), (2, 4, 1), (2, 5, 2), (2, 6, 3), (2, 7, 4), (3, 4, 2), (3, 5, 3),
    (3, 6, 4), (3, 7, 5), (4, 4, 3), (4, 5, 4), (4, 6, 5), (4, 7, 6)])
def test_solo_achievement_table(lines, kingdoms, level):
    c = core(1)
    s = action_state(c, p=0)
    s.development[0] = 0
    s.scoring_tiles[0, 0, :, 1] = 0
    s.scoring_tiles[0, 0, [0, 1, 2, 3], 1] = 1  # second colour on the 4 rows
    s.development[0, 0, :4 * lines] = 1  # complete `lines` rows
    s.flow[0, L.F_SOLO_FLIPPED] = kingdoms
    finish_game(c, s)
    assert s.rewards[0, 0] == level  # Example 22


# --- options and data files -------------------------------------------------------------
def test_options():
    with pytest.raises(OptionError, match="num_players"):
        YinYangCore(num_players=5)
    with pytest.raises(OptionError, match="num_players"):
        YinYangCore(num_players="2")
    with pytest.raises(OptionError, match="reward"):
        YinYangCore(reward="points")
    with pytest.raises(OptionError, match="board_side"):
        YinYangCore(board_side="3")
    with pytest.raises(OptionError, match="board_side"):
        YinYangCore(num_players=2, board_side="4")  # no 2-player table on the 4-player side
    with pytest.raises(OptionError, match="unknown option"):
        YinYangCore(colour="red")
    with pytest.raises(OptionError, match="data_file"):
        YinYangCore(data_file=3)
    assert YinYangCore(num_players=4, board_side="4").board_side == "4"


def write(tmp_path, raw):
    p = tmp_path / "d.json"
    p.write_text(json.dumps(raw))
    return str(p)


def base():
    with open(DEFAULT_DATA_FILE) as f:
        return json.load(f)


@pytest.mark.parametrize("edit,field", [
    (lambda r: r.pop("links"), "links"),
    (lambda r: r["cities"]["list"][3].pop("kingdom"), "cities.list[3].kingdom"),
    (lambda r: r["kingdoms"]["list"][0].__setitem__("points", [10, "5"]), "kingdoms.list[0].points[1]"),
    (lambda r: r["links"]["road"].append(["Luoyang", "Atlantis"]), "links.road[74][1]"),  # 74 roads before it
    (lambda r: r["turn_order_track"].__setitem__("values", "many"), "turn_order_track.values"),
    (lambda r: r["lower_divination"]["actions"]["Kan"].__setitem__("action", "fly"),
     "lower_divination.actions.Kan.action"),
    (lambda r: r["development_area"]["spaces"].__setitem__(5, "gold"), "development_area.spaces[5]"),
    (lambda r: r["starting_tokens"]["sides"]["2-3"]["2"].__setitem__("silk", 4),
     "starting_tokens.sides.2-3.2"),
    (lambda r: r["goods_missions"]["list"][0].__setitem__("tea", 1), "goods_missions.list[0].tea"),
    (lambda r: r["cities"]["list"][5].__setitem__("kingdom", "Shu"), "cities.list[5].kingdom"),
])
def test_malformed_data_file(tmp_path, edit, field):
    raw = base()
    edit(raw)
    with pytest.raises(DataFileError, match=field.replace("[", r"\[").replace("]", r"\]")):
        YinYangCore(data_file=write(tmp_path, raw))


def test_disconnected_map_refused(tmp_path):
    raw = base()
    for kind in ("road", "river", "ocean"):
        raw["links"][kind] = [e for e in raw["links"][kind] if "Wu" not in e]
    with pytest.raises(DataFileError, match="links.*not connected"):
        load_data(write(tmp_path, raw))


def test_not_json_refused(tmp_path):
    p = tmp_path / "x.json"
    p.write_text("{nope")
    with pytest.raises(DataFileError, match="not valid JSON"):
        load_data(str(p))


def test_custom_data_file_accepted(tmp_path):
    raw = base()
    raw["stand_in"] = False
    raw["kingdoms"]["list"][0]["points"] = [12, 6]
    raw["turn_order_track"]["values"] = list(range(16))
    raw["lower_divination"]["actions"]["Gen"] = {"action": "goods", "turn_order": 0, "cards": 0}
    c = YinYangCore(num_players=3, data_file=write(tmp_path, raw))
    assert c.tables.kingdom_points[0].tolist() == [12, 6] and len(c.tables.turn_order_values) == 16
    s = c.init(np.arange(4))
    rng = np.random.default_rng(0)
    while not s.terminated.all():
        m = c.legal_action_mask(s)
        a = np.where(s.terminated, -1, (rng.random(m.shape) * m).argmax(1))
        c.step(s, a)
    assert (s.players[:, :, L.Q_TRACK] <= 15).all()


def test_render_and_observation_shapes():
    for P in (1, 2, 4):
        c = core(P)
        s = to_divination(c, seed=P)
        txt = c.render_ansi(s)
        assert "Tai Ji" in txt and "player 0" in txt
        img = c.render_rgb(s)
        assert img.dtype == np.uint8 and img.ndim == 3 and img.std() > 10
        o = c.observe(s, s.current_player)
        assert o.shape == (1,) + c.observation_shape and o.dtype == np.float32
        assert c.observation_shape == core(2).observation_shape
        assert 0 <= o.min() and o.max() <= 1


def test_no_mortal_will_before_the_throw():
    """Mortal Will comes only after the throw's gain (the text): a player whose only anytime action
    would be Mortal Will gets no window; once the coins lie, returning the temple is offered."""
    c = core(2)
    off = c.action_start
    s = at_gods(c, seed=3)
    p = int(s.turn_order[0, 0])
    s.players[0, :, L.Q_CARDS] = 0
    s.players[0, :, L.Q_YIN] = 1
    s.players[0, :, L.Q_YANG] = 1
    s.cities[0, :, L.C_TEMPLE] = -1
    jimo = city(c, "Jimo")
    s.cities[0, jimo, L.C_TEMPLE] = p
    act(c, s, first_legal(c, s))  # remove a Disaster: the god coins, then p's Divination turn
    assert s.flow[0, L.F_PHASE] == L.PH_DIVINATION and s.current_player[0] == p
    assert s.flow[0, L.F_BEFORE_THROW] == 0, "a window with Mortal Will as its only choice"
    assert s.players[0, p, L.Q_COINS_YANG] + s.players[0, p, L.Q_COINS_YIN] == 6  # thrown
    assert int(off[L.O_MORTAL] + jimo) in legal(c, s) and int(off[L.O_THROW]) not in legal(c, s)


def test_data_beyond_the_kernels_limits_refused(tmp_path):
    """The kernels' tables have fixed sizes (layout.MAX_*): a file beyond them is refused by name."""
    raw = base()
    extra = [{"name": f"Town{i}", "kingdom": "Qi", "colour": "blue", "pos": [0.5, 0.5]}
             for i in range(L.MAX_CITIES - len(raw["cities"]["list"]) + 1)]
    raw["cities"]["list"] += extra
    raw["links"]["road"] += [[c["name"], "Linzi"] for c in extra]
    with pytest.raises(DataFileError, match=rf"cities\.list.*2\.\.{L.MAX_CITIES} cities"):
        load_data(write(tmp_path, raw))
    raw = base()
    raw["turn_order_track"]["values"] = list(range(L.MAX_TRACK_SPACES + 1))
    with pytest.raises(DataFileError, match="turn_order_track.values"):
        load_data(write(tmp_path, raw))
    raw = base()
    raw["goods_missions"]["list"] *= L.MAX_MISSIONS // len(raw["goods_missions"]["list"]) + 1
    with pytest.raises(DataFileError, match="goods_missions.list"):
        load_data(write(tmp_path, raw))


def test_tables_at_the_kernels_limits_play(tmp_path):
    """A map of exactly MAX_CITIES nodes fits the tables record and plays."""
    raw = base()
    extra = [{"name": f"Town{i}", "kingdom": "Qi", "colour": "blue", "pos": [0.5, 0.5]}
             for i in range(L.MAX_CITIES - len(raw["cities"]["list"]))]
    raw["cities"]["list"] += extra
    raw["links"]["road"] += [[c["name"], "Linzi"] for c in extra] + [[c["name"], "Jimo"] for c in extra]
    raw["starting_tokens"]["sides"]["2-3"].pop("3")  # rows for every city would need more goods
    raw["starting_tokens"]["sides"].pop("4")
    c = YinYangCore(data_file=write(tmp_path, raw))
    assert c.num_cities == L.MAX_CITIES
    s = c.init(np.arange(4))
    for _ in range(300):
        m = c.legal_action_mask(s)
        c.step(s, np.where(s.done, -1, m.argmax(1)))
    assert c.scores(s).shape == (4, 2)
