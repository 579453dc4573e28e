"""The generic layers over every available game: PettingZoo, Gymnasium, SB3, vector env."""
import pickle
import warnings

import gymnasium as gym
import numpy as np
import pytest
from pettingzoo.test import api_test, render_test, seed_test

import yyenvs
from yyenvs.envs.aec import aec_factories
from yyenvs.core.contract import IllegalActionError, OptionError
from yyenvs.games import GAMES

VARIANTS = {
    "yoxii": [{}, {"action_features": True}],
    "koi": [{}, {"board_size": 7, "directions": 4}],
    "yinyang": [{"num_players": n} for n in (1, 2, 3, 4)],
}
CASES = [(g, o) for g in list(GAMES) for o in VARIANTS.get(g, [{}])]
IDS = [g + "".join(f"-{k}={v}" for k, v in o.items()) for g, o in CASES]


def env_fn(game, options):
    _raw, env = aec_factories(game)
    return lambda **kw: env(**options, **kw)


def gym_id(game):
    return GAMES[game].gym_id


@pytest.mark.parametrize("game, options", CASES, ids=IDS)
def test_pettingzoo_api_seed_render(game, options):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(env_fn(game, options)(), num_cycles=300)
    naming = [w for w in caught if "named" in str(w.message) or "numbered" in str(w.message)]
    assert not naming, [str(w.message) for w in naming]
    seed_test(env_fn(game, options), num_cycles=300)
    render_test(env_fn(game, options))


@pytest.mark.parametrize("game, options", CASES, ids=IDS)
def test_gymnasium_and_sb3_check_env(game, options):
    from gymnasium.utils.env_checker import check_env
    from stable_baselines3.common.env_checker import check_env as sb3_check_env
    env = gym.make(gym_id(game), **options)
    check_env(env.unwrapped, skip_render_check=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # SB3 suggests uint8 images for CNNs; planes are float
        sb3_check_env(gym.make(gym_id(game), **options).unwrapped)


@pytest.mark.parametrize("game, options", CASES, ids=IDS)
def test_pickle_mid_game_replays_identically(game, options):
    env = env_fn(game, options)()
    env.reset(seed=5)
    rng = np.random.default_rng(0)

    def play(e, n, rng):
        out = []
        for _ in range(n):
            obs, _r, term, trunc, _ = e.last()
            if term or trunc:
                break
            a = int(rng.choice(np.flatnonzero(obs["action_mask"])))
            e.step(a)
            out.append((a, e.unwrapped.game_state.ply.copy()))
        return out

    play(env, 7, rng)
    clone = pickle.loads(pickle.dumps(env))
    a = play(env, 30, np.random.default_rng(1))
    b = play(clone, 30, np.random.default_rng(1))
    assert [x[0] for x in a] == [x[0] for x in b]
    ua, ub = env.unwrapped.game_state, clone.unwrapped.game_state
    for f in vars(ua):
        assert np.array_equal(getattr(ua, f), getattr(ub, f)), f


@pytest.mark.parametrize("game", list(GAMES))
def test_registrations(game):
    import pettingzoo
    env = gym.make(gym_id(game))
    obs, info = env.reset(seed=0)
    assert obs.shape == env.observation_space.shape and info["action_mask"].any()
    vec = gym.make_vec(gym_id(game), num_envs=3, vectorization_mode="vector_entry_point")
    obs, info = vec.reset(seed=0)
    assert obs.shape[0] == 3 and vec.action_masks().shape == (3, vec.single_action_space.n)
    pz = pettingzoo.make("aec", GAMES[game].pettingzoo_id)
    pz.reset(seed=0)
    assert pz.agents == pz.possible_agents
    module = getattr(yyenvs, GAMES[game].pettingzoo_module)
    assert type(module.raw_env()).__name__ == "raw_env"


@pytest.mark.parametrize("game", list(GAMES))
def test_first_agent_moves_first_and_illegal_action_penalty(game):
    env = env_fn(game, VARIANTS[game][0])()
    env.reset(seed=1)
    assert env.agent_selection == env.possible_agents[0]
    mover = env.agent_selection
    obs = env.observe(mover)
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    env.step(illegal)
    assert all(env.terminations.values())
    assert env.rewards[mover] == -1.0
    assert all(r == 0 for a, r in env.rewards.items() if a != mover)
    assert env.infos[mover]["illegal_action"] == illegal


@pytest.mark.parametrize("game", list(GAMES))
@pytest.mark.parametrize("bad", [-1, 10**6, 2.5, "x", None])
def test_out_of_range_action_raises_clearly(game, bad):
    env = env_fn(game, VARIANTS[game][0])()
    env.reset(seed=0)
    with pytest.raises(IllegalActionError, match="action"):
        env.step(bad)


@pytest.mark.parametrize("game", list(GAMES))
def test_gym_env_illegal_action_penalty_and_errors(game):
    env = gym.make(gym_id(game)).unwrapped
    obs, info = env.reset(seed=0)
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    obs, r, term, trunc, info = env.step(illegal)
    assert (r, term, info.get("illegal_action")) == (-1.0, True, True)
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)
    env.reset(seed=0)
    with pytest.raises(IllegalActionError, match="outside the action space"):
        env.step(env.action_space.n)
    with pytest.raises(ValueError, match="unknown reset option"):
        env.reset(options={"seat": 0})


