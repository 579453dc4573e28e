"""Yin Yang component data: loading and validating the data file.

The printed component data of Yin Yang (map, Tai Ji board, tracks, tables,
cards) is not public.  The packaged file ``data/yinyang_standin.json`` holds
invented stand-ins (each section carries ``"stand_in": true``); a user with
the printed game passes their own file as the core option ``data_file``.
The format is documented in ``seeds/yinyang.md`` (section "Data file").

:func:`load_data` refuses a malformed file with a :class:`DataFileError`
whose message names the file and the offending field (e.g. ``links.road[3][1]``):
unknown keys, wrong types, out-of-range values, files that are not UTF-8 JSON
or larger than :data:`MAX_BYTES`.
"""
from __future__ import annotations

import difflib
import itertools
import json
import math
import os
from dataclasses import dataclass

import numpy as np

from yyenvs.core.contract import OptionError, show
from yyenvs.core.files import read_text_file, unique_keys
from yyenvs.games.yinyang.layout import MAX_CITIES, MAX_MISSIONS, MAX_TRACK_SPACES, NUM_KINGDOMS

DEFAULT_DATA_FILE = os.path.join(os.path.dirname(__file__), "data", "yinyang_standin.json")

GOODS = ("bronze", "bone", "jade", "silk")
TRIGRAMS = ("Qian", "Dui", "Li", "Zhen", "Xun", "Kan", "Gen", "Kun")
LOWER_KINDS = ("none", "goods", "temple", "carriage", "boat")
COLOURS = ("red", "blue")
SIDES = ("2-3", "4")


class DataFileError(OptionError):
    """A Yin Yang data file that is malformed; the message names the field."""


@dataclass
class YinYangData:
    """The validated data as numpy arrays (what the kernels use)."""

    source: str
    stand_in: bool
    city_names: list
    kingdom_names: list
    capital: int  # index of Luo
    kingdom: np.ndarray  # (N,) int8, -1 for the capital
    colour: np.ndarray  # (N,) int8, 0 red, 1 blue
    pos: np.ndarray  # (N, 2) float, drawing position in [0, 1]
    road: np.ndarray  # (N, N) bool
    river: np.ndarray  # (N, N) bool
    ocean: np.ndarray  # (N, N) bool
    kpoints: np.ndarray  # (K, 2) int16 first / second place points
    lower: np.ndarray  # (8, 3) int8: kind, turn-order steps, cards
    to_values: np.ndarray  # (S,) int16 printed value per track space
    goods_per_kind: int
    bag_per_kind: int
    start_tokens: dict  # side -> {players: (5,) int (b, o, j, s, disaster), all_cities: bool}
    dev_spaces: np.ndarray  # (16,) int8 printed goods kind
    perimeter: np.ndarray  # (16,) bool
    lines: np.ndarray  # (10, 16) bool: line l contains space s
    goods_missions: np.ndarray  # (M, 4) int8
    temple_missions: np.ndarray  # (T, K) int8 requirements sorted descending, 0-padded
    di_start: np.ndarray  # (4,) int8 cards by turn-order position

    @property
    def num_cities(self) -> int:
        return len(self.city_names)

    @property
    def boat(self) -> np.ndarray:
        return self.river | self.ocean


MAX_BYTES = 4 * 2**20  # far above any real map; at most MAX_BYTES + 1 bytes are ever read
FORMAT = "yyenvs-yinyang-data/1"

# Every key the format allows, with its JSON type (None: checked where it is read).
# Keys not listed are refused so that a misspelling cannot silently change the game.
ROOT_KEYS = {"format": str, "stand_in": bool, "description": str}
SECTION_COMMENTS = {"stand_in": bool, "note": str}  # allowed in every section
SECTIONS = {
    "capital": {"name": str, "short": str},
    "kingdoms": {"list": list},
    "cities": {"list": list},
    "links": {"road": list, "river": list, "ocean": list},
    "lower_divination": {"actions": dict},
    "turn_order_track": {"values": list},
    "goods": {"per_kind": int, "bag_per_kind": int},
    "starting_tokens": {"sides": dict},
    "development_area": {"spaces": list, "perimeter": list, "lines": list},
    "goods_missions": {"list": list},
    "temple_missions": {"list": list},
    "divine_intervention_start": {"by_position": list},
}
KINGDOM_KEYS = {"name": str, "points": list}
CITY_KEYS = {"name": str, "kingdom": None, "colour": str, "pos": list}
LOWER_KEYS = {"action": str, "turn_order": int, "cards": int}
START_ROW_KEYS = {"cities": str, **{k: int for k in GOODS + ("disaster",)}}

