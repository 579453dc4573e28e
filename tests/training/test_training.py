"""End-to-end self-play training in seconds, for every available game."""
from __future__ import annotations

import glob
import json
import os

import numpy as np
import pytest

from yyenvs.games import GAMES

from tests import ROOT

GAME_IDS = list(GAMES)

TINY = [
    ("num_envs", 16), ("ppo.n_steps", 16), ("ppo.batch_size", 128), ("ppo.n_epochs", 1),
    ("ppo.net_arch", [32]), ("total_timesteps", 768), ("threads", 1),
    ("selfplay.snapshot_every", 256), ("selfplay.latest", 0.3), ("checkpoint.every", 256),
    ("eval.every", 512), ("eval.games", 8), ("eval.final_games", 8), ("eval.table_games", 4),
    ("eval.table_snapshots", 2), ("log.progress", False),
]


def _steps_per_round(game) -> int:
    """Timesteps for every one of 16 envs to finish about two games (random play)."""
    from yyenvs.agents import RandomAgent
    from yyenvs.games import make_core
    core = make_core(game)
    s = core.init(np.arange(16))
    agent = RandomAgent(core, 0)
    while not s.done.all():
        a = agent(s, core.legal_action_mask(s))
        a[s.done] = -1
        core.step(s, a)
    per_env = 2 * float(s.ply.mean()) / core.num_players
    return 256 * max(1, int(np.ceil(per_env / 16 / 2)))


def tiny_config(game, run_dir, **extra):
    from yyenvs.training.config import load_config
    unit = _steps_per_round(game)
    over = ([("game", game), ("run_dir", str(run_dir))] + TINY
            + [("total_timesteps", 3 * unit), ("selfplay.snapshot_every", unit),
               ("checkpoint.every", unit), ("eval.every", 2 * unit)] + list(extra.items()))
    return load_config(None, over)


@pytest.fixture(scope="module", params=GAME_IDS)
def trained(request, tmp_path_factory):
    """One tiny run per game (shared by the tests below)."""
    from yyenvs.training.train import Trainer
    game = request.param
    run_dir = tmp_path_factory.mktemp(f"run_{game}")
    trainer = Trainer(tiny_config(game, run_dir), log=lambda m: None)
    outcomes = []
    trainer.env.episode_listeners.append(lambda idx, out, seats: outcomes.extend(out.tolist()))
    info = trainer.train()
    trainer.close()
    return game, run_dir, trainer, info, outcomes


def test_pool_grows(trained):
    game, run_dir, trainer, info, _ = trained
    snaps = trainer.pool.snapshots()
    assert len(snaps) >= 2, "a snapshot every third of the run"
    assert sorted(s.step for s in snaps) == [s.step for s in snaps]
    assert len(glob.glob(os.path.join(run_dir, "snapshots", "step_*.safetensors"))) == len(snaps)
    # snapshots and baselines were actually played
    played = {e.name for e in trainer.pool.entries if e.games > 0}
    assert "latest" in played and played & {"random", "greedy"}
    p = trainer.pool.probabilities()
    assert p.sum() == pytest.approx(1.0) and (p > 0).sum() >= 3


def test_learner_sees_losses(trained):
    _, _, trainer, _, outcomes = trained
    assert -1.0 in outcomes and 1.0 in outcomes
    rewards = trainer.model.rollout_buffer.rewards
    assert rewards.min() == pytest.approx(-1.0)  # a loss reached PPO's buffer as -1
    assert rewards.max() == pytest.approx(1.0)


def test_checkpoints_saved(trained):
    from yyenvs.networks.checkpoint import read_metadata
    game, run_dir, trainer, info, _ = trained
    ckpts = sorted(glob.glob(os.path.join(run_dir, "checkpoints", "ckpt_*.safetensors")))
    assert 1 <= len(ckpts) <= 2  # older ones are pruned
    meta = read_metadata(ckpts[-1], trainer.core)
    assert meta["game"] == game
    assert meta["num_timesteps"] == info["steps"] == trainer.cfg["total_timesteps"]
    assert any(e["kind"] == "snapshot" for e in meta["pool"]["entries"])
    assert os.path.exists(os.path.join(run_dir, "final.safetensors"))
    assert glob.glob(os.path.join(run_dir, "tb", "**", "events.*"), recursive=True)
    assert trainer.last_eval and "random" in trainer.last_eval