@pytest.mark.parametrize("game", list(GAMES))
def test_bad_keywords_are_refused_by_name(game):
    with pytest.raises(OptionError, match="no_such_option"):
        gym.make(gym_id(game), no_such_option=1)
    with pytest.raises(OptionError, match="learner_seat"):
        gym.make(gym_id(game), learner_seat=7)
    with pytest.raises(OptionError, match="unknown opponent"):
        gym.make(gym_id(game), opponent="grandmaster")
    with pytest.raises(ValueError, match="render_mode"):
        env_fn(game, {})(render_mode="3d")


@pytest.mark.parametrize("game", list(GAMES))
def test_learner_seat_option_and_both_seats_reached(game):
    env = gym.make(gym_id(game)).unwrapped
    seats = set()
    for k in range(40):
        _, info = env.reset(seed=k)
        seats.add(info["learner_seat"])
    assert seats == set(range(env.core.num_players))
    _, info = env.reset(seed=3, options={"learner_seat": 0})
    assert info["learner_seat"] == 0 and env.state.current_player[0] == 0


@pytest.mark.parametrize("game", list(GAMES))
@pytest.mark.parametrize("mode", ["next_step", "same_step"])
def test_vector_env_is_batch_size_independent_and_autoresets(game, mode):
    def run(num_envs, steps=60):
        vec = gym.make_vec(gym_id(game), num_envs=num_envs, vectorization_mode="vector_entry_point",
                           autoreset_mode=mode)
        obs, _ = vec.reset(seed=11)
        first_obs, rewards, finals = [obs[0].copy()], [], 0
        for t in range(steps):
            mask = vec.action_masks()
            # a deterministic legal choice per env: the legal action at a fixed fraction (a game
            # that is over has none: with NEXT_STEP its action is ignored)
            acts = np.array([np.flatnonzero(m)[(7 * t) % m.sum()] if m.any() else 0 for m in mask])
            obs, r, term, trunc, info = vec.step(acts)
            first_obs.append(obs[0].copy())
            rewards.append(r[0])
            if info["_game"].any():
                finals += int(info["_game"].sum())
                assert ("_final_obs" in info) == (mode == "same_step")
                assert (np.abs(info["game"]["outcome"][info["_game"]]) <= 1).all()
        return np.array(first_obs), np.array(rewards), finals

    o1, r1, _ = run(1)
    o4, r4, finals = run(4)
    assert np.array_equal(o1, o4) and np.array_equal(r1, r4)
    assert finals > 0 or game == "yinyang"


