"""Checkpoints: the safetensors format, refusals naming the field, no code run by any loader, faults."""
from __future__ import annotations

import base64
import json
import os
import pickle
import subprocess
import sys
import zipfile

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests import ROOT

torch = pytest.importorskip("torch")

from yyenvs.networks.checkpoint import (  # noqa: E402
    CheckpointError, CorruptCheckpointError, game_metadata, policy_tensors, read_checkpoint, read_metadata,
    write_checkpoint)
from yyenvs.agents.ppo import load_policy_agent  # noqa: E402
from yyenvs.games import GAMES, make_core  # noqa: E402

GAME_IDS = list(GAMES)
SPEC = {"class": "FastMaskablePolicy", "net_arch": [8], "activation": "relu", "cnn_channels": [],
        "action_features": 0, "value_net": True}


def exit_code(argv) -> int:
    """The status of ``yyenvs ARGV`` run in this process (argparse errors exit by SystemExit)."""
    from yyenvs.commands.cli import main
    try:
        return main(argv)
    except SystemExit as e:
        return e.code


def tiny_checkpoint(core, path, kind="final", **extra):
    from yyenvs.networks.ppo_network import make_policy
    policy = make_policy(core, SPEC)
    meta = {"kind": kind, **game_metadata(core), "policy": SPEC, "num_timesteps": 7, **extra}
    write_checkpoint(path, policy_tensors(policy), meta)
    return policy


def rewrite_metadata(path, change):
    """Rewrite a checkpoint's JSON (keeping its tensors and their checksum)."""
    from safetensors import safe_open
    from safetensors.torch import load_file, save_file
    with safe_open(str(path), "pt") as f:
        meta = json.loads(f.metadata()["yyenvs"])
    change(meta)
    save_file(load_file(str(path)), str(path), metadata={"yyenvs": json.dumps(meta)})


@pytest.mark.parametrize("game", GAME_IDS)
def test_round_trip_and_refusals(game, tmp_path):
    core = make_core(game)
    path = tmp_path / "ck.safetensors"
    policy = tiny_checkpoint(core, path)
    agent = load_policy_agent(path, core, 0)
    for (name, p), (_, q) in zip(policy.named_parameters(), agent.policy.named_parameters()):
        assert torch.equal(p, q), name
    state = core.init(np.arange(3))
    mask = core.legal_action_mask(state)
    assert mask[np.arange(3), agent(state, mask)].all()
    assert agent.metadata["num_timesteps"] == 7 and agent.name == "ck"

    other = [g for g in GAME_IDS if g != game]
    with pytest.raises(CheckpointError, match=f"trained on game '{game}'"):
        load_policy_agent(path, make_core(other[0]), 0)
    good = path.read_bytes()
    assert agent.metadata["game_version"] == core.spec.version
    rewrite_metadata(path, lambda m: m.update(game_version=core.spec.version + 1))
    with pytest.raises(CheckpointError, match=f"version {core.spec.version + 1}; this package has version "
                                              f"{core.spec.version}"):
        load_policy_agent(path, core, 0)
    path.write_bytes(good)
    rewrite_metadata(path, lambda m: m["options"].update(made_up_option=3))
    with pytest.raises(CheckpointError, match="other options.*made_up_option"):
        load_policy_agent(path, core, 0)
    path.write_bytes(good)
    # one byte of a tensor changed: the checksum catches it
    raw = bytearray(good)
    raw[-3] ^= 0xFF
    path.write_bytes(bytes(raw))
    with pytest.raises(CorruptCheckpointError, match="SHA-256"):
        load_policy_agent(path, core, 0)
    for cut in (3, 100, len(good) - 10):
        path.write_bytes(good[:cut])
        with pytest.raises(CorruptCheckpointError):
            load_policy_agent(path, core, 0)


