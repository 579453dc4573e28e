"""Training configuration: defaults, YAML loading, command-line overrides, validation.

A config is a nested dict; :data:`DEFAULTS` lists every key with its default
and type.  A YAML file (``configs/<game>.yaml``) overrides the defaults and
``KEY=VALUE`` arguments (dotted keys, YAML values, e.g. ``ppo.learning_rate=1e-4``
or ``selfplay.baselines=[random]``) override the file.  Unknown keys and
values of the wrong type or range are refused with a :class:`ConfigError`
naming the key.  Game options (``game_options``) are checked by the game core.
"""
from __future__ import annotations

import copy
import difflib
import os

import yaml

from yyenvs.core.contract import OptionError


class ConfigError(OptionError):
    """A config key or value that is not allowed."""


# key -> default; the type of the default is the type required (int accepted for float)
DEFAULTS: dict = {
    "game": "yoxii",
    "game_options": {},          # the core's options (checked by the core)
    "seed": 0,
    "run_dir": "runs/yoxii",     # checkpoints, snapshots, TensorBoard, evaluation; "{time}" -> a timestamp
    "resume": True,              # continue from run_dir/checkpoints/last.zip when present
    "total_timesteps": 2_000_000,  # learner decisions over the whole run
    "max_minutes": 0.0,          # stop (and checkpoint) after this wall time; 0 = no limit
    "num_envs": 128,             # games played at once
    "torch_threads": 2,
    "ppo": {
        "n_steps": 64,           # per env; rollout = n_steps * num_envs
        "batch_size": 2048,
        "n_epochs": 4,
        "learning_rate": 3.0e-4,
        "gamma": 0.99,
        "gae_lambda": 0.95,
        "clip_range": 0.2,
        "ent_coef": 0.01,
        "vf_coef": 0.5,
        "max_grad_norm": 0.5,
        "target_kl": 0.0,        # 0 = none
        "net_arch": [256, 256],  # hidden layers of the policy and of the value MLP
        "activation": "relu",    # relu | tanh
        "cnn_channels": [],      # 3x3 conv layers over the planes before the MLP ([] = MLP only)
        "reward_shaping": 0.0,   # potential-based shaping: coefficient of core.heuristic (0 = off)
    },
    "selfplay": {
        "latest": 0.35,          # share of games against the current policy
        "baseline_share": 0.0,   # share reserved for the baselines (0: PFSP over snapshots + baselines)
        "baselines": ["random", "greedy"],  # scripted opponents in the pool
        "snapshot_every": 50_000,  # steps between policy snapshots added to the pool
        "max_snapshots": 20,     # the oldest leave the pool beyond this many
        "pfsp_power": 2.0,       # PFSP weight (1 - win rate) ** power over snapshots + baselines
        "pfsp_floor": 0.02,      # minimum weight so no opponent is forgotten
        "window": 400,           # recent games per opponent behind its win rate
        "opponent_sample": True,  # policy opponents sample their moves (False: argmax)
    },
    "checkpoint": {
        "every": 100_000,        # steps between checkpoints (run_dir/checkpoints/last.zip)
    },
    "eval": {
        "every": 200_000,        # steps between quick evaluations vs eval.opponents (0 = off)
        "games": 200,            # games per opponent in those
        "opponents": ["random", "greedy"],
        "final_games": 1000,     # games per opponent of the final policy at the end (0 = skip)
        "table_games": 100,      # games per pair in the final round robin of snapshots
        "table_snapshots": 6,    # snapshots (evenly spaced) in that round robin
        "deterministic": True,   # evaluated policies take the argmax action
    },
    "log": {
        "tensorboard": True,
        "progress": True,
    },
}

RANGES = {
    "num_envs": (1, None), "total_timesteps": (1, None), "torch_threads": (1, None),
    "max_minutes": (0, None),
    "ppo.n_steps": (1, None), "ppo.batch_size": (2, None), "ppo.n_epochs": (1, None),
    "ppo.learning_rate": (0, None), "ppo.gamma": (0, 1), "ppo.gae_lambda": (0, 1),
    "ppo.clip_range": (0, None), "ppo.ent_coef": (0, None), "ppo.vf_coef": (0, None),
    "ppo.max_grad_norm": (0, None), "ppo.reward_shaping": (0, None), "ppo.target_kl": (0, None),
    "selfplay.latest": (0, 1), "selfplay.baseline_share": (0, 1), "selfplay.snapshot_every": (1, None), "selfplay.max_snapshots": (0, None),
    "selfplay.pfsp_power": (0, None), "selfplay.pfsp_floor": (0, 1), "selfplay.window": (1, None),
    "checkpoint.every": (1, None), "eval.every": (0, None), "eval.games": (2, None),
    "eval.final_games": (0, None), "eval.table_games": (0, None), "eval.table_snapshots": (0, None),
}
CHOICES = {"ppo.activation": ("relu", "tanh")}
FREE_DICTS = {"game_options"}


