"""Training configuration: defaults, YAML loading, command-line overrides, validation.

A config is a nested dict; :data:`DEFAULTS` lists every key with its default
and type.  A YAML file (``configs/<game>.yaml``) overrides the defaults and
``KEY=VALUE`` arguments (dotted keys, YAML values, e.g. ``ppo.learning_rate=1e-4``
or ``selfplay.baselines=[random]``) override the file.  Unknown keys, values
of the wrong type or outside :data:`RANGES` / :data:`CHOICES` (NaN and
infinities never pass), opponent names that no agent has, and a ``run_dir``
that cannot be a directory are refused with a :class:`ConfigError` naming the
key.  A config file must be a YAML mapping, UTF-8, at most :data:`MAX_FILE_BYTES`,
without YAML tags, anchors/aliases or duplicate keys, nested at most 64 levels
(:func:`read_config_file`); override values obey the same YAML rules.  Game options (``game_options``) are checked by the game core.
"""
from __future__ import annotations

import copy
import difflib
import math
import os
import re

from yyenvs.agents.az import MAX_AZ_SIMULATIONS, parse_az_spec
from yyenvs.networks.device import check_device_name
from yyenvs.search.settings import GumbelSettings
from yyenvs.search.mcts import MAX_SIMULATIONS
from yyenvs.values import MAX_BATCH, MAX_GAMES, load_yaml, parse_option
from yyenvs.core.contract import OptionError, show
from yyenvs.core.files import read_text_file
from yyenvs.games import GAMES


class ConfigError(OptionError):
    """A config key or value that is not allowed."""


# key -> default; the type of the default is the type required (int accepted for float)
#: the settings of the Gumbel search that a config has (``az.<name>``): their defaults, ranges and
#: meanings are the search's own (:class:`~yyenvs.search.settings.GumbelSettings`)
SEARCH_KEYS = ("max_considered", "gumbel_scale", "c_puct", "value_scale", "maxvisit_init", "qtransform", "find_wins",
               "discount", "in_flight")
#: meanings of the keys that have no comment beside their default
DESCRIPTIONS = {f"az.{name}": GumbelSettings.doc(name) for name in SEARCH_KEYS}