@pytest.mark.parametrize("change, field", [
    (lambda m: m.update(options="x"), "options"),
    (lambda m: m.update(options=None), "options"),
    (lambda m: m.update(options={"a": [1]}), "options.a"),
    (lambda m: m.update(num_actions="abc"), "num_actions"),
    (lambda m: m.update(num_actions=True), "num_actions"),
    (lambda m: m.update(num_timesteps=-1), "num_timesteps"),
    (lambda m: m.update(observation_shape=[]), "observation_shape"),
    (lambda m: m.update(kind="pickle"), "kind"),
    (lambda m: m.update(format="yyenvs-checkpoint-1"), "format"),
    (lambda m: m.update(num_timestep=3), "num_timestep"),
    (lambda m: m.update(elapsed_s=float("nan")), "elapsed_s"),
    (lambda m: m.update(elapsed_s=-10**400), "elapsed_s"),
    (lambda m: m.update(elapsed_s=10**400), "elapsed_s"),
    (lambda m: m.update(elapsed_s=float("inf")), "elapsed_s"),
    (lambda m: m.update(num_timesteps=10**400), "num_timesteps"),
    (lambda m: m["policy"].update({"class": "os.system"}), "policy.class"),
    (lambda m: m["policy"].update(net_arch=[8, -1]), "policy.net_arch"),
    (lambda m: m["policy"].update(net_arch=[10**9]), "policy.net_arch"),
    (lambda m: m["policy"].update(activation="eval"), "policy.activation"),
    (lambda m: m.update(policy=None), "policy"),
    (lambda m: m.update(pool={"entries": [{"name": "s", "kind": "snapshot", "step": 1, "path": "../evil.zip",
                                           "active": True, "games": 0, "results": []}],
                              "rng": {}}), "pool.entries[0].path"),
    (lambda m: m.update(pool={"entries": [], "rng": {"bit_generator": "MT19937"}}), "pool.rng.bit_generator"),
    (lambda m: m.update(config=[1]), "config"),
    (lambda m: m["policy"].update(evil=1), "policy.evil"),
    (lambda m: m.update(pool={"entries": [{"name": "s", "kind": "snapshot", "step": None,
                                           "path": "step_0000000001.safetensors", "active": True, "games": 0,
                                           "results": []}], "rng": {}}), "pool.entries[0].step"),
    (lambda m: m.update(pool={"entries": [], "rng": {}, "evil": 1}), "pool.evil"),
    (lambda m: m.update(tensors_sha256="0" * 63), "tensors_sha256"),
])
def test_metadata_fields_are_checked(tmp_path, change, field):
    core = make_core("yoxii")
    path = tmp_path / "ck.safetensors"
    tiny_checkpoint(core, path)
    rewrite_metadata(path, change)
    with pytest.raises(CheckpointError, match=f"field '{field}'".replace("[", r"\[").replace("]", r"\]")):
        read_metadata(path, core)


def test_hostile_metadata_and_files(tmp_path):
    core = make_core("yoxii")
    path = tmp_path / "ck.safetensors"
    tiny_checkpoint(core, path)
    from safetensors.torch import load_file, save_file
    tensors = load_file(str(path))
    save_file(tensors, str(path), metadata={"yyenvs": "[" * 100_000 + "]" * 100_000})
    with pytest.raises(CorruptCheckpointError, match="not valid JSON"):
        read_metadata(path)
    save_file(tensors, str(path), metadata={"yyenvs": '{"kind": "final", "kind": "policy"}'})
    with pytest.raises(CorruptCheckpointError, match="duplicate key 'kind'"):
        read_metadata(path)
    save_file(tensors, str(path), metadata={"other": "{}"})
    with pytest.raises(CheckpointError, match="without yyenvs metadata"):
        read_metadata(path)
    # a tensor with the wrong shape (checksum updated to match): refused by name, nothing copied
    tensors["policy/action_net.weight"] = torch.zeros(8, core.num_actions)  # transposed
    tiny_meta = {"kind": "final", **game_metadata(core), "policy": SPEC, "num_timesteps": 0}
    write_checkpoint(path, tensors, tiny_meta)
    with pytest.raises(CheckpointError, match="action_net.weight.*shape"):
        load_policy_agent(path, core)
    tensors["policy/action_net.weight"] = torch.full((core.num_actions, 8), float("nan"))
    write_checkpoint(path, tensors, tiny_meta)
    with pytest.raises(CheckpointError, match="NaN"):
        load_policy_agent(path, core)
    tensors["policy/evil"] = torch.zeros(1)
    write_checkpoint(path, tensors, tiny_meta)
    with pytest.raises(CheckpointError, match="unexpected policy tensor 'evil'"):
        load_policy_agent(path, core)
    for name, data in [("torch.safetensors", None), ("random.safetensors", os.urandom(4096)),
                       ("empty.safetensors", b"")]:
        p = tmp_path / name
        if data is None:
            torch.save({"x": torch.zeros(2)}, p)  # a pickle-based torch file under the wrong name
        else:
            p.write_bytes(data)
        with pytest.raises(CheckpointError):
            read_metadata(p)
    with pytest.raises(CheckpointError, match="not a regular file"):
        read_metadata("/dev/zero")
    with pytest.raises(CheckpointError, match="not a regular file"):
        read_metadata(tmp_path)
    with pytest.raises(CheckpointError, match="does not exist"):
        read_metadata(tmp_path / "nothing.safetensors")


