"""Checkpoints: one safetensors file of tensors and a JSON description, loaded without unpickling.

A checkpoint is a single ``NAME.safetensors`` file:

* tensors ``policy/<parameter>`` (the policy network) and, in a training
  checkpoint, ``optimizer/<index>/<step|exp_avg|exp_avg_sq>`` (Adam's state,
  ``index`` being the parameter's position in ``policy.parameters()``);
* the header's metadata holds one entry, ``"yyenvs"``: a JSON object that
  :func:`check_metadata` validates field by field (format, kind, game and
  version, options, observation shape, action count, network description,
  step count, the SHA-256 of the tensors; training checkpoints add the
  self-play pool and the config).

Loading reads the JSON, checks it, rebuilds the network from its description
and copies the tensors in after checking every name, shape and dtype, so a
file can hold numbers and text only: nothing in it is executed.  safetensors
itself never unpickles.  A stable-baselines3 ``.zip`` save (the earlier
format, whose loading unpickles) is refused; ``yyenvs checkpoint convert
--trust`` converts one whose source the user trusts.

Needs torch and safetensors (the ``train`` extra).
"""
from __future__ import annotations

import difflib
import hashlib
import json
import math
import os
import re

import numpy as np

from yyenvs.networks import ppo_description, search_description
from yyenvs.core.contract import GameCore, OptionError, show
from yyenvs.core.errors import require_modules
from yyenvs.core.files import unique_keys
from yyenvs.games import GAMES

FORMAT = "yyenvs-checkpoint-2"
SUFFIX = ".safetensors"
KINDS = ("checkpoint", "snapshot", "final", "policy")
#: limits that keep a hostile file from costing more than a refusal
MAX_FILE_BYTES = 1 << 30
MAX_METADATA_BYTES = 1 << 22
MAX_LAYER_WIDTH = 1 << 16
OPTIMIZER_SLOTS = ("step", "exp_avg", "exp_avg_sq")
METADATA_FIELDS = ("format", "kind", "game", "game_version", "options", "observation_shape", "num_actions",
                   "num_players", "num_timesteps", "n_updates", "elapsed_s", "tensors_sha256", "policy",
                   "pool", "config", "algo", "dtype", "games")
#: each network's class name -> the check of its description's fields, in the network's own module
DESCRIPTION_CHECKS = {ppo_description.PPO_CLASS: ppo_description.check_fields,
                      search_description.PV_CLASS: search_description.check_fields}
#: the trainers a checkpoint may come from
ALGOS = ("MaskablePPO", "GumbelAZ")
#: the most parameters a described network may have (1 GiB of float32)
MAX_PARAMETERS = 1 << 28
SNAPSHOT_RE = re.compile(r"step_\d{10}\.safetensors")
_ZIP_MAGIC = b"PK\x03\x04"


class CheckpointError(OptionError):
    """A checkpoint that cannot be used: missing, corrupt, malformed, or for another game."""


class CorruptCheckpointError(CheckpointError):
    """A checkpoint file that is truncated, altered or not a checkpoint at all."""


def checkpoint_path(path) -> str:
    """``path`` with the checkpoint suffix added when it has none."""
    path = os.fspath(path)
    return path if path.endswith(SUFFIX) else path + SUFFIX


def looks_like_checkpoint(spec) -> bool:
    """Whether an agent spec names a checkpoint file (rather than a baseline such as ``random``)."""
    spec = os.fspath(spec)
    return spec.endswith((SUFFIX, ".zip", ".json")) or os.path.sep in spec or os.path.exists(spec)


# --- the description -------------------------------------------------------------------
def game_metadata(core: GameCore) -> dict:
    """What a checkpoint records about the game it was trained on."""
    return {"game": core.name, "game_version": int(core.spec.version),
            "options": json.loads(json.dumps(core.options, sort_keys=True, default=_json_default)),
            "observation_shape": [int(n) for n in core.observation_shape],
            "num_actions": int(core.num_actions), "num_players": int(core.num_players)}


def _json_default(x):
    if isinstance(x, np.generic):
        return x.item()
    if isinstance(x, os.PathLike):
        return os.fspath(x)
    raise TypeError(f"not JSON serialisable: {type(x).__name__}")


