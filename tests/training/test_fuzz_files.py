"""Property tests: hostile Yin Yang data files and training configs.

Whatever the input, the loaders either accept it or raise their own error
(:class:`DataFileError` / :class:`ConfigError`) naming the field or the file;
no other exception type escapes.  The Yin Yang checks call the data functions
directly (no core, so no numba compile).
"""
from __future__ import annotations

import copy
import json
import math
import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from yyenvs.training.config import FLAT_DEFAULTS, SECTIONS, ConfigError, load_config, parse_override, read_config_file
from yyenvs.values import parse_option
from yyenvs.core.contract import OptionError
from yyenvs.games.yinyang.data import DEFAULT_DATA_FILE, MAX_BYTES, DataFileError, load_data, validate

from tests import ROOT

FAST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

with open(DEFAULT_DATA_FILE, encoding="utf-8") as f:
    TEXT = f.read()
BASE = json.loads(TEXT)


def paths(obj, prefix=()):
    """Every path (a tuple of keys / indices) into the JSON tree, the root excluded."""
    items = obj.items() if isinstance(obj, dict) else enumerate(obj) if isinstance(obj, list) else ()
    for k, v in items:
        yield prefix + (k,)
        yield from paths(v, prefix + (k,))


PATHS = list(paths(BASE))


def at(obj, path):
    for k in path:
        obj = obj[k]
    return obj


DICT_PATHS = [()] + [p for p in PATHS if isinstance(at(BASE, p), dict)]


def dotted(path):
    out = ""
    for k in path:
        out += f"[{k}]" if isinstance(k, int) else (f".{k}" if out else k)
    return out


def deep(n):
    v = 0
    for _ in range(n):
        v = [v]
    return v


HUGE = st.just(5000).map(lambda n: 10**n)  # too many digits for str(); kept out of reprs
junk = st.one_of(
    st.none(), st.booleans(), st.integers(), st.integers(min_value=-2**70, max_value=-1),
    st.sampled_from([2**63, 10**30, math.nan, math.inf, -math.inf, -0.0, 1e308]), HUGE,
    st.floats(), st.text(max_size=20), st.binary(max_size=8).map(lambda b: b.hex()),
    st.lists(st.integers(), max_size=4), st.dictionaries(st.text(max_size=5), st.integers(), max_size=3),
    st.integers(min_value=1, max_value=3000).map(deep),
)


def check_data_error(e: DataFileError):
    msg = str(e)
    assert "yinyang data file" in msg and "field '" in msg, msg


@st.composite
def mutated(draw):
    raw = copy.deepcopy(BASE)
    for _ in range(draw(st.integers(1, 3))):
        path = draw(st.sampled_from(PATHS))
        try:
            parent = at(raw, path[:-1])
            key = path[-1]
            parent[key]
        except (KeyError, IndexError, TypeError):
            continue  # an earlier mutation removed it
        if not isinstance(parent, (dict, list)):
            continue  # inside a value an earlier mutation put there
        op = draw(st.sampled_from(["drop", "rename", "replace"]))
        if op == "drop":
            del parent[key]
        elif op == "rename" and isinstance(parent, dict):
            new = draw(st.one_of(st.text(max_size=12), st.just(key + "x"), st.just(key[:-1])))
            parent[new] = parent.pop(key)
        else:
            parent[key] = draw(junk)
    return raw


@FAST
@given(mutated())
def test_mutated_data_validates_or_names_the_field(raw):
    try:
        validate(raw)
    except DataFileError as e:
        check_data_error(e)


@pytest.fixture(scope="module")
def scratch(tmp_path_factory):
    return str(tmp_path_factory.mktemp("fuzz") / "data.json")


def load_bytes(path, data: bytes):
    with open(path, "wb") as f:
        f.write(data)
    try:
        load_data(path)
    except DataFileError as e:
        assert path in str(e), str(e)


@FAST
@given(mutated())
def test_mutated_data_file_loads_or_names_the_file(scratch, raw):
    try:
        text = json.dumps(raw)  # NaN and inf become the non-JSON tokens NaN / Infinity
    except (ValueError, RecursionError):
        return  # json cannot even write it
    load_bytes(scratch, text.encode())


