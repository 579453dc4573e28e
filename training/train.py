"""Self-play training with MaskablePPO on the batched vector environment.

``yyenvs train --config configs/yoxii.yaml [KEY=VALUE ...]``
(or ``python -m training.train ...``).

* The learner plays ``num_envs`` games at once (:class:`training.sb3_vec.LearnerVecEnv`),
  its seat drawn per game; opponents come from :class:`training.pool.OpponentPool`
  (latest policy, PFSP-sampled snapshots, scripted baselines), each opponent
  computing its moves for all its rows in one call.
* Every ``selfplay.snapshot_every`` steps a frozen copy of the policy joins the
  pool (and is saved under ``run_dir/snapshots/``); every ``checkpoint.every``
  steps the run is checkpointed under ``run_dir/checkpoints/`` (SB3 zip + JSON
  with game, options, step count and pool state).  Starting again with the same
  ``run_dir`` resumes from the newest checkpoint; a checkpoint for another
  game or other options, or a corrupt one, is refused with a message.
* A progress bar shows steps, steps/s and recent win rates; TensorBoard logs
  go to ``run_dir/tb``.  At the end the final policy is evaluated against the
  baselines and a round robin of snapshots is rated (``run_dir/eval``).
"""
from __future__ import annotations

import argparse
import glob
import os
import re
import sys
import time

import numpy as np

from yyenvs.core.contract import OptionError
from yyenvs.games import make_core
from training.config import ConfigError, load_config

CKPT_RE = re.compile(r"ckpt_(\d+)\.zip$")


def _activation(name):
    import torch.nn as nn
    return {"relu": nn.ReLU, "tanh": nn.Tanh}[name]


def checkpoint_files(run_dir: str) -> list[tuple[int, str]]:
    """(step, path) of the run's checkpoints, oldest first."""
    out = []
    for path in glob.glob(os.path.join(run_dir, "checkpoints", "ckpt_*.zip")):
        m = CKPT_RE.search(path)
        if m:
            out.append((int(m.group(1)), path))
    return sorted(out)


