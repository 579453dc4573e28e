"""The search trainer (yyenvs.training.az): a seconds-long run that self-plays, learns,
checkpoints, resumes and plays its network, and its targets."""
from __future__ import annotations


import numpy as np
import pytest

from yyenvs.agents import make_agent
from yyenvs.agents.az import AZAgent
from yyenvs.core.contract import OptionError
from yyenvs.games import make_core
from yyenvs.training.config import ConfigError



# -- the trainer ----------------------------------------------------------------------------------
TINY = {  # per game: options, games at once, moves in all (enough for games to finish)
    "koi": ({"board_size": 7, "directions": 4}, 16, 400),
    "yoxii": ({}, 16, 400),
    "yinyang": ({"num_players": 2}, 2, 1200),
}


def tiny_config(run_dir, game="koi", **extra):
    from yyenvs.training.config import load_config
    options, games, moves = TINY[game]
    overrides = {"algo": "az", "game": game, "game_options": options, "run_dir": str(run_dir),
                 "num_envs": games, "total_timesteps": moves, "threads": 1,
                 "az.simulations": 4, "az.max_considered": 4, "az.hidden": [16], "az.min_replay": 32,
                 "az.batch_size": 32, "az.eval_simulations": 2, "selfplay.snapshot_every": moves // 2,
                 "checkpoint.every": moves // 2, "eval.every": 0, "eval.final_games": 4, "eval.table_games": 2,
                 "eval.table_snapshots": 2, "log.progress": False, "log.tensorboard": False, **extra}
    return load_config(None, list(overrides.items()))


@pytest.mark.parametrize("game", list(TINY))
def test_trainer_machinery(tmp_path, game):
    """A seconds-long run: games finish, targets are distributions and results, the network learns."""
    from yyenvs.training.az import AZTrainer
    t = AZTrainer(tiny_config(tmp_path / "run", game), log=lambda m: None)
    try:
        info = t.train()
        assert info["steps"] >= TINY[game][2] and t.games_finished > 0 and t.replay.size > 0
        n = t.replay.size
        policy = t.replay.policy[:n].astype(np.float64)
        np.testing.assert_allclose(policy.sum(axis=1), 1.0, atol=2e-3)
        assert not policy[~t.replay.mask[:n]].any()  # only legal actions
        lo, hi = t.core.reward_range
        v = t.replay.value[:n]
        assert (v >= lo).all() and (v <= hi).all()
        assert set(np.unique(v)) <= {-1.0, 0.0, 1.0}  # win / loss rewards: results from the mover's seat
        assert t.n_updates > 0
        for name in ("checkpoints", "snapshots"):
            assert list((tmp_path / "run" / name).glob("*.safetensors")), name
        assert (tmp_path / "run" / "final.safetensors").exists()
    finally:
        t.close()


def test_trainer_searches_with_find_wins(tmp_path):
    """``az.find_wins`` reaches the self-play search, the quick evaluation and the final entrant,
    with the other search settings that differ from an agent's defaults."""
    from yyenvs.training.az import AZTrainer
    t = AZTrainer(tiny_config(tmp_path / "run", "yoxii", **{"az.find_wins": True, "az.c_puct": 2.0}),
                  log=lambda m: None)
    try:
        t.train()
        assert t.search.settings.find_wins
        n = t.replay.size
        np.testing.assert_allclose(t.replay.policy[:n].astype(np.float64).sum(axis=1), 1.0, atol=2e-3)
        assert not t.replay.policy[:n][~t.replay.mask[:n]].any()
        assert t.final_entrant("f.safetensors") == "az:f.safetensors:2:max_considered=4,c_puct=2,find_wins=1"
        assert t.search.settings.c_puct == 2.0
    finally:
        t.close()
    with pytest.raises(ConfigError, match="find_wins"):
        tiny_config(tmp_path / "bad", "yoxii", **{"az.find_wins": 1})