@FAST
@given(st.data())
def test_damaged_bytes_load_or_name_the_file(scratch, data):
    raw = TEXT.encode("utf-8")
    how = data.draw(st.sampled_from(["truncate", "encode", "random", "flip", "deep", "splice"]))
    if how == "truncate":
        blob = raw[:data.draw(st.integers(0, len(raw)))]
    elif how == "encode":
        blob = TEXT.encode(data.draw(st.sampled_from(["utf-16", "utf-16-le", "utf-16-be", "utf-32",
                                                      "latin-1", "cp1252", "utf-8-sig"])), "replace")
    elif how == "random":
        blob = data.draw(st.binary(max_size=2000))
    elif how == "flip":
        i = data.draw(st.integers(0, len(raw) - 1))
        blob = raw[:i] + bytes([data.draw(st.integers(0, 255))]) + raw[i + 1:]
    elif how == "deep":
        n = data.draw(st.integers(1, 200_000))
        blob = raw.replace(b'"per_kind": 17', b'"per_kind": ' + b"[" * n + b"]" * n, 1)
    else:
        i = data.draw(st.integers(0, len(raw)))
        blob = raw[:i] + data.draw(st.binary(min_size=1, max_size=50)) + raw[i:]
    load_bytes(scratch, blob)


def test_packaged_file_still_loads():
    d = load_data()
    assert d.stand_in and d.num_cities == 50


@pytest.mark.parametrize("path", DICT_PATHS, ids=[dotted(p) or "<root>" for p in DICT_PATHS])
def test_unknown_key_refused_at_every_level(path):
    raw = copy.deepcopy(BASE)
    obj = at(raw, path)
    near = next(iter(obj))
    obj[near + "x"] = obj[near]
    with pytest.raises(DataFileError) as e:
        validate(raw)
    full = dotted(path + (near + "x",))
    assert f"'{full}'" in str(e.value)
    if "unknown key" in str(e.value):
        assert f"did you mean {near!r}" in str(e.value)


WRONG = [
    (("lower_divination", "actions", "Xun", "turn_order"), True, ["turn_order", "integer"]),
    (("goods", "per_kind"), 17.0, ["goods.per_kind", "integer"]),
    (("cities", "list", 1, "pos", 0), math.nan, ["cities.list[1].pos"]),
    (("cities", "list", 1, "pos", 0), True, ["cities.list[1].pos"]),
    (("stand_in",), "yes", ["stand_in", "true/false"]),
    (("goods", "note"), 3, ["goods.note", "string"]),
    (("format",), "yyenvs-yinyang-data/2", ["format"]),
    (("kingdoms", "list", 0, "name"), deep(5000), ["kingdoms.list[0].name"]),
    (("goods", "per_kind"), 10**5000, ["goods.per_kind", "too large"]),
]


@pytest.mark.parametrize("path, value, words", WRONG, ids=[f"{dotted(c[0])}={type(c[1]).__name__}" for c in WRONG])
def test_wrong_types_name_the_field(path, value, words):
    raw = copy.deepcopy(BASE)
    at(raw, path[:-1])[path[-1]] = value
    with pytest.raises(DataFileError) as e:
        validate(raw)
    for w in words:
        assert w in str(e.value)


def test_misspelled_key_suggests(tmp_path):
    p = tmp_path / "d.json"
    p.write_text(TEXT.replace('"turn_order": 3', '"turn_ordr": 3', 1))
    with pytest.raises(DataFileError, match=r"lower_divination\.actions\.Xun\.turn_ordr.*did you mean 'turn_order'"):
        load_data(str(p))


@pytest.mark.parametrize("make, words", [
    (lambda d: d, ["not a regular file"]),
    (lambda d: "/dev/zero", ["not a regular file"]),
    (lambda d: _write(d, b" " * MAX_BYTES + b"{}"), ["larger than"]),
    (lambda d: _write(d, TEXT.encode("utf-16")), ["UTF-8"]),
    (lambda d: _write(d, TEXT.encode("utf-16-le")), ["UTF-8"]),
    (lambda d: _write(d, b"\xff\xfe\x00garbage"), ["UTF-8"]),
    (lambda d: _write(d, b"[" * 100_000), ["not valid JSON"]),
    (lambda d: _write(d, b'{"a": 1, "a": 2}'), ["duplicate key"]),
    (lambda d: _write(d, TEXT.replace('"per_kind": 17', '"per_kind": NaN').encode()), ["NaN"]),
    (lambda d: _write(d, TEXT.replace('"per_kind": 17', '"per_kind": Infinity').encode()), ["Infinity"]),
    (lambda d: os.path.join(d, "missing.json"), ["does not exist"]),
])
def test_hostile_files_refused(tmp_path, make, words):
    path = make(str(tmp_path))
    with pytest.raises(DataFileError) as e:
        load_data(path)
    assert path in str(e.value)
    for w in words:
        assert w in str(e.value)


