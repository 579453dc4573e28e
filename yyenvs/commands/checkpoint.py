"""``yyenvs checkpoint``: inspect, export and convert checkpoints.

* ``yyenvs checkpoint info FILE`` prints what a checkpoint holds (no tensors are run).
* ``yyenvs checkpoint export FILE OUT [--dtype float16|float32]`` writes a
  policy-only file to share: the actor's weights (no value head, no optimiser
  state, no pool, no config), in half precision by default.
* ``yyenvs checkpoint convert --trust OLD.zip [OUT]`` converts a checkpoint of the
  earlier stable-baselines3 zip format.  Reading that format unpickles Python
  objects, which can run code hidden in the file: only convert files whose
  source you trust.  The new file is loaded without unpickling anything.
"""
from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sys
import types

from yyenvs.networks.checkpoint import ALGOS, SUFFIX, CheckpointError, check_pool_state, checkpoint_path, core_options, game_metadata, optimizer_tensors, policy_tensors, read_metadata, write_checkpoint
from yyenvs.networks.ppo_description import PPO_CLASS
from yyenvs.networks.search_description import PV_CLASS
from yyenvs.agents.ppo import load_policy
from yyenvs.commands.cli import ArgumentParser
from yyenvs.values import one_line
from yyenvs.core.errors import OptionError
from yyenvs.core.files import check_output
from yyenvs.games import make_core

LEGACY_FORMAT = "yyenvs-checkpoint-1"


def info(path) -> str:
    meta = read_metadata(path)
    size = os.path.getsize(meta["path"])
    net = meta["policy"]
    if net["class"] == PV_CLASS:
        described = (f"  policy-value network ({meta.get('algo', ALGOS[1])}): hidden {net['hidden']}, "
                     f"{net['blocks']} residual blocks of {net['channels']} channels")
    else:
        described = (f"  network: hidden {net['net_arch']} {net['activation']}, convolutions {net['cnn_channels']}, "
                     f"{net['action_features']} per-action features, value head {'yes' if net['value_net'] else 'no'}")
    lines = [f"{meta['path']}: {meta['kind']} of {meta['game']} (version {meta['game_version']}), "
             f"{size / 1e6:.2f} MB",
             f"  options: {json.dumps(meta['options'], sort_keys=True)}",
             f"  observation {tuple(meta['observation_shape'])}, {meta['num_actions']} actions, "
             f"{meta['num_players']} players",
             described,
             f"  trained for {meta['num_timesteps']} steps"]
    if meta.get("pool"):
        snaps = [e for e in meta["pool"]["entries"] if e["kind"] == "snapshot"]
        lines.append(f"  self-play pool: {len(meta['pool']['entries'])} entries, {len(snaps)} snapshots")
    return "\n".join(lines)


def export(src, out, dtype: str = "float16", options: dict | None = None) -> dict:
    """Write the policy-only file ``out`` from checkpoint ``src`` (validated as a load is);
    ``out`` may not be ``src``."""
    import torch
    check_output(checkpoint_path(out), [src])
    meta = read_metadata(src)
    core = make_core(meta["game"], **core_options(meta, options))
    if meta["policy"]["class"] == PV_CLASS:  # a search agent needs its value head too: the whole network
        from yyenvs.agents.az import load_network
        net, meta = load_network(src, core)
        keep = policy_tensors(net, dtype=getattr(torch, dtype))
        policy_desc = meta["policy"]
    else:
        policy, meta = load_policy(src, core)
        keep = policy_tensors(policy, value_net=False, dtype=getattr(torch, dtype))
        policy_desc = {**meta["policy"], "value_net": False}
    bad = next((k for k, t in keep.items() if not torch.isfinite(t).all()), None)
    if bad is not None:
        raise CheckpointError(f"{bad!r} does not fit in {dtype} (values beyond its range); "
                              "export with --dtype float32")
    new = {k: meta[k] for k in ("game", "game_version", "options", "observation_shape", "num_actions",
                                "num_players", "num_timesteps")}
    new.update(kind="policy", policy=policy_desc, dtype=dtype)
    if meta.get("algo"):
        new["algo"] = meta["algo"]
    return write_checkpoint(out, keep, new)