# --- a crafted stable-baselines3 zip whose loading runs code ---------------------------------------
class _Payload:
    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (exec, (f"open({self.marker!r}, 'w').write('ran')",))


def crafted_zip(tmp_path, core, name="evil"):
    """An old-format checkpoint (zip + JSON with the right SHA-256) whose unpickling writes a marker file."""
    from sb3_contrib import MaskablePPO
    from yyenvs.networks.ppo_network import FastMaskablePolicy
    from yyenvs.training.pool import OpponentPool, PoolSettings
    from yyenvs.integrations.sb3 import LearnerVecEnv
    env = LearnerVecEnv(core, 2, OpponentPool(core, 2, None, PoolSettings(("random",))))
    model = MaskablePPO(FastMaskablePolicy, env, n_steps=4, batch_size=4, policy_kwargs={"net_arch": [8]},
                        device="cpu")
    zpath = tmp_path / f"{name}.zip"
    model.save(str(zpath))
    marker = tmp_path / f"{name}.ran"
    with zipfile.ZipFile(zpath) as z:
        files = {n: z.read(n) for n in z.namelist()}
    data = json.loads(files["data"])
    data["observation_space"][":serialized:"] = base64.b64encode(pickle.dumps(_Payload(str(marker)))).decode()
    files["data"] = json.dumps(data).encode()
    with zipfile.ZipFile(zpath, "w") as z:
        for n, b in files.items():
            z.writestr(n, b)
    import hashlib
    meta = {"format": "yyenvs-checkpoint-1", "game": core.name, "options": core.options,
            "observation_shape": list(core.observation_shape), "num_actions": core.num_actions,
            "num_players": core.num_players, "zip_sha256": hashlib.sha256(zpath.read_bytes()).hexdigest(),
            "num_timesteps": 0, "kind": "final"}
    (tmp_path / f"{name}.json").write_text(json.dumps(meta))
    return zpath, marker


def test_no_loader_runs_code_from_a_crafted_checkpoint(tmp_path, monkeypatch, capsys):
    import gymnasium as gym
    from sb3_contrib import MaskablePPO
    import yyenvs  # noqa: F401  (registers the environments)
    from yyenvs.agents import make_agent
    core = make_core("yoxii")
    zpath, marker = crafted_zip(tmp_path, core)
    # the file is hostile: stable-baselines3's own loader runs the payload
    try:
        MaskablePPO.load(str(zpath), device="cpu")
    except Exception:
        pass
    assert marker.exists()
    marker.unlink()

    loaders = {
        "make_agent": lambda p: make_agent(str(p), core),
        "load_policy_agent": lambda p: load_policy_agent(p, core),
        "gym opponent": lambda p: gym.make("yyenvs/Yoxii-v0", opponent=str(p)),
        "vector opponent": lambda p: gym.make_vec("yyenvs/Yoxii-v0", num_envs=2, opponent=str(p),
                                                  vectorization_mode="vector_entry_point"),
    }
    for label, load in loaders.items():
        for p in (zpath, tmp_path / "evil.json"):
            with pytest.raises(CheckpointError, match="earlier stable-baselines3 zip format.*--trust"):
                load(p)
            assert not marker.exists(), label
    # the same zip renamed to the new suffix is recognised by its bytes
    renamed = tmp_path / "renamed.safetensors"
    renamed.write_bytes(zpath.read_bytes())
    with pytest.raises(CheckpointError, match="earlier stable-baselines3 zip format"):
        load_policy_agent(renamed, core)
    # the command line: one line, exit 2
    assert exit_code(["eval", str(zpath), "random", "--games", "2"]) == 2
    err = capsys.readouterr().err
    assert "zip format" in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
    # a run directory holding an old checkpoint is not resumed from it
    from yyenvs.training.config import load_config
    from yyenvs.training.train import Trainer
    run = tmp_path / "run"
    (run / "checkpoints").mkdir(parents=True)
    for suffix in (".zip", ".json"):
        (run / "checkpoints" / f"ckpt_0000000100{suffix}").write_bytes((tmp_path / f"evil{suffix}").read_bytes())
    cfg = load_config(None, [("run_dir", str(run)), ("num_envs", 2), ("log.progress", False)])
    with pytest.raises(CheckpointError, match="earlier stable-baselines3 zip format"):
        Trainer(cfg, log=lambda m: None)
    assert not marker.exists()
    # conversion needs --trust, and then it is the one place that unpickles
    assert exit_code(["checkpoint", "convert", str(zpath)]) == 2
    assert "--trust" in capsys.readouterr().err and not marker.exists()