def _write(d, data: bytes) -> str:
    p = os.path.join(d, "hostile.json")
    with open(p, "wb") as f:
        f.write(data)
    return p


def test_utf8_bom_accepted(tmp_path):
    load_data(_write(str(tmp_path), TEXT.encode("utf-8-sig")))


# --- training configs ------------------------------------------------------------------------
KEYS = sorted(FLAT_DEFAULTS) + sorted(SECTIONS) + ["game_options.board_size", "ppo.gama", "", "x.y.z"]
yaml_junk = st.one_of(
    st.sampled_from([".nan", ".inf", "-.inf", "nan", "inf", "-1", "0", "1e400", "-1e400", str(2**63), str(2**64),
                     "9" * 5000, "[foo]", "[mcts:0]", "[random, mcts:5]", "[1, 2]", "{a: 1}", "{1: 2}", "[",
                     "!!python/object/apply:os.system [ls]", "!!binary aGk=", "!!float 1", "&a [*a]",
                     "[" * 3000, "true", "null", "", "~", "'x'", "runs/x", "/dev/null", "/", "2020-01-01"]),
    st.text(max_size=30),
    st.floats().map(repr), st.integers().map(str),
)


@FAST
@given(st.sampled_from(KEYS), yaml_junk)
def test_override_text_accepted_or_config_error(key, value):
    try:
        cfg = load_config(None, [f"{key}={value}"])
    except ConfigError as e:
        assert str(e)
        return
    assert isinstance(cfg["game_options"], dict)
    for k in FLAT_DEFAULTS:
        v = at(cfg, k.split("."))
        if isinstance(v, float):
            assert math.isfinite(v), (k, v)


py_junk = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=10),
              st.sampled_from([2**63, -2**63 - 1, math.nan, math.inf]), HUGE),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=6), inner, max_size=3)),
    max_leaves=8,
)


@FAST
@given(st.sampled_from(KEYS), py_junk)
def test_override_value_accepted_or_config_error(key, value):
    try:
        load_config(None, [(key, value)])
    except ConfigError as e:
        assert str(e)


@FAST
@given(st.text(max_size=60))
def test_parse_override_never_crashes(text):
    try:
        parse_override(text)
    except ConfigError:
        pass


@pytest.fixture(scope="module")
def yaml_path(tmp_path_factory):
    return str(tmp_path_factory.mktemp("cfg") / "c.yaml")


with open(os.path.join(ROOT, "configs", "koi.yaml"), encoding="utf-8") as f:
    KOI_YAML = f.read()


@FAST
@given(st.data())
def test_config_file_loads_or_names_the_file(yaml_path, data):
    raw = KOI_YAML.encode("utf-8")
    how = data.draw(st.sampled_from(["truncate", "random", "splice", "encode", "text"]))
    if how == "truncate":
        blob = raw[:data.draw(st.integers(0, len(raw)))]
    elif how == "random":
        blob = data.draw(st.binary(max_size=500))
    elif how == "splice":
        i = data.draw(st.integers(0, len(raw)))
        blob = raw[:i] + data.draw(st.binary(min_size=1, max_size=30)) + raw[i:]
    elif how == "encode":
        blob = KOI_YAML.encode(data.draw(st.sampled_from(["utf-16", "utf-32", "utf-16-be"])))
    else:
        blob = data.draw(yaml_junk).encode("utf-8", "replace")
    with open(yaml_path, "wb") as f:
        f.write(blob)
    try:
        load_config(yaml_path)
    except ConfigError as e:
        assert yaml_path in str(e), str(e)