DEFAULTS: dict = {
    "algo": "ppo",               # ppo: MaskablePPO self-play; az: Gumbel AlphaZero (search with learning)
    "game": "yoxii",
    "game_options": {},          # the core's options (checked by the core)
    "seed": 0,
    "run_dir": "runs/yoxii",     # checkpoints, snapshots, TensorBoard, evaluation; "{time}" -> a timestamp
    "resume": True,              # continue from the newest checkpoint in run_dir/checkpoints
    "total_timesteps": 2_000_000,  # learner decisions over the whole run
    "max_minutes": 0.0,          # stop (and checkpoint) after this wall time; 0 = no limit
    "num_envs": 128,             # games played at once
    "threads": 0,                # threads of numba's kernels and torch; 0: the cores this process may use
    "device": "auto",            # where the search trainer's network runs: auto (a GPU if torch sees one), cpu, cuda[:i]
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
    "az": {                      # algo az (training/az.py)
        "simulations": 32,       # search simulations per self-play move
        # the search's own settings, at the search's defaults (yyenvs/search/settings.py)
        **{name: GumbelSettings.default(name) for name in SEARCH_KEYS},
        "hidden": [128, 128],    # hidden layers of the policy-value network
        "channels": 0,           # residual tower over the planes: channels per 3x3 convolution
        "blocks": 0,             # residual blocks (0: the MLP alone)
        "learning_rate": 1.0e-3,  # AdamW
        "lr_schedule": "constant",  # constant, or cosine: down to lr_final x learning_rate at the run's end
        "lr_final": 0.1,         # with the cosine schedule: the last learning rate over the first
        "weight_decay": 1.0e-4,  # AdamW
        "batch_size": 256,       # positions per gradient step
        "replay_size": 50000,    # finished positions kept for training
        "min_replay": 2000,      # positions in the buffer before training starts
        "train_ratio": 2.0,      # positions trained on per position played
        "value_weight": 1.0,     # weight of the value loss
        "augment": True,         # train on positions turned / mirrored by the game's board symmetries
        "eval_simulations": 64,  # search budget of the evaluated network (quick and final evaluation)
        "sample_plies": 0,       # plies at a game's start whose move is drawn from the improved policy
        "score_weight": 0.0,     # share of the value target taken from the final score margin (games with scores)
        "q_weight": 0.0,         # share of the value target taken from the search's value of the position
        "workers": 0,            # self-play on this many Ray actors (0: in the trainer's process)
        "worker_games": 0,       # games per worker (0: num_envs)
        "worker_moves": 16,      # moves a worker plays between two hand-overs of finished games
        "broadcast_every": 50,   # gradient steps between two sends of the weights to the workers
    },
    "rllib": {                   # yyenvs train --backend rllib (training/rllib_train.py, RLlib's PPO)
        "mode": "selfplay",      # selfplay: league on the multi-agent env; vector: learner vs eval.opponents[0]
        "num_env_runners": 1,    # RLlib env runners (Ray actors), spread over the cluster
        "league_win_rate": 0.6,  # main's recent win rate above which a snapshot joins the league
    },
    "selfplay": {
        "latest": 0.35,          # share of games against the current policy
        "baseline_share": 0.0,   # share reserved for the baselines (0: PFSP over snapshots + baselines; az: none)
        "baselines": ["random", "greedy"],  # scripted opponents in the pool
        "snapshot_every": 50_000,  # steps between policy snapshots added to the pool
        "max_snapshots": 20,     # the oldest leave the pool beyond this many
        "pfsp_power": 2.0,       # PFSP weight (1 - win rate) ** power over snapshots + baselines
        "pfsp_floor": 0.02,      # minimum weight so no opponent is forgotten
        "window": 400,           # recent games per opponent behind its win rate
        "opponent_sample": True,  # policy opponents sample their moves (False: argmax)
    },
    "checkpoint": {
        "every": 100_000,        # steps between checkpoints (run_dir/checkpoints/ckpt_<step>.safetensors)
    },
    "eval": {
        "every": 200_000,        # steps between quick evaluations vs eval.opponents (0 = off)
        "every_minutes": 4.0,    # minutes between them too, whichever comes first (0 = off)
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

MAX_FILE_BYTES = 2**20
INT_LIMIT = 2**63  # every integer must fit an int64 (numpy, torch)
SEED_LIMIT = 2**32  # stable-baselines3 seeds numpy's legacy generator, which takes 32 bits
MAX_WIDTH = 65_536     # a hidden layer (checkpoints refuse wider)
MAX_CHANNELS = 4096    # a conv layer
MAX_LAYERS = 64        # entries of ppo.net_arch / ppo.cnn_channels
MAX_WEIGHTS = 2**30    # sum of width_i * width_(i+1) over the hidden layers
MAX_ROLLOUT = 2**24    # ppo.n_steps * num_envs decisions held in the rollout buffer

# The allowed interval of every numeric key: "[" / "]" include the bound, "(" / ")" exclude it.
RANGES = {
    "seed": f"[0, {SEED_LIMIT})", "total_timesteps": "[1, inf)", "max_minutes": "[0, inf)",
    "num_envs": f"[1, {MAX_BATCH}]", "threads": "[0, 1024]",
    "ppo.n_steps": f"[1, {MAX_ROLLOUT}]", "ppo.batch_size": f"[2, {MAX_ROLLOUT}]", "ppo.n_epochs": "[1, 100000]",
    "ppo.learning_rate": "(0, inf)", "ppo.gamma": "[0, 1]", "ppo.gae_lambda": "[0, 1]",
    "ppo.clip_range": "(0, inf)", "ppo.ent_coef": "[0, inf)", "ppo.vf_coef": "[0, inf)",
    "ppo.max_grad_norm": "(0, inf)", "ppo.target_kl": "[0, inf)", "ppo.reward_shaping": "[0, inf)",
    "selfplay.latest": "[0, 1]", "selfplay.baseline_share": "[0, 1]", "selfplay.snapshot_every": "[1, inf)",
    "selfplay.max_snapshots": "[0, 10000]", "selfplay.pfsp_power": "[0, inf)", "selfplay.pfsp_floor": "[0, 1]",
    "selfplay.window": f"[1, {MAX_GAMES}]",
    "checkpoint.every": "[1, inf)",
    "eval.every": "[0, inf)", "eval.every_minutes": "[0, inf)", "eval.games": f"[2, {MAX_GAMES}]", "eval.final_games": f"[0, {MAX_GAMES}]",
    "eval.table_games": f"[0, {MAX_GAMES}]", "eval.table_snapshots": "[0, 1000]",
    "az.simulations": f"[1, {MAX_AZ_SIMULATIONS}]", "az.channels": f"[0, {MAX_CHANNELS}]", "az.blocks": "[0, 64]",
    "az.learning_rate": "(0, inf)", "az.weight_decay": "[0, inf)", "az.batch_size": "[1, 1048576]",
    "az.replay_size": "[1, 100000000]", "az.min_replay": "[1, 100000000]", "az.train_ratio": "[0, 1000]",
    "az.value_weight": "[0, inf)", "az.eval_simulations": f"[1, {MAX_AZ_SIMULATIONS}]",
    "az.sample_plies": "[0, 1000000]", "az.score_weight": "[0, 1]", "az.q_weight": "[0, 1]", "az.lr_final": "[0, 1]", "az.workers": "[0, 100000]", "az.worker_games": f"[0, {MAX_BATCH}]", "az.worker_moves": "[1, 1000000]",
    "az.broadcast_every": "[1, inf)",
    "rllib.num_env_runners": "[0, 100000]", "rllib.league_win_rate": "[0, 1]",
    # the search's own settings, as the search declares them
    **{f"az.{name}": GumbelSettings.allowed(name).interval() for name in SEARCH_KEYS
       if GumbelSettings.allowed(name).kind in (int, float)},
}
CHOICES = {"game": tuple(GAMES), "ppo.activation": ("relu", "tanh"), "algo": ("ppo", "az"),
           "rllib.mode": ("selfplay", "vector"), "az.lr_schedule": ("constant", "cosine"),
           **{f"az.{name}": GumbelSettings.allowed(name).choices for name in SEARCH_KEYS
              if GumbelSettings.allowed(name).kind is str}}
OPPONENT = re.compile(r"random|greedy|pretrained(?::fast)?|mcts(:[1-9][0-9]{0,6})?")


def _opponent_ok(x) -> bool:
    if isinstance(x, str) and x.startswith("az:"):  # a trained search agent (the file is checked when loaded)
        try:
            parse_az_spec(x)
        except OptionError:
            return False
        return True
    m = OPPONENT.fullmatch(x) if isinstance(x, str) else None
    return m is not None and (m.group(1) is None or int(m.group(1)[1:]) <= MAX_SIMULATIONS)


#: the ``selfplay.baselines`` entry for the network being trained, unsearched (az only)
PRIOR = "prior"
_OPPONENTS = (f"random, greedy, pretrained, pretrained:fast, mcts or mcts:<n>, n from 1 to "
              f"{MAX_SIMULATIONS:,}, or az:<checkpoint>[:<n>[:<key>=<value>,...]]")

# list keys -> (what each entry must be, a test of one entry)
LIST_ENTRIES = {
    "ppo.net_arch": (f"a layer width from 1 to {MAX_WIDTH}", lambda x: _is_int(x) and 0 < x <= MAX_WIDTH),
    "ppo.cnn_channels": (f"a channel count from 1 to {MAX_CHANNELS}",
                         lambda x: _is_int(x) and 0 < x <= MAX_CHANNELS),
    "eval.opponents": (f"an opponent ({_OPPONENTS})", _opponent_ok),
    "selfplay.baselines": (f"an opponent ({_OPPONENTS}; with --algo az also {PRIOR})",
                           lambda x: x == PRIOR or _opponent_ok(x)),
}
LIST_ENTRIES["az.hidden"] = LIST_ENTRIES["ppo.net_arch"]
FREE_DICTS = {"game_options"}


def _interval(text: str):
    lo_b, lo, hi, hi_b = re.fullmatch(r"([\[(])(.+), (.+)([\])])", text).groups()
    return float(lo), float(hi), lo_b == "[", hi_b == "]"


def _in_range(key: str, value) -> bool:
    lo, hi, lo_in, hi_in = _interval(RANGES[key])
    return (lo < value or (lo_in and value == lo)) and (value < hi or (hi_in and value == hi))


def _is_int(x) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def flat_config(d: dict, prefix: str = "") -> dict:
    """``{"ppo": {"gamma": 0.9}}`` as ``{"ppo.gamma": 0.9}`` (free mappings such as game_options stay whole)."""
    out = {}
    for k, v in d.items():
        key = f"{prefix}{k}"
        if isinstance(v, dict) and key not in FREE_DICTS:
            out.update(flat_config(v, key + "."))
        else:
            out[key] = v
    return out


FLAT_DEFAULTS = flat_config(DEFAULTS)
SECTIONS = {k.rsplit(".", 1)[0] for k in FLAT_DEFAULTS if "." in k}  # ppo, selfplay, ...


def _suggest(key: str) -> str:
    close = difflib.get_close_matches(key, list(FLAT_DEFAULTS) + [k for k in DEFAULTS], n=1)
    return f"; did you mean {close[0]!r}?" if close else ""


def _check_value(key: str, value, default):
    def bad(expected):
        return ConfigError(f"config key {key!r}: expected {expected}, got {show(value)}")
    if isinstance(value, str) and isinstance(default, (int, float)) and not isinstance(default, bool):
        try:  # YAML 1.1 reads "1e-4" as a string
            value = float(value)
        except ValueError:
            raise bad("an integer" if isinstance(default, int) else "a number") from None
    if isinstance(default, bool):
        if not isinstance(value, bool):
            raise bad("true or false")
    elif isinstance(default, int):
        if not _is_int(value):
            if isinstance(value, float) and value.is_integer():  # False for NaN and inf
                value = int(value)
            else:
                raise bad("an integer")
        if not -INT_LIMIT <= value < INT_LIMIT:
            raise bad("an integer that fits in 64 bits")
    elif isinstance(default, float):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise bad("a number")
        try:
            value = float(value)
        except OverflowError:  # an integer beyond the float range
            raise bad("a finite number") from None
        if not math.isfinite(value):
            raise bad("a finite number")
    elif isinstance(default, str):
        if not isinstance(value, str):
            raise bad("a string")
    elif isinstance(default, list):
        if not isinstance(value, list):
            raise bad("a list")
        if key in LIST_ENTRIES:
            what, ok = LIST_ENTRIES[key]
            for x in value:
                if not ok(x):
                    raise ConfigError(f"config key {key!r}: entry {show(x)} is not {what}")
            if key.startswith(("ppo.", "az.")) and len(value) > MAX_LAYERS:
                raise ConfigError(f"config key {key!r}: at most {MAX_LAYERS} layers, got {len(value)}")
            if key in ("ppo.net_arch", "az.hidden") and sum(a * b for a, b in zip(value, value[1:])) > MAX_WEIGHTS:
                raise ConfigError(f"config key {key!r}: the hidden layers {show(value)} would have more "
                                  f"than 2**30 weights (sum of width_i * width_i+1)")
    elif isinstance(default, dict):
        if not isinstance(value, dict):
            raise bad("a mapping")
        if not all(isinstance(k, str) for k in value):
            raise bad("a mapping with string keys")
    if key == "device":
        try:
            check_device_name(value)
        except OptionError as e:
            raise ConfigError(f"config key 'device': {e}") from None
    if key in RANGES and not _in_range(key, value):
        raise ConfigError(f"config key {key!r}: expected a value in {RANGES[key]}, got {show(value)}")
    if key in CHOICES and value not in CHOICES[key]:
        raise ConfigError(f"config key {key!r}: expected one of {list(CHOICES[key])}, got {show(value)}")
    return value


#: keys of earlier versions -> what replaced them
RENAMED = {"torch_threads": "threads (numba's kernels and torch alike; see docs/performance.md#threads)"}


def _set(cfg: dict, key: str, value) -> None:
    if key in RENAMED:
        raise ConfigError(f"config key {key!r} is now {RENAMED[key]}")
    if key in SECTIONS:  # e.g. ppo={n_steps: 8} or a YAML section
        merge(cfg, value, key + ".")
        return
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
        what = f"config key {prefix.rstrip('.')!r}" if prefix else "a config"
        raise ConfigError(f"{what} must be a mapping of config keys, got {show(overrides)}")
    for k, v in overrides.items():
        _set(cfg, f"{prefix}{k}", v)
    return cfg


def _yaml(text: str, what: str):
    """Untrusted YAML ``text`` parsed by :func:`yyenvs.values.load_yaml`: no tags, anchors or
    aliases, duplicate keys, nesting deeper than 64 levels or over-long integers."""
    return load_yaml(text, what, ConfigError)


def read_config_file(path: str) -> dict:
    """The mapping in the YAML config file ``path``, checked as :func:`load_config` checks it.

    A regular file of at most :data:`MAX_FILE_BYTES`, UTF-8, valid YAML without tags,
    anchors/aliases, duplicate keys or nesting deeper than 64 levels, whose top level is a
    mapping with string keys (an empty file is ``{}``); otherwise :class:`ConfigError`
    naming the file.  Keys and values are not checked against :data:`DEFAULTS` here.
    """
    where = f"config file {path!r}"
    data = _yaml(read_text_file(path, where, MAX_FILE_BYTES, ConfigError), where)
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(f"{where}: a config must be a mapping of config keys, got {show(data)}")
    if not all(isinstance(k, str) for k in data):
        raise ConfigError(f"{where}: every top-level key must be a string")
    return data


def _check_run_dir(run_dir: str) -> None:
    """``run_dir`` must be a directory or creatable as one (not under or at a file)."""
    if not run_dir.strip() or "\0" in run_dir:
        raise ConfigError(f"config key 'run_dir': expected a directory path, got {run_dir!r}")
    p = os.path.abspath(run_dir)
    while not os.path.exists(p) and os.path.dirname(p) != p:
        p = os.path.dirname(p)
    if not os.path.isdir(p):
        at = "is an existing file" if p == os.path.abspath(run_dir) else f"is inside the file {p!r}"
        raise ConfigError(f"config key 'run_dir': {run_dir!r} {at}, not a directory")


def _check_whole(cfg: dict) -> None:
    """Checks across keys (each key alone is checked by _check_value)."""
    if cfg["ppo"]["n_steps"] * cfg["num_envs"] > MAX_ROLLOUT:
        raise ConfigError(f"config keys 'ppo.n_steps' ({cfg['ppo']['n_steps']}) * 'num_envs' ({cfg['num_envs']}) "
                          f"must not exceed {MAX_ROLLOUT:,} (the rollout buffer)")
    sp = cfg["selfplay"]
    if sp["latest"] + sp["baseline_share"] > 1:
        raise ConfigError(f"config keys 'selfplay.latest' ({sp['latest']}) + 'selfplay.baseline_share' "
                          f"({sp['baseline_share']}) must not exceed 1")
    if cfg["algo"] != "az" and PRIOR in sp["baselines"]:
        raise ConfigError(f"config key 'selfplay.baselines': {PRIOR!r} (the network being trained, "
                          "without search) is an opponent for --algo az only")
    if cfg["az"]["hidden"] == []:
        raise ConfigError("config key 'az.hidden': the network needs at least one hidden layer")
    _check_run_dir(cfg["run_dir"])


def parse_override(text: str) -> tuple[str, object]:
    """A ``KEY=VALUE`` override, parsed by the one KEY=VALUE parser (:func:`yyenvs.values.parse_option`)."""
    return parse_option(text, "override", ConfigError)


def load_config(path: str | None = None, overrides=()) -> dict:
    """Defaults, then the YAML file ``path``, then ``KEY=VALUE`` overrides."""
    cfg = copy.deepcopy(DEFAULTS)
    if path:
        data = read_config_file(path)
        try:
            merge(cfg, data)  # refuses a file that is not a mapping
        except ConfigError as e:
            raise ConfigError(f"config file {path!r}: {e}") from None
        if "game" in data and "run_dir" not in data:
            cfg["run_dir"] = f"runs/{cfg['game']}"
    for item in overrides:
        key, value = parse_override(item) if isinstance(item, str) else item
        if key in FREE_DICTS or (key.startswith("game_options.") and key.count(".") == 1):
            if key == "game_options":
                _set(cfg, key, value)
            else:
                cfg["game_options"][key.split(".", 1)[1]] = value
            continue
        _set(cfg, key, value)
    _check_whole(cfg)
    return cfg