def _fail(field, msg):
    raise DataFileError(f"field '{field or '<root>'}': {msg}")


def _join(field, key):
    return f"{field}.{key}" if field else str(key)


def _keys(obj, field, allowed):
    """Check that ``obj`` is an object with only ``allowed`` keys (and their types)."""
    if not isinstance(obj, dict):
        _fail(field, f"expected an object, got {type(obj).__name__} {show(obj)}")
    for key, val in obj.items():
        if key not in allowed:
            close = difflib.get_close_matches(str(key), [str(k) for k in allowed], n=1)
            hint = f"did you mean {close[0]!r}?" if close else f"allowed: {sorted(map(str, allowed))}"
            _fail(_join(field, key), f"unknown key; {hint}")
        typ = allowed[key]
        if typ is not None and not _is(val, typ):
            _fail(_join(field, key), f"expected {_tname(typ)}, got {type(val).__name__} {show(val)}")
    return obj


def _get(obj, key, field, typ=None):
    if not isinstance(obj, dict):
        _fail(field, f"expected an object, got {type(obj).__name__} {show(obj)}")
    full = _join(field, key)
    if key not in obj:
        _fail(full, "missing")
    val = obj[key]
    if typ is not None and not _is(val, typ):
        _fail(full, f"expected {_tname(typ)}, got {type(val).__name__} {show(val)}")
    return val


def _is(val, typ):
    if typ is int:
        return isinstance(val, int) and not isinstance(val, bool)
    return isinstance(val, typ)


def _tname(typ):
    return {int: "an integer", str: "a string", list: "a list", dict: "an object",
            bool: "true/false"}.get(typ, str(typ))


def _int(val, field, lo=None, hi=None):
    if not _is(val, int):
        _fail(field, f"expected an integer, got {type(val).__name__} {show(val)}")
    if lo is not None and val < lo:
        _fail(field, f"must be >= {lo}, got {show(val)}")
    if hi is not None and val > hi:
        _fail(field, f"must be <= {hi}, got {show(val)}")
    return val


def _number(val):
    """A finite JSON number (bools are not numbers)."""
    return _is(val, int) or (isinstance(val, float) and math.isfinite(val))


def _no_constant(name):
    raise ValueError(f"{name} is not a JSON number")


def load_data(path: str | None = None) -> YinYangData:
    """Load and validate a data file (None: the packaged stand-in file)."""
    path = DEFAULT_DATA_FILE if path is None else os.fspath(path)
    where = f"yinyang data file {path!r}"
    text = read_text_file(path, where, MAX_BYTES, DataFileError)
    try:
        raw = json.loads(text, object_pairs_hook=unique_keys, parse_constant=_no_constant)
    except (ValueError, RecursionError) as e:  # RecursionError: nesting too deep
        raise DataFileError(f"{where} is not valid JSON: {str(e)[:200] or type(e).__name__}") from None
    return validate(raw, source=path)


def validate(raw, source: str = "<dict>") -> YinYangData:
    """Validate a parsed data file (a dict); raise DataFileError naming the file and the field."""
    try:
        return _validate(raw, source)
    except DataFileError as e:
        raise DataFileError(f"yinyang data file {source!r}: {e}") from None