@pytest.mark.parametrize("text, words", [
    ("- a\n- b\n", ["mapping"]),
    ("7\n", ["mapping"]),
    ("seed: !!python/object/apply:os.system [ls]\n", ["tag"]),
    ("seed: !!int 3\n", ["tag"]),
    ("ppo:\n  gamma: .nan\n", ["ppo.gamma"]),
    ("ppo: 3\n", ["ppo", "mapping"]),
    ("#" * (2**20 + 1), ["larger than"]),
])
def test_bad_config_files_refused(tmp_path, text, words):
    p = tmp_path / "c.yaml"
    p.write_text(text)
    with pytest.raises(ConfigError) as e:
        load_config(str(p))
    assert str(p) in str(e.value)
    for w in words:
        assert w in str(e.value)


@pytest.mark.parametrize("override, words", [
    ("ppo.gamma=.nan", ["ppo.gamma", "finite"]),
    ("ppo.learning_rate=.inf", ["ppo.learning_rate", "finite"]),
    ("ppo.learning_rate=0", ["ppo.learning_rate", "(0, inf)"]),
    ("ppo.clip_range=0", ["ppo.clip_range"]),
    ("ppo.gae_lambda=1.01", ["ppo.gae_lambda"]),
    ("seed=-1", ["seed", "-1"]),
    (f"seed={2**63}", ["seed"]),
    ("selfplay.pfsp_floor=2", ["selfplay.pfsp_floor"]),
    ("eval.opponents=[foo]", ["eval.opponents", "'foo'"]),
    ("eval.opponents=[mcts:0]", ["eval.opponents", "'mcts:0'"]),
    ("selfplay.baselines=[random, gredy]", ["selfplay.baselines", "'gredy'"]),
    ("selfplay.baselines=[pretrained:slow]", ["selfplay.baselines", "'pretrained:slow'"]),
    ("game_options=[1]", ["game_options", "mapping"]),
    ("game=chess", ["game", "chess"]),
    ("threads=100000", ["threads"]),
])
def test_bad_override_refused(override, words):
    with pytest.raises(ConfigError) as e:
        load_config(None, [override])
    for w in words:
        assert w in str(e.value)


def test_run_dir_that_is_a_file_refused(tmp_path):
    f = tmp_path / "f"
    f.write_text("x")
    for rd in (str(f), str(f / "sub")):
        with pytest.raises(ConfigError, match="run_dir"):
            load_config(None, [("run_dir", rd)])
    assert load_config(None, [("run_dir", str(tmp_path / "new" / "run"))])["run_dir"].endswith("run")


def test_good_opponents_and_shares_accepted():
    cfg = load_config(None, ["eval.opponents=[random, greedy, mcts, mcts:16]", "selfplay.latest=0.5",
                             "selfplay.baseline_share=0.5", "selfplay.baselines=[pretrained:fast, pretrained]"])
    assert cfg["eval"]["opponents"][-1] == "mcts:16"
    assert cfg["selfplay"]["baselines"] == ["pretrained:fast", "pretrained"]
    with pytest.raises(ConfigError, match="selfplay.baseline_share"):
        load_config(None, ["selfplay.latest=0.6", "selfplay.baseline_share=0.5"])


# --- the shared KEY=VALUE parser and read_config_file ------------------------------------

@FAST
@given(st.text(max_size=80))
def test_parse_option_never_crashes(text):
    try:
        key, _ = parse_option(text)
    except OptionError as e:
        assert "\n" not in str(e) and str(e).startswith("--option")
    else:
        assert key


@pytest.mark.parametrize("text, words", [
    ("x", ["KEY=VALUE"]),
    ("=1", ["KEY=VALUE"]),
    ("k=[", ["not valid YAML"]),
    ("k=!!python/name:os.system", ["tag"]),
    ("k=!!binary aGk=", ["tag"]),
    ("k=&a [1, *a]", ["anchor"]),
    ("k=[*a]", ["alias"]),
    ("k={a: 1, a: 2}", ["duplicate", "'a'"]),
    ("k=" + "9" * 200, ["too long"]),
    (f"k={2**63}", ["64 bits"]),
    (f"k=[{-2**63 - 1}]", ["64 bits"]),
    ("k=" + "[" * 65 + "]" * 65, ["64 levels"]),
    ("k=" + "{a: " * 65 + "1" + "}" * 65, ["64 levels"]),
    ("k=" + "[" * 100_000, ["64 levels"]),
])
def test_parse_option_refuses(text, words):
    with pytest.raises(OptionError) as e:
        parse_option(text)
    for w in words:
        assert w in str(e.value), str(e.value)
    assert "\n" not in str(e.value)