def test_convert_trusted_old_checkpoint(tmp_path, capsys):
    """A genuine old-format file converts (with --trust) to one that loads with the same weights."""
    from sb3_contrib import MaskablePPO
    core = make_core("koi")
    zpath, marker = crafted_zip(tmp_path, core, "old")
    with zipfile.ZipFile(zpath) as z:  # undo the payload: an honest old checkpoint
        files = {n: z.read(n) for n in z.namelist()}
    data = json.loads(files["data"])
    from gymnasium import spaces
    import cloudpickle
    space = spaces.Box(0.0, 1.0, core.observation_shape, np.float32)
    data["observation_space"][":serialized:"] = base64.b64encode(cloudpickle.dumps(space)).decode()
    files["data"] = json.dumps(data).encode()
    with zipfile.ZipFile(zpath, "w") as z:
        for n, b in files.items():
            z.writestr(n, b)
    side = json.loads((tmp_path / "old.json").read_text())
    import hashlib
    side["zip_sha256"] = hashlib.sha256(zpath.read_bytes()).hexdigest()
    (tmp_path / "old.json").write_text(json.dumps(side))
    assert exit_code(["checkpoint", "convert", "--trust", str(zpath)]) == 0
    assert "unpickling" in capsys.readouterr().err
    agent = load_policy_agent(tmp_path / "old.safetensors", core)
    old = MaskablePPO.load(str(zpath), device="cpu").policy
    for (name, p), (_, q) in zip(old.named_parameters(), agent.policy.named_parameters()):
        assert torch.equal(p, q), name
    assert not marker.exists()


def test_export_is_small_and_plays_the_same(tmp_path, capsys):
    import torch
    from yyenvs.commands.checkpoint import export
    core = make_core("yoxii")
    src = tmp_path / "full.safetensors"
    torch.manual_seed(0)  # the same weights whichever tests ran before in this process
    tiny_checkpoint(core, src)
    full = load_policy_agent(src, core)
    state = core.init(np.arange(64))
    mask = core.legal_action_mask(state)
    for dtype in ("float32", "float16"):
        out = tmp_path / f"policy_{dtype}.safetensors"
        export(src, out, dtype)
        meta, tensors = read_checkpoint(out)
        assert meta["kind"] == "policy" and not meta["policy"]["value_net"]
        assert not any("value_net" in k or k.startswith("optimizer/") for k in tensors)
        assert os.path.getsize(out) < os.path.getsize(src)
        small = load_policy_agent(out, core)
        same = (small(state, mask) == full(state, mask)).mean()
        assert same == 1.0 if dtype == "float32" else same >= 0.9
    assert exit_code(["checkpoint", "info", str(out)]) == 0
    assert "policy of yoxii" in capsys.readouterr().out


# --- faults ------------------------------------------------------------------------------------------
def _cfg(run_dir, **extra):
    from yyenvs.training.config import load_config
    over = [("run_dir", str(run_dir)), ("num_envs", 4), ("ppo.n_steps", 8), ("ppo.batch_size", 32),
            ("ppo.n_epochs", 1), ("ppo.net_arch", [8]), ("total_timesteps", 64), ("threads", 1),
            ("selfplay.snapshot_every", 32), ("checkpoint.every", 32), ("eval.every", 0),
            ("eval.final_games", 0), ("eval.table_games", 0), ("log.progress", False),
            ("log.tensorboard", False)] + list(extra.items())
    return load_config(None, over)


