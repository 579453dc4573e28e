"""Evaluation on Ray (``yyenvs eval --ray``): a local Ray cluster gives the local table."""
from __future__ import annotations

import json
import os

import numpy as np
import pytest

from yyenvs.evaluation.cluster import check_address, portable_spec
from yyenvs.core.contract import OptionError

ray = pytest.importorskip("ray")


def test_ray_evaluation_gives_the_local_table(tmp_path):
    from yyenvs.commands.evaluate import main
    args = ["random", "greedy", "mcts:4", "--game", "koi", "-o", "board_size=5", "-o", "directions=4", "-o", "win_fry=14",
            "--games", "6", "--seed", "3"]
    assert main(args + ["--out", str(tmp_path / "local")]) == 0
    try:
        assert main(args + ["--out", str(tmp_path / "ray"), "--ray"]) == 0
    finally:
        ray.shutdown()
    local, remote = (json.loads((tmp_path / d / "eval.json").read_text()) for d in ("local", "ray"))
    assert local["wins"] == remote["wins"] and local["draws"] == remote["draws"]
    assert local["table"] == remote["table"]
    assert [e["rating"] for e in local["entrants"]] == [e["rating"] for e in remote["entrants"]]
    assert sum(map(sum, local["wins"])) + sum(map(sum, local["draws"])) / 2 == 3 * 6  # every game counted


def test_ray_addresses_and_specs():
    for ok in ("", "auto", "10.0.0.2:6379", "ray://head.example:10001"):
        assert check_address(ok) == ok
    for bad in ("random", "host", "http://x:1", "a b:1"):
        with pytest.raises(OptionError, match="not a Ray address"):
            check_address(bad)
    here = os.path.abspath("README.md")
    assert portable_spec("README.md") == here and portable_spec("greedy") == "greedy"
    assert portable_spec("az:README.md:8") == f"az:{here}:8" and portable_spec("az:README.md") == f"az:{here}"
    assert portable_spec("az:README.md:8:gumbel_scale=0") == f"az:{here}:8:gumbel_scale=0"


def test_search_trainer_with_ray_self_play_workers(tmp_path):
    """az.workers: self-play on Ray actors feeds the learner; targets are as in-process, the network learns,
    the weights reach the workers, and a resumed run goes on from the checkpoint."""
    from tests.training.test_az_trainer import tiny_config
    from yyenvs.training.az import AZTrainer
    from yyenvs.training.distributed import RaySelfPlay
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    sent = []
    trained = RaySelfPlay.trained

    threads = []

    def counting(self, trainer):
        if not threads:
            threads.extend(ray.get([w.__ray_call__.remote(lambda w: w.threads) for w in self.workers]))
        before = self.latest
        trained(self, trainer)
        sent.append(self.latest > before)
    RaySelfPlay.trained = counting
    try:
        cfg = tiny_config(tmp_path / "run", **{"az.workers": 2, "az.worker_games": 8, "az.worker_moves": 4,
                                               "az.broadcast_every": 2, "selfplay.baseline_share": 0.25})
        t = AZTrainer(cfg, log=lambda m: None)
        try:
            info = t.train()
            assert info["steps"] >= 400 and t.games_finished > 0 and t.n_updates > 0
            n = t.replay.size
            np.testing.assert_allclose(t.replay.policy[:n].astype(np.float64).sum(axis=1), 1.0, atol=2e-3)
            assert not t.replay.policy[:n][~t.replay.mask[:n]].any()
            assert set(np.unique(t.replay.value[:n])) <= {-1.0, 0.0, 1.0}
            assert any(sent) and max(t.source.version) > 0  # new weights went out and reached workers
            stats = t.source.stats()  # the workers' searches, summed (for the progress line)
            assert stats["simulations"] >= 400 // 2 and 0 < stats["tree"] < stats["seconds"]
            assert threads == [{"threads": 1, "torch": 1}] * 2  # each worker: the one CPU Ray gave it
        finally:
            t.close()
        t2 = AZTrainer(tiny_config(tmp_path / "run", total_timesteps=800, **{"az.workers": 1, "az.worker_games": 8}),
                       log=lambda m: None)
        try:
            assert t2.num_timesteps == info["steps"] and t2.train()["steps"] >= 800
        finally:
            t2.close()
    finally:
        RaySelfPlay.trained = trained
        ray.shutdown()


def test_train_refuses_ray_options_it_cannot_use(capsys):
    from yyenvs.commands.train import main
    assert main(["--config", "configs/koi.yaml", "--ray-address", "auto"]) == 2
    assert "--ray-address needs" in capsys.readouterr().err
    assert main(["--config", "configs/az_koi.yaml", "--backend", "rllib"]) == 2
    assert "trains PPO only" in capsys.readouterr().err
