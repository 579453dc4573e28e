"""Self-play training with MaskablePPO on the batched vector environment.

``yyenvs train --config configs/yoxii.yaml [KEY=VALUE ...]``
(or ``python -m training.train ...``).

* The learner plays ``num_envs`` games at once (:class:`yyenvs.integrations.sb3.LearnerVecEnv`),
  its seat drawn per game; opponents come from :class:`training.pool.OpponentPool`
  (latest policy, PFSP-sampled snapshots, scripted baselines), each opponent
  computing its moves for all its rows in one call.
* Every ``selfplay.snapshot_every`` steps a frozen copy of the policy joins the
  pool (and is saved under ``run_dir/snapshots/``); every ``checkpoint.every``
  steps the run is checkpointed under ``run_dir/checkpoints/`` (one safetensors
  file: network, optimiser state, step count, pool state; see
  :mod:`yyenvs.agents.checkpoint`).  Starting again with the same ``run_dir``
  resumes from the newest complete checkpoint (an incomplete one is skipped);
  a checkpoint for another game, other options or another network is refused
  with a message.  The run directory is locked while a run uses it.
* A progress bar shows steps, steps/s and recent win rates; TensorBoard logs
  go to ``run_dir/tb``.  At the end the final policy is evaluated against the
  baselines and a round robin of snapshots is rated (``run_dir/eval``).
"""
from __future__ import annotations

import glob
import os
import re
import sys
import time

import numpy as np

from yyenvs.cli import ArgumentParser, one_line
from yyenvs.core.contract import OptionError
from yyenvs.games import make_core
from training.config import ConfigError, load_config

CKPT_RE = re.compile(r"ckpt_(\d{10})\.safetensors$")


def checkpoint_files(run_dir: str) -> list[tuple[int, str]]:
    """(step, path) of the run's checkpoints, oldest first."""
    out = []
    for path in glob.glob(os.path.join(run_dir, "checkpoints", "ckpt_*.safetensors")):
        m = CKPT_RE.search(path)
        if m:
            out.append((int(m.group(1)), path))
    return sorted(out)