def _flat(d: dict, prefix: str = "") -> dict:
    out = {}
    for k, v in d.items():
        key = f"{prefix}{k}"
        if isinstance(v, dict) and key not in FREE_DICTS:
            out.update(_flat(v, key + "."))
        else:
            out[key] = v
    return out


FLAT_DEFAULTS = _flat(DEFAULTS)


def _suggest(key: str) -> str:
    close = difflib.get_close_matches(key, list(FLAT_DEFAULTS) + [k for k in DEFAULTS], n=1)
    return f"; did you mean {close[0]!r}?" if close else ""


def _check_value(key: str, value, default):
    def bad(expected):
        return ConfigError(f"config key {key!r}: expected {expected}, got {value!r}")
    if isinstance(value, str) and isinstance(default, (int, float)) and not isinstance(default, bool):
        try:  # YAML 1.1 reads "1e-4" as a string
            value = float(value)
        except ValueError:
            raise bad("an integer" if isinstance(default, int) else "a number") from None
    if isinstance(default, bool):
        if not isinstance(value, bool):
            raise bad("true or false")
    elif isinstance(default, int):
        if isinstance(value, bool) or not isinstance(value, int):
            if isinstance(value, float) and value.is_integer():
                value = int(value)
            else:
                raise bad("an integer")
    elif isinstance(default, float):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise bad("a number")
        value = float(value)
    elif isinstance(default, str):
        if not isinstance(value, str):
            raise bad("a string")
    elif isinstance(default, list):
        if not isinstance(value, list):
            raise bad("a list")
        if key in ("ppo.net_arch", "ppo.cnn_channels") and not all(isinstance(x, int) and not isinstance(x, bool) and x > 0
                                             for x in value):
            raise bad("a list of positive layer widths")
        if key in ("selfplay.baselines", "eval.opponents") and not all(isinstance(x, str) for x in value):
            raise bad("a list of opponent names")
    elif isinstance(default, dict):
        if not isinstance(value, dict):
            raise bad("a mapping")
    if key in RANGES:
        lo, hi = RANGES[key]
        if (lo is not None and value < lo) or (hi is not None and value > hi):
            rng = f">= {lo}" if hi is None else f"in [{lo}, {hi}]"
            raise ConfigError(f"config key {key!r}: expected a value {rng}, got {value!r}")
    if key in CHOICES and value not in CHOICES[key]:
        raise ConfigError(f"config key {key!r}: expected one of {list(CHOICES[key])}, got {value!r}")
    return value


def _set(cfg: dict, key: str, value) -> None:
    if key not in FLAT_DEFAULTS:
        raise ConfigError(f"unknown config key {key!r}{_suggest(key)}")
    value = _check_value(key, value, FLAT_DEFAULTS[key])
    parts = key.split(".")
    d = cfg
    for p in parts[:-1]:
        d = d[p]
    d[parts[-1]] = copy.deepcopy(value)


def merge(cfg: dict, overrides: dict, prefix: str = "") -> dict:
    """Apply a nested ``overrides`` dict to ``cfg`` (validated, in place)."""
    if not isinstance(overrides, dict):
        raise ConfigError(f"config {prefix.rstrip('.') or 'file'} must be a mapping, got {overrides!r}")
    for k, v in overrides.items():
        key = f"{prefix}{k}"
        if isinstance(v, dict) and key not in FREE_DICTS and key in {
                p.rsplit(".", 1)[0] for p in FLAT_DEFAULTS if "." in p}:
            merge(cfg, v, key + ".")
        else:
            _set(cfg, key, v)
    return cfg


def parse_override(text: str) -> tuple[str, object]:
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise ConfigError(f"override {text!r} must look like KEY=VALUE (e.g. ppo.learning_rate=1e-4)")
    try:
        parsed = yaml.safe_load(value) if value != "" else ""
    except yaml.YAMLError as e:
        raise ConfigError(f"override {text!r}: value is not valid YAML: {e}") from None
    return key.strip(), parsed


def load_config(path: str | None = None, overrides=()) -> dict:
    """Defaults, then the YAML file ``path``, then ``KEY=VALUE`` overrides."""
    cfg = copy.deepcopy(DEFAULTS)
    if path:
        if not os.path.exists(path):
            raise ConfigError(f"config file {path!r} does not exist")
        with open(path) as f:
            try:
                data = yaml.safe_load(f) or {}
            except yaml.YAMLError as e:
                raise ConfigError(f"config file {path!r} is not valid YAML: {e}") from None
        if "game" in data and "run_dir" not in data:
            cfg["run_dir"] = f"runs/{data['game']}"
        merge(cfg, data)
    for item in overrides:
        key, value = parse_override(item) if isinstance(item, str) else item
        if key in FREE_DICTS or (key.startswith("game_options.") and key.count(".") == 1):
            if key == "game_options":
                _set(cfg, key, value)
            else:
                cfg["game_options"][key.split(".", 1)[1]] = value
            continue
        _set(cfg, key, value)
    return cfg


def describe() -> list[tuple[str, object]]:
    """(key, default) of every config key, for documentation."""
    return list(FLAT_DEFAULTS.items())
