"""Scripted checks of the Yin Yang maps shipped in the package.

The map and its tables are stand-ins (``seeds/yinyang.md`` §13); these tests check that
the packaged data files keep the properties stated there: the counts per kingdom and colour, road
connectivity (of the whole map and of the red cities alone), degrees, Luo's links, the starting tokens
against the components of the rule text, the kingdom points and well-formed links.

Every check is a plain function that raises AssertionError; the tests run it on the packaged files,
and ``test_check_catches_a_broken_copy`` runs it once more on a deliberately broken copy, so that no
check can silently stop being able to fail.
"""
import copy
import json
import os
import re

import numpy as np
import pytest

from yyenvs.games.yinyang import data as data_module
from yyenvs.games.yinyang.data import GOODS, load_data

DATA_DIR = os.path.join(os.path.dirname(data_module.__file__), "data")
MAP26 = os.path.join(DATA_DIR, "yinyang_standin_26.json")
MAP49 = os.path.join(DATA_DIR, "yinyang_standin.json")
FILES = {"map26": MAP26, "map49": MAP49}

# components listed by the rule text
GOODS_PER_KIND = 17
BAG_PER_KIND = 6
DISASTERS = 5
TEMPLES_PER_PLAYER = 13
MAX_PLAYERS = 4

# the 49-city map as seeds/yinyang.md §13 states it
COUNTS_49 = {"Qi": (4, 4), "Qin": (4, 3), "Zhao": (4, 3), "Wei": (4, 3), "Yan": (4, 3), "Chu": (4, 3),
             "Han": (4, 2)}  # kingdom -> (red, blue)
POINTS_49 = {"Qin": [10, 5], "Chu": [10, 5], "Qi": [8, 4], "Zhao": [8, 4], "Wei": [8, 4], "Yan": [8, 4],
             "Han": [6, 3]}
RED_ROW_49 = {"cities": "red", "bronze": 6, "bone": 6, "jade": 6, "silk": 5, "disaster": 5}
ALL_ROW_49 = {"cities": "all", "bronze": 11, "bone": 11, "jade": 11, "silk": 11, "disaster": 5}
QI_EXAMPLE_TEMPLES = 4 + 2 + 2  # the rule text's Qi example, at most one temple per city


