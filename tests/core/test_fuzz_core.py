"""Generated bad input at every public entry point of the cores and the envs.

Each property holds a small oracle of the contract: an input is either taken
(and then behaves like its plain int64 / int8 / uint64 equivalent) or refused
with the documented error, naming a bad value, and nothing changes.
"""
import functools
import math
import re

import gymnasium as gym
import numpy as np
import pytest
from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from yyenvs.agents import RandomAgent, make_agent
from yyenvs.envs.aec import aec_factories
from yyenvs.core.contract import IllegalActionError, OpponentError, OptionError, show
from yyenvs.envs.vector import GameVectorEnv
from yyenvs.games import GAMES, game_spec, make_core

# each case: (game id, options); explicit chance runs every env check as well (the envs draw the outcomes)
VARIANTS = {"yoxii": ("yoxii", {}), "koi": ("koi", {}), "yinyang": ("yinyang", {"num_players": 2}),
            "yinyang-explicit": ("yinyang", {"num_players": 2, "chance": "explicit"})}
GAME_NAMES = list(VARIANTS)


def game_of(variant):
    return VARIANTS[variant][0]


def options_of(variant):
    return VARIANTS[variant][1]
SETTINGS = settings(max_examples=100, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
INT64_MIN, INT64_MAX = -2**63, 2**63 - 1


@functools.cache
def core_of(game):
    return make_core(game_of(game), **options_of(game))


@functools.cache
def _position(game, seed, batch, plies):
    core = core_of(game)
    state = core.init(np.arange(seed, seed + batch, dtype=np.uint64))
    agent = RandomAgent(core, seed)
    for _ in range(plies):
        if state.done.all():
            break
        a = core.sample_chance(state)  # the outcome at chance nodes (explicit chance), -1 elsewhere
        players = np.flatnonzero(~state.done & (a < 0))
        if players.size:
            sub = state.take(players)
            a[players] = agent(sub, core.legal_action_mask(sub))
        core.step(state, a)
    return state


def position(game, seed, batch, plies):
    """A fresh copy of a random position (some rows may be over)."""
    return _position(game, seed, batch, plies).copy()


positions = st.tuples(st.integers(0, 30), st.integers(1, 4), st.integers(0, 45))


def snapshot(state):
    return {k: v.copy() for k, v in vars(state).items()}


def assert_unchanged(before, state):
    for k, v in vars(state).items():
        assert np.array_equal(before[k], v), f"{k} changed by a refused call"


# -- values ------------------------------------------------------------------------------
# the values that slip through a loose check: half of all junk
specials = st.sampled_from([
    math.nan, math.inf, -math.inf, 1e20, -1e20, 2.5, 0.5, -0.5, 2.0**63, 2**63, 2**64,
    INT64_MIN - 1, True, False, None, "3", np.uint64(2**63), np.uint64(2**64 - 1), np.int8(-1),
    np.float32(0.5), np.float64(2.0), np.float16(np.inf), np.bool_(True), np.float64(np.nan),
    np.int64(INT64_MIN)])
junk = st.one_of(specials, st.one_of(
    st.floats(allow_nan=True, allow_infinity=True), st.integers(-2**70, 2**70), st.booleans(),
    st.text(max_size=2), st.none(), st.complex_numbers(max_magnitude=5)))
# per dtype, values of that dtype a loose check would let through
DTYPE_SPECIALS = {"f": [math.nan, math.inf, -math.inf, 2.5, -0.5, 6e4], "u": [2**63, 2**64 - 1]}
DTYPES = [np.int64, np.int32, np.int8, np.uint8, np.uint64, np.float64, np.float32, np.float16,
          np.bool_, np.complex128, "U2"]


def as_python(x):
    return x.item() if isinstance(x, np.generic) else x


def is_number(x):
    return isinstance(as_python(x), (int, float)) and not isinstance(as_python(x), bool)


def integral(x):
    """The int value of ``x`` if it is an integer or an integral float, else None."""
    x = as_python(x)
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return None
    if isinstance(x, float) and not (math.isfinite(x) and x == int(x)):
        return None
    return int(x)


def retyped(x, value):
    """``value`` in the type of ``x`` when that type holds it exactly (2.0 for a float), else ``x``."""
    try:
        y = type(x)(value)
    except (OverflowError, ValueError, TypeError):
        return x
    return y if is_number(y) and integral(y) == value else x


def named(message, values):
    """Whether the message names one of ``values`` (as the user passed it)."""
    return any(show(v) in message for v in values)


@st.composite
def array_of(draw, n, elements, small=(-3, 3)):
    """``n`` values as a list, or as an array of some dtype holding any value of that
    dtype or small integers (``small``: their range) in it."""
    if draw(st.booleans()):
        return draw(st.lists(elements, min_size=n, max_size=n))
    dtype = np.dtype(draw(st.sampled_from(DTYPES)))
    values = hnp.from_dtype(dtype)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        values = st.one_of(values, st.integers(max(small[0], info.min), min(small[1], info.max)))
    elif dtype.kind == "f":
        values = st.one_of(values, st.integers(*small).map(float))
    fits = [x for x in DTYPE_SPECIALS.get(dtype.kind, []) if dtype.kind != "u" or x <= np.iinfo(dtype).max]
    if fits:
        values = st.one_of(st.sampled_from(fits), values)
    return draw(hnp.arrays(dtype, n, elements=values))


# -- core.step ---------------------------------------------------------------------------------
def action_oracle(actions, n):
    """(ints, bad) where ints is the int64 meaning or None when it must be refused; ``bad``
    lists the entries that may be named."""
    try:
        a = np.asarray(actions)
    except ValueError:
        return None, []
    if a.shape != (n,):
        return None, []
    items = list(actions) if isinstance(actions, (list, tuple)) else list(a)
    ints = [integral(x) for x in items]
    bad = [x for x, v in zip(items, ints) if v is None or not INT64_MIN <= v <= INT64_MAX]
    if a.dtype.kind not in "iuf" or bad:
        return None, bad or items  # a non-numeric array is refused as a whole
    return ints, []


@st.composite
def one_bad(draw, good):
    """``good`` with one entry replaced by junk, as a list or an array numpy (or we) type."""
    values = list(good)
    values[draw(st.integers(0, len(values) - 1))] = draw(junk)
    how = draw(st.sampled_from(["list", "numpy", "float64", "uint64"]))
    try:
        with np.errstate(invalid="ignore", over="ignore"):  # building the junk is not under test
            return values if how == "list" else np.array(values, dtype=None if how == "numpy" else how)
    except (ValueError, TypeError, OverflowError):  # the dtype cannot hold them all
        return values


@st.composite
def actions_for(draw, core, state):
    B, A = state.batch_size, core.num_actions
    mask = core.legal_action_mask(state)

    def legal(i):
        acts = np.flatnonzero(mask[i])
        return int(acts[draw(st.integers(0, acts.size - 1))]) if acts.size else -1

    form = draw(st.sampled_from(["good", "one bad", "one bad", "mixed", "array", "shape"]))
    good = [legal(i) if draw(st.booleans()) else -1 for i in range(B)]
    if form == "good":  # the fast path: int64, right shape, legal or skip
        return np.array(good, np.int64)
    if form == "one bad":  # each guard alone decides
        return draw(one_bad(good))
    if form == "mixed":
        out = [draw(st.one_of(st.just(legal(i)), st.integers(-3, A + 3), junk)) for i in range(B)]
        return out if draw(st.booleans()) else np.array(out, dtype=object)
    if form == "array":
        return draw(array_of(B, st.integers(-3, A + 3), small=(-3, A + 3)))
    shape = draw(hnp.array_shapes(min_dims=0, max_dims=2, max_side=5).filter(lambda s: s != (B,)))
    return np.zeros(shape, np.int64)


@pytest.mark.parametrize("game", GAME_NAMES)
@SETTINGS
@given(data=st.data(), pos=positions)
def test_step_takes_integers_and_refuses_the_rest(game, data, pos):
    core = core_of(game)
    state = position(game, *pos)
    actions = data.draw(actions_for(core, state))
    ints, bad = action_oracle(actions, state.batch_size)
    before = snapshot(state)
    if ints is not None:  # then the rules decide, row by row
        mask = core.legal_action_mask(state)
        wrong = [i for i, v in enumerate(ints)
                 if v >= core.num_actions or (v >= 0 and (state.done[i] or not mask[i, v]))]
        if not wrong:
            reference = state.copy()
            core.step(reference, np.array(ints, np.int64))
            core.step(state, actions)
            for k, v in vars(reference).items():
                assert np.array_equal(v, getattr(state, k)), k
            event("taken")
            return
    event("refused: " + ("not integers" if ints is None else "by range or rules"))
    with pytest.raises(IllegalActionError) as err:
        core.step(state, actions)
    msg = str(err.value)
    if ints is None:  # an object array is refused by its dtype
        assert "shape" in msg or named(msg, bad) or (
            isinstance(actions, np.ndarray) and "numeric array, got dtype object" in msg), msg
    else:
        assert any(f"row {i}" in msg for i in wrong), msg
    assert_unchanged(before, state)


# -- core.init -------------------------------------------------------------------------------
def seed_ok(x):
    v = integral(x)
    return v is not None and 0 <= v < 2**64


seed_values = st.one_of(st.integers(0, 2**64 - 1), st.integers(-5, 5), junk)


@pytest.mark.parametrize("game", GAME_NAMES)
@SETTINGS
@given(seeds=st.one_of(seed_values, array_of(3, seed_values),
                       hnp.arrays(np.uint64, st.integers(0, 4)), st.lists(seed_values, max_size=4)))
def test_init_takes_seeds_in_range_only(game, seeds):
    core = core_of(game)
    a = np.asarray(seeds, dtype=object) if isinstance(seeds, list) else np.asarray(seeds)
    items = list(seeds) if isinstance(seeds, list) else list(a.reshape(-1))
    bad = [x for x in items if not seed_ok(x)]
    if a.dtype.kind in "iufO" and not bad:
        state = core.init(seeds)
        assert state.seed.tolist() == [integral(x) for x in items]
        event("taken")
        return
    event("refused")
    with pytest.raises(ValueError) as err:
        core.init(seeds)
    assert named(str(err.value), bad or items), str(err.value)


# -- game options -----------------------------------------------------------------------------
def option_ok(game, name, v):
    """Whether the documented ranges allow ``v`` for option ``name`` (the others at defaults)."""
    if game == "yoxii":
        return isinstance(as_python(v), bool)
    x = as_python(v)
    if isinstance(x, bool) or not isinstance(x, int):
        return False
    if game == "yinyang":
        return 1 <= x <= 4
    defaults = game_spec("koi").defaults  # win_fry is at most the free points: N * N - 11
    return {"board_size": 5 <= x <= 19 and x % 2 == 1 and x * x - 11 >= defaults["win_fry"],
            "directions": x in (4, 8), "win_fry": 14 <= x <= defaults["board_size"] ** 2 - 11,
            "max_plies": 1 <= x <= 2**31 - 1}[name]


OPTIONS = [("yoxii", "action_features"), ("yinyang", "num_players")] + [
    ("koi", k) for k in ("board_size", "directions", "win_fry", "max_plies")]


@pytest.mark.parametrize("game, name", OPTIONS)
@settings(SETTINGS, max_examples=50)
@given(value=st.one_of(
    st.sampled_from([True, False, 1, 4, 5, 7, 8, 9, 14, 38, 39, 70, 71, 400, 2**31 - 1, 2**31, 2**63, 2**64,
                     np.int64(9), np.float64(9.0), 9.5, math.nan, math.inf]),
    st.integers(-3, 30), junk))
@example(value=2**31 - 1)  # the bounds always run, whatever is drawn
@example(value=2**31)
@example(value=2**63)
@example(value=math.nan)
@example(value=True)
def test_options_are_range_checked_by_name(game, name, value):
    if option_ok(game, name, value):
        core = make_core(game, **{name: value})
        state = core.init(np.arange(2))  # the kernels take the option as it is stored
        core.step(state, RandomAgent(core)(state, core.legal_action_mask(state)))
        event("taken")
        return
    event("refused")
    with pytest.raises(OptionError, match=name):
        make_core(game, **{name: value})


# -- seats and out= buffers -------------------------------------------------------------------------
@st.composite
def seats_for(draw, core, batch):
    P = core.num_players
    element = st.one_of(st.integers(-2, P + 1), junk)
    form = draw(st.sampled_from(["scalar", "row", "shape"]))
    if form == "scalar":
        return draw(element)
    if form == "row":
        return draw(array_of(batch, st.integers(-2, P + 1), small=(-2, P + 1)))
    return np.zeros(draw(hnp.array_shapes(min_dims=1, max_dims=2, max_side=5)
                         .filter(lambda s: s != (batch,))), np.int64)


def seat_oracle(player, batch, P):
    try:
        a = np.asarray(player)
    except ValueError:
        return None, []
    if a.ndim > 1 or (a.ndim == 1 and a.shape != (batch,)):
        return None, []
    items = list(player) if isinstance(player, (list, tuple)) else list(a.reshape(-1))
    bad = [x for x in items
           if isinstance(as_python(x), bool) or not isinstance(as_python(x), int) or not 0 <= x < P]
    if a.dtype.kind not in "iu" or bad:
        return None, bad or items
    return np.broadcast_to(a, (batch,)).astype(np.int8), []


@pytest.mark.parametrize("game", GAME_NAMES)
@SETTINGS
@given(data=st.data(), pos=positions)
def test_seats_are_checked_everywhere(game, data, pos):
    core = core_of(game)
    state = position(game, *pos)
    player = data.draw(seats_for(core, state.batch_size))
    seats, bad = seat_oracle(player, state.batch_size, core.num_players)
    before = snapshot(state)
    calls = [core.observe, core.heuristic] + ([core.count_moves] if game == "koi" else [])
    event("taken" if seats is not None else "refused")
    for fn in calls:
        if seats is not None:
            assert np.array_equal(fn(state, player), fn(state, seats))
            continue
        with pytest.raises(ValueError) as err:
            fn(state, player)
        msg = str(err.value)
        assert "shape" in msg or named(msg, bad), msg
        assert_unchanged(before, state)


@st.composite
def buffers(draw, shape, dtype):
    """An out= candidate: the right one, or off in shape, dtype, layout or writeability."""
    form = draw(st.sampled_from(["right", "shape", "dtype", "fortran", "strided", "readonly", "list"]))
    if form == "shape":
        k = draw(st.integers(0, len(shape) - 1))
        new = list(shape)
        new[k] = max(0, new[k] + draw(st.sampled_from([-1, 1])))
        shape = tuple(draw(st.sampled_from([new, new + [1], new[:-1] or [1]])))
    if form == "dtype":
        dtype = draw(st.sampled_from([d for d in (np.float32, np.float64, np.int8, np.bool_, np.uint8)
                                      if np.dtype(d) != np.dtype(dtype)]))
    if form == "list":
        return np.zeros(shape, dtype).tolist()
    if form == "strided":
        buf = np.zeros(shape[:-1] + (2 * shape[-1],), dtype)[..., ::2]
    else:
        buf = np.zeros(shape, dtype, order="F" if form == "fortran" else "C")
    buf[...] = 7 if np.dtype(dtype) != np.bool_ else True  # to see writes
    buf.flags.writeable = form != "readonly"
    return buf


def buffer_ok(buf, shape, dtype):
    return (isinstance(buf, np.ndarray) and buf.shape == shape and buf.dtype == dtype
            and buf.flags.c_contiguous and buf.flags.writeable)


@pytest.mark.parametrize("game", GAME_NAMES)
@SETTINGS
@given(data=st.data(), pos=positions, which=st.sampled_from(["mask", "observe"]))
def test_out_buffers_are_checked_before_any_write(game, data, pos, which):
    core = core_of(game)
    state = position(game, *pos)
    B = state.batch_size
    if which == "mask":
        shape, dtype = (B, core.num_actions), np.dtype(bool)
        call = functools.partial(core.legal_action_mask, state)
    else:
        shape, dtype = (B, *core.observation_shape), np.dtype(np.float32)
        seat = data.draw(st.integers(0, core.num_players - 1))
        call = functools.partial(core.observe, state, seat)
    buf = data.draw(buffers(shape, dtype))
    before, contents = snapshot(state), np.array(buf, copy=True)
    if buffer_ok(buf, shape, dtype):
        out = call(out=buf)
        assert out is buf and np.array_equal(buf, call())
        event("taken")
        return
    event("refused")
    with pytest.raises(ValueError, match="out="):
        call(out=buf)
    assert np.array_equal(np.asarray(buf), contents), "written before the check"
    assert_unchanged(before, state)


# -- the Gymnasium env -------------------------------------------------------------------------------
@functools.cache
def gym_env(game):
    return gym.make(GAMES[game_of(game)].gym_id, **options_of(game)).unwrapped


def single_action(action, A, sequence_of_one):
    """(the value inside, its int meaning when it lies in the action space else None).

    The Gymnasium env also takes a one-element list; the AEC env a scalar only.
    """
    if isinstance(action, list):
        if not (sequence_of_one and len(action) == 1):
            return action, None
        action = action[0]
    v = integral(action)
    return action, (v if v is not None and 0 <= v < A else None)


single_actions = st.one_of(st.integers(-3, 1300), junk, st.lists(st.integers(0, 3), max_size=2))


@pytest.mark.parametrize("game", GAME_NAMES)
@SETTINGS
@given(seed=st.integers(0, 50), action=single_actions, legal=st.booleans())
def test_gym_step_refuses_out_of_space_and_penalises_illegal(game, seed, action, legal):
    env = gym_env(game)
    env.reset(seed=seed)
    if legal:  # a legal action in some integer form
        action = retyped(action, int(np.flatnonzero(env.action_masks())[0]))
    value, a = single_action(action, env.action_space.n, True)
    before = snapshot(env.state)
    if a is None:
        event("refused")
        with pytest.raises(IllegalActionError) as err:
            env.step(action)
        assert named(str(err.value), [action, value]), str(err.value)
        assert_unchanged(before, env.state)
        env.step(int(np.flatnonzero(env.action_masks())[0]))  # still playable
        return
    mask = env.action_masks()
    _obs, reward, terminated, _trunc, info = env.step(action)
    event("legal" if mask[a] else "penalty")
    if not mask[a]:
        assert (reward, terminated, info.get("illegal_action")) == (-1.0, True, True)
    else:
        assert "illegal_action" not in info


reset_seeds = st.one_of(st.none(), st.integers(-3, 2**70), st.integers(0, 99), junk)
reset_options = st.one_of(
    st.none(), st.just({"learner_seat": 0}), junk, st.lists(st.integers(), max_size=2),
    st.dictionaries(st.sampled_from(["learner_seat", "seat", 1]),
                    st.one_of(st.just("random"), st.integers(-1, 3), junk), max_size=2))


def reset_oracle(seed, options, P):
    """None when reset must succeed, else the exception types it may raise."""
    s = as_python(seed)
    if seed is not None and (isinstance(s, bool) or not isinstance(s, int)):
        return TypeError
    if seed is not None and not 0 <= s < 2**64:  # 2**64 would wrap onto seed 0
        return ValueError
    if options is None:
        return None
    if not isinstance(options, dict):
        return TypeError
    if set(options) - {"learner_seat"}:
        return ValueError
    seat = options.get("learner_seat")
    if seat is None or seat == "random" and isinstance(seat, str):
        return None
    if isinstance(as_python(seat), bool) or not isinstance(as_python(seat), int) or not 0 <= seat < P:
        return ValueError
    return None


@pytest.mark.parametrize("game", GAME_NAMES)
@SETTINGS
@given(seed=reset_seeds, options=reset_options)
def test_gym_and_vector_reset_check_seed_and_options(game, seed, options):
    core = core_of(game)
    expected = reset_oracle(seed, options, core.num_players)
    env = gym_env(game)
    env.reset(seed=1)
    before = snapshot(env.state)
    vec = vector_env(game)
    vec.reset(seed=1)
    vec_before = snapshot(vec.batch.state)
    event("taken" if expected is None else f"refused: {expected.__name__}")
    for e in (env, vec):
        if expected is None:
            e.reset(seed=seed, options=options)
            continue
        with pytest.raises(expected) as err:
            e.reset(seed=seed, options=options)
        msg = str(err.value)
        assert named(msg, [seed]) or named(msg, [options]) or "option" in msg or "seat" in msg, msg
    if expected is not None:
        assert_unchanged(before, env.state)
        assert_unchanged(vec_before, vec.batch.state)
        env.reset(options={"learner_seat": 0})  # the next game is the default one
        vec.reset(options={"learner_seat": "random"})


def test_numpy_seeds_reset_like_python_ints():
    for game in GAME_NAMES:
        env = gym_env(game)
        a = env.reset(seed=5)[0]
        assert np.array_equal(env.reset(seed=np.int64(5))[0], a)
        assert np.array_equal(env.reset(seed=np.uint8(5))[0], a)


# -- the vector env -------------------------------------------------------------------------------
@functools.cache
def vector_env(game):
    return GameVectorEnv(game_of(game), num_envs=3, **options_of(game))


@pytest.mark.parametrize("game", GAME_NAMES)
@SETTINGS
@given(data=st.data(), seed=st.integers(0, 50))
def test_vector_step_refuses_out_of_space_and_penalises_illegal(game, data, seed):
    vec = vector_env(game)
    vec.reset(seed=seed)
    A = vec.single_action_space.n
    mask = vec.action_masks().copy()
    first_legal = [int(np.flatnonzero(m)[0]) for m in mask]
    element = st.one_of(st.sampled_from(first_legal), st.integers(-2, A + 2), junk)
    actions = data.draw(st.one_of(st.just(np.array(first_legal)), one_bad(first_legal),
                                  array_of(3, element, small=(-2, A + 2)),
                                  st.lists(element, max_size=4)))
    ints, bad = action_oracle(actions, 3)
    before = snapshot(vec.batch.state)
    if ints is not None and all(0 <= v < A for v in ints):
        _obs, reward, term, _trunc, _info = vec.step(actions)
        illegal = ~mask[np.arange(3), ints]
        event("penalty" if illegal.any() else "legal")
        assert (reward[illegal] == -1.0).all() and term[illegal].all()
        return
    event("refused")
    with pytest.raises(IllegalActionError) as err:
        vec.step(actions)
    msg = str(err.value)
    if ints is None:
        assert "shape" in msg or named(msg, bad), msg
    else:
        outside = [x for x, v in zip(list(actions), ints) if not 0 <= v < A]
        assert named(msg, outside), msg
    assert_unchanged(before, vec.batch.state)


# -- the AEC env ------------------------------------------------------------------------------------
@functools.cache
def aec_env(game):
    raw_env, _ = aec_factories(game_of(game))
    return raw_env(**options_of(game))


@pytest.mark.parametrize("game", GAME_NAMES)
@SETTINGS
@given(seed=st.integers(0, 50), action=single_actions, legal=st.booleans())
def test_aec_step_refuses_out_of_space_and_penalises_illegal(game, seed, action, legal):
    env = aec_env(game)
    env.reset(seed=seed)
    agent = env.agent_selection
    mask = env.observe(agent)["action_mask"].astype(bool)
    if legal:
        action = retyped(action, int(np.flatnonzero(mask)[0]))
    _value, a = single_action(action, env.core.num_actions, False)
    before = snapshot(env.game_state)
    if a is None:
        event("refused")
        with pytest.raises(IllegalActionError) as err:
            env.step(action)
        assert named(str(err.value), [action]), str(err.value)
        assert_unchanged(before, env.game_state)
        assert env.agent_selection == agent and not any(env.terminations.values())
        return
    env.step(action)
    event("legal" if mask[a] else "penalty")
    if not mask[a]:
        assert env.rewards[agent] == -1.0 and all(env.terminations.values())
    else:
        assert env.infos[agent].get("illegal_action") is None


@pytest.mark.parametrize("game", GAME_NAMES)
@SETTINGS
@given(seed=reset_seeds)
def test_aec_reset_checks_the_seed(game, seed):
    env = aec_env(game)
    expected = reset_oracle(seed, None, 1)
    if expected is None:
        env.reset(seed=seed)
        return
    with pytest.raises(expected, match="seed"):
        env.reset(seed=seed)


# -- opponents ------------------------------------------------------------------------------------
class Scripted:
    """An opponent whose answer is decided by the test: ``plan(state, mask) -> answer``."""

    def __init__(self):
        self.plan = None
        self.calls = 0

    def __call__(self, state, mask):
        self.calls += 1
        if self.calls > 200:  # an env that keeps asking has hung on a refused answer
            raise AssertionError("the env asks the opponent again and again")
        return self.plan(state, mask)

    def __repr__(self):
        return "Scripted()"


@functools.cache
def opponent_envs(game):
    opponent = Scripted()
    # the learner sits second, so the opponent moves in reset() already
    env = gym.make(GAMES[game_of(game)].gym_id, opponent=opponent, learner_seat=1, **options_of(game)).unwrapped
    vec = GameVectorEnv(game_of(game), num_envs=3, opponent=opponent, learner_seat=1, **options_of(game))
    return opponent, env, vec


answer_values = st.one_of(st.just("legal"), st.one_of(st.just("illegal"), st.integers(-3, 1300), junk))


@pytest.mark.parametrize("game", GAME_NAMES)
@SETTINGS
@given(seed=st.integers(0, 50), values=st.lists(answer_values, min_size=1, max_size=3),
       form=st.sampled_from(["list", "array", "scalar", "one too many"]), vector=st.booleans())
def test_opponent_answers_are_checked(game, seed, values, form, vector):
    opponent, env, vec = opponent_envs(game)
    e = vec if vector else env
    verdicts = []  # per call: whether the answer was a legal action for every row asked

    def plan(state, mask):
        out = []
        for i in range(state.batch_size):
            v = values[i % len(values)]
            if isinstance(v, str) and v in ("legal", "illegal"):
                acts = np.flatnonzero(mask[i] == (v == "legal"))
                v = int(acts[seed % acts.size])
            out.append(v)
        if form == "one too many":
            out.append(out[0])
        if form == "scalar":
            answer = out[0]
        elif form == "array":
            try:
                answer = np.array(out, dtype=None if all(map(is_number, out)) else object)
            except OverflowError:
                answer = np.array(out, dtype=object)
        else:
            answer = out
        ints, _ = action_oracle(answer, state.batch_size)
        verdicts.append(ints is not None and all(0 <= v < mask.shape[1] and mask[i, v]
                                                 for i, v in enumerate(ints)))
        return answer

    opponent.plan, opponent.calls = plan, 0
    learner_action = (lambda: np.array([np.flatnonzero(m)[0] for m in vec.action_masks()])) if vector \
        else (lambda: int(np.flatnonzero(env.action_masks())[0]))
    try:
        e.reset(seed=seed)
        if vector or not env.state.done[0]:
            e.step(learner_action())  # the opponents answer again
    except OpponentError as err:
        event("opponent refused")
        assert verdicts and not verdicts[-1] and all(verdicts[:-1]), verdicts
        msg = str(err)
        assert "Scripted()" in msg and ("env " in msg or "expected" in msg), msg
        with pytest.raises(RuntimeError, match="reset"):
            e.step(learner_action())
    else:
        event("opponent taken" if verdicts else "opponent not asked")
        assert all(verdicts), "a bad answer was played"


# -- the reviewed cases, always run -------------------------------------------------------------------
@pytest.mark.parametrize("game", GAME_NAMES)
def test_reviewed_cases_are_refused_by_value(game):
    core = core_of(game)
    state = position(game, 3, 3, 4)
    before = snapshot(state)
    B, A, P = 3, core.num_actions, core.num_players
    for bad in (math.inf, -math.inf, 1e20, math.nan, 2.5, np.uint64(2**63)):
        with pytest.raises(IllegalActionError, match="action " + show(bad).replace("+", r"\+")):
            core.step(state, np.array([bad] * B))
    for bad in (np.array([True] * B), np.array([1] * B, dtype=object), ["3"] * B, [-2**63 - 1, -1, -1]):
        with pytest.raises(IllegalActionError, match="action"):
            core.step(state, bad)
    for seat in (10**6, P + 3, -1, 1.5, math.nan, "0", True, 10**30, np.full(B, P, np.int8)):
        for fn in (core.observe, core.heuristic):
            with pytest.raises(ValueError, match="seats are integers"):
                fn(state, seat)
    one = state.take([0])  # a batch of one has its own fast path
    for fn in (core.observe, core.heuristic):
        for seat in (np.array([P], np.int8), np.array([-1], np.int8)):
            with pytest.raises(ValueError, match="seats are integers"):
                fn(one, seat)
    with pytest.raises(ValueError, match="out="):
        core.legal_action_mask(state, out=np.empty((1, A), bool))
    with pytest.raises(ValueError, match="out="):
        core.observe(state, 0, out=np.empty((1, *core.observation_shape), np.float32))
    assert_unchanged(before, state)
    for seeds in ([1.5], [-1], [math.nan], [2**64], [True], ["5"]):
        with pytest.raises(ValueError, match="seeds must be integers"):
            core.init(seeds)
    assert core.init([2**64 - 1, 2**62 + 1]).seed.tolist() == [2**64 - 1, 2**62 + 1]


@pytest.mark.parametrize("game", GAME_NAMES)
def test_reviewed_env_cases(game):
    env = gym_env(game)
    first = env.reset(seed=5)[0]
    assert np.array_equal(env.reset(seed=np.int64(5))[0], first)
    for seed in (1.5, -1, True, "5"):
        with pytest.raises((TypeError, ValueError), match="seed"):
            env.reset(seed=seed)
    with pytest.raises(TypeError, match="options"):
        env.reset(options="x")
    for bad in (math.inf, 2**63, np.uint64(2**63), math.nan, 1e20, 2.5, True, "3"):
        with pytest.raises(IllegalActionError, match=show(bad).replace("+", r"\+")):
            env.step(bad)
    aec = aec_env(game)
    aec.reset(seed=np.int64(5))
    for bad in (math.inf, math.nan, 1e20, np.uint64(2**63), "3", None, 2.5, True):
        with pytest.raises(IllegalActionError, match="action " + show(bad).replace("+", r"\+")):
            aec.step(bad)
    for answer in (-1, 0.5, "x"):
        opponent = Scripted()
        opponent.plan = lambda state, mask, answer=answer: [answer] * state.batch_size
        bad_env = gym.make(GAMES[game_of(game)].gym_id, opponent=opponent, learner_seat=1,
                           **options_of(game)).unwrapped
        with pytest.raises(OpponentError, match=f"Scripted.*{show(answer)}"):
            bad_env.reset(seed=0)  # the opponent may move first, or after a few learner steps
            for _ in range(100):
                bad_env.step(int(np.flatnonzero(bad_env.action_masks())[0]))


def test_koi_max_plies_fits_int32():
    with pytest.raises(OptionError, match="max_plies.*2147483647"):
        make_core("koi", max_plies=2**63)
    make_core("koi", max_plies=2**31 - 1)


# -- states of another core, odd masks, bounded messages and sizes ---------------------------------
def test_a_state_of_another_core_is_refused_before_any_kernel():
    two, four = make_core("yinyang", num_players=2), make_core("yinyang", num_players=4)
    state = two.init(np.arange(64))
    before = snapshot(state)
    for call in (lambda: four.legal_action_mask(state), lambda: four.step(state, np.full(64, -1)),
                 lambda: four.heuristic(state, 3), lambda: four.observe(state, 3),
                 lambda: four.scores(state), lambda: four.solo_level(state),
                 lambda: four.render_ansi(state)):
        with pytest.raises(ValueError, match="state field rewards has shape"):
            call()
    assert_unchanged(before, state)
    small, big = make_core("koi", board_size=5, win_fry=14), make_core("koi", board_size=19)
    koi5 = small.init(np.arange(3))
    for call in (lambda: big.legal_action_mask(koi5), lambda: big.observe(koi5, 0),
                 lambda: big.heuristic(koi5, 0), lambda: big.count_moves(koi5, 0),
                 lambda: big.step(koi5, np.full(3, -1)), lambda: big.to_text(koi5)):
        with pytest.raises(ValueError, match="state field board has shape"):
            call()
    yoxii = make_core("yoxii", action_features=True)
    for call in (lambda: yoxii.action_features(koi5, 0), lambda: yoxii.observe(koi5, 0),
                 lambda: yoxii.step(koi5, [0, 0, 0])):
        with pytest.raises(ValueError, match="expected a YoxiiState"):
            call()
    # a state built by hand: a field of another dtype, a field with another number of rows
    ok = big.init(np.arange(2))
    for name, value in (("board", ok.board.astype(np.int16)), ("koi", ok.koi[:1]),
                        ("fry", ok.fry.tolist())):
        bad = type(ok)(**{**vars(ok), name: value})
        with pytest.raises(ValueError, match=f"state field {name} "):
            big.legal_action_mask(bad)
    big.legal_action_mask(ok)  # and the right one still plays


def test_a_checked_state_is_stamped_and_copies_keep_the_stamp():
    core, other = make_core("koi"), make_core("koi")
    state = core.init(np.arange(4))
    assert getattr(state, "_layout", None) is None
    core.legal_action_mask(state)
    stamp = core.state_layout()
    assert state._layout is stamp and list(vars(state)) == [f for f in vars(state) if f != "_layout"]
    assert state.copy()._layout is stamp and state.take([0, 2])._layout is stamp
    assert state.take(state.done | True)._layout is stamp
    assert getattr(state.take(0), "_layout", None) is None  # no batch axis: not this layout
    assert type(state).concatenate([state, state.copy()])._layout is stamp
    assert getattr(type(state).concatenate([state, core.init([9])]), "_layout", None) is None
    other.observe(state, 0)  # equal layout, other core: checked in full once, then stamped anew
    assert state._layout is other.state_layout()
    clone = state.copy()
    clone.board = clone.board[:, :9]  # unsupported, but a fresh core still catches it
    with pytest.raises(ValueError, match="board"):
        make_core("koi").legal_action_mask(clone)


def test_random_agent_reads_bool_masks_with_odd_bytes_as_true():
    core = core_of("koi")
    state = core.init(np.arange(64))
    raw = np.zeros((64, core.num_actions), np.uint8)
    raw[:, 5] = 255
    raw[::2, 17] = 2
    mask = raw.view(bool)
    for agent in (RandomAgent(core, 0), make_agent("greedy", core, 0)):
        actions = agent(state, mask)
        assert set(actions[1::2].tolist()) == {5} and set(actions[::2].tolist()) <= {5, 17}, agent
    assert raw[0, 5] == 255  # the caller's mask is left alone


def _bomb(depth=22):
    value = []
    for _ in range(depth):  # a YAML alias bomb: a few hundred bytes, a repr of 2**depth lists
        value = [value, value]
    return value


@pytest.mark.parametrize("game, option", [
    ("koi", "board_size"), ("koi", "directions"), ("koi", "quick_start"), ("koi", "win_fry"),
    ("koi", "max_plies"), ("yinyang", "num_players"), ("yinyang", "reward"),
    ("yinyang", "data_file"), ("yinyang", "board_side"), ("yoxii", "action_features")])
def test_option_messages_stay_short_for_huge_values(game, option):
    with pytest.raises(OptionError, match=option) as err:
        make_core(game, **{option: _bomb()})
    assert len(str(err.value)) < 400, len(str(err.value))


def _in_object_array(value):
    a = np.empty(1, object)
    a[0] = value
    return a


def test_agent_and_seed_messages_stay_short_for_huge_values():
    from yyenvs.agents.mcts import MCTSAgent
    from yyenvs.core.rng import check_seed, game_seeds
    core = core_of("yoxii")
    calls = [lambda: make_agent(_bomb(), core), lambda: check_seed(_bomb()),
             lambda: game_seeds(_in_object_array(_bomb())),
             lambda: MCTSAgent(core, rollout=_bomb()), lambda: MCTSAgent(core, c_uct=_bomb())]
    for call in calls:
        with pytest.raises((ValueError, TypeError)) as err:
            call()
        assert len(str(err.value)) < 400, len(str(err.value))
    assert len(repr(make_core("koi"))) < 400


def test_sizes_are_bounded_at_construction():
    from yyenvs.agents.mcts import MCTSAgent
    from yyenvs.envs.learner import LearnerBatch
    core = core_of("yoxii")
    for spec in ("mcts:99999999999999999999", "mcts:100000000", "mcts:1000001", "mcts:0",
                 "mcts:", "mcts:" + "9" * 5000):
        with pytest.raises(OptionError, match="1,000,000"):
            make_agent(spec, core)
    assert make_agent("mcts:1000000", core).simulations == 10**6
    for n in (10**8, 2**70):
        with pytest.raises(ValueError, match="simulations.*1,000,000"):
            MCTSAgent(core, simulations=n)
    with pytest.raises(OptionError, match="1,000,000"):
        gym.make(GAMES["yoxii"].gym_id, opponent="mcts:99999999999999999999")
    for n in (2**20 + 1, 2**64):
        with pytest.raises(OptionError, match="num_envs must be at most"):
            LearnerBatch(core, n, RandomAgent(core))
        with pytest.raises(OptionError, match="num_envs must be at most"):
            GameVectorEnv("yoxii", num_envs=n)


@pytest.mark.parametrize("game", GAME_NAMES)
def test_reviewed_small_cases(game):
    import warnings
    core = core_of(game)
    state = core.init([0])
    legal = int(np.flatnonzero(core.legal_action_mask(state)[0])[0])
    with pytest.raises(IllegalActionError, match="actions must be a numeric array, got dtype object"):
        core.step(state.copy(), np.array([legal], dtype=object))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no RuntimeWarning (overflow in cast) escapes
        for form in ([np.float16(legal)], [np.float32(legal)], np.array([legal], np.float16)):
            core.step(state.copy(), form)
        with pytest.raises(IllegalActionError):
            core.step(state.copy(), [np.float16(np.inf)])
    for spec in ("random:", "greedy:", "random:3", "greedy:x"):
        with pytest.raises(OptionError, match="takes no argument"):
            make_agent(spec, core)
        with pytest.raises(OptionError, match="takes no argument"):
            gym.make(GAMES[game_of(game)].gym_id, opponent=spec, **options_of(game))
    aec = aec_env(game)
    for seed in (2**64, 2**64 + 7, 2**100):
        with pytest.raises(ValueError, match=r"seed.*2\*\*64"):
            aec.reset(seed=seed)
        with pytest.raises(ValueError, match=r"seed.*2\*\*64"):
            gym_env(game).reset(seed=seed)
        with pytest.raises(ValueError, match=r"seed.*2\*\*64"):
            RandomAgent(core, seed)
    aec.reset(seed=2**64 - 1)


@pytest.mark.parametrize("game", GAME_NAMES)
def test_gym_names_a_string_action_as_passed(game):
    """numpy would turn the string "\\x00" into "" when wrapping it; the message keeps what was passed."""
    env = gym_env(game)
    env.reset(seed=0)
    for action in ("\x00", "3 ", b"\x00"):
        with pytest.raises(IllegalActionError, match=re.escape(show(action))):
            env.step(action)