def test_resume_restores_optimizer_and_skips_an_incomplete_checkpoint(tmp_path):
    from yyenvs.training.run import checkpoint_files
    from yyenvs.training.train import Trainer
    run = tmp_path / "run"
    t = Trainer(_cfg(run), log=lambda m: None)
    t.train()
    opt = {k: v.clone() for k, v in t.model.policy.optimizer.state_dict()["state"][0].items()}
    t.close()
    (step_b, newest), (step_a, older) = reversed(checkpoint_files(str(run)))
    assert step_b > step_a
    logs = []
    t2 = Trainer(_cfg(run, total_timesteps=200), log=logs.append)
    assert t2.resumed_from == newest and t2.model.num_timesteps == step_b
    for k, v in t2.model.policy.optimizer.state_dict()["state"][0].items():
        assert torch.equal(v.reshape(opt[k].shape), opt[k]), k
    t2.close()
    # the newest checkpoint cut short (a copy interrupted, a disk error): resume from the one before
    data = open(newest, "rb").read()
    open(newest, "wb").write(data[: len(data) // 2])
    logs.clear()
    t3 = Trainer(_cfg(run, total_timesteps=200), log=logs.append)
    assert t3.resumed_from == older and t3.model.num_timesteps == step_a
    assert any("skipping incomplete or unreadable checkpoint" in m and os.path.basename(newest) in m for m in logs)
    t3.close()


def test_run_directory_lock(tmp_path):
    from yyenvs.training.config import ConfigError
    from yyenvs.training.train import Trainer
    run = tmp_path / "run"
    t = Trainer(_cfg(run), log=lambda m: None)
    with pytest.raises(ConfigError, match="in use by another training run"):
        Trainer(_cfg(run), log=lambda m: None)
    t.close()
    Trainer(_cfg(run), log=lambda m: None).close()
    # a process that died holding the lock: its lock is gone with it
    code = ("import sys, time; sys.path.insert(0, %r); from yyenvs.training.run import RunLock; "
            "lock = RunLock(%r); print('locked', flush=True); time.sleep(60)") % (os.getcwd(), str(run))
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "locked"
        with pytest.raises(ConfigError, match=f"pid {proc.pid}"):
            Trainer(_cfg(run), log=lambda m: None)
    finally:
        proc.kill()
        proc.wait()
    Trainer(_cfg(run), log=lambda m: None).close()


def test_write_error_keeps_earlier_checkpoints(tmp_path, monkeypatch, capsys):
    import errno
    import safetensors.torch
    from yyenvs.training.run import checkpoint_files
    from yyenvs.commands.train import main
    from yyenvs.training.train import Trainer
    run = tmp_path / "run"
    t = Trainer(_cfg(run, total_timesteps=32), log=lambda m: None)
    t.train()
    t.close()
    before = {p: open(p, "rb").read() for _, p in checkpoint_files(str(run))}

    def full_disk(tensors, filename, metadata=None):
        open(filename, "wb").write(b"partial")
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    monkeypatch.setattr(safetensors.torch, "save_file", full_disk)
    rc = main([f"run_dir={run}", "total_timesteps=96", "num_envs=4", "ppo.n_steps=8", "ppo.batch_size=32",
               "ppo.n_epochs=1", "ppo.net_arch=[8]", "threads=1", "selfplay.snapshot_every=32",
               "checkpoint.every=32", "eval.every=0", "eval.final_games=0", "eval.table_games=0",
               "log.progress=false", "log.tensorboard=false"])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and err[-1].startswith("yyenvs train: error: could not write checkpoint")
    assert "No space left on device" in err[-1]
    assert {p: open(p, "rb").read() for _, p in checkpoint_files(str(run))} == before
    assert not [f for d in ("checkpoints", "snapshots") for f in os.listdir(run / d) if ".tmp" in f]


def test_pool_snapshot_replaced_by_a_crafted_file_is_left_out(tmp_path):
    """A snapshot that a training checkpoint names, swapped for a hostile zip: refused, not run."""
    from yyenvs.training.train import Trainer
    run = tmp_path / "run"
    t = Trainer(_cfg(run), log=lambda m: None)
    t.train()
    t.close()
    zpath, marker = crafted_zip(tmp_path, make_core("yoxii"))
    snaps = sorted((run / "snapshots").iterdir())
    snaps[0].write_bytes(zpath.read_bytes())
    logs = []
    t2 = Trainer(_cfg(run, total_timesteps=200), log=logs.append)
    t2.close()
    assert any("leaving out snapshot" in m and snaps[0].name in m and "zip format" in m for m in logs)
    assert not marker.exists()
    assert len(t2.pool.snapshots()) == len(t.pool.snapshots())
    assert sum(s.active for s in t2.pool.snapshots()) == sum(s.active for s in t.pool.snapshots()) - 1


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.just(10**400) | st.floats() | st.text(max_size=8),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children, max_size=4),
    max_leaves=12)