def test_vector_env_gives_each_seat_its_own_reward():
    from yyenvs.envs.vector import GameVectorEnv
    vec = GameVectorEnv("yoxii", num_envs=64, opponent="random")
    vec.reset(seed=0)
    total = {0: [], 1: []}
    for _ in range(40):
        acts = vec.action_masks().argmax(1)  # the first legal action (0 for a game that is over)
        _, r, term, trunc, info = vec.step(acts)
        if info["_game"].any():
            ep = info["game"]
            for i in np.flatnonzero(info["_game"]):
                total[int(ep["learner_seat"][i])].append(float(r[i]))
                # the learner's reward is its own seat's result
                assert r[i] == ep["outcome"][i]
    assert total[0] and total[1]


def test_maskable_ppo_learns_on_the_registered_env():
    """The Gymnasium env through SB3's own make_vec_env: masks reach MaskablePPO."""
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.utils import get_action_masks
    from stable_baselines3.common.env_util import make_vec_env
    venv = make_vec_env("yyenvs/Yoxii-v0", n_envs=2, env_kwargs={"opponent": "random"}, seed=0)
    venv.reset()
    masks = get_action_masks(venv)
    assert masks.shape == (2, 1184) and (masks.sum(1) > 0).all()
    model = MaskablePPO("MlpPolicy", venv, n_steps=32, batch_size=32, n_epochs=1, seed=0)
    model.learn(64)
    obs = venv.reset()
    actions, _ = model.predict(obs, action_masks=get_action_masks(venv))
    assert get_action_masks(venv)[np.arange(2), actions].all()


# --- seeds, reset options, truncation, opponents, layering ----------------------------------
def test_derive_seeds_is_one_fixed_function():
    """Game seeds are a pure function of (master seed, stream, index): fixed values, any shape."""
    from yyenvs.core.rng import derive_seeds
    assert derive_seeds(0, 0, 0) == np.uint64(18152189527315630385)
    assert derive_seeds(12345, 3, 7) == np.uint64(15272559074137672206)
    rows, games = np.arange(3, dtype=np.uint64)[:, None], np.arange(4, dtype=np.uint64)
    grid = derive_seeds(9, rows, games)
    assert grid.shape == (3, 4) and len(set(grid.ravel().tolist())) == 12
    assert grid[2, 3] == derive_seeds(9, 2, 3)
    with pytest.raises(ValueError, match="master seed"):
        derive_seeds(-1, 0, 0)


@pytest.mark.parametrize("game", list(GAMES))
def test_every_env_derives_its_game_seeds_the_same_way(game):
    """Env i's k-th game has the seed derive_seeds(seed, i, k) in the AEC, Gymnasium and
    vector envs alike, whatever the number of envs."""
    from yyenvs.core.rng import derive_seeds
    from yyenvs.envs.vector import GameVectorEnv
    options = dict(GAMES[game].variants[0])
    aec = env_fn(game, options)().unwrapped
    gym_env = gym.make(gym_id(game), **options).unwrapped
    for k in range(3):
        aec.reset(seed=21) if k == 0 else aec.reset()
        gym_env.reset(seed=21) if k == 0 else gym_env.reset()
        assert aec.game_state.seed[0] == derive_seeds(21, 0, k)
        assert gym_env.state.seed[0] == derive_seeds(21, 0, k)
    for n in (1, 5):
        vec = GameVectorEnv(game, num_envs=n, max_episode_steps=1, autoreset_mode="same_step", **options)
        vec.reset(seed=21)
        assert vec.batch.state.seed.tolist() == derive_seeds(21, np.arange(n, dtype=np.uint64), 0).tolist()
        vec.step(vec.action_masks().argmax(1))  # every game truncated after one step: episode 1
        assert vec.batch.state.seed.tolist() == derive_seeds(21, np.arange(n, dtype=np.uint64), 1).tolist()


