"""Self-play training with MaskablePPO on the batched vector environment (the ``yyenvs train``
command, :mod:`yyenvs.commands.train`, runs it and the search trainer).

* The learner plays ``num_envs`` games at once (:class:`yyenvs.integrations.sb3.LearnerVecEnv`),
  its seat drawn per game; opponents come from :class:`yyenvs.training.pool.OpponentPool`
  (latest policy, PFSP-sampled snapshots, scripted baselines), each opponent
  computing its moves for all its rows in one call.
* Every ``selfplay.snapshot_every`` steps a frozen copy of the policy joins the
  pool (and is saved under ``run_dir/snapshots/``); every ``checkpoint.every``
  steps the run is checkpointed under ``run_dir/checkpoints/`` (one safetensors
  file: network, optimiser state, step count, pool state; see
  :mod:`yyenvs.networks.checkpoint`).  Starting again with the same ``run_dir``
  resumes from the newest complete checkpoint (an incomplete one is skipped);
  a checkpoint for another game, other options or another network is refused
  with a message.  The run directory is locked while a run uses it.
* A progress bar shows steps, steps/s and recent win rates; TensorBoard logs
  go to ``run_dir/tb``.  At the end the final policy is evaluated against the
  baselines and a round robin of snapshots is rated (``run_dir/eval``).
"""
from __future__ import annotations

import os
import time


from yyenvs.training.config import ConfigError
from yyenvs.training.run import TrainingRun

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
        from yyenvs.networks.ppo_network import NetworkError, network_spec
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
        from yyenvs.training.pool import OpponentPool, PoolSettings
        cfg = self.cfg
        return OpponentPool(self.core, cfg["num_envs"], None, PoolSettings.from_config(cfg["selfplay"]),
                            seed=cfg["seed"])

    def _make_env(self):
        from yyenvs.integrations.sb3 import LearnerVecEnv
        p = self.cfg["ppo"]
        return LearnerVecEnv(self.core, self.cfg["num_envs"], self.pool, seed=self.cfg["seed"],
                             shaping=p["reward_shaping"], gamma=p["gamma"])

    def _make_model(self):
        from sb3_contrib import MaskablePPO

        from yyenvs.networks.ppo_network import FastMaskablePolicy, policy_kwargs
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
        from yyenvs.networks.checkpoint import CheckpointError, load_optimizer_tensors, load_policy_tensors
        from yyenvs.agents.ppo import load_policy
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
    def _file_contents(self, kind: str) -> tuple[dict, dict]:
        from yyenvs.networks.checkpoint import optimizer_tensors, policy_tensors
        tensors = policy_tensors(self.model.policy)
        if kind == "checkpoint":
            tensors.update(optimizer_tensors(self.model.policy.optimizer))
        return tensors, {"policy": self.spec, "num_timesteps": self.steps,
                         "n_updates": int(self.model._n_updates), "algo": self.algo}

    def _checkpoint_extra(self) -> dict:
        return {"pool": self.pool.state_dict()}

    def save_snapshot(self) -> str:
        name = super().save_snapshot()
        self.pool.add_snapshot(self.model.policy, self.steps, name)
        return name

    @property
    def steps(self) -> int:
        return int(self.model.num_timesteps)

    def _current_agent(self):
        from yyenvs.agents.ppo import PolicyAgent
        return PolicyAgent(self.core, self.model.policy, self.cfg["seed"], self.cfg["eval"]["deterministic"],
                           label="current")

    def quick_eval(self) -> dict:
        out = super().quick_eval()
        self.model.policy.set_training_mode(False)
        return out

    # -- the run ----------------------------------------------------------------------------
    def train(self) -> dict:
        from yyenvs.training.callbacks import SelfPlayCallback
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