class Trainer:
    """One training run (fresh or resumed) described by a config dict."""

    def __init__(self, cfg: dict, log=None):
        import torch
        from sb3_contrib import MaskablePPO

        from yyenvs.agents.checkpoint import CheckpointError, load_model, read_metadata
        from training.pool import OpponentPool
        from training.sb3_vec import LearnerVecEnv

        self.cfg = cfg
        self.log = log or (lambda msg: print(msg, file=sys.stderr, flush=True))
        torch.set_num_threads(cfg["torch_threads"])
        self.core = make_core(cfg["game"], **cfg["game_options"])
        if "{time}" in cfg["run_dir"]:  # a new directory per run (the quick demo)
            cfg["run_dir"] = cfg["run_dir"].replace("{time}", time.strftime("%Y%m%d-%H%M%S"))
        self.run_dir = cfg["run_dir"]
        self.dirs = {k: os.path.join(self.run_dir, k) for k in ("checkpoints", "snapshots", "tb", "eval")}
        ckpts = checkpoint_files(self.run_dir)
        self.resumed_from = None
        meta = None
        if ckpts:
            if not cfg["resume"]:
                raise ConfigError(f"run_dir {self.run_dir!r} already holds checkpoints; set resume=true "
                                  "to continue that run or choose another run_dir")
            self.resumed_from = ckpts[-1][1]
            meta = read_metadata(self.resumed_from)  # corrupt -> CheckpointError naming the file
            if meta["game"] != self.core.name:
                raise CheckpointError(
                    f"cannot resume {self.resumed_from!r}: it is a {meta['game']!r} run but the config "
                    f"asks for {self.core.name!r}")
            try:
                read_metadata(self.resumed_from, self.core)
            except CheckpointError as e:
                raise CheckpointError(f"cannot resume: {e}") from None
        for d in self.dirs.values():
            os.makedirs(d, exist_ok=True)

        sp = cfg["selfplay"]
        self.pool = OpponentPool(self.core, cfg["num_envs"], None, baselines=sp["baselines"],
                                 latest=sp["latest"], pfsp_power=sp["pfsp_power"],
                                 pfsp_floor=sp["pfsp_floor"], window=sp["window"],
                                 max_snapshots=sp["max_snapshots"], sample=sp["opponent_sample"],
                                 seed=cfg["seed"], baseline_share=sp["baseline_share"])
        self.env = LearnerVecEnv(self.core, cfg["num_envs"], self.pool, seed=cfg["seed"],
                                 shaping=cfg["ppo"]["reward_shaping"], gamma=cfg["ppo"]["gamma"])
        tb = self.dirs["tb"] if cfg["log"]["tensorboard"] else None
        if self.resumed_from:
            self.model, _ = load_model(self.resumed_from, self.core, env=self.env)
            self.model.tensorboard_log = tb
            self.pool.set_latest_policy(self.model.policy)
            self.pool.load_state_dict(meta.get("pool", {"entries": [], "rng": self.pool.rng.bit_generator.state}),
                                      lambda path: load_model(path, self.core)[0].policy)
            self.env.seed(cfg["seed"] + int(self.model.num_timesteps))
            self.elapsed_before = float(meta.get("elapsed_s", 0.0))
            self.last_eval = meta.get("last_eval", {})
            self.log(f"resuming {self.resumed_from} at step {self.model.num_timesteps}")
        else:
            p = cfg["ppo"]
            arch = list(p["net_arch"])
            policy_kwargs = {"net_arch": {"pi": arch, "vf": arch},
                             "activation_fn": _activation(p["activation"])}
            if getattr(self.core, "num_action_features", 0):
                if p["cnn_channels"]:
                    raise ConfigError("ppo.cnn_channels does not apply with game option action_features "
                                      "(the observation is a flat vector)")
                policy_kwargs["action_features"] = int(self.core.num_action_features)
            if p["cnn_channels"]:
                if len(self.core.observation_shape) != 3:
                    raise ConfigError(f"ppo.cnn_channels needs (H, W, C) observation planes; "
                                      f"{self.core.name} observations are {self.core.observation_shape}")
                from training.policy import PlanesCNN
                policy_kwargs["features_extractor_class"] = PlanesCNN
                policy_kwargs["features_extractor_kwargs"] = {"channels": list(p["cnn_channels"])}
            from training.policy import FastMaskablePolicy
            self.model = MaskablePPO(
                FastMaskablePolicy, self.env, n_steps=p["n_steps"], batch_size=p["batch_size"],
                n_epochs=p["n_epochs"], learning_rate=p["learning_rate"], gamma=p["gamma"],
                gae_lambda=p["gae_lambda"], clip_range=p["clip_range"], ent_coef=p["ent_coef"],
                vf_coef=p["vf_coef"], max_grad_norm=p["max_grad_norm"],
                target_kl=p["target_kl"] or None,
                policy_kwargs=policy_kwargs,
                tensorboard_log=tb, seed=cfg["seed"], device="cpu", verbose=0)
            self.pool.set_latest_policy(self.model.policy)
            self.elapsed_before = 0.0
            self.last_eval = {}

    # -- saving -------------------------------------------------------------------------------
    def _save(self, path: str, **extra) -> dict:
        from yyenvs.agents.checkpoint import write_metadata
        tmp = path[:-4] + ".tmp.zip"
        self.model.save(tmp)
        os.replace(tmp, path)
        return write_metadata(path, self.core, num_timesteps=int(self.model.num_timesteps),
                              algo="MaskablePPO", **extra)

    def save_checkpoint(self, keep: int = 2) -> str:
        step = int(self.model.num_timesteps)
        path = os.path.join(self.dirs["checkpoints"], f"ckpt_{step:010d}.zip")
        self._save(path, kind="checkpoint", pool=self.pool.state_dict(), config=self.cfg,
                   elapsed_s=self.elapsed(), last_eval=self.last_eval)
        for _, old in checkpoint_files(self.run_dir)[:-keep]:
            for f in (old, old[:-4] + ".json"):
                if os.path.exists(f):
                    os.remove(f)
        return path

    def save_snapshot(self) -> str:
        step = int(self.model.num_timesteps)
        path = os.path.join(self.dirs["snapshots"], f"step_{step:010d}.zip")
        self._save(path, kind="snapshot")
        self.pool.add_snapshot(self.model.policy, step, path)
        return path

    def elapsed(self) -> float:
        return self.elapsed_before + (time.time() - self.t_start if hasattr(self, "t_start") else 0.0)

    # -- evaluation during training ------------------------------------------------------------
    def quick_eval(self) -> dict:
        from yyenvs.agents import make_agent
        from yyenvs.agents.checkpoint import PolicyAgent
        from training.evaluate import play_match
        from training.ratings import wilson_interval
        ev = self.cfg["eval"]
        me = PolicyAgent(self.core, self.model.policy, self.cfg["seed"], ev["deterministic"], label="current")
        out = {"step": int(self.model.num_timesteps)}
        for k, name in enumerate(ev["opponents"]):
            w, d, l = play_match(self.core, me, make_agent(name, self.core, 1000 + k), ev["games"],
                                 seed=self.cfg["seed"] + int(self.model.num_timesteps))
            n = w + d + l
            out[name] = {"wins": w, "draws": d, "losses": l, "win_rate": w / n,
                         "ci95": list(wilson_interval(w, n))}
        self.model.policy.set_training_mode(False)
        return out

    # -- the run ----------------------------------------------------------------------------
    def train(self) -> dict:
        from training.callbacks import SelfPlayCallback
        cfg = self.cfg
        remaining = cfg["total_timesteps"] - int(self.model.num_timesteps)
        self.t_start = time.time()
        if remaining > 0:
            cb = SelfPlayCallback(self)
            self.model.learn(total_timesteps=remaining, callback=cb, reset_num_timesteps=False,
                             tb_log_name="ppo", progress_bar=False)
            cb.close()
        else:
            self.log(f"run already at step {self.model.num_timesteps} >= total_timesteps")
        ckpt = self.save_checkpoint()
        final = os.path.join(self.run_dir, "final.zip")
        self._save(final, kind="final")
        return {"checkpoint": ckpt, "final": final, "steps": int(self.model.num_timesteps),
                "elapsed_s": self.elapsed()}

    def final_evaluation(self, print_fn=print) -> dict | None:
        """The final policy vs the baselines (``eval.final_games`` each) plus a round
        robin of evenly spaced snapshots (``eval.table_games`` per pair): table,
        ratings, ``run_dir/eval/eval.json`` and ``ratings.png``."""
        from training.evaluate import format_table, make_entrants, tournament, write_outputs
        ev = self.cfg["eval"]
        if ev["final_games"] <= 0 and ev["table_games"] <= 0:
            return None
        final = os.path.join(self.run_dir, "final.zip")
        snaps = sorted(glob.glob(os.path.join(self.dirs["snapshots"], "step_*.zip")))
        k = ev["table_snapshots"]
        if len(snaps) > k:
            idx = np.unique(np.round(np.linspace(0, len(snaps) - 1, k)).astype(int)) if k else []
            snaps = [snaps[i] for i in idx]
        baselines = list(dict.fromkeys(ev["opponents"]))
        entrants = make_entrants([final] + snaps + baselines, self.core, self.cfg["seed"],
                                 deterministic=ev["deterministic"])
        entrants[0].name = "final"
        n = len(entrants)
        base = set(range(n - len(baselines), n))
        games = {}
        for i in range(n):
            for j in range(i + 1, n):
                if i == 0 and j in base:
                    games[(i, j)] = max(ev["final_games"], 2) if ev["final_games"] else ev["table_games"]
                elif i in base and j in base:
                    games[(i, j)] = ev["table_games"]
                else:
                    games[(i, j)] = ev["table_games"]
        games = {p: g for p, g in games.items() if g >= 2}
        t0 = time.time()
        result = tournament(self.core, entrants, games, seed=self.cfg["seed"] + 77)
        result["training_steps"] = int(self.model.num_timesteps)
        paths = write_outputs(result, self.dirs["eval"])
        print_fn(format_table(result))
        print_fn(headline(result))
        print_fn(f"evaluation took {time.time() - t0:.0f}s; wrote {paths['json']} and {paths['plot']}")
        return result