def test_resume_continues(trained):
    from yyenvs.training.train import Trainer
    game, run_dir, trainer, info, _ = trained
    t2 = Trainer(tiny_config(game, run_dir, total_timesteps=info["steps"] + 256), log=lambda m: None)
    assert t2.resumed_from is not None
    assert t2.model.num_timesteps == info["steps"]
    assert len(t2.pool.snapshots()) == len(trainer.pool.snapshots())
    assert sum(e.games for e in t2.pool.entries) == sum(e.games for e in trainer.pool.entries)
    info2 = t2.train()
    assert info2["steps"] >= info["steps"] + 256
    t2.close()
    # a fresh run refuses to overwrite, and another game is refused
    from yyenvs.training.config import ConfigError
    with pytest.raises(ConfigError, match="resume"):
        Trainer(tiny_config(game, run_dir, resume=False), log=lambda m: None)
    other = [g for g in GAME_IDS if g != game]
    if other:
        from yyenvs.networks.checkpoint import CheckpointError
        with pytest.raises(CheckpointError, match=f"'{game}' run"):
            Trainer(tiny_config(other[0], run_dir), log=lambda m: None)


def test_evaluation_outputs(trained, capsys):
    game, run_dir, trainer, info, _ = trained
    result = trainer.final_evaluation()
    out = capsys.readouterr().out
    assert "final vs random" in out and "ratings" in out
    with open(os.path.join(run_dir, "eval", "eval.json")) as f:
        saved = json.load(f)
    names = [e["name"] for e in saved["entrants"]]
    assert names[0] == "final" and "random" in names
    assert all(e["rating"] is not None for e in saved["entrants"])
    row = next(r for r in saved["table"] if r["player"] == "final" and r["opponent"] == "random")
    assert row["wins"] + row["draws"] + row["losses"] == row["games"] == 8
    lo, hi = row["win_rate_ci95"]
    assert lo <= row["win_rate"] <= hi
    png = os.path.join(run_dir, "eval", "ratings.png")
    with open(png, "rb") as f:
        assert f.read(8) == b"\x89PNG\r\n\x1a\n"
    assert result["games_per_pair"] == "varies"


def test_eval_command(trained, tmp_path, capsys):
    from yyenvs.commands.evaluate import main
    game, run_dir, *_ = trained
    rc = main([os.path.join(run_dir, "final.safetensors"), "random", "--games", "6", "--out", str(tmp_path)])
    assert rc == 0
    out = capsys.readouterr().out
    assert "final" in out and "random" in out and "Wilson" in out
    assert os.path.exists(tmp_path / "eval.json") and os.path.exists(tmp_path / "ratings.png")


def test_eval_balanced_seats():
    """Seats alternate: random vs random wins about half each way, and the
    cross-table is consistent (A's wins are B's losses)."""
    from yyenvs.evaluation.matches import make_entrants
    from yyenvs.evaluation.tournament import tournament
    from yyenvs.games import make_core
    core = make_core(GAME_IDS[0])
    ents = make_entrants(["random", "greedy"], core)
    res = tournament(core, ents, 40, seed=1)
    a = next(r for r in res["table"] if r["player"] == "random")
    b = next(r for r in res["table"] if r["player"] == "greedy")
    assert a["wins"] == b["losses"] and a["losses"] == b["wins"] and a["games"] == 40
    assert b["wins"] > a["wins"]  # greedy beats random
    ratings = {e["name"]: e["rating"] for e in res["entrants"]}
    assert ratings["random"] == 0 and ratings["greedy"] > 0


def test_one_match_function_for_play_eval_and_training():
    """``yyenvs play``, ``yyenvs eval`` and the evaluations during training play the same
    games: a tournament's first pairing is play_match of its two entrants under the same seed."""
    import yyenvs.commands.play
    from yyenvs.evaluation.matches import make_entrants
    from yyenvs.evaluation.tournament import tournament
    from yyenvs.evaluation.matches import play_match
    from yyenvs.games import make_core
    assert yyenvs.commands.play.play_match is play_match
    core = make_core(GAME_IDS[0])
    ents = make_entrants(["greedy", "random"], core, seed=3)
    res = tournament(core, ents, 30, seed=7)
    r = play_match(core, ents[0].agent, ents[1].agent, 30, seed=7)
    assert (r["wins"], r["draws"], r["losses"]) == (res["wins"][0][1], res["draws"][0][1], res["wins"][1][0])
    assert r["wins"] + r["draws"] + r["losses"] == 30 and r["plies"] > 30
    other = play_match(core, ents[0].agent, ents[1].agent, 30, seed=8)
    assert other != r  # the seed picks the games