def _validate(raw, source):
    stand_in, sec = _sections(raw)
    knames, kpoints = _kingdoms(sec["kingdoms"])
    cap_name = _get(sec["capital"], "name", "capital")
    names, kingdom, colour, pos = _cities(sec["cities"], cap_name, knames)
    mats = {kind: _links(sec["links"], kind, names) for kind in ("road", "river", "ocean")}
    _check_connected(mats["road"] | mats["river"] | mats["ocean"], names)
    lower = _lower_divination(sec["lower_divination"])
    track = _turn_order_track(sec["turn_order_track"])
    g = sec["goods"]
    per_kind = _int(_get(g, "per_kind", "goods"), "goods.per_kind", 1, 100)
    bag_per = _int(_get(g, "bag_per_kind", "goods"), "goods.bag_per_kind", 0, 100)
    eligible = {which: sum(1 for i in range(len(names)) if names[i] != cap_name
                           and (which == "all" or colour[i] == 0)) for which in ("red", "all")}
    start = _starting_tokens(sec["starting_tokens"], eligible, len(names), per_kind, bag_per)
    dev, perim, lines = _development_area(sec["development_area"])
    goods_missions = _goods_missions(sec["goods_missions"], per_kind)
    temple_missions = _temple_missions(sec["temple_missions"])
    di_start = _divine_intervention(sec["divine_intervention_start"])
    return YinYangData(
        source=source, stand_in=stand_in, city_names=names, kingdom_names=knames,
        capital=names.index(cap_name), kingdom=np.array(kingdom, dtype=np.int8),
        colour=np.array(colour, dtype=np.int8), pos=np.array(pos, dtype=np.float64),
        road=mats["road"], river=mats["river"], ocean=mats["ocean"],
        kpoints=np.array(kpoints, dtype=np.int16), lower=lower,
        to_values=np.array(track, dtype=np.int16), goods_per_kind=per_kind, bag_per_kind=bag_per,
        start_tokens=start, dev_spaces=dev, perimeter=perim, lines=lines,
        goods_missions=goods_missions, temple_missions=temple_missions,
        di_start=np.array(di_start, dtype=np.int8))


def _sections(raw):
    """(stand_in, {section: its object}) with every key checked."""
    _keys(raw, "", {**ROOT_KEYS, **{s: dict for s in SECTIONS}})
    if raw.get("format", FORMAT) != FORMAT:
        _fail("format", f"expected {FORMAT!r}, got {show(raw['format'])}")
    sec = {s: _keys(_get(raw, s, "", dict), s, {**SECTION_COMMENTS, **keys})
           for s, keys in SECTIONS.items()}
    return raw.get("stand_in", False), sec


def _kingdoms(section):
    """(names, [first, second] points) of the seven kingdoms."""
    klist = _get(section, "list", "kingdoms")
    if len(klist) != NUM_KINGDOMS:
        _fail("kingdoms.list", f"the rule text has {NUM_KINGDOMS} kingdoms, got {len(klist)}")
    knames, kpoints = [], []
    for i, k in enumerate(klist):
        f = f"kingdoms.list[{i}]"
        name = _get(_keys(k, f, KINGDOM_KEYS), "name", f)
        if name in knames:
            _fail(f + ".name", f"duplicate kingdom {show(name)}")
        pts = _get(k, "points", f)
        if len(pts) != 2:
            _fail(f + ".points", "expected [first, second]")
        kpoints.append([_int(p, f"{f}.points[{j}]", 0, 1000) for j, p in enumerate(pts)])
        knames.append(name)
    return knames, kpoints


def _cities(section, cap_name, knames):
    """(names, kingdom index or -1, colour index, drawing position) per city."""
    clist = _get(section, "list", "cities")
    if not 2 <= len(clist) <= MAX_CITIES:
        _fail("cities.list", f"expected 2..{MAX_CITIES} cities, got {len(clist)}")
    names, kingdom, colour, pos = [], [], [], []
    for i, c in enumerate(clist):
        f = f"cities.list[{i}]"
        name = _get(_keys(c, f, CITY_KEYS), "name", f)
        if name in names:
            _fail(f + ".name", f"duplicate city {show(name)}")
        names.append(name)
        if name == cap_name:
            if c.get("kingdom") is not None:
                _fail(f + ".kingdom", "the capital belongs to no kingdom (use null)")
            kingdom.append(-1)
        else:
            kn = _get(c, "kingdom", f, str)
            if kn not in knames:
                _fail(f + ".kingdom", f"unknown kingdom {show(kn)}")
            kingdom.append(knames.index(kn))
        col = _get(c, "colour", f)
        if col not in COLOURS:
            _fail(f + ".colour", f"expected one of {COLOURS}, got {show(col)}")
        colour.append(COLOURS.index(col))
        p = c.get("pos", [0.5 + 0.4 * np.cos(2 * np.pi * i / len(clist)),
                          0.5 + 0.4 * np.sin(2 * np.pi * i / len(clist))])
        if len(p) != 2 or not all(_number(v) and 0 <= v <= 1 for v in p):
            _fail(f + ".pos", "expected [x, y] with numbers in [0, 1]")
        pos.append(p)
    if cap_name not in names:
        _fail("capital.name", f"capital {show(cap_name)} is not a city in cities.list")
    for k in range(NUM_KINGDOMS):
        if k not in kingdom:
            _fail("kingdoms.list", f"kingdom {knames[k]!r} has no city")
    return names, kingdom, colour, pos