def _legacy_metadata(zpath: str) -> dict:
    side = zpath[:-4] + ".json"
    try:
        with open(side, encoding="utf-8") as f:
            meta = json.load(f)
    except (OSError, ValueError, RecursionError) as e:
        raise CheckpointError(f"cannot read {side!r}, the metadata of {zpath!r}: {e}") from None
    if not isinstance(meta, dict) or meta.get("format") != LEGACY_FORMAT:
        raise CheckpointError(f"{side!r} is not {LEGACY_FORMAT} metadata")
    if not isinstance(meta.get("game"), str) or not isinstance(meta.get("options"), dict):
        raise CheckpointError(f"{side!r}: fields 'game' and 'options' must be a string and an object")
    h = hashlib.sha256()
    with open(zpath, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    if h.hexdigest() != meta.get("zip_sha256"):
        raise CheckpointError(f"{zpath!r} does not match the SHA-256 recorded in {side!r}")
    return meta


@contextlib.contextmanager
def _earlier_policy_module():
    """Earlier zips name their policy class ``training.policy.FastMaskablePolicy`` (the module's
    place before it moved into the package): that name leads to the one class while they load."""
    from yyenvs.training import policy
    added = [name for name in ("training", "training.policy") if name not in sys.modules]
    sys.modules.setdefault("training", types.ModuleType("training"))
    sys.modules.setdefault("training.policy", policy)
    try:
        yield
    finally:
        for name in added:
            del sys.modules[name]


def convert(zpath, out=None, log=print, force: bool = False) -> dict:
    """Convert an earlier-format checkpoint (this unpickles ``zpath``: trusted files only).

    ``out`` defaults to ``zpath`` with the checkpoint suffix, which is not replaced
    if it exists unless ``force``."""
    from sb3_contrib import MaskablePPO
    from torch import nn
    zpath = os.fspath(zpath)
    target = check_output(checkpoint_path(out or zpath[:-4]), [zpath, zpath[:-4] + ".json"],
                          named=out is not None, force=force)
    old = _legacy_metadata(zpath)
    core = make_core(old["game"], **old["options"])
    log(f"warning: unpickling {zpath!r} (trusted by --trust)")  # only now: every check above passed
    try:
        with _earlier_policy_module():
            model = MaskablePPO.load(zpath, device="cpu")  # the unpickling step
    except Exception as e:  # not a stable-baselines3 save after all
        raise CheckpointError(f"{zpath!r} could not be read as a MaskablePPO save: "
                              f"{type(e).__name__}: {' '.join(str(e).split())[:200]}") from None
    policy = model.policy
    arch = policy.net_arch["pi"] if isinstance(policy.net_arch, dict) else list(policy.net_arch)
    activation = {nn.ReLU: "relu", nn.Tanh: "tanh"}.get(policy.activation_fn)
    if activation is None:
        raise CheckpointError(f"{zpath!r}: activation {policy.activation_fn!r} is not supported")
    channels = list(policy.features_extractor_kwargs.get("channels", [])) \
        if type(policy.features_extractor).__name__ == "PlanesCNN" else []
    spec = {"class": PPO_CLASS, "net_arch": [int(n) for n in arch], "activation": activation,
            "cnn_channels": [int(c) for c in channels],
            "action_features": int(getattr(policy, "action_features", 0)), "value_net": True}
    kind = old.get("kind", "final")
    tensors = policy_tensors(policy)
    meta = {"kind": kind, **game_metadata(core), "policy": spec, "num_timesteps": int(model.num_timesteps),
            "n_updates": int(getattr(model, "_n_updates", 0)), "algo": "MaskablePPO"}
    if kind == "checkpoint":
        tensors.update(optimizer_tensors(policy.optimizer))
        pool = old.get("pool")
        if isinstance(pool, dict) and isinstance(pool.get("entries"), list):
            for e in pool["entries"]:
                if isinstance(e, dict) and isinstance(e.get("path"), str):
                    e["path"] = os.path.basename(e["path"])[:-4] + SUFFIX
            check_pool_state(pool, f"pool of {zpath!r}")
            meta["pool"] = pool
            log("the pool's snapshots are looked up as converted files next to the new checkpoint's "
                "run (snapshots/step_*.safetensors); convert them too, or they are left out on resume")
        if isinstance(old.get("config"), dict):
            meta["config"] = old["config"]
        if isinstance(old.get("elapsed_s"), (int, float)):
            meta["elapsed_s"] = float(old["elapsed_s"])
    return write_checkpoint(target, tensors, meta)


def main(argv=None) -> int:
    p = ArgumentParser(prog="yyenvs checkpoint", description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="command", required=True)
    a = sub.add_parser("info", help="print what a checkpoint holds")
    a.add_argument("path")
    e = sub.add_parser("export", help="write a policy-only file to share")
    e.add_argument("path")
    e.add_argument("out")
    e.add_argument("--dtype", choices=("float16", "float32"), default="float16")
    c = sub.add_parser("convert", help="convert an earlier-format .zip checkpoint (unpickles it)")
    c.add_argument("path")
    c.add_argument("out", nargs="?", default=None)
    c.add_argument("--trust", action="store_true",
                   help="confirm that you trust the file: reading the earlier format can run code in it")
    c.add_argument("--force", action="store_true", help="replace the default output (OLD with "
                   f"{SUFFIX}) if it exists")
    args = p.parse_args(argv)
    try:
        if args.command == "info":
            print(info(args.path))
        elif args.command == "export":
            meta = export(args.path, args.out, args.dtype)
            out = checkpoint_path(args.out)
            kept = "network, no optimiser" if meta["policy"]["class"] == PV_CLASS else "policy only"
            print(f"wrote {out} ({os.path.getsize(out) / 1e6:.2f} MB, {meta['dtype']}, {kept})")
        else:
            if not args.path.endswith(".zip"):
                p.error(f"convert reads an earlier-format .zip checkpoint, got {args.path!r}")
            if not args.trust:
                p.error("converting unpickles the file, which can run code hidden in it; "
                        "add --trust if you trust its source")
            meta = convert(args.path, args.out, log=lambda m: print(m, file=sys.stderr), force=args.force)
            print(f"wrote {checkpoint_path(args.out or args.path[:-4])} ({meta['kind']}, "
                  f"step {meta['num_timesteps']})")
    except (CheckpointError, OptionError) as err:
        print(f"yyenvs checkpoint: error: {one_line(err)}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