def test_trainer_plays_a_share_of_games_against_the_baselines(tmp_path):
    """With selfplay.baseline_share, one seat of those games is the baseline's: played by it, not recorded."""
    from yyenvs.training.az import AZTrainer
    from yyenvs.training.selfplay import SelfPlay
    t = AZTrainer(tiny_config(tmp_path / "run", **{"selfplay.baseline_share": 0.5,
                                                   "selfplay.baselines": ["random", "greedy"]}),
                  log=lambda m: None)
    try:
        assert [a.name for a in t.baselines] == ["random", "greedy"]
        # 16 slots: 8 play baselines (random in even slots, greedy in odd), seats alternating per game
        selfplay = SelfPlay(t.core, t.search, 16, 0, 0, t.baselines, 0.5)
        seats = selfplay.baseline_seats(np.zeros(16, np.int64))
        np.testing.assert_array_equal(seats, [0, 0, 1, 1, 0, 0, 1, 1] + [-1] * 8)
        np.testing.assert_array_equal(selfplay.baseline_seats(np.arange(16))[:4], [0, 1, 1, 0])
        played = {"search": 0, "baseline": 0}
        run, act = t.search.run, t.baselines[1].act

        def searched(state):
            played["search"] += state.batch_size
            return run(state)

        def by_greedy(state, mask):
            played["baseline"] += state.batch_size
            assert mask.sum(axis=1).min() > 1  # forced moves are played without asking
            return act(state, mask)
        t.search.run, t.baselines[1].act = searched, by_greedy
        t.train()
        assert played["baseline"] > 0 and played["search"] > 0
        assert t.samples_played == played["search"]  # only the network's positions are recorded
    finally:
        t.close()
    with pytest.raises(ConfigError, match="one player"):
        AZTrainer(tiny_config(tmp_path / "solo", "yinyang", game_options={"num_players": 1},
                              **{"selfplay.baseline_share": 0.5}), log=lambda m: None)


def test_trainer_plays_the_networks_own_prior_as_a_baseline(tmp_path):
    """selfplay.baselines=[prior]: that seat is the network being trained, unsearched, drawing its moves."""
    from yyenvs.training.az import AZTrainer
    t = AZTrainer(tiny_config(tmp_path / "run", **{"selfplay.baseline_share": 0.5, "selfplay.baselines": ["prior"]}),
                  log=lambda m: None)
    try:
        (prior,) = t.baselines
        assert isinstance(prior, AZAgent) and prior.net is t.net and prior.sample and prior.search is None
        played = {"search": 0, "prior": 0}
        run, act = t.search.run, prior.act

        def searched(state):
            played["search"] += state.batch_size
            return run(state)

        def by_prior(state, mask):
            played["prior"] += state.batch_size
            return act(state, mask)
        t.search.run, prior.act = searched, by_prior
        t.train()
        assert played["prior"] > 0 and t.samples_played == played["search"]  # the prior's seat is not recorded
    finally:
        t.close()
    from yyenvs.training.config import load_config
    run_dir = f"run_dir={tmp_path / 'cfg'}"
    with pytest.raises(ConfigError, match="'prior'.*--algo az only"):
        load_config(None, [run_dir, "selfplay.baselines=[prior]"])  # PPO, the default algo
    with pytest.raises(ConfigError, match="eval.opponents"):
        load_config(None, [run_dir, "algo=az", "eval.opponents=[prior]"])