def _links(section, kind, names):
    """The (N, N) bool matrix of the links of one kind (road, river, ocean)."""
    lst = _get(section, kind, "links")
    n = len(names)
    m = np.zeros((n, n), dtype=bool)
    for j, e in enumerate(lst):
        f = f"links.{kind}[{j}]"
        if not isinstance(e, list) or len(e) != 2:
            _fail(f, "expected a pair [city, city]")
        for q in range(2):
            if not isinstance(e[q], str) or e[q] not in names:
                _fail(f"{f}[{q}]", f"unknown city {show(e[q])}")
        a, b = names.index(e[0]), names.index(e[1])
        if a == b:
            _fail(f, "a link must join two different cities")
        m[a, b] = m[b, a] = True
    return m


def _check_connected(links, names):
    """Every city reachable from the first by any links."""
    seen = np.zeros(len(names), dtype=bool)
    stack = [0]
    seen[0] = True
    while stack:
        a = stack.pop()
        for b in np.flatnonzero(links[a]):
            if not seen[b]:
                seen[b] = True
                stack.append(int(b))
    if not seen.all():
        lost = [names[i] for i in np.flatnonzero(~seen)]
        _fail("links", f"the map is not connected; unreachable from {names[0]!r}: {lost[:6]}")


def _lower_divination(section):
    """(8, 3) int8 per lower trigram: action kind, turn-order steps, cards."""
    ld = _keys(_get(section, "actions", "lower_divination"),
               "lower_divination.actions", dict.fromkeys(TRIGRAMS, dict))
    lower = np.zeros((8, 3), dtype=np.int8)
    for t, tri in enumerate(TRIGRAMS):
        f = f"lower_divination.actions.{tri}"
        e = _keys(_get(ld, tri, "lower_divination.actions"), f, LOWER_KEYS)
        kind = _get(e, "action", f)
        if kind not in LOWER_KINDS:
            _fail(f + ".action", f"expected one of {LOWER_KINDS}, got {show(kind)}")
        lower[t] = (LOWER_KINDS.index(kind), _int(e.get("turn_order", 0), f + ".turn_order", 0, 20),
                    _int(e.get("cards", 0), f + ".cards", 0, 8))
    return lower


def _turn_order_track(section):
    """The printed value of each track space (never decreasing)."""
    vals = _get(section, "values", "turn_order_track")
    if not 2 <= len(vals) <= MAX_TRACK_SPACES:
        _fail("turn_order_track.values", f"expected 2..{MAX_TRACK_SPACES} spaces")
    vals = [_int(v, f"turn_order_track.values[{i}]", 0, 1000) for i, v in enumerate(vals)]
    if any(b < a for a, b in itertools.pairwise(vals)):
        _fail("turn_order_track.values", "printed values must not decrease along the track")
    return vals