class RunLock:
    """An exclusive lock on a run directory for as long as a run uses it.

    ``flock`` locks vanish with the process that held them, so the lock of a
    process that died is taken over without any clean-up.
    """

    def __init__(self, run_dir: str):
        import fcntl
        self.path = os.path.join(run_dir, ".lock")
        try:  # never through a link: a crafted run_dir must not make us write elsewhere
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o644)
        except OSError as e:
            raise ConfigError(f"run_dir {run_dir!r}: cannot use its lock file {self.path!r}: "
                              f"{e.strerror or e}") from None
        self.fh = os.fdopen(fd, "r+")
        try:
            fcntl.flock(self.fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            self.fh.seek(0)
            holder = self.fh.read().strip() or "another process"
            self.fh.close()
            raise ConfigError(f"run_dir {run_dir!r} is in use by another training run (pid {holder}); "
                              "wait for it to finish or choose another run_dir") from None
        self.fh.truncate(0)
        self.fh.write(str(os.getpid()))
        self.fh.flush()

    def release(self) -> None:
        if not self.fh.closed:
            self.fh.close()  # closing the file releases the flock


class TrainingRun:
    """What every trainer's run has: its config, game core, locked run directory, clock and
    final evaluation.  A trainer subclasses it (:class:`Trainer` for PPO,
    :class:`training.az.AZTrainer`)."""

    #: the ``algo`` a training checkpoint of this trainer records
    algo = ""

    def _open_run(self, cfg: dict, log=None) -> None:
        self.cfg = cfg
        self.log = log or (lambda msg: print(msg, file=sys.stderr, flush=True))
        self._set_threads()
        self.core = make_core(cfg["game"], **cfg["game_options"])
        self._make_run_dirs()
        self.lock = RunLock(self.run_dir)

    # -- the run directory ------------------------------------------------------------
    def _set_threads(self) -> None:
        import torch
        torch.set_num_threads(self.cfg["torch_threads"])

    def _make_run_dirs(self) -> None:
        """``run_dir`` (a new one per run where it holds ``{time}``) and its sub-directories."""
        cfg = self.cfg
        if "{time}" in cfg["run_dir"]:  # a new directory per run (the quick demo)
            cfg["run_dir"] = cfg["run_dir"].replace("{time}", time.strftime("%Y%m%d-%H%M%S"))
        self.run_dir = cfg["run_dir"]
        self.dirs = {k: os.path.join(self.run_dir, k) for k in ("checkpoints", "snapshots", "tb", "eval")}
        try:
            for d in self.dirs.values():
                os.makedirs(d, exist_ok=True)
        except OSError as e:
            raise ConfigError(f"run_dir {self.run_dir!r} cannot be used: {e.strerror or e}") from None

    def close(self) -> None:
        """Release the run directory."""
        self.lock.release()

    def _remove_stale_temporaries(self) -> None:
        """Half-written files of a killed run (never read: a save renames only complete files)."""
        pattern = [os.path.join(self.dirs[d], "*.safetensors.tmp*") for d in ("checkpoints", "snapshots")]
        for tmp in glob.glob(pattern[0]) + glob.glob(pattern[1]) + glob.glob(
                os.path.join(self.run_dir, "final.safetensors.tmp*")):
            if os.path.isfile(tmp) and not os.path.islink(tmp):
                os.remove(tmp)

    def _find_resume_point(self):
        """``(path, meta, tensors)`` of the newest complete checkpoint, or None for a fresh run.

        A newest checkpoint that cannot be read (truncated, altered, malformed) is
        skipped and reported; one for another game or other options is refused.
        """
        from yyenvs.agents.checkpoint import CheckpointError, check_compatible, read_checkpoint
        ckpts = checkpoint_files(self.run_dir)
        legacy = glob.glob(os.path.join(self.dirs["checkpoints"], "ckpt_*.zip"))
        if legacy and not ckpts:
            raise CheckpointError(
                f"run_dir {self.run_dir!r} holds checkpoints in the earlier stable-baselines3 zip format, "
                "which is not loaded (loading it unpickles, which can run code); convert the newest with "
                f"'yyenvs checkpoint convert --trust {sorted(legacy)[-1]}' if you trust it, "
                "or choose another run_dir")
        if not ckpts:
            self._refuse_earlier_outputs()
            return None
        if not self.cfg["resume"]:
            raise ConfigError(f"run_dir {self.run_dir!r} already holds checkpoints; set resume=true "
                              "to continue that run or choose another run_dir")
        for _, path in reversed(ckpts):
            try:
                meta, tensors = read_checkpoint(path)
            except CheckpointError as e:  # read without a core: a fault of the file itself
                self.log(f"skipping incomplete or unreadable checkpoint: {e}")
                continue
            if meta["kind"] != "checkpoint" or meta.get("algo", "MaskablePPO") != self.algo or (
                    self.algo == "MaskablePPO" and meta.get("pool") is None):
                self.log(f"skipping {path!r}: a {meta['kind']} file, not a training checkpoint")
                continue
            if meta["game"] != self.core.name:
                raise CheckpointError(f"cannot resume {path!r}: it is a {meta['game']!r} run but the config "
                                      f"asks for {self.core.name!r}")
            try:
                check_compatible(meta, self.core, f"checkpoint {path!r}")
            except CheckpointError as e:
                raise CheckpointError(f"cannot resume: {e}") from None
            return path, meta, tensors
        raise CheckpointError(f"run_dir {self.run_dir!r}: none of its {len(ckpts)} checkpoints is readable; "
                              "choose another run_dir")

    def _refuse_earlier_outputs(self) -> None:
        """ConfigError if a fresh run would write over files of an earlier run in ``run_dir``."""
        earlier = [os.path.join(self.run_dir, "final.safetensors"),
                   os.path.join(self.dirs["eval"], "eval.json"), os.path.join(self.dirs["eval"], "ratings.png")]
        earlier += sorted(glob.glob(os.path.join(self.dirs["snapshots"], "*.safetensors")))[:1]
        found = next((p for p in earlier if os.path.lexists(p)), None)
        if found is not None:
            raise ConfigError(f"run_dir {self.run_dir!r} holds {found!r} from an earlier run and no checkpoint "
                              "to resume from; a new run would replace it: choose another run_dir")

    def elapsed(self) -> float:
        return self.elapsed_before + (time.time() - self.t_start if hasattr(self, "t_start") else 0.0)

    def final_entrant(self, final: str) -> str:
        """The agent spec of the final policy in the final evaluation."""
        return final

    def final_evaluation(self, print_fn=print) -> dict | None:
        """The final policy vs the baselines (``eval.final_games`` each) plus a round
        robin of evenly spaced snapshots (``eval.table_games`` per pair): table,
        ratings, ``run_dir/eval/eval.json`` and ``ratings.png``."""
        from training.evaluate import format_table, make_entrants, tournament, write_outputs
        ev = self.cfg["eval"]
        if ev["final_games"] <= 0 and ev["table_games"] <= 0:
            return None
        final = os.path.join(self.run_dir, "final.safetensors")
        snaps = sorted(glob.glob(os.path.join(self.dirs["snapshots"], "step_*.safetensors")))
        k = ev["table_snapshots"]
        if len(snaps) > k:
            idx = np.unique(np.round(np.linspace(0, len(snaps) - 1, k)).astype(int)) if k else []
            snaps = [snaps[i] for i in idx]
        baselines = list(dict.fromkeys(ev["opponents"]))
        entrants = make_entrants([self.final_entrant(final)] + snaps + baselines, self.core, self.cfg["seed"],
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
        result["training_steps"] = self.steps
        paths = write_outputs(result, self.dirs["eval"])
        print_fn(format_table(result))
        print_fn(headline(result))
        print_fn(f"evaluation took {time.time() - t0:.0f}s; wrote {paths['json']} and {paths['plot']}")
        return result


class Trainer(TrainingRun):
    """One MaskablePPO training run (fresh or resumed) described by a config dict.

    The run directory is locked from construction until :meth:`close`.
    """

    algo = "MaskablePPO"

    def __init__(self, cfg: dict, log=None):
        self._open_run(cfg, log)
        try:
            self._remove_stale_temporaries()
            resume = self._find_resume_point()
            self.spec = self._network_spec()
            self._check_resume_network(resume)
            self.pool = self._make_pool()
            self.env = self._make_env()
            self.model = self._make_model()
            self.pool.set_latest_policy(self.model.policy)
            self.resumed_from = None
            self.elapsed_before = 0.0
            self.last_eval = {}
            if resume is not None:
                self._restore(*resume)
        except BaseException:
            self.lock.release()
            raise

    def _network_spec(self) -> dict:
        """The network description the ``ppo`` section asks for (ConfigError if it does not fit)."""
        from yyenvs.agents.network import NetworkError, network_spec
        p = self.cfg["ppo"]
        try:
            return network_spec(self.core, p["net_arch"], p["activation"], p["cnn_channels"])
        except NetworkError as e:
            raise ConfigError(f"ppo: {e}") from None

    def _check_resume_network(self, resume) -> None:
        """A run resumes only with the network it was trained with."""
        if resume is not None and resume[1]["policy"] != self.spec:
            saved = resume[1]["policy"]
            diff = ", ".join(f"{k}: checkpoint {saved[k]!r} vs config {self.spec[k]!r}"
                             for k in self.spec if saved.get(k) != self.spec[k])
            raise ConfigError(f"cannot resume {resume[0]!r}: the config asks for another network ({diff})")

    def _make_pool(self):
        """The self-play pool (its latest policy is set once the model exists)."""
        from training.pool import OpponentPool
        cfg, sp = self.cfg, self.cfg["selfplay"]
        return OpponentPool(self.core, cfg["num_envs"], None, baselines=sp["baselines"],
                            latest=sp["latest"], pfsp_power=sp["pfsp_power"],
                            pfsp_floor=sp["pfsp_floor"], window=sp["window"],
                            max_snapshots=sp["max_snapshots"], sample=sp["opponent_sample"],
                            seed=cfg["seed"], baseline_share=sp["baseline_share"])

    def _make_env(self):
        from yyenvs.integrations.sb3 import LearnerVecEnv
        p = self.cfg["ppo"]
        return LearnerVecEnv(self.core, self.cfg["num_envs"], self.pool, seed=self.cfg["seed"],
                             shaping=p["reward_shaping"], gamma=p["gamma"])

    def _make_model(self):
        from sb3_contrib import MaskablePPO

        from yyenvs.agents.network import FastMaskablePolicy, policy_kwargs
        cfg, p = self.cfg, self.cfg["ppo"]
        return MaskablePPO(
            FastMaskablePolicy, self.env, n_steps=p["n_steps"], batch_size=p["batch_size"],
            n_epochs=p["n_epochs"], learning_rate=p["learning_rate"], gamma=p["gamma"],
            gae_lambda=p["gae_lambda"], clip_range=p["clip_range"], ent_coef=p["ent_coef"],
            vf_coef=p["vf_coef"], max_grad_norm=p["max_grad_norm"], target_kl=p["target_kl"] or None,
            policy_kwargs=policy_kwargs(self.core, self.spec),
            tensorboard_log=self.dirs["tb"] if cfg["log"]["tensorboard"] else None,
            seed=cfg["seed"], device="cpu", verbose=0)

    def _restore(self, path: str, meta: dict, tensors: dict) -> None:
        """Load a training checkpoint's network, optimiser state, step count and pool."""
        from yyenvs.agents.checkpoint import (CheckpointError, load_optimizer_tensors, load_policy,
                                              load_policy_tensors)
        what = f"checkpoint {path!r}"
        if not meta["policy"]["value_net"]:
            raise CheckpointError(f"cannot resume from {what}: it holds a policy only (no value network)")
        load_policy_tensors(self.model.policy, tensors, what)
        load_optimizer_tensors(self.model.policy.optimizer, tensors, what)
        self.model.num_timesteps = int(meta["num_timesteps"])
        self.model._n_updates = int(meta.get("n_updates") or 0)

        def load_snapshot(name):
            try:
                return load_policy(os.path.join(self.dirs["snapshots"], name), self.core)[0]
            except CheckpointError as e:
                self.log(f"pool: leaving out snapshot {name}: {e}")
                return None
        self.pool.load_state_dict(meta["pool"], load_snapshot)
        self.env.seed(self.cfg["seed"] + int(self.model.num_timesteps))
        self.elapsed_before = float(meta.get("elapsed_s") or 0.0)
        self.resumed_from = path
        self.log(f"resuming {path} at step {self.model.num_timesteps}")

    # -- saving -------------------------------------------------------------------------------
    def _save(self, path: str, kind: str, **extra) -> dict:
        from yyenvs.agents.checkpoint import game_metadata, optimizer_tensors, policy_tensors, write_checkpoint
        tensors = policy_tensors(self.model.policy)
        if kind == "checkpoint":
            tensors.update(optimizer_tensors(self.model.policy.optimizer))
        meta = {"kind": kind, **game_metadata(self.core), "policy": self.spec,
                "num_timesteps": int(self.model.num_timesteps), "n_updates": int(self.model._n_updates),
                "algo": "MaskablePPO", **extra}
        return write_checkpoint(path, tensors, meta)

    def save_checkpoint(self, keep: int = 2) -> str:
        step = int(self.model.num_timesteps)
        path = os.path.join(self.dirs["checkpoints"], f"ckpt_{step:010d}.safetensors")
        self._save(path, "checkpoint", pool=self.pool.state_dict(), config=self.cfg,
                   elapsed_s=self.elapsed())
        for _, old in checkpoint_files(self.run_dir)[:-keep]:
            os.remove(old)  # only once the newer one is complete
        return path

    def save_snapshot(self) -> str:
        step = int(self.model.num_timesteps)
        name = f"step_{step:010d}.safetensors"
        self._save(os.path.join(self.dirs["snapshots"], name), "snapshot")
        self.pool.add_snapshot(self.model.policy, step, name)
        return name

    @property
    def steps(self) -> int:
        return int(self.model.num_timesteps)

    # -- evaluation during training ------------------------------------------------------------
    def quick_eval(self) -> dict:
        from yyenvs.agents import make_agent
        from yyenvs.agents.checkpoint import PolicyAgent
        from yyenvs.agents.match import play_match
        from training.ratings import wilson_interval
        ev = self.cfg["eval"]
        me = PolicyAgent(self.core, self.model.policy, self.cfg["seed"], ev["deterministic"], label="current")
        out = {"step": int(self.model.num_timesteps)}
        for k, name in enumerate(ev["opponents"]):
            r = play_match(self.core, me, make_agent(name, self.core, 1000 + k), ev["games"],
                           seed=self.cfg["seed"] + int(self.model.num_timesteps))
            w, d, l = r["wins"], r["draws"], r["losses"]
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
        final = os.path.join(self.run_dir, "final.safetensors")
        self._save(final, "final")
        return {"checkpoint": ckpt, "final": final, "steps": int(self.model.num_timesteps),
                "elapsed_s": self.elapsed()}


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
    p = ArgumentParser(prog="yyenvs train", description=__doc__.splitlines()[0])
    p.add_argument("--config", "-c", default=None, help="YAML config (e.g. configs/yoxii.yaml)")
    p.add_argument("--run-dir", default=None, help="shortcut for run_dir=...")
    p.add_argument("--algo", choices=("ppo", "az"), default=None,
                   help="shortcut for algo=...: ppo (MaskablePPO self-play, the default) or az "
                        "(Gumbel AlphaZero: search with a policy-value network)")
    p.add_argument("--backend", choices=("local", "rllib"), default="local",
                   help="local: the project's trainers (default); rllib: PPO on RLlib (training/rllib_train.py, "
                        "in the RLlib environment)")
    p.add_argument("--ray-address", default=None, metavar="ADDRESS",
                   help="with --backend rllib, or --algo az with az.workers > 0: the Ray cluster to run on "
                        "(default: start Ray on this machine)")
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
        if args.algo:
            overrides.append(("algo", args.algo))
        cfg = load_config(args.config, overrides)
        if args.ray_address is not None and args.backend != "rllib" and not (
                cfg["algo"] == "az" and cfg["az"]["workers"] > 0):
            raise ConfigError("--ray-address needs --backend rllib, or algo az with az.workers > 0")
        if args.backend == "rllib":
            return _train_on_rllib(cfg, args.ray_address)
        if cfg["algo"] == "az":
            from training.az import AZTrainer
            trainer = AZTrainer(cfg, ray_address=args.ray_address)
        else:
            trainer = Trainer(cfg)
    except OptionError as e:  # ConfigError, CheckpointError and game OptionError
        print(f"yyenvs train: error: {one_line(e)}", file=sys.stderr)
        return 2
    try:
        trainer.log(f"training {cfg['game']} {cfg['game_options'] or ''} for {cfg['total_timesteps']} steps, "
                    f"{cfg['num_envs']} games at once, run_dir {cfg['run_dir']}")
        info = trainer.train()
        sps = (info["steps"]) / max(info["elapsed_s"], 1e-9)
        trainer.log(f"trained to step {info['steps']} in {info['elapsed_s']:.0f}s ({sps:.0f} steps/s); "
                    f"final policy {info['final']}")
        trainer.final_evaluation()
    except OptionError as e:  # e.g. a checkpoint that could not be written (disk full)
        print(f"yyenvs train: error: {one_line(e)}", file=sys.stderr)
        return 2
    finally:
        trainer.close()
    return 0


def _train_on_rllib(cfg: dict, address) -> int:
    if cfg["algo"] != "ppo":
        raise ConfigError(f"--backend rllib trains PPO only, not algo {cfg['algo']!r}")
    try:
        import ray.rllib  # noqa: F401
    except ImportError as e:
        raise ConfigError(f"--backend rllib needs RLlib ({e}): pip install -e '.[rllib]' in an environment "
                          f"of its own (ray[rllib] pins gymnasium 1.2.2), e.g. ./dev test makes .venv-rllib") from None
    from training.rllib_train import run
    run(cfg, address, log=lambda m: print(m, flush=True))
    return 0


def _quick_overrides(config_path) -> list:
    """The quick demo's settings, from configs/quick.yaml next to the given config."""
    from training.config import flat_config, read_config_file
    base = os.path.dirname(config_path) if config_path else "configs"
    path = os.path.join(base, "quick.yaml")
    if not os.path.exists(path):
        raise ConfigError(f"--quick needs {path!r}")
    data = read_config_file(path)
    data.pop("game", None)
    data.pop("game_options", None)  # those belong to the quick file's own game
    return list(flat_config(data).items())


if __name__ == "__main__":
    sys.exit(main())