def test_value_targets_are_returns_from_the_movers_seat():
    from yyenvs.training.selfplay import PendingGames
    pg = PendingGames(2, (1,), 3, 3, max_length=10)
    zero = np.zeros((1, 3))
    searched = ([0.5, 0, -0.5], [0, 0.25, 0], [-1, 1, 0])  # the search's values, absolute seats

    def play():
        for (mover, before), q in zip(((0, [0, 0, 0]), (2, [1.0, 0, 0]), (1, [1.0, 0, -0.5])), searched):
            pg.record(np.array([1]), np.zeros((1, 1)), np.ones((1, 3), bool), np.full((1, 3), 1 / 3),
                      np.array([mover]), np.array([before]) + zero, np.array([q]) + zero, np.array([0]))
    play()
    obs, mask, policy, value = pg.finish(1, np.array([2.0, -1.0, -0.5]))
    # returns from each position on, seat by seat: [2, -1, -.5], [1, -1, -.5], [1, -1, 0]; rotated to the mover
    outcome = np.array([[2, -1, -0.5], [-0.5, 1, -1], [-1, 0, 1]])
    np.testing.assert_allclose(value, outcome)
    assert pg.length[1] == 0 and obs.shape == (3, 1)
    # az.q_weight w: (1 - w) x the return + w x the search's value, both from the mover's seat
    play()
    mixed = pg.finish(1, np.array([2.0, -1.0, -0.5]), q_weight=0.25)[3]
    q_from_mover = np.array([[0.5, 0, -0.5], [0, 0, 0.25], [1, 0, -1]])
    np.testing.assert_allclose(mixed, 0.75 * outcome + 0.25 * q_from_mover)


def test_value_targets_are_discounted_per_step_to_the_games_end():
    from yyenvs.training.selfplay import PendingGames
    pg = PendingGames(1, (1,), 3, 2, max_length=10)
    for mover, step in ((0, 0), (1, 1), (1, 3)):  # step 2 was not recorded (a forced move, say)
        pg.record(np.array([0]), np.zeros((1, 1)), np.ones((1, 3), bool), np.full((1, 3), 1 / 3),
                  np.array([mover]), np.zeros((1, 2)), np.zeros((1, 2)), np.array([step]))
    value = pg.finish(0, np.array([1.0, -1.0]), steps=5, discount=0.9)[3]
    # seat 0 wins with the fifth step: 4, 3 and 1 steps after the positions' own
    np.testing.assert_allclose(value[:, 0], [0.9 ** 4, -0.9 ** 3, -0.9 ** 1], rtol=1e-6)
    np.testing.assert_allclose(value[:, 1], -value[:, 0])


def test_trainer_with_a_discount_records_it_for_its_agents(tmp_path):
    """az.discount: discounted targets, the network's description keeps it, its agents search with it."""
    from yyenvs.training.az import AZTrainer
    from yyenvs.networks.checkpoint import CheckpointError, read_checkpoint, write_checkpoint
    t = AZTrainer(tiny_config(tmp_path / "run", **{"az.discount": 0.9}), log=lambda m: None)
    try:
        t.train()
        v = np.abs(t.replay.value[:t.replay.size, 0])
        assert t.replay.size > 0 and v.max() <= 1.0 and (v < 0.9 ** 2).any()
        k = np.log(v[v > 0]) / np.log(0.9)  # each target is +-0.9 to a whole number of steps
        np.testing.assert_allclose(k, np.round(k), atol=1e-3)
        assert t.search.settings.discount == 0.9
    finally:
        t.close()
    core = t.core
    final = str(tmp_path / "run" / "final.safetensors")
    meta, tensors = read_checkpoint(final, core)
    assert meta["policy"]["discount"] == 0.9
    assert make_agent(f"az:{final}:3", core).search.settings.discount == 0.9
    assert make_agent(f"az:{final}:3:discount=1", core).search.settings.discount == 1.0
    meta.pop("path", None)
    meta.pop("tensors_sha256", None)
    meta.pop("format", None)
    for bad in (1.5, None, "0.9", True):
        with pytest.raises(CheckpointError, match="discount"):
            write_checkpoint(tmp_path / "bad", tensors, {**meta, "policy": {**meta["policy"], "discount": bad}})
            make_agent(f"az:{tmp_path / 'bad.safetensors'}:3", core)