def _starting_tokens(section, eligible, n, per_kind, bag_per):
    """side -> {players: ((5,) goods and disaster counts, on all cities)}; one token per eligible city."""
    sides = _get(section, "sides", "starting_tokens")
    start = {}
    for side, rows in sides.items():
        f0 = f"starting_tokens.sides.{side}"
        if side not in SIDES:
            _fail(f0, f"unknown board side {show(side)}; expected one of {SIDES}")
        if not isinstance(rows, dict):
            _fail(f0, "expected an object keyed by player count")
        start[side] = {}
        for pc, row in rows.items():
            f = f"{f0}.{pc}"
            if pc not in ("1", "2", "3", "4"):
                _fail(f, "player count must be '1'..'4'")
            which = _get(_keys(row, f, START_ROW_KEYS), "cities", f)
            if which not in ("red", "all"):
                _fail(f + ".cities", f"expected 'red' or 'all', got {show(which)}")
            counts = [_int(_get(row, k, f), f"{f}.{k}", 0, 100) for k in GOODS + ("disaster",)]
            if sum(counts) != eligible[which]:
                _fail(f, f"{sum(counts)} tokens for {eligible[which]} eligible cities (need one each)")
            for q, k in enumerate(GOODS):
                if counts[q] + bag_per > per_kind:
                    _fail(f"{f}.{k}", f"{counts[q]} on the map + {bag_per} in the bag exceed "
                                      f"goods.per_kind = {per_kind}")
            if n - 1 - counts[4] < 1:
                _fail(f + ".disaster", "no city is left for the pawns")
            start[side][int(pc)] = (np.array(counts, dtype=np.int16), which == "all")
    if not any(start.values()):
        _fail("starting_tokens.sides", "no table")
    return start


def _development_area(section):
    """(printed goods kind per space, perimeter flags, (10, 16) line membership)."""
    sp = _get(section, "spaces", "development_area")
    if len(sp) != 16:
        _fail("development_area.spaces", f"expected 16 spaces, got {len(sp)}")
    for i, s in enumerate(sp):
        if s not in GOODS:
            _fail(f"development_area.spaces[{i}]", f"expected one of {GOODS}, got {show(s)}")
    dev = np.array([GOODS.index(s) for s in sp], dtype=np.int8)
    per = _get(section, "perimeter", "development_area")
    perim = np.zeros(16, dtype=bool)
    for i, s in enumerate(per):
        perim[_int(s, f"development_area.perimeter[{i}]", 0, 15)] = True
    lns = _get(section, "lines", "development_area")
    if len(lns) != 10:
        _fail("development_area.lines", f"the rule text has 10 lines, got {len(lns)}")
    lines = np.zeros((10, 16), dtype=bool)
    for i, ln in enumerate(lns):
        if not isinstance(ln, list) or not ln:
            _fail(f"development_area.lines[{i}]", "expected a non-empty list of spaces")
        for j, s in enumerate(ln):
            lines[i, _int(s, f"development_area.lines[{i}][{j}]", 0, 15)] = True
    return dev, perim, lines


def _goods_missions(section, per_kind):
    """(M, 4) int8 goods needed per kind."""
    gm = _get(section, "list", "goods_missions")
    if not 4 <= len(gm) <= MAX_MISSIONS:
        _fail("goods_missions.list", f"expected 4..{MAX_MISSIONS} cards (one per player at least)")
    gmis = np.zeros((len(gm), 4), dtype=np.int8)
    for i, m in enumerate(gm):
        f = f"goods_missions.list[{i}]"
        for k, v in _keys(m, f, dict.fromkeys(GOODS)).items():
            gmis[i, GOODS.index(k)] = _int(v, f"{f}.{k}", 0, per_kind)
    return gmis


def _temple_missions(section):
    """(T, 7) int8 temples needed in distinct kingdoms, largest first, 0-padded."""
    tm = _get(section, "list", "temple_missions")
    if not 4 <= len(tm) <= MAX_MISSIONS:
        _fail("temple_missions.list", f"expected 4..{MAX_MISSIONS} cards (one per player at least)")
    tmis = np.zeros((len(tm), NUM_KINGDOMS), dtype=np.int8)
    for i, m in enumerate(tm):
        f = f"temple_missions.list[{i}]"
        if not isinstance(m, list) or not 1 <= len(m) <= NUM_KINGDOMS:
            _fail(f, f"expected a list of 1..{NUM_KINGDOMS} temple counts (distinct kingdoms)")
        req = sorted((_int(v, f"{f}[{j}]", 1, 13) for j, v in enumerate(m)), reverse=True)
        tmis[i, :len(req)] = req
    return tmis


def _divine_intervention(section):
    """Cards at the start by turn-order position (4)."""
    di = _get(section, "by_position", "divine_intervention_start")
    if len(di) != 4:
        _fail("divine_intervention_start.by_position", "expected 4 numbers (positions 1..4)")
    return [_int(v, f"divine_intervention_start.by_position[{i}]", 0, 8) for i, v in enumerate(di)]