class _Fields:
    """Type checks on one JSON object, each failure naming the field."""

    def __init__(self, obj, where: str, prefix: str = ""):
        self.obj, self.where, self.prefix = obj, where, prefix
        if not isinstance(obj, dict):
            self.fail("", f"expected an object, got {_type(obj)}")

    def fail(self, key, msg):
        name = f"{self.prefix}{key}" if key else (self.prefix.rstrip(".") or "metadata")
        raise CheckpointError(f"{self.where}: field {name!r}: {msg}")

    def known(self, names) -> None:
        """Refuse keys outside ``names``, with a did-you-mean."""
        unknown = sorted(set(self.obj) - set(names))
        if unknown:
            close = difflib.get_close_matches(unknown[0], list(names), n=1)
            self.fail(unknown[0], "unknown field" + (f" (did you mean {close[0]!r}?)" if close else ""))

    def get(self, key, required=True):
        if key not in self.obj:
            if required:
                self.fail(key, "missing")
            return None
        return self.obj[key]

    def int(self, key, lo=0, hi=2**63 - 1, required=True):
        v = self.get(key, required)
        if v is None and not required:
            return None
        if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
            self.fail(key, f"expected an integer in [{lo}, {hi}], got {show(v)}")
        return v

    def number(self, key, lo=0.0, required=True, hi=1e300):
        v = self.get(key, required)
        if v is None and not required:
            return None
        if (isinstance(v, bool) or not isinstance(v, (int, float)) or not lo <= v <= hi
                or (isinstance(v, float) and math.isnan(v))):
            self.fail(key, f"expected a number in [{lo}, {hi}], got {show(v)}")
        return float(v)

    def str(self, key, choices=None, required=True):
        v = self.get(key, required)
        if v is None and not required:
            return None
        if not isinstance(v, str) or (choices is not None and v not in choices):
            want = f"one of {list(choices)}" if choices is not None else "a string"
            self.fail(key, f"expected {want}, got {show(v)}")
        return v

    def bool(self, key, required=True):
        v = self.get(key, required)
        if not isinstance(v, bool):
            self.fail(key, f"expected true or false, got {show(v)}")
        return v

    def int_list(self, key, lo=1, hi=MAX_LAYER_WIDTH, max_len=64):
        v = self.get(key)
        if (not isinstance(v, list) or len(v) > max_len
                or any(isinstance(x, bool) or not isinstance(x, int) or not lo <= x <= hi for x in v)):
            self.fail(key, f"expected a list of at most {max_len} integers in [{lo}, {hi}], got {show(v)}")
        return list(v)

    def obj_(self, key, required=True):
        v = self.get(key, required)
        if v is None and not required:
            return None
        if not isinstance(v, dict):
            self.fail(key, f"expected an object, got {_type(v)}")
        return v

    def sub(self, key, required=True):
        v = self.obj_(key, required)
        return None if v is None else _Fields(v, self.where, f"{self.prefix}{key}.")


def _type(v) -> str:
    return "null" if v is None else {dict: "an object", list: "a list", str: "a string", bool: "a boolean",
                                     int: "an integer", float: "a number"}.get(type(v), type(v).__name__)


def check_metadata(meta, where: str = "checkpoint") -> dict:
    """Validate every field a loader uses; raise :class:`CheckpointError` naming the first bad one."""
    f = _Fields(meta, where)
    f.known(METADATA_FIELDS)
    fmt = f.get("format")
    if fmt != FORMAT:
        f.fail("format", f"expected {FORMAT!r}, got {show(fmt)}")
    f.str("kind", KINDS)
    f.str("game")
    f.int("game_version")
    options = f.obj_("options")
    for k, v in options.items():
        if not isinstance(v, (str, int, float, bool)) and v is not None:
            f.fail(f"options.{k}", f"expected a string, number, boolean or null, got {_type(v)}")
    shape = f.int_list("observation_shape", 1, 1 << 24, max_len=4)
    if not shape:
        f.fail("observation_shape", "expected at least one dimension")
    f.int("num_actions", 1, 1 << 24)
    f.int("num_players", 1, 4)
    f.int("num_timesteps")
    f.int("n_updates", required=False)
    f.int("games", required=False)  # self-play games finished (a search-with-learning run)
    f.number("elapsed_s", required=False)
    sha = f.str("tensors_sha256")
    if not re.fullmatch(r"[0-9a-f]{64}", sha):
        f.fail("tensors_sha256", f"expected 64 hexadecimal digits, got {show(sha)}")
    net = f.sub("policy")
    DESCRIPTION_CHECKS.get(net.get("class"), ppo_description.check_fields)(net)  # it names the classes it knows
    if f.get("pool", required=False) is not None:
        check_pool_state(f.obj_("pool"), where)
    f.obj_("config", required=False)
    f.str("algo", ALGOS, required=False)
    f.str("dtype", ("float16", "float32"), required=False)
    return meta