def test_cosine_learning_rate_schedule(tmp_path):
    """az.lr_schedule=cosine: from learning_rate down to lr_final x it over the run's budget."""
    from yyenvs.training.az import AZTrainer, cosine_rate
    assert cosine_rate(1e-3, 0.1, 0.0) == pytest.approx(1e-3)
    assert cosine_rate(1e-3, 0.1, 0.5) == pytest.approx(0.55e-3)
    assert cosine_rate(1e-3, 0.1, 1.0) == pytest.approx(1e-4) == cosine_rate(1e-3, 0.1, 3.0)
    rates = []
    t = AZTrainer(tiny_config(tmp_path / "run", **{"az.lr_schedule": "cosine", "az.lr_final": 0.2}),
                  log=lambda m: None)
    try:
        step = t.train_step
        t.train_step = lambda: (rates.append(t.opt.param_groups[0]["lr"]), step())[1]
        t.train()
        lr = t.az["learning_rate"]
        # training starts once games have finished; by the last of the run's moves the rate is near the end's
        assert rates and rates[0] <= lr and 0.2 * lr <= min(rates) < 0.3 * lr
        assert all(a >= b for a, b in zip(rates, rates[1:])) and rates[0] > rates[-1]  # only ever down
    finally:
        t.close()


def test_trainer_mixes_the_searchs_values_into_its_targets(tmp_path):
    """az.q_weight: the value targets are no longer results only, and stay in the reward range."""
    from yyenvs.training.az import AZTrainer
    t = AZTrainer(tiny_config(tmp_path / "run", **{"az.q_weight": 0.5}), log=lambda m: None)
    try:
        t.train()
        v = t.replay.value[:t.replay.size]
        assert t.replay.size > 0 and np.abs(v).max() <= 1.0
        assert not np.isin(v[:, 0], [-1.0, 0.0, 1.0]).all()
    finally:
        t.close()


def test_trainer_resumes_and_its_network_plays(tmp_path):
    from yyenvs.training.az import AZTrainer
    t = AZTrainer(tiny_config(tmp_path / "run"), log=lambda m: None)
    try:
        info = t.train()
        result = t.final_evaluation(print_fn=lambda *a: None)
        assert result is not None and any(r["player"] == "final" for r in result["table"])
    finally:
        t.close()
    t2 = AZTrainer(tiny_config(tmp_path / "run", total_timesteps=800), log=lambda m: None)
    try:  # the step count goes on from the checkpoint
        assert t2.num_timesteps == info["steps"] and t2.resumed_from is not None
        assert t2.n_updates == t.n_updates
        assert t2.train()["steps"] >= 800
    finally:
        t2.close()
    core = make_core("koi", board_size=7, directions=4)
    final = str(tmp_path / "run" / "final.safetensors")
    for spec in (f"az:{final}:3", f"az:{final}", final):
        agent = make_agent(spec, core, seed=0)
        assert isinstance(agent, AZAgent)
        state = core.init(np.arange(3))
        mask = core.legal_action_mask(state)
        assert mask[np.arange(3), agent.act(state, mask)].all()
    assert make_agent(f"az:{final}:3", core).simulations == 3
    assert make_agent(final, core).simulations is None
    # export keeps the whole network (the search needs its values), in float16
    from yyenvs.commands.checkpoint import export, info
    assert "policy-value network" in info(final)
    export(final, str(tmp_path / "small"))
    small = make_agent(f"az:{tmp_path / 'small.safetensors'}:3", core)
    state = core.init(np.arange(3))
    mask = core.legal_action_mask(state)
    assert mask[np.arange(3), small.act(state, mask)].all()
    with pytest.raises(OptionError, match="other options"):
        make_agent(f"az:{final}:3", make_core("koi", board_size=9))


