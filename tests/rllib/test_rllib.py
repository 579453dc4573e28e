"""RLlib on the package's envs (yyenvs.integrations.rllib), both ways in, a few PPO iterations each.

These run in the RLlib environment (``.venv-rllib``, where ray[rllib] pins gymnasium
1.2.2): ``./dev test`` runs them there with ``-m rllib``; the main suite skips them.
"""
from __future__ import annotations

import numpy as np
import pytest

pytestmark = pytest.mark.rllib
ray = pytest.importorskip("ray")
pytest.importorskip("ray.rllib")

from yyenvs.integrations import rllib as yr  # noqa: E402

KOI = {"board_size": 5, "directions": 4, "win_fry": 14}
SMALL = {"train_batch_size_per_learner": 512, "minibatch_size": 128, "num_epochs": 1}


@pytest.fixture(scope="module")
def local_ray():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def test_vector_env_path_trains_and_records_every_transition(local_ray):
    """The batched single-agent env: PPO trains, and each episode RLlib records has as many
    steps as the learner made in that game (NEXT_STEP autoreset: no first step lost)."""
    algo = yr.vector_ppo_config("koi", KOI, num_envs=16, hidden=(64,), num_env_runners=1).training(**SMALL).build_algo()
    try:
        for _ in range(2):
            result = algo.train()
        assert result["env_runners"]["num_env_steps_sampled"] >= 512
        sampled = algo.env_runner_group.foreach_env_runner(  # on the remote env runner
            lambda runner: runner.sample(num_episodes=20, explore=True), local_env_runner=False)
        episodes = [e for e in sampled[0] if e.is_done]
        assert len(episodes) >= 20
        for e in episodes:
            assert len(e) == e.get_infos(-1)["game"]["l"]  # the learner steps of that game
            mask = np.asarray(e.get_observations()["action_mask"])[:-1]  # before each action
            assert mask[np.arange(len(e)), np.asarray(e.get_actions())].all()  # masked: legal moves only
    finally:
        algo.stop()


def test_multi_agent_self_play_league(local_ray):
    """League self-play: main plays every seat against snapshots that join the pool; each seat's
    recorded steps are the moves it made."""
    config = yr.selfplay_ppo_config("koi", KOI, hidden=(64,), num_env_runners=0, win_rate=0.0).training(**SMALL)
    algo = config.build_algo()
    try:
        for _ in range(2):
            result = algo.train()
        assert result["league_size"] == 4  # main, main_v0 and a snapshot per iteration (win_rate 0)
        assert 0.0 <= result["env_runners"]["main_win_rate"] <= 1.0
        episodes = algo.env_runner.sample(num_episodes=16, explore=True)
        seats = set()
        for e in episodes:
            modules = {a: e.module_for(a) for a in e.agent_episodes}
            assert sorted(modules.values()).count(yr.MAIN) == 1 and set(modules.values()) - {yr.MAIN} <= {
                "main_v0", "main_v1", "main_v2"}
            seats |= {a for a, m in modules.items() if m == yr.MAIN}
            for a, ae in e.agent_episodes.items():
                assert len(ae) == ae.get_infos(-1)["decisions"]
        assert seats == {"yin_0", "yang_1"}  # main takes both seats
    finally:
        algo.stop()


def test_multi_agent_env_plays_the_rules():
    env = yr.MultiAgentGameEnv({"game": "yinyang", "num_players": 3})
    obs, _ = env.reset(seed=4)
    rng = np.random.default_rng(0)
    steps, rewards = 0, None
    while True:
        (agent, o), = obs.items()
        assert env.observation_spaces[agent].contains(o)
        action = int(rng.choice(np.flatnonzero(o["action_mask"])))
        obs, rewards, term, trunc, infos = env.step({agent: action})
        steps += 1
        if term["__all__"] or trunc["__all__"]:
            break
    assert set(obs) == set(env.agents) and sum(i["decisions"] for i in infos.values()) == steps
    env.reset(seed=4)
    (agent, o), = env._observe([int(env.state.current_player[0])]).items()
    illegal = int(np.flatnonzero(o["action_mask"] == 0)[0])
    _, rewards, term, _, infos = env.step({agent: illegal})
    assert term["__all__"] and rewards[agent] == -1.0 and infos[agent]["illegal_action"]
    env.reset(seed=4)
    (agent, _), = env._observe([int(env.state.current_player[0])]).items()
    for bad in (env.core.num_actions, -1):  # outside the action space: refused, the game goes on
        with pytest.raises(ValueError, match="outside the action space"):
            env.step({agent: bad})
    assert env._decisions.sum() == 0 and not env.state.done[0]
    with pytest.raises(ValueError, match="nan"):
        env.step({agent: float("nan")})
    with pytest.raises(ValueError, match="to move"):
        env.reset(seed=0)
        env.step({a: 0 for a in env.agents})


def test_the_docs_page_runs():
    from tests.commands.test_docs import BLOCKS, OWN_ENVIRONMENT, run_block
    page = "docs/integrations/rllib.md"
    assert page in OWN_ENVIRONMENT
    blocks = [(w, i, code) for w, i, code in BLOCKS if w == page]
    assert blocks
    for block in blocks:
        run_block(*block)


def test_yyenvs_train_backend_rllib(tmp_path, local_ray):
    """The command: a short league run from a project config, the weights saved without pickle, then evaluated."""
    from safetensors import safe_open

    from yyenvs.commands.train import main
    run_dir = tmp_path / "run"
    code = main(["--backend", "rllib", "--config", "configs/koi.yaml", "game_options={board_size: 5, directions: 4, win_fry: 14}",
                 "total_timesteps=600", "num_envs=32", "ppo.n_steps=8", "ppo.batch_size=128", "ppo.n_epochs=1",
                 "ppo.net_arch=[32]", "rllib.num_env_runners=0", "eval.final_games=4", "eval.opponents=[random]",
                 f"run_dir={run_dir}"])
    assert code == 0
    with safe_open(str(run_dir / "rllib_main.safetensors"), "pt") as f:
        assert f.metadata()["game"] == "koi" and len(list(f.keys())) > 0


def test_env_runners_take_the_cpus_ray_gave_them(local_ray):
    """An env runner's cores are its share of the machine (yyenvs.core.threads.fit_ray_worker)."""
    import numba

    def env_runner():
        yr.multi_agent_env({"game": "koi"})
        yr.vector_env({"game": "koi"})
        return numba.get_num_threads()
    assert ray.get(ray.remote(num_cpus=1)(env_runner).remote()) == 1