@pytest.mark.parametrize("game", [g for g, spec in GAMES.items() if spec.players[1] >= 3])
def test_multiplayer_placements(game):
    """3-player games are scored pairwise from placements."""
    from yyenvs.evaluation.matches import make_entrants
    from yyenvs.evaluation.tournament import tournament
    from yyenvs.games import make_core
    core = make_core(game, num_players=3)
    res = tournament(core, make_entrants(["random", "greedy"], core), 6, seed=2)
    w = np.array(res["wins"])
    d = np.array(res["draws"])
    # 6 games with seats A,B,A / B,A,B: two cross-entrant seat pairs per game
    assert w.sum() + d[0, 1] == 12
    assert all(e["rating"] is not None for e in res["entrants"])


def test_train_command_rejects_bad_key(capsys):
    from yyenvs.commands.train import main
    assert main(["ppo.learnig_rate=1"]) == 2
    assert "ppo.learnig_rate" in capsys.readouterr().err


def test_pfsp_favours_least_beaten():
    """PFSP weights (1 - p)^2 from recorded results; baseline_share splits the draw."""
    from yyenvs.training.pool import OpponentPool, PoolSettings
    from yyenvs.games import make_core
    core = make_core(GAME_IDS[0])
    pool = OpponentPool(core, 4, None, PoolSettings(("random", "greedy"), latest=0.2, pfsp_power=2.0,
                                                    pfsp_floor=0.0, window=100))
    pool.assignment[:] = [1, 1, 2, 2]           # envs 0,1 vs random; 2,3 vs greedy
    for _ in range(49):
        pool.on_episode_end([0, 1], [1.0, 1.0])          # random: 98 wins -> p = 99/100
        pool.on_episode_end([2, 3], [1.0, -1.0])         # greedy: 49 wins, 49 losses -> p = 0.5
    p = pool.probabilities()
    w_r, w_g = (1 - 99 / 100) ** 2, (1 - 0.5) ** 2
    assert p[0] == pytest.approx(0.2)
    assert p[1] == pytest.approx(0.8 * w_r / (w_r + w_g))
    assert p[2] == pytest.approx(0.8 * w_g / (w_r + w_g))
    # a snapshot enters at p = 0.5; with baseline_share the baselines keep 0.3 between them
    pool.baseline_share = 0.3

    class Frozen:  # the minimal policy interface add_snapshot needs
        def set_training_mode(self, mode):
            pass

        def parameters(self):
            return []

        def __deepcopy__(self, memo):
            return Frozen()
    pool.add_snapshot(Frozen(), 100)
    p = pool.probabilities()
    assert p[1] + p[2] == pytest.approx(0.3) and p[3] == pytest.approx(0.5)
    # draws: many episodes drawn per env follow these probabilities
    pool.on_episode_start(np.arange(4))
    big = OpponentPool(core, 20000, None, PoolSettings(("random", "greedy"), latest=0.2, window=100))
    big.entries = pool.entries
    big.baseline_share = 0.3
    big.pfsp_floor = 0.0
    big.on_episode_start(np.arange(20000))
    counts = np.bincount(big.assignment, minlength=4) / 20000
    assert counts == pytest.approx(p, abs=0.02)


@pytest.mark.parametrize("game", GAME_IDS)
def test_cnn_option(game, tmp_path):
    """ppo.cnn_channels trains and reloads on plane observations; refused on vectors."""
    from yyenvs.training.config import ConfigError
    from yyenvs.training.train import Trainer
    from yyenvs.agents.ppo import load_policy_agent
    from yyenvs.games import make_core
    core = make_core(game)
    cfg = tiny_config(game, tmp_path, **{"ppo.cnn_channels": [4], "total_timesteps": 256,
                                        "eval.every": 0, "log.tensorboard": False})
    if len(core.observation_shape) != 3:
        with pytest.raises(ConfigError, match="cnn_channels"):
            Trainer(cfg, log=lambda m: None)
        return
    t = Trainer(cfg, log=lambda m: None)
    info = t.train()
    agent = load_policy_agent(info["final"], core, 0, deterministic=False)
    s = core.init(np.arange(5))
    mask = core.legal_action_mask(s)
    assert mask[np.arange(5), agent(s, mask)].all()