def test_sampled_opening_moves_follow_the_improved_policy():
    """az.sample_plies: moves drawn from the policy target, legal, reproducible, spread by its weights."""
    from yyenvs.training.selfplay import sample_policy
    policy = np.zeros((4000, 5))
    policy[:, 1], policy[:, 3] = 0.25, 0.75
    seeds = np.arange(4000, dtype=np.uint64)
    picks = sample_policy(policy, seeds, np.zeros(4000, np.int64))
    assert set(np.unique(picks)) == {1, 3} and abs((picks == 3).mean() - 0.75) < 0.03
    again = sample_policy(policy[:7], seeds[:7], np.zeros(7, np.int64))
    np.testing.assert_array_equal(again, picks[:7])  # the same draw at any batch size
    other_ply = sample_policy(policy, seeds, np.ones(4000, np.int64))
    assert (other_ply != picks).any()


def test_trainer_with_sampled_openings_records_valid_targets(tmp_path, monkeypatch):
    import yyenvs.training.az as az
    import yyenvs.training.selfplay as selfplay
    plies = []

    def counting(policy, seeds, ply):
        plies.extend(ply.tolist())
        return sample(policy, seeds, ply)
    sample = selfplay.sample_policy
    monkeypatch.setattr(selfplay, "sample_policy", counting)
    t = az.AZTrainer(tiny_config(tmp_path / "run", **{"az.sample_plies": 6}), log=lambda m: None)
    try:
        t.train()
        n = t.replay.size
        assert n > 0 and not t.replay.policy[:n][~t.replay.mask[:n]].any()
        assert plies and max(plies) < 6  # the opening moves only, and they were sampled
    finally:
        t.close()


def test_score_margins_rank_lost_games_and_blend_into_value_targets(tmp_path):
    """az.score_weight: a close loss gets a higher target than a heavy one; targets stay in [-1, 1]."""
    import yyenvs.training.az as az
    from yyenvs.games import make_core
    core = make_core("koi")
    st = core.init(np.zeros(3, np.uint64))
    st.fry[:] = [[14, 13], [14, 2], [5, 14]]
    from yyenvs.training.selfplay import score_margins
    m = score_margins(core, st)
    np.testing.assert_allclose(m, [[1 / 27, -1 / 27], [12 / 16, -12 / 16], [-9 / 19, 9 / 19]])
    t = az.AZTrainer(tiny_config(tmp_path / "run", **{"az.score_weight": 0.5}), log=lambda m: None)
    try:
        t.train()
        v = t.replay.value[:t.replay.size]
        assert t.replay.size > 0 and np.abs(v).max() <= 1.0
        assert not np.isin(np.abs(v[:, 0]), [0.0, 1.0]).all()  # graded, not only the outcome
    finally:
        t.close()
    with pytest.raises(ConfigError, match="no scores to compare"):
        az.AZTrainer(tiny_config(tmp_path / "solo", "yinyang", game_options={"num_players": 1},
                                 **{"az.score_weight": 0.5}), log=lambda m: None)



def test_trainer_reports_its_search_speed(tmp_path):
    """The progress line's search figures: simulations per second since it last showed them, and the
    shares of the search's time in the network, the core and the tree."""
    import re
    import time

    from yyenvs.training.az import AZTrainer
    t = AZTrainer(tiny_config(tmp_path / "run"), log=lambda m: None)
    try:
        t.train()
        stats = t.source.stats()
        assert stats["simulations"] > 0 and stats["simulations"] % 4 == 0  # az.simulations per root
        assert 0 < stats["network"] + stats["core"] + stats["tree"] <= stats["seconds"]

        class Bar:  # where the trainer keeps what it showed last
            pass
        bar = Bar()
        assert t._search_speed(bar) == []  # nothing to compare with yet
        t.source.next()  # one more move of every game
        time.sleep(0.01)
        after = t.source.stats()
        (line,) = t._search_speed(bar)
        m = re.fullmatch(r"([\d.]+)k sims/s: net (\d+)% core (\d+)% tree (\d+)%", line)
        assert m, line
        assert 0 < float(m.group(1)) * 1000 <= (after["simulations"] - stats["simulations"]) / 0.01
        assert sum(int(g) for g in m.groups()[1:]) <= 101
    finally:
        t.close()