def check_pool_state(pool: dict, where: str) -> dict:
    """Validate a self-play pool's saved state (entries and PCG64 state)."""
    f = _Fields(pool, where, "pool.")
    entries = f.get("entries")
    if not isinstance(entries, list) or len(entries) > 100_000:
        f.fail("entries", f"expected a list, got {_type(entries)}")
    for k, e in enumerate(entries):
        ef = _Fields(e, where, f"pool.entries[{k}].")
        ef.known(("name", "kind", "step", "path", "active", "games", "results"))
        ef.str("name")
        kind = ef.str("kind", ("latest", "baseline", "snapshot"))
        if kind == "snapshot" or ef.get("step") is not None:
            ef.int("step")
        path = ef.get("path")
        if kind == "snapshot" and (not isinstance(path, str) or not SNAPSHOT_RE.fullmatch(path)):
            ef.fail("path", f"expected a snapshot file name like step_0000050000{SUFFIX}, got {show(path)}")
        ef.bool("active")
        ef.int("games")
        results = ef.get("results")
        if not isinstance(results, list) or any(r not in (-1, 0, 1) or isinstance(r, bool) for r in results):
            ef.fail("results", "expected a list of game results -1, 0 or 1")
    f.known(("entries", "rng"))
    rng = f.sub("rng")
    rng.known(("bit_generator", "state", "has_uint32", "uinteger"))
    rng.str("bit_generator", ("PCG64",))
    inner = rng.sub("state")
    inner.known(("state", "inc"))
    inner.int("state", 0, 2**128 - 1)
    inner.int("inc", 0, 2**128 - 1)
    rng.int("has_uint32", 0, 1)
    rng.int("uinteger", 0, 2**32 - 1)
    return pool


def check_compatible(meta: dict, core: GameCore, what: str = "checkpoint") -> None:
    """Raise :class:`CheckpointError` unless ``meta`` is for ``core``'s game, version and options."""
    want = game_metadata(core)
    if meta["game"] != want["game"]:
        raise CheckpointError(f"{what} was trained on game {meta['game']!r}, not {core.name!r}")
    if not core.spec.reads_version(meta["game_version"]):  # an earlier version with today's rules loads
        raise CheckpointError(f"{what} was trained on {core.name} version {meta['game_version']}; "
                              f"this package has version {want['game_version']}")
    given, wanted = core.spec.deciding(meta["options"]), core.spec.deciding(want["options"])
    if given != wanted:
        keys = sorted(set(wanted) | set(given))
        details = ", ".join(f"{k}: checkpoint {given.get(k, '<unset>')!r} vs requested "
                            f"{wanted.get(k, '<unset>')!r}" for k in keys
                            if given.get(k, "<unset>") != wanted.get(k, "<unset>"))
        raise CheckpointError(f"{what} was trained on {core.name} with other options ({details})")
    if meta["observation_shape"] != want["observation_shape"] or meta["num_actions"] != want["num_actions"]:
        raise CheckpointError(
            f"{what} expects observations {tuple(meta['observation_shape'])} and {meta['num_actions']} "
            f"actions; {core.name} has {tuple(want['observation_shape'])} and {want['num_actions']}")


# --- the file ------------------------------------------------------------------------------
def tensors_sha256(tensors: dict) -> str:
    """SHA-256 over every tensor's name, dtype, shape and bytes, in name order."""
    import torch
    h = hashlib.sha256()
    for name in sorted(tensors):
        t = tensors[name].detach().cpu().contiguous()
        h.update(f"{name}|{t.dtype}|{list(t.shape)}|".encode())
        h.update(t.reshape(-1).view(torch.uint8).numpy().tobytes())
    return h.hexdigest()


def write_checkpoint(path, tensors: dict, meta: dict) -> dict:
    """Write tensors and metadata to ``path`` atomically (a temporary file, then a rename).

    A write error leaves any earlier file at ``path`` untouched and raises
    :class:`CheckpointError` with the reason (e.g. no space left on device).
    """
    from safetensors import SafetensorError
    from safetensors.torch import save_file
    path = checkpoint_path(path)
    tensors = {k: v.detach().cpu().contiguous() for k, v in tensors.items()}
    meta = {"format": FORMAT, **meta, "tensors_sha256": tensors_sha256(tensors)}
    check_metadata(json.loads(json.dumps(meta, default=_json_default)), f"checkpoint {path!r}")
    text = json.dumps(meta, sort_keys=True, default=_json_default)
    tmp = f"{path}.tmp{os.getpid()}"
    try:
        save_file(tensors, tmp, metadata={"yyenvs": text})
        os.chmod(tmp, 0o666 & ~_umask())  # safetensors creates owner-only files
        with open(tmp, "rb+") as fh:
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except (OSError, SafetensorError) as e:  # safetensors reports I/O failures with its own type
        _remove_quietly(tmp)
        reason = e.strerror if isinstance(e, OSError) and e.strerror else " ".join(str(e).split())
        raise CheckpointError(f"could not write checkpoint {path!r}: {reason}") from None
    return meta


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _remove_quietly(path):
    try:
        os.remove(path)
    except OSError:
        pass