def headline(result: dict, player: str = "final") -> str:
    lines = []
    for r in result["table"]:
        if r["player"] == player and r["opponent"] in ("random", "greedy") or (
                r["player"] == player and not r["opponent"].startswith("step_")):
            lo, hi = r["win_rate_ci95"]
            lines.append(f"{player} vs {r['opponent']}: {r['wins']} wins, {r['draws']} draws, "
                         f"{r['losses']} losses in {r['games']} games -> win rate "
                         f"{100 * r['win_rate']:.1f}% (95% CI {100 * lo:.1f}-{100 * hi:.1f}%)")
    return "\n".join(lines)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="yyenvs train", description=__doc__.splitlines()[0])
    p.add_argument("--config", "-c", default=None, help="YAML config (e.g. configs/yoxii.yaml)")
    p.add_argument("--run-dir", default=None, help="shortcut for run_dir=...")
    p.add_argument("--quick", action="store_true",
                   help="the short demo run: configs/quick.yaml settings on top of --config")
    p.add_argument("overrides", nargs="*", metavar="KEY=VALUE",
                   help="config overrides, e.g. ppo.learning_rate=1e-4 total_timesteps=200000")
    args = p.parse_args(argv)
    overrides = list(args.overrides)
    try:
        if args.quick:
            overrides = _quick_overrides(args.config) + overrides
        if args.run_dir:
            overrides.append(("run_dir", args.run_dir))
        cfg = load_config(args.config, overrides)
        trainer = Trainer(cfg)
    except OptionError as e:  # ConfigError, CheckpointError and game OptionError
        print(f"yyenvs train: error: {e}", file=sys.stderr)
        return 2
    trainer.log(f"training {cfg['game']} {cfg['game_options'] or ''} for {cfg['total_timesteps']} steps, "
                f"{cfg['num_envs']} games at once, run_dir {cfg['run_dir']}")
    info = trainer.train()
    sps = (info["steps"]) / max(info["elapsed_s"], 1e-9)
    trainer.log(f"trained to step {info['steps']} in {info['elapsed_s']:.0f}s ({sps:.0f} steps/s); "
                f"final policy {info['final']}")
    trainer.final_evaluation()
    return 0


def _quick_overrides(config_path) -> list:
    """The quick demo's settings, from configs/quick.yaml next to the given config."""
    import yaml
    base = os.path.dirname(config_path) if config_path else "configs"
    path = os.path.join(base, "quick.yaml")
    if not os.path.exists(path):
        raise ConfigError(f"--quick needs {path!r}")
    with open(path) as f:
        data = yaml.safe_load(f) or {}
    data.pop("game", None)
    data.pop("game_options", None)  # those belong to the quick file's own game
    flat = []

    def walk(d, prefix=""):
        for k, v in d.items():
            if isinstance(v, dict) and k != "game_options":
                walk(v, f"{prefix}{k}.")
            else:
                flat.append((f"{prefix}{k}", v))
    walk(data)
    return flat


if __name__ == "__main__":
    sys.exit(main())