FIELDS = ["format", "kind", "game", "game_version", "options", "observation_shape", "num_actions", "num_players",
          "num_timesteps", "n_updates", "elapsed_s", "tensors_sha256", "policy", "pool", "config", "algo", "dtype",
          "extra"]


@pytest.fixture(scope="module")
def good_checkpoint(tmp_path_factory):
    core = make_core("yoxii")
    path = tmp_path_factory.mktemp("fuzz") / "good.safetensors"
    tiny_checkpoint(core, path)
    return core, path, path.read_bytes()


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(edits=st.lists(st.tuples(st.sampled_from(FIELDS), st.sampled_from(["", "net_arch", "activation", "entries"]),
                                json_values), min_size=1, max_size=3))
def test_fuzzed_metadata_is_refused_by_name_or_loads(good_checkpoint, edits):
    """Any change to the JSON gives a CheckpointError naming a field, or a checkpoint that loads and plays."""
    core, path, good = good_checkpoint
    path.write_bytes(good)

    def change(meta):
        for key, sub, value in edits:
            if sub and isinstance(meta.get(key), dict):
                meta[key][sub] = value
            else:
                meta[key] = value
    rewrite_metadata(path, change)
    try:
        agent = load_policy_agent(path, core)
    except CheckpointError as e:
        assert "field" in str(e) or "trained on" in str(e) or "expects observations" in str(e) \
            or "network" in str(e) or "SHA-256" in str(e) or "version" in str(e), str(e)
        return
    state = core.init(np.arange(2))
    mask = core.legal_action_mask(state)
    assert mask[np.arange(2), agent(state, mask)].all()


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_fuzzed_bytes_are_refused(good_checkpoint, data):
    """Truncated, overwritten or extended files: a CheckpointError, never another exception."""
    core, path, good = good_checkpoint
    raw = bytearray(good)
    how = data.draw(st.sampled_from(["cut", "flip", "append", "header"]))
    if how == "cut":
        raw = raw[:data.draw(st.integers(0, len(raw) - 1))]
    elif how == "flip":
        for i in data.draw(st.lists(st.integers(0, len(raw) - 1), min_size=1, max_size=8)):
            raw[i] ^= data.draw(st.integers(1, 255))
    elif how == "append":
        raw += data.draw(st.binary(min_size=1, max_size=64))
    else:
        raw[:8] = data.draw(st.integers(0, 2**64 - 1)).to_bytes(8, "little")
    path.write_bytes(bytes(raw))
    try:
        load_policy_agent(path, core)
    except CheckpointError:
        return
    # a change the format cannot see (e.g. JSON whitespace) must leave the same network
    assert how in ("flip", "append")


def test_descriptions_and_tensors_that_do_not_fit_are_refused(tmp_path):
    core = make_core("yoxii")
    path = tmp_path / "ck.safetensors"
    policy = tiny_checkpoint(core, path)
    tensors = policy_tensors(policy)
    meta = {"kind": "final", **game_metadata(core), "num_timesteps": 0}
    # a 100 kB file describing a network of billions of weights: refused before anything is built
    for bomb in ({**SPEC, "net_arch": [65536, 65536]}, {**SPEC, "cnn_channels": [4096] * 16}):
        write_checkpoint(path, tensors, {**meta, "policy": bomb})
        with pytest.raises(CheckpointError, match="needs at least"):
            load_policy_agent(path, core)
    # finite in float64, infinite in the network's float32
    big = dict(tensors, **{"policy/action_net.bias": torch.full((core.num_actions,), 1e300, dtype=torch.float64)})
    write_checkpoint(path, big, {**meta, "policy": SPEC})
    with pytest.raises(CheckpointError, match="action_net.bias.*NaN or infinite"):
        load_policy_agent(path, core)
    # tensors outside the two known groups
    write_checkpoint(path, dict(tensors, **{"evil/x": torch.zeros(1)}), {**meta, "policy": SPEC})
    with pytest.raises(CheckpointError, match="unexpected tensor 'evil/x'"):
        read_checkpoint(path)