def read_raw(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


@pytest.fixture(scope="module", params=sorted(FILES))
def packaged(request):
    """(raw JSON, loaded data) of each packaged file."""
    path = FILES[request.param]
    return read_raw(path), load_data(path)


@pytest.fixture(scope="module")
def map49():
    return read_raw(MAP49), load_data(MAP49)


# -- graph helpers -----------------------------------------------------------------------------------

def reachable(adj, start, keep):
    """Indices reachable from ``start`` over ``adj`` through cities with ``keep`` set."""
    seen = {start}
    stack = [start]
    while stack:
        a = stack.pop()
        for b in np.flatnonzero(adj[a]):
            b = int(b)
            if keep[b] and b not in seen:
                seen.add(b)
                stack.append(b)
    return seen


def unreached(d, keep):
    keep = np.asarray(keep, dtype=bool)
    seen = reachable(d.road, d.capital, keep)
    return [d.city_names[i] for i in np.flatnonzero(keep) if i not in seen]


def cities_outside_luo(raw):
    capital = raw["capital"]["name"]
    return [c for c in raw["cities"]["list"] if c["name"] != capital]


# -- checks (each raises AssertionError naming what is wrong) -------------------------------------

def check_counts_49(raw):
    cities = cities_outside_luo(raw)
    got = {k: (sum(c["kingdom"] == k and c["colour"] == "red" for c in cities),
               sum(c["kingdom"] == k and c["colour"] == "blue" for c in cities)) for k in COUNTS_49}
    assert got == COUNTS_49
    assert len(cities) == 49 and sum(r for r, _ in got.values()) == 28 and sum(b for _, b in got.values()) == 21
    assert len(raw["cities"]["list"]) == 50  # Luo and 49 cities


def check_road_connected(d):
    lost = unreached(d, np.ones(d.num_cities, dtype=bool))
    assert not lost, f"not reachable by road from Luo: {lost}"


def check_red_road_connected(d):
    keep = d.colour == 0
    keep[d.capital] = True
    lost = unreached(d, keep)
    assert not lost, f"red cities not reachable from Luo by roads among red cities: {lost}"


def check_degrees(d):
    neighbours = (d.road | d.river | d.ocean).sum(axis=1)
    low = [(d.city_names[i], int(neighbours[i])) for i in range(d.num_cities) if neighbours[i] < 2]
    assert not low, f"cities with fewer than 2 linked neighbours: {low}"


def check_luo_links(d):
    road, river = int(d.road[d.capital].sum()), int(d.river[d.capital].sum())
    assert road >= 4, f"Luo has {road} road links"
    assert river >= 2, f"Luo has {river} river links"


def check_links(raw):
    names = [c["name"] for c in raw["cities"]["list"]]
    seen = {}
    for kind in ("road", "river", "ocean"):
        for j, link in enumerate(raw["links"][kind]):
            assert isinstance(link, list) and len(link) == 2, f"links.{kind}[{j}] is not a pair"
            a, b = link
            assert a in names and b in names, f"links.{kind}[{j}] names an unknown city: {link}"
            assert a != b, f"links.{kind}[{j}] joins {a} to itself"
            # road and boat may join the same two cities; river and ocean are both Boat links
            group = "road" if kind == "road" else "boat"
            key = (group, frozenset(link))
            assert key not in seen, f"links.{kind}[{j}] {link} repeats {seen[key]}"
            seen[key] = f"links.{kind}[{j}]"


def check_names(raw):
    names = [c["name"] for c in raw["cities"]["list"]]
    assert len(set(names)) == len(names), "duplicate city names"
    bad = [n for n in names if not re.fullmatch(r"[A-Z][a-z]{1,9}", n)]
    assert not bad, f"names that are not short ASCII pinyin: {bad}"


def check_starting_tokens(raw):
    """Every table row: one token per eligible city (Luo never), map + bag within the supply."""
    cities = cities_outside_luo(raw)
    eligible = {"red": sum(c["colour"] == "red" for c in cities), "all": len(cities)}
    assert raw["goods"]["per_kind"] == GOODS_PER_KIND and raw["goods"]["bag_per_kind"] == BAG_PER_KIND
    for side, rows in raw["starting_tokens"]["sides"].items():
        for pc, row in rows.items():
            where = f"starting_tokens.sides.{side}.{pc}"
            # the rule text: no starting token on blue cities with 2 players (solo plays the red cities too)
            assert row["cities"] == ("red" if int(pc) <= 2 else "all"), where
            tokens = sum(row[k] for k in GOODS) + row["disaster"]
            assert tokens == eligible[row["cities"]], f"{where}: {tokens} tokens, {eligible[row['cities']]} cities"
            assert row["disaster"] == DISASTERS, where
            for k in GOODS:
                assert row[k] + BAG_PER_KIND <= GOODS_PER_KIND, f"{where}.{k}: {row[k]} + {BAG_PER_KIND} in the bag"


def check_starting_tokens_49(raw):
    sides = raw["starting_tokens"]["sides"]
    assert sorted(sides) == ["2-3", "4"]
    # the rule text: the 2-3 player side of the board and the 4-player side (solo plays the 2-3 side)
    assert sides["2-3"] == {"1": RED_ROW_49, "2": RED_ROW_49, "3": ALL_ROW_49}
    assert sides["4"] == {"4": ALL_ROW_49}
    # with every city filled, the goods left after the bag are exactly used up
    assert sum(ALL_ROW_49[k] for k in GOODS) == len(GOODS) * (GOODS_PER_KIND - BAG_PER_KIND)


def check_temples_49(raw):
    cities = cities_outside_luo(raw)
    tokens = TEMPLES_PER_PLAYER * MAX_PLAYERS  # 52
    # one temple per city, none in Luo: the map holds at most len(cities) temples
    assert len(cities) <= tokens, f"{len(cities)} cities for {tokens} temple tokens"
    # the spec's reasoning (§13): at 3-4 players each city but Luo takes one of the 44 + 5 starting tokens
    assert len(cities) == len(GOODS) * (GOODS_PER_KIND - BAG_PER_KIND) + DISASTERS
    qi = sum(c["kingdom"] == "Qi" for c in cities)
    assert qi >= QI_EXAMPLE_TEMPLES, f"Qi has {qi} cities; the text's example puts 8 temples there"


def check_points_49(raw):
    got = {k["name"]: k["points"] for k in raw["kingdoms"]["list"]}
    assert got == POINTS_49


def check_keeps_old_cities(raw_new, raw_old):
    """The 25 cities of the old map are kept with their kingdom, colour and drawing position."""
    new = {c["name"]: c for c in raw_new["cities"]["list"]}
    for c in raw_old["cities"]["list"]:
        assert new.get(c["name"]) == c, f"old city {c['name']} changed or missing"
    assert raw_new["capital"] == raw_old["capital"]


def check_stand_in_marks(raw):
    assert raw["stand_in"] is True
    for section in ("kingdoms", "cities", "links", "starting_tokens"):
        assert raw[section].get("stand_in") is True, section


# -- the packaged files ------------------------------------------------------------------------------

def test_links_well_formed(packaged):
    check_links(packaged[0])


def test_city_names(packaged):
    check_names(packaged[0])


def test_whole_map_road_connected(packaged):
    check_road_connected(packaged[1])


def test_red_cities_road_connected(packaged):
    check_red_road_connected(packaged[1])


def test_every_city_has_two_neighbours(packaged):
    check_degrees(packaged[1])


def test_luo_links(packaged):
    check_luo_links(packaged[1])


def test_starting_tokens_fit_components(packaged):
    check_starting_tokens(packaged[0])


def test_stand_in_marks(packaged):
    check_stand_in_marks(packaged[0])


def test_counts_per_kingdom_and_colour_49(map49):
    check_counts_49(map49[0])


def test_starting_tokens_49(map49):
    check_starting_tokens_49(map49[0])


def test_temple_tokens_49(map49):
    check_temples_49(map49[0])


def test_kingdom_points_49(map49):
    check_points_49(map49[0])


def test_49_keeps_the_old_cities(map49):
    check_keeps_old_cities(map49[0], read_raw(MAP26))


def test_49_loads_like_the_validator_expects(map49):
    _, d = map49
    assert d.num_cities == 50 and d.city_names[d.capital] == "Luoyang" and d.kingdom[d.capital] == -1
    for side, counts_of in (("2-3", (1, 2, 3)), ("4", (4,))):
        assert sorted(d.start_tokens[side]) == list(counts_of)
        for pc in counts_of:
            counts, on_all = d.start_tokens[side][pc]
            assert counts.tolist() == ([11, 11, 11, 11, 5] if pc >= 3 else [6, 6, 6, 5, 5])
            assert on_all == (pc >= 3)


# -- every check can fail ----------------------------------------------------------------------------

def drop(kind, a, b):
    def edit(raw):
        links = raw["links"][kind]
        links.remove(next(e for e in links if sorted(e) == sorted([a, b])))
    return edit


def chain(*edits):
    def edit(raw):
        for e in edits:
            e(raw)
    return edit


def set_city(name, key, value):
    def edit(raw):
        next(c for c in raw["cities"]["list"] if c["name"] == name)[key] = value
    return edit


def set_row(side, pc, **values):
    def edit(raw):
        raw["starting_tokens"]["sides"][side][pc].update(values)
    return edit


def add_cities(n):
    def edit(raw):
        for i in range(n):
            name = "Extra" + "abcdefgh"[i]
            raw["cities"]["list"].append({"name": name, "kingdom": "Qi", "colour": "blue", "pos": [0.5, 0.5]})
            raw["links"]["road"] += [[name, "Linzi"], [name, "Jimo"]]
    return edit


def set_points(name, points):
    def edit(raw):
        next(k for k in raw["kingdoms"]["list"] if k["name"] == name)["points"] = points
    return edit


BROKEN = {
    # name: (edit of the 49-city file, check, whether the check takes the loaded data)
    "count: a Qi city moved to Yan": (set_city("Gaomi", "kingdom", "Yan"), check_counts_49, False),
    "road: Wu reached by boat only": (drop("road", "Guangling", "Wu"), check_road_connected, True),
    "red roads: Qi cut off from the other red cities": (drop("road", "Daliang", "Xue"), check_red_road_connected,
                                                        True),
    "degree: Didao with one neighbour": (drop("road", "Didao", "Hanzhong"), check_degrees, True),
    "Luo: three roads": (chain(drop("road", "Luoyang", "Yewang"), drop("road", "Luoyang", "Yiyang")),
                         check_luo_links, True),
    "Luo: one river": (chain(drop("river", "Luoyang", "Yiyang"), drop("river", "Luoyang", "Zhaoge"),
                             drop("river", "Luoyang", "Daliang")), check_luo_links, True),
    "tokens: one short": (set_row("2-3", "3", bronze=10), check_starting_tokens, False),
    "tokens: over the supply": (set_row("2-3", "3", bronze=12, bone=10), check_starting_tokens, False),
    "tokens: six disasters": (set_row("4", "4", bronze=10, disaster=6), check_starting_tokens, False),
    "tokens: blue cities at 2 players": (set_row("2-3", "2", cities="all"), check_starting_tokens, False),
    "tokens 49: a row swapped": (set_row("2-3", "1", bronze=5, silk=6), check_starting_tokens_49, False),
    "temples: more cities than tokens": (add_cities(4), check_temples_49, False),
    "points: Han at 8/4": (set_points("Han", [8, 4]), check_points_49, False),
    "links: a repeated road": (lambda r: r["links"]["road"].append(["Xue", "Daliang"]), check_links, False),
    "links: river and ocean on one pair": (lambda r: r["links"]["ocean"].append(["Ying", "Deng"]), check_links,
                                           False),
    "links: a self link": (lambda r: r["links"]["river"].append(["Wan", "Wan"]), check_links, False),
    "links: an unknown city": (lambda r: r["links"]["ocean"].append(["Jimo", "Penglai"]), check_links, False),
    "names: a duplicate": (set_city("Gaomi", "name", "Jimo"), check_names, False),
    "names: not ASCII": (set_city("Xue", "name", "Xu\u0113"), check_names, False),
    "old cities: Luoyang moved": (set_city("Luoyang", "pos", [0.5, 0.5]),
                                  lambda raw: check_keeps_old_cities(raw, read_raw(MAP26)), False),
    "stand-in: unmarked links": (lambda r: r["links"].pop("stand_in"), check_stand_in_marks, False),
}


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_check_catches_a_broken_copy(tmp_path, name):
    edit, check, needs_data = BROKEN[name]
    raw = copy.deepcopy(read_raw(MAP49))
    edit(raw)
    if needs_data:  # a file the loader still accepts, checked as the packaged files are
        path = tmp_path / "broken.json"
        path.write_text(json.dumps(raw), encoding="utf-8")
        arg = load_data(str(path))
    else:
        arg = raw
    with pytest.raises(AssertionError):
        check(arg)