def _refuse_old_format(path: str) -> None:
    legacy = path[:-len(".json")] + ".zip" if path.endswith(".json") else path
    with open(path, "rb") as fh:
        magic = fh.read(4)
    if magic == _ZIP_MAGIC or path.endswith((".zip", ".json")):
        raise CheckpointError(
            f"{path!r} is a checkpoint in the earlier stable-baselines3 zip format, whose loading "
            "unpickles Python objects and so can run code hidden in the file; it is not loaded. If you "
            f"trust its source, convert it once with: yyenvs checkpoint convert --trust {legacy}")


def read_metadata(path, core: GameCore | None = None) -> dict:
    """The validated metadata of checkpoint ``path`` (the header only; tensors are not read).

    With ``core``, also checks that the checkpoint is for that game, version and options.
    """
    path = os.fspath(path)
    if not os.path.exists(path) and os.path.exists(checkpoint_path(path)):
        path = checkpoint_path(path)
    what = f"checkpoint {path!r}"
    if not os.path.exists(path):
        raise CheckpointError(f"{what} does not exist")
    if not os.path.isfile(path):  # a directory, a device such as /dev/zero, a FIFO
        raise CheckpointError(f"{what} is not a regular file")
    _refuse_old_format(path)
    size = os.path.getsize(path)
    if size > MAX_FILE_BYTES:
        raise CorruptCheckpointError(f"{what} is {size} bytes, more than the {MAX_FILE_BYTES} a checkpoint may be")
    with open(path, "rb") as fh:
        head = fh.read(8)
    if len(head) < 8 or int.from_bytes(head, "little") > min(size - 8, MAX_METADATA_BYTES):
        raise CorruptCheckpointError(f"{what} is truncated or not a safetensors file (bad header length)")
    require_modules(f"reading {what}", "safetensors")
    from safetensors import safe_open
    try:
        with safe_open(path, framework="pt") as fh:
            raw = (fh.metadata() or {}).get("yyenvs")
    except Exception as e:  # safetensors' own error type for a malformed header
        raise CorruptCheckpointError(f"{what} is truncated or not a safetensors file: {e}") from None
    if raw is None:
        raise CheckpointError(f"{what} is a safetensors file without yyenvs metadata; "
                              "it was not written by yyenvs")
    try:
        meta = json.loads(raw, object_pairs_hook=unique_keys)
    except (ValueError, RecursionError) as e:
        raise CorruptCheckpointError(f"{what}: its metadata is not valid JSON: {str(e)[:100]}") from None
    check_metadata(meta, what)
    if meta["game"] in GAMES:  # options added after the checkpoint's version: that version's defaults
        meta["options"] = GAMES[meta["game"]].options_of(meta["game_version"], meta["options"])
    if core is not None:
        check_compatible(meta, core, what)
    meta["path"] = path
    return meta


def read_checkpoint(path, core: GameCore | None = None) -> tuple[dict, dict]:
    """``(metadata, tensors)`` of a checkpoint, after checking the tensors against their SHA-256."""
    meta = read_metadata(path, core)
    path = meta["path"]
    from safetensors.torch import load_file
    try:
        tensors = load_file(path)
    except Exception as e:  # safetensors' error for bad offsets or dtypes
        raise CorruptCheckpointError(f"checkpoint {path!r} has unreadable tensors: {e}") from None
    stray = sorted(k for k in tensors if not k.startswith(("policy/", "optimizer/")))
    if stray:
        raise CheckpointError(f"checkpoint {path!r} holds an unexpected tensor {stray[0]!r}")
    if tensors_sha256(tensors) != meta["tensors_sha256"]:
        raise CorruptCheckpointError(f"checkpoint {path!r} is corrupt: its tensors do not match the "
                                     "SHA-256 recorded in it (truncated or altered file)")
    return meta, tensors


# --- policies ---------------------------------------------------------------------------------
def policy_tensors(policy, value_net: bool = True, dtype=None) -> dict:
    """``policy/<name>`` tensors of a policy's parameters (without the value head if asked)."""
    out = {}
    for name, p in policy.named_parameters():
        if not value_net and is_value_parameter(name):
            continue
        t = p.detach()
        out[f"policy/{name}"] = t.to(dtype) if dtype is not None and t.is_floating_point() else t
    return out