@pytest.mark.parametrize("game", list(GAMES))
def test_reset_learner_seat_holds_for_the_games_reset_starts(game):
    """reset(options={"learner_seat": s}) seats the learner in the games that reset starts,
    in the Gymnasium env and in the vector env alike; later games (the next reset, an
    autoreset) take the constructor's learner_seat."""
    from yyenvs.envs.vector import GameVectorEnv
    options = dict(GAMES[game].variants[0])  # two players or more
    env = gym.make(gym_id(game), learner_seat=1, **options).unwrapped
    assert env.reset(seed=0, options={"learner_seat": 0})[1]["learner_seat"] == 0
    assert env.reset()[1]["learner_seat"] == 1
    assert env.reset(options={"learner_seat": None})[1]["learner_seat"] == 1
    vec = GameVectorEnv(game, num_envs=4, learner_seat=1, max_episode_steps=1, autoreset_mode="same_step",
                        **options)
    _, info = vec.reset(seed=0, options={"learner_seat": 0})
    assert info["learner_seat"].tolist() == [0] * 4
    _, _, term, trunc, info = vec.step(vec.action_masks().argmax(1))
    assert (term | trunc).all() and info["game"]["learner_seat"].tolist() == [0] * 4
    assert vec.batch.learner_seat.tolist() == [1] * 4  # the autoreset games
    _, info = vec.reset()
    assert info["learner_seat"].tolist() == [1] * 4
    with pytest.raises(ValueError, match="unknown reset option"):
        vec.reset(options={"seat": 0})


def _wrappers(env):
    while isinstance(env, gym.Wrapper):
        yield env
        env = env.env


@pytest.mark.parametrize("game", list(GAMES))
def test_registration_sets_max_episode_steps_and_the_vector_env_truncates(game):
    from yyenvs.envs.vector import GameVectorEnv
    spec = GAMES[game]
    assert gym.make(gym_id(game)).spec.max_episode_steps == spec.max_game_length
    vec = gym.make_vec(gym_id(game), num_envs=2, vectorization_mode="vector_entry_point")
    assert vec.unwrapped.max_episode_steps == spec.max_game_length
    if any(o.name == "max_plies" for o in spec.options):  # the limit follows the game's own cap
        made = gym.make(gym_id(game), max_plies=5000)
        assert made.spec.max_episode_steps == 5000 == made.unwrapped.core.max_game_length
        assert not any(isinstance(w, gym.wrappers.TimeLimit) for w in _wrappers(made))
        vec = gym.make_vec(gym_id(game), num_envs=2, vectorization_mode="vector_entry_point", max_plies=5000)
        assert vec.unwrapped.max_episode_steps == 5000
    assert gym.make(gym_id(game), max_episode_steps=7).spec.max_episode_steps == 7  # a limit given wins
    # a small limit: games still running after 3 learner steps are truncated and restart
    n, limit = 6, 3
    short = gym.make_vec(gym_id(game), num_envs=n, vectorization_mode="vector_entry_point",
                         max_episode_steps=limit, autoreset_mode="same_step").unwrapped
    free = GameVectorEnv(game, num_envs=n, autoreset_mode="same_step")  # the same games without the limit
    obs_s, _ = short.reset(seed=4)
    obs_f, _ = free.reset(seed=4)
    ended = np.zeros(n, bool)  # games over by the rules before the limit (they restart in both)
    for t in range(1, limit + 1):
        acts = free.action_masks().argmax(1)
        assert np.array_equal(short.action_masks().argmax(1), acts)
        obs_s, r_s, term_s, trunc_s, info = short.step(acts)
        obs_f, r_f, term_f, trunc_f, info_f = free.step(acts)
        assert not (term_s & trunc_s).any()
        if t < limit:
            assert np.array_equal(trunc_s, trunc_f) and np.array_equal(obs_s, obs_f)
            ended |= term_f | trunc_f
    cut = ~term_f & ~trunc_f & ~ended  # running on without the limit
    assert cut.any()
    assert np.array_equal(trunc_s, trunc_f | cut) and np.array_equal(term_s, term_f)
    assert info["_final_obs"][cut].all() and info["_game"][cut].all()
    assert (info["game"]["l"][cut] == limit).all()
    for i in np.flatnonzero(cut):
        assert np.array_equal(info["final_obs"][i], obs_f[i])  # the last observation of the cut game
    assert (short.batch.state.ply[cut] < free.batch.state.ply[cut]).all()  # a new game started
    _, _, _, trunc, _ = short.step(short.action_masks().argmax(1))
    assert not trunc[cut].any()  # the new games count their own steps