@pytest.mark.parametrize("game", GAME_IDS)
def test_reward_shaping_telescopes(game):
    """Potential-based shaping with gamma = 1: an episode's shaped rewards add up
    to its game result minus the potential of its first position, and the
    episode statistics keep the unshaped result."""
    from yyenvs.integrations.sb3 import LearnerVecEnv
    from yyenvs.agents import make_agent
    from yyenvs.games import make_core
    core = make_core(game)
    n, coef = 8, 0.05
    env = LearnerVecEnv(core, n, make_agent("random", core, 3), seed=5, shaping=coef, gamma=1.0)
    env.reset()
    first_phi = env._phi.copy()
    assert np.abs(first_phi).max() < 1000 * coef  # never the +-1000 of a finished game
    shaped_sum = np.zeros(n)
    rng = np.random.default_rng(0)
    checked, moved = 0, False
    for _ in range(4000):
        mask = env.action_masks()
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in mask])
        env.step_async(acts)
        _, reward, done, infos = env.step_wait()
        shaped_sum += reward
        moved = moved or bool(np.any(reward[~done] != 0))
        for i in np.flatnonzero(done):
            result = infos[i]["episode"]["r"]
            assert result in (-1.0, 0.0, 1.0)
            assert shaped_sum[i] == pytest.approx(result - first_phi[i], abs=1e-4)
            shaped_sum[i] = 0.0
            first_phi[i] = env._phi[i]
            checked += 1
        if checked >= 12:
            break
    assert checked >= 12
    assert moved  # the shaping did reward some moves before the end


def test_action_features_policy(tmp_path):
    """With Yoxii's action_features option the policy adds learned weights times
    each action's lookahead features to its logit; it trains, saves and reloads,
    and a large 'win now' weight makes it take an immediate win."""
    import torch as th
    from yyenvs.training.train import Trainer
    from yyenvs.agents.ppo import load_policy_agent
    from yyenvs.games import make_core
    cfg = tiny_config("yoxii", tmp_path, **{"game_options": {"action_features": True},
                                           "total_timesteps": 512, "eval.every": 0,
                                           "log.tensorboard": False})
    t = Trainer(cfg, log=lambda m: None)
    info = t.train()
    core = make_core("yoxii", action_features=True)
    agent = load_policy_agent(info["final"], core, 0)
    assert th.equal(agent.policy.feature_weights, t.model.policy.feature_weights)
    # positions with a winning move, from random play
    s = core.init(np.arange(64))
    rng = np.random.default_rng(1)
    for _ in range(16):
        mask = core.legal_action_mask(s)
        actions = np.array([rng.choice(np.flatnonzero(m)) if m.any() else -1 for m in mask])
        core.step(s, actions)
    feats = core.action_features(s, s.current_player).transpose(0, 2, 1)  # (B, actions, features)
    rows = np.flatnonzero(feats[:, :, 0].any(axis=1) & ~s.done)
    assert rows.size > 0
    with th.no_grad():
        agent.policy.feature_weights[:] = 0.0
        agent.policy.feature_weights[0] = 5.0
    sub = s.take(rows)
    chosen = agent(sub, core.legal_action_mask(sub))
    assert feats[rows, chosen, 0].all()


def test_quick_settings_keep_the_game_options_of_the_chosen_game():
    from yyenvs.training.config import load_config
    from yyenvs.commands.train import _quick_overrides
    over = _quick_overrides("configs/koi.yaml")
    assert not any(k.startswith("game_options") or k == "game" for k, _ in over)
    cfg = load_config("configs/koi.yaml", over)
    assert cfg["game"] == "koi" and "action_features" not in cfg["game_options"]
    assert cfg["max_minutes"] == load_config("configs/quick.yaml", [])["max_minutes"]


@pytest.mark.parametrize("script, config, extra", [
    ("ppo_selfplay.py", "configs/yoxii.yaml", ["num_envs=8", "total_timesteps=512", "ppo.n_steps=32",
                                                "ppo.batch_size=128", "ppo.n_epochs=1", "ppo.net_arch=[16]"]),
    ("search_selfplay.py", "configs/az_koi.yaml", ["num_envs=8", "total_timesteps=300", "az.simulations=4",
                                                    "az.max_considered=4", "az.hidden=[16]", "az.min_replay=32",
                                                    "az.batch_size=32", "az.eval_simulations=2"]),
])
def test_the_training_scripts_run_a_short_self_play(tmp_path, script, config, extra):
    """training/<script>.py, the one-screen pipelines a user copies: a short run writes its final
    network and evaluates it."""
    import os
    import subprocess
    import sys
    root = ROOT
    small = ["threads=1", "log.progress=false", "log.tensorboard=false", "eval.every=0",
             "eval.final_games=4", "eval.table_games=2", "eval.table_snapshots=2",
             "selfplay.snapshot_every=256", "checkpoint.every=256", f"run_dir={tmp_path / 'run'}"]
    r = subprocess.run([sys.executable, os.path.join("training", script), "--config", config, *small, *extra],
                       capture_output=True, text=True, timeout=600, cwd=root)
    assert r.returncode == 0, r.stderr[-3000:]
    assert "trained to" in r.stdout and (tmp_path / "run" / "final.safetensors").exists()
    assert (tmp_path / "run" / "eval" / "eval.json").exists()