def is_value_parameter(name: str) -> bool:
    return name.startswith(("value_net.", "mlp_extractor.value_net.", "vf_features_extractor."))


def load_policy_tensors(policy, tensors: dict, what: str) -> None:
    """Copy ``policy/<name>`` tensors into ``policy``, checking names, shapes and dtypes."""
    import torch
    params = dict(policy.named_parameters())
    given = {k[len("policy/"):]: v for k, v in tensors.items() if k.startswith("policy/")}
    unknown = sorted(set(given) - set(params))
    if unknown:
        raise CheckpointError(f"{what}: unexpected policy tensor {unknown[0]!r}")
    for name, p in params.items():
        t = given.get(name)
        if t is None:
            if is_value_parameter(name):
                continue  # a policy-only export: the value head stays at its initial weights
            raise CheckpointError(f"{what}: policy tensor {name!r} is missing")
        if tuple(t.shape) != tuple(p.shape) or not t.is_floating_point():
            raise CheckpointError(f"{what}: policy tensor {name!r} has shape {tuple(t.shape)} and dtype "
                                  f"{t.dtype}; the network needs {tuple(p.shape)} floats")
        t = t.to(p.dtype)  # checked after the cast: 1e300 in float64 is inf in float32
        if not torch.isfinite(t).all():
            raise CheckpointError(f"{what}: policy tensor {name!r} holds NaN or infinite values")
        with torch.no_grad():
            p.copy_(t)


def optimizer_tensors(optimizer) -> dict:
    """``optimizer/<index>/<slot>`` tensors of an Adam optimiser's state."""
    out = {}
    for index, slots in optimizer.state_dict()["state"].items():
        for slot in OPTIMIZER_SLOTS:
            if slot in slots:
                out[f"optimizer/{index}/{slot}"] = slots[slot].detach().reshape(-1) if slot == "step" \
                    else slots[slot].detach()
    return out


def load_optimizer_tensors(optimizer, tensors: dict, what: str) -> None:
    """Restore Adam's state from ``optimizer/...`` tensors, checking each against its parameter.

    The hyper-parameters (learning rate, betas) come from the run's config, not from the file.
    """
    import torch
    params = [p for group in optimizer.param_groups for p in group["params"]]
    state: dict = {}
    for key, t in tensors.items():
        if not key.startswith("optimizer/"):
            continue
        parts = key.split("/")
        if (len(parts) != 3 or not parts[1].isdigit() or int(parts[1]) >= len(params)
                or parts[2] not in OPTIMIZER_SLOTS):
            raise CheckpointError(f"{what}: unexpected optimiser tensor {key!r}")
        index, slot = int(parts[1]), parts[2]
        want = (1,) if slot == "step" else tuple(params[index].shape)
        if tuple(t.shape) != want or not t.is_floating_point() or not torch.isfinite(t).all():
            raise CheckpointError(f"{what}: optimiser tensor {key!r} has shape {tuple(t.shape)} "
                                  f"({t.dtype}); expected {want} finite floats")
        state.setdefault(index, {})[slot] = t.reshape(()) if slot == "step" else t.to(params[index].dtype)
    for index, slots in state.items():
        if set(slots) != set(OPTIMIZER_SLOTS):
            raise CheckpointError(f"{what}: optimiser state of parameter {index} lacks "
                                  f"{sorted(set(OPTIMIZER_SLOTS) - set(slots))}")
    fresh = optimizer.state_dict()
    optimizer.load_state_dict({"state": state, "param_groups": fresh["param_groups"]})


#: options naming files: a checkpoint's record of them is not followed (it could point anywhere)
PATH_OPTIONS = ("data_file",)


def core_options(meta: dict, given: dict | None = None) -> dict:
    """The game options to rebuild a checkpoint's core: the recorded ones, updated by ``given``.

    A recorded file option (a Yin Yang ``data_file``) must be given again by the user,
    so that a crafted checkpoint cannot make the package open a file of its choosing.
    """
    options = {**meta["options"], **(given or {})}
    for key in PATH_OPTIONS:
        if meta["options"].get(key) is not None and key not in (given or {}):
            raise CheckpointError(f"checkpoint {meta['path']!r} was trained with {key}="
                                  f"{show(meta['options'][key])}; pass that option yourself to use it")
    return options


def checkpoint_label(path) -> str:
    """A checkpoint's display name: its file name without the suffix."""
    name = os.path.basename(os.fspath(path))
    return name[:-len(SUFFIX)] if name.endswith(SUFFIX) else os.path.splitext(name)[0]
