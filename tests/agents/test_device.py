"""Where networks run (yyenvs.networks.device): names, ``auto``'s fallback, a GPU refused by name where
torch has none, and the device reaching the evaluator, the ``az:`` spec and the trainer."""
import numpy as np
import pytest
import torch

from yyenvs.agents import make_agent
from yyenvs.agents.az import parse_az_spec
from yyenvs.networks.device import DeviceError, check_device_name, resolve_device
from yyenvs.games import make_core

from tests.agents.test_az_agents import search_checkpoint
from tests.agents.test_mcts import random_positions


def test_names():
    for name in ("auto", "cpu", "cuda", "cuda:0", "cuda:12"):
        assert check_device_name(name) == name
    for bad in ("gpu", "CUDA", "cuda:", "cuda:x", "cuda:-1", "cpu:0", " cpu", "", None, 0, "mps"):
        with pytest.raises(DeviceError, match="device must be auto, cpu, cuda or cuda:<index>"):
            check_device_name(bad)


def test_auto_is_the_gpu_when_torch_sees_one_else_the_cpu(monkeypatch):
    assert resolve_device("cpu") == torch.device("cpu")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert resolve_device("auto") == torch.device("cpu")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    assert resolve_device("auto").type == "cuda"


def test_a_gpu_is_refused_by_name_where_torch_has_none(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    for name in ("cuda", "cuda:0"):
        with pytest.raises(DeviceError, match=f"device '{name}': torch .* here has no GPU"):
            resolve_device(name)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 2)
    assert resolve_device("cuda:1") == torch.device("cuda", 1)
    with pytest.raises(DeviceError, match=r"torch sees 2 GPU\(s\), cuda:0 to cuda:1"):
        resolve_device("cuda:2")


def test_az_spec_names_the_device(tmp_path):
    assert parse_az_spec("az:x:200:device=cpu") == ("x", 200, {"device": "cpu"})
    assert parse_az_spec("az:x:device=cuda:1") == ("x", None, {"device": "cuda:1"})
    assert parse_az_spec("az:x:8:gumbel_scale=0,device=cuda:3") == ("x", 8, {"gumbel_scale": 0.0,
                                                                              "device": "cuda:3"})
    with pytest.raises(DeviceError, match="az agent 'az:x:8:device=gpu': device must be"):
        parse_az_spec("az:x:8:device=gpu")
    core = make_core("koi", board_size=7, directions=4)
    path = search_checkpoint(core, tmp_path)
    state = random_positions(core, np.arange(8), [3] * 8)
    mask = core.legal_action_mask(state)
    by_name = make_agent(f"az:{path}:4:device=cpu", core, 1)
    assert by_name.evaluate.device == torch.device("cpu") and by_name.name == "net:4:device=cpu"
    np.testing.assert_array_equal(by_name.act(state, mask), make_agent(f"az:{path}:4", core, 1).act(state, mask))
    assert make_agent(f"az:{path}:device=cpu", core).search is None  # the network alone
    if not torch.cuda.is_available():
        with pytest.raises(DeviceError, match="has no GPU"):
            make_agent(f"az:{path}:4:device=cuda", core)


def test_the_trainer_runs_where_its_config_says(tmp_path):
    from yyenvs.training.az import AZTrainer
    from yyenvs.training.config import ConfigError

    from tests.training.test_az_trainer import tiny_config
    with pytest.raises(ConfigError, match="config key 'device': device must be"):
        tiny_config(tmp_path / "bad", device="gpu")
    t = AZTrainer(tiny_config(tmp_path / "run", device="cpu"), log=lambda m: None)
    try:
        assert t.device == torch.device("cpu") and t.search.evaluate.device == torch.device("cpu")
        assert next(t.net.parameters()).device == torch.device("cpu")
        assert t.eval_search_options()["device"] == "cpu"
        t.train()
    finally:
        t.close()
    if not torch.cuda.is_available():
        with pytest.raises(DeviceError, match="has no GPU"):
            AZTrainer(tiny_config(tmp_path / "gpu", device="cuda"), log=lambda m: None)
