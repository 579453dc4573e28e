"""Threads chosen on purpose: one setting reaches numba and torch in every entry point, Ray workers take
the CPUs Ray gave them, and idle OpenMP threads sleep (yyenvs.core.threads)."""
import os
import subprocess
import sys

import numba
import pytest

from yyenvs.core import threads


def test_importing_yyenvs_makes_idle_threads_sleep_unless_the_user_chose():
    code = "import os, yyenvs; print(os.environ.get('OMP_WAIT_POLICY'))"
    for given, seen in ((None, "PASSIVE"), ("ACTIVE", "ACTIVE"), ("", "None")):
        env = {k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"}
        if given is not None:
            env["OMP_WAIT_POLICY"] = given
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
        assert out.stdout.split()[-1] == seen


def test_the_default_is_the_environment_setting_else_the_cores(monkeypatch):
    monkeypatch.setenv("YYENVS_THREADS", "3")
    assert threads.default_threads() == 3
    monkeypatch.delenv("YYENVS_THREADS")
    assert threads.default_threads() == threads.cores_available() == len(os.sched_getaffinity(0))
    for bad in ("0", "-1", "two", "1.5", "1025"):
        monkeypatch.setenv("YYENVS_THREADS", bad)
        with pytest.raises(ValueError, match="YYENVS_THREADS: expected a thread count from 1 to 1024"):
            threads.default_threads()
    with pytest.raises(ValueError, match="torch_threads: expected"):
        threads.set_threads(1, 0)


class Recorder:
    """Records the thread counts given to numba and torch."""

    def __init__(self, monkeypatch):
        import torch
        self.numba, self.torch = [], []
        monkeypatch.setattr(numba, "set_num_threads", self.numba.append)
        monkeypatch.setattr(torch, "set_num_threads", self.torch.append)


def _run(tmp_path, argv):
    from yyenvs.commands.cli import main
    assert main(argv) == 0


ENTRY_POINTS = {  # command line, torch's threads given --threads 3
    "eval": (["eval", "--game", "koi", "greedy", "random", "--games", "2"], 1),
    "play": (["play", "--game", "koi", "--agents", "greedy", "random", "--games", "2"], 1),
    "replay": (["replay", "--game", "koi", "--agents", "greedy", "random", "-o", "{tmp}/game.html"], 1),
    "bench": (["bench", "--games", "koi", "--batches", "1", "--seconds", "0.01", "--repeats", "1"], 3),
    "train": (["train", "--config", "configs/quick.yaml", "total_timesteps=64", "num_envs=8", "ppo.n_steps=8",
               "ppo.batch_size=16", "ppo.n_epochs=1", "ppo.net_arch=[8]", "eval.every=0", "eval.final_games=0",
               "eval.table_games=0", "log.progress=false", "log.tensorboard=false", "run_dir={tmp}/run"], 3),
}


@pytest.mark.parametrize("command", list(ENTRY_POINTS))
def test_every_command_sets_numba_and_torch_from_its_threads_flag(command, tmp_path, monkeypatch, capsys):
    """--threads 3 (bench, whose --threads lists counts to compare: YYENVS_THREADS=3) reaches numba and torch."""
    argv, torch_threads = ENTRY_POINTS[command]
    seen = Recorder(monkeypatch)
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    if command == "bench":
        monkeypatch.setenv("YYENVS_THREADS", "3")
        _run(tmp_path, argv)
    else:
        _run(tmp_path, argv + ["--threads", "3"])
    assert seen.numba[:1] == [min(3, numba.config.NUMBA_NUM_THREADS)]
    assert seen.torch[:1] == [torch_threads] or (command == "bench" and seen.torch == [])
    assert threads._chosen == {"threads": min(3, numba.config.NUMBA_NUM_THREADS),
                               "torch": 1 if torch_threads == 1 else 3}
    if command != "bench":
        with pytest.raises(SystemExit):
            _run(tmp_path, argv + ["--threads", "0"])
        assert "--threads: expected a thread count from 1 to 1024, got '0'" in capsys.readouterr().err


def test_a_training_config_sets_the_threads(tmp_path, monkeypatch):
    from yyenvs.training.config import ConfigError, load_config
    from yyenvs.training.train import Trainer
    seen = Recorder(monkeypatch)
    cfg = load_config("configs/quick.yaml", [("threads", 2), ("run_dir", str(tmp_path / "run")),
                                             ("log.tensorboard", False)])
    Trainer(cfg).close()
    assert seen.torch == [2] and seen.numba == [min(2, numba.config.NUMBA_NUM_THREADS)]
    with pytest.raises(ConfigError, match="'torch_threads' is now threads"):
        load_config(None, ["torch_threads=2"])


def test_the_networks_take_the_chosen_threads_when_they_import_torch():
    """A match that loads a network after choosing (torch not imported then) still runs it on one thread."""
    code = ("import yyenvs, sys; from yyenvs.core.threads import set_threads; set_threads(2, 1); "
            "assert 'torch' not in sys.modules; import yyenvs.networks.search_network, torch; "
            "print(torch.get_num_threads())")
    env = dict(os.environ, NUMBA_NUM_THREADS="2")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.split()[-1] == "1"


def _threads_in_a_ray_worker():
    from yyenvs.core.threads import set_threads
    return set_threads()


def test_ray_workers_divide_the_machine_between_them():
    """Each worker takes the CPUs Ray assigned it, not every core (nor YYENVS_THREADS of the driver)."""
    ray = pytest.importorskip("ray")
    ray.init(num_cpus=4, include_dashboard=False, log_to_driver=False,
             runtime_env={"env_vars": {"NUMBA_NUM_THREADS": "4", "YYENVS_THREADS": "4"}})
    try:
        one = ray.remote(num_cpus=1)(_threads_in_a_ray_worker)
        two = ray.remote(num_cpus=2)(_threads_in_a_ray_worker)
        assert ray.get(one.remote()) == {"threads": 1, "torch": 1}
        assert ray.get(two.remote()) == {"threads": 2, "torch": 2}
        assert threads.set_threads(torch_threads=1)["torch"] == 1
        from yyenvs.evaluation.cluster import _pair_task
        pair = ray.remote(num_cpus=1)(lambda: (_pair_task("koi", {}, ["greedy", "random"], 0, True, 0, 1, 2),
                                               numba.get_num_threads())[1])
        assert ray.get(pair.remote()) == 1
    finally:
        ray.shutdown()
    assert threads.fit_ray_worker() is None  # the driver's threads are its own


def test_the_search_trainer_runs_torch_on_one_thread(tmp_path, monkeypatch):
    from tests.training.test_az_trainer import tiny_config
    from yyenvs.training.az import AZTrainer
    seen = Recorder(monkeypatch)
    AZTrainer(tiny_config(tmp_path / "run", threads=3), log=lambda m: None).close()
    assert set(seen.torch) == {1} and seen.numba == [min(3, numba.config.NUMBA_NUM_THREADS)]