def test_parse_option_accepts():
    assert parse_option("board_size=7") == ("board_size", 7)
    assert parse_option(" k =[1, {a: b}]") == ("k", [1, {"a": "b"}])
    assert parse_option("k=") == ("k", "")
    assert parse_option("k='[[[&*!'") == ("k", "[[[&*!")
    assert parse_option("k=" + "[" * 64 + "]" * 64)[0] == "k"
    assert parse_option(f"k={2**63 - 1}") == ("k", 2**63 - 1)


def test_deep_override_refused_quickly():
    import time
    t = time.perf_counter()
    with pytest.raises(ConfigError, match="64 levels"):
        parse_override("game_options=" + "[" * 100_000 + "]" * 100_000)
    with pytest.raises(ConfigError, match="64 levels"):
        load_config(None, ["game_options.x=" + "{a: " * 100 + "1" + "}" * 100])
    assert time.perf_counter() - t < 2


@pytest.mark.parametrize("make, words", [
    (lambda p: p.write_text("a: [\n"), ["not valid YAML"]),
    (lambda p: p.write_text("- a\n- b\n"), ["mapping"]),
    (lambda p: p.write_text("seed: !!python/name:os.system\n"), ["tag"]),
    (lambda p: p.write_bytes(b"seed: \xff\xfe\n"), ["UTF-8"]),
    (lambda p: p.write_text("a: &a [1]\nb: *a\n"), ["anchor"]),
    (lambda p: p.write_text("seed: 1\nseed: 2\n"), ["duplicate", "seed"]),
    (lambda p: p.write_text("ppo:\n  n_steps: 1\n  n_steps: 2\n"), ["duplicate", "n_steps"]),
    (lambda p: p.write_text("game_options: " + "[" * 100_000 + "]" * 100_000), ["64 levels"]),
    (lambda p: p.write_text("1: 2\n"), ["string"]),
    (lambda p: os.mkfifo(p), ["not a regular file"]),
    (lambda p: p.mkdir(), ["not a regular file"]),
])
def test_read_config_file_refuses(tmp_path, make, words):
    p = tmp_path / "quick.yaml"
    make(p)
    with pytest.raises(ConfigError) as e:
        read_config_file(str(p))
    assert str(p) in str(e.value)
    for w in words:
        assert w in str(e.value), str(e.value)


def test_read_config_file_reads_a_mapping(tmp_path):
    p = tmp_path / "c.yaml"
    p.write_text("")
    assert read_config_file(str(p)) == {}
    p.write_text("seed: 3\nppo: {n_steps: 8}\n")
    assert read_config_file(str(p)) == {"seed": 3, "ppo": {"n_steps": 8}}
    quick = os.path.join(ROOT, "configs", "quick.yaml")
    assert isinstance(read_config_file(quick), dict)
    for name in ("koi", "yinyang", "yoxii"):
        load_config(os.path.join(ROOT, "configs", f"{name}.yaml"))


@pytest.mark.parametrize("override, key", [
    ("num_envs=1048577", r"num_envs.*\[1, 1048576\]"),
    ("ppo.n_steps=16777217", r"ppo\.n_steps.*\[1, 16777216\]"),
    ("ppo.net_arch=[65537]", "ppo.net_arch"),
    ("ppo.net_arch=[" + ", ".join(["8"] * 65) + "]", "ppo.net_arch"),
    ("ppo.cnn_channels=[4097]", "ppo.cnn_channels"),
    ("eval.opponents=[mcts:1000001]", "eval.opponents"),
    ("eval.games=10000001", "eval.games"),
    ("eval.table_games=10000001", "eval.table_games"),
    ("selfplay.window=10000001", "selfplay.window"),
])
def test_sizes_are_bounded(override, key):
    with pytest.raises(ConfigError, match=key if "\\" in key else key.replace(".", r"\.")):
        load_config(None, [override])


def test_size_bounds_accept_their_limits():
    cfg = load_config(None, ["num_envs=1048576", "ppo.n_steps=16", "ppo.net_arch=[65536]",
                             "ppo.cnn_channels=[4096]", "eval.opponents=[mcts:1000000]", "eval.games=10000000"])
    assert cfg["num_envs"] == 1048576 and cfg["ppo"]["net_arch"] == [65536]