def test_export_refuses_what_it_cannot_hold_and_bad_destinations(tmp_path, capsys):
    from yyenvs.commands.checkpoint import export
    core = make_core("yoxii")
    src = tmp_path / "ck.safetensors"
    policy = tiny_checkpoint(core, src)
    with torch.no_grad():
        policy.action_net.weight[0, 0] = 70000.0  # beyond float16
    write_checkpoint(src, policy_tensors(policy), {"kind": "final", **game_metadata(core), "policy": SPEC,
                                                  "num_timesteps": 0})
    with pytest.raises(CheckpointError, match="does not fit in float16.*float32"):
        export(src, tmp_path / "out", "float16")
    export(src, tmp_path / "out", "float32")
    assert exit_code(["checkpoint", "export", str(src), str(tmp_path / "missing" / "dir" / "x"), "--dtype", "float32"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("yyenvs checkpoint: error: could not write checkpoint")


def test_file_options_recorded_in_a_checkpoint_are_not_followed(tmp_path, capsys):
    """A checkpoint naming a data file does not make eval open it; the user passes it explicitly."""
    from yyenvs.games.yinyang.data import DEFAULT_DATA_FILE
    yy = make_core("yinyang")
    path = tmp_path / "yy.safetensors"
    tiny_checkpoint(yy, path)
    secret = tmp_path / "secret.json"
    secret.write_text('{"format": "TOP-SECRET"}')
    rewrite_metadata(path, lambda m: m["options"].update(data_file=str(secret)))
    assert exit_code(["eval", str(path), "random", "--games", "2"]) == 2
    err = capsys.readouterr().err
    assert "pass that option yourself" in err and "TOP-SECRET" not in err
    rewrite_metadata(path, lambda m: m["options"].update(data_file=DEFAULT_DATA_FILE))
    assert exit_code(["eval", str(path), "random", "--games", "2", "--option", f"data_file={DEFAULT_DATA_FILE}"]) == 0


def test_resume_skips_a_malformed_newest_checkpoint_and_refuses_a_linked_lock(tmp_path):
    from yyenvs.training.config import ConfigError
    from yyenvs.training.run import checkpoint_files
    from yyenvs.training.train import Trainer
    run = tmp_path / "run"
    t = Trainer(_cfg(run), log=lambda m: None)
    t.train()
    t.close()
    (_, newest), (step_a, older) = reversed(checkpoint_files(str(run)))
    rewrite_metadata(newest, lambda m: m.update(evil=1))
    logs = []
    t2 = Trainer(_cfg(run, total_timesteps=200), log=logs.append)
    t2.close()
    assert t2.resumed_from == older and any("unknown field" in m for m in logs)
    victim = tmp_path / "precious"
    victim.write_text("keep me")
    os.remove(run / ".lock")
    os.symlink(victim, run / ".lock")
    with pytest.raises(ConfigError, match="lock file"):
        Trainer(_cfg(run, total_timesteps=200), log=lambda m: None)
    assert victim.read_text() == "keep me"


def test_loading_a_checkpoint_needs_nothing_from_training(tmp_path):
    """The agents layer rebuilds a network from yyenvs.networks.ppo_network alone: loading a
    checkpoint (and playing it) imports no training module."""
    core = make_core("yoxii")
    path = tmp_path / "ck.safetensors"
    tiny_checkpoint(core, path)
    code = ("import sys, numpy as np; from yyenvs.games import make_core; "
            "from yyenvs.agents import make_agent; core = make_core('yoxii'); "
            f"agent = make_agent({str(path)!r}, core); s = core.init(np.arange(3)); "
            "agent(s, core.legal_action_mask(s)); "
            "bad = sorted(m for m in sys.modules if m.startswith('yyenvs.training')); "
            "assert not bad, bad")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                       cwd=ROOT)
    assert r.returncode == 0, r.stderr[-2000:]


def test_earlier_zip_checkpoints_still_find_their_policy_class():
    """Earlier stable-baselines3 zips name the policy class training.policy.FastMaskablePolicy
    (their unpickling imports it); while ``convert`` loads one, the name leads to the one class,
    and afterwards no module named ``training`` is left behind."""
    import sys

    from yyenvs.networks import ppo_network
    from yyenvs.commands.checkpoint import _earlier_policy_module
    with _earlier_policy_module():
        for name in ("FastMaskablePolicy", "PlanesCNN", "ActionFeatureExtractor"):
            assert pickle.loads(f"ctraining.policy\n{name}\n.".encode()) is getattr(ppo_network, name)
    assert "training" not in sys.modules and "training.policy" not in sys.modules