def test_the_vector_env_speaks_to_its_opponent_through_the_protocol():
    from yyenvs.agents import RandomAgent
    from yyenvs.envs.opponent import AgentOpponent, Opponent, as_opponent
    from yyenvs.envs.vector import GameVectorEnv
    from yyenvs.games import make_core
    core = make_core("yoxii")

    class Recording(Opponent):
        def __init__(self):
            self.agent, self.calls = RandomAgent(core, 1), []

        def __call__(self, state, mask, env_ids):
            self.calls.append(("move", sorted(np.asarray(env_ids).tolist())))
            return self.agent(state, mask)

        def on_episode_start(self, env_ids):
            self.calls.append(("start", sorted(np.asarray(env_ids).tolist())))

        def on_episode_end(self, env_ids, outcomes, learner_seats):
            self.calls.append(("end", sorted(np.asarray(env_ids).tolist())))

        def names(self, env_ids):
            return [f"opp{i}" for i in env_ids]

    rec = Recording()
    vec = GameVectorEnv("yoxii", num_envs=3, opponent=rec, learner_seat=1, max_episode_steps=2,
                        autoreset_mode="same_step")
    vec.reset(seed=0)
    assert rec.calls[0] == ("start", [0, 1, 2]) and rec.calls[1] == ("move", [0, 1, 2])
    vec.step(vec.action_masks().argmax(1))
    _, _, _, _, info = vec.step(vec.action_masks().argmax(1))
    assert info["game"]["opponent"].tolist() == ["opp0", "opp1", "opp2"]
    ends = [k for k, c in enumerate(rec.calls) if c[0] == "end"]
    assert ends and rec.calls[ends[0] + 1][0] == "start"  # the results first, then the new games
    # any agent or callable is wrapped; an Opponent is taken as it is
    fn = lambda state, mask: np.argmax(mask, 1)  # noqa: E731
    assert isinstance(as_opponent(fn), AgentOpponent) and as_opponent(rec) is rec
    vec = GameVectorEnv("yoxii", num_envs=2, opponent="greedy", max_episode_steps=1)
    vec.reset(seed=0)
    _, _, _, _, info = vec.step(vec.action_masks().argmax(1))
    assert info["game"]["opponent"].tolist() == ["greedy", "greedy"]


@pytest.mark.parametrize("game", list(GAMES))
def test_pettingzoo_state_is_the_api_method(game):
    """AECEnv.state() is PettingZoo's method (raising NotImplementedError, as the classic games do), not
    shadowed by the game's arrays (``game_state``); the parallel conversion keeps it."""
    from pettingzoo.utils.conversions import turn_based_aec_to_parallel
    env = env_fn(game, dict(GAMES[game].variants[0]))()
    env.reset(seed=0)
    with pytest.raises(NotImplementedError):
        env.unwrapped.state()
    assert env.unwrapped.game_state.batch_size == 1
    parallel = turn_based_aec_to_parallel(env_fn(game, dict(GAMES[game].variants[0]))())
    parallel.reset(seed=0)
    with pytest.raises(NotImplementedError):
        parallel.state()
