"""Self-play training with Gumbel search and a policy-value network (Gumbel AlphaZero).

``yyenvs train --algo az --config configs/az_koi.yaml [KEY=VALUE ...]``.

* ``num_envs`` games are played at once, all in one core state.  Every move
  of every game is chosen by one batched search
  (:class:`yyenvs.search.gumbel.GumbelSearch`, ``az.simulations`` per move)
  that evaluates the leaves of all games in one network call.  A position with
  a single legal action is played without search and not recorded.
* Each recorded position keeps its observation, its legal actions, the
  search's improved policy (the policy target) and, once the game is over,
  the return of every seat from that position on, seen from the mover's seat
  (the value target; with ``az.q_weight`` partly the search's value of the
  position).  Finished positions go to a replay buffer of the last
  ``az.replay_size``; gradient steps on random minibatches keep the samples
  trained per sample played near ``az.train_ratio``.  Loss: cross-entropy of
  the masked policy with the target plus ``az.value_weight`` times the mean
  squared value error; AdamW, its rate constant or (``az.lr_schedule: cosine``)
  falling to ``az.lr_final`` x it over the invocation's budget.  With
  ``az.augment`` each trained position is seen through one of the board
  symmetries its game declares (its spec's ``symmetry``), drawn at random.
* Every ``selfplay.snapshot_every`` moves a snapshot of the network is saved
  under ``run_dir/snapshots/``; every ``checkpoint.every`` moves the run is
  checkpointed (network, optimiser state, counters; the replay buffer is not
  kept, a resumed run refills it).  Starting again with the same ``run_dir``
  resumes from the newest complete checkpoint.  ``eval.every`` moves the
  network with ``az.eval_simulations`` per move plays ``eval.opponents``.  A
  progress bar shows moves, moves/s, the last evaluation and the self-play
  search's simulations/s with its shares of time; TensorBoard logs
  go to ``run_dir/tb``.  At the end the final network (with search) plays the
  baselines and a round robin of snapshots is rated (``run_dir/eval``).
"""
from __future__ import annotations

import math
import os
import time

import numpy as np
import torch

from yyenvs.networks.device import resolve_device
from yyenvs.search.gumbel import GumbelSearch
from yyenvs.search.settings import GumbelSettings
from yyenvs.core.errors import NetworkError
from yyenvs.networks.search_network import make_network, network_description
from yyenvs.training.config import SEARCH_KEYS, ConfigError
from yyenvs.evaluation.ladder import ladder_ratings
from yyenvs.training.progress import ProgressBar, StrengthLog
from yyenvs.training.run import TrainingRun
from yyenvs.training.selfplay import LocalSelfPlay, SelfPlay, Targets, make_baselines, make_search

ALGO = "GumbelAZ"


class ReplayBuffer:
    """The last ``capacity`` finished positions: observation, legal actions, policy and value targets."""

    def __init__(self, capacity: int, obs_shape, num_actions: int, num_players: int):
        self.capacity = int(capacity)
        self.obs = np.zeros((capacity, *obs_shape), np.float16)  # observations are small fractions
        self.mask = np.zeros((capacity, num_actions), np.bool_)
        self.policy = np.zeros((capacity, num_actions), np.float16)
        self.value = np.zeros((capacity, num_players), np.float32)
        self.size = 0
        self.next = 0

    def add(self, obs, mask, policy, value) -> None:
        n = obs.shape[0]
        if n > self.capacity:
            obs, mask, policy, value = obs[-self.capacity:], mask[-self.capacity:], policy[-self.capacity:], value[-self.capacity:]
            n = self.capacity
        idx = (self.next + np.arange(n)) % self.capacity
        self.obs[idx] = obs
        self.mask[idx] = mask
        self.policy[idx] = policy
        self.value[idx] = value
        self.next = int((self.next + n) % self.capacity)
        self.size = min(self.size + n, self.capacity)

    def sample(self, n: int, rng: np.random.Generator, symmetries=()):
        """A minibatch as torch tensors; with ``symmetries``, each position seen through one of
        them drawn at random (a turned board with its policy turned alike)."""
        idx = rng.integers(0, self.size, n)
        obs, mask, policy = self.obs[idx].astype(np.float32), self.mask[idx], self.policy[idx].astype(np.float32)
        if len(symmetries) > 1:
            which = rng.integers(0, len(symmetries), n)
            for g in np.unique(which):
                if g == 0:  # the identity
                    continue
                rows = np.flatnonzero(which == g)
                sym = symmetries[g]
                obs[rows] = sym.observations(obs[rows])
                mask[rows] = sym.per_action(mask[rows])
                policy[rows] = sym.per_action(policy[rows])
        return (torch.from_numpy(obs), torch.from_numpy(np.ascontiguousarray(mask)), torch.from_numpy(policy),
                torch.from_numpy(self.value[idx]))


def cosine_rate(start: float, final: float, done: float) -> float:
    """The learning rate ``done`` (0 to 1) of the way through a cosine schedule from
    ``start`` down to ``final`` x ``start``."""
    done = min(max(done, 0.0), 1.0)
    return start * (final + (1.0 - final) * 0.5 * (1.0 + math.cos(math.pi * done)))


class AZTrainer(TrainingRun):
    """One Gumbel AlphaZero training run (fresh or resumed) described by a config dict."""

    algo = ALGO
    #: one: the search calls the network once per simulation wave, and on 2 cores a second torch
    #: thread slowed self-play by a fifth (docs/performance.md#threads)
    torch_threads = 1

    def __init__(self, cfg: dict, log=None, ray_address: str | None = None):
        self.ray_address = ray_address  # with az.workers: the Ray cluster ("" or None: start Ray here)
        self._open_run(cfg, log)
        try:
            self._remove_stale_temporaries()
            resume = self._find_resume_point()
            self.az = cfg["az"]
            if self.az["score_weight"] and (getattr(self.core, "scores", None) is None or self.core.num_players < 2):
                raise ConfigError(f"az.score_weight: {self.core.name} here has no scores to compare between seats")
            try:
                self.desc = network_description(self.core, self.az["hidden"], self.az["channels"], self.az["blocks"],
                                                self.az["discount"])
            except NetworkError as e:
                raise ConfigError(f"az: {e}") from None
            if resume is not None and resume[1]["policy"] != self.desc:
                raise ConfigError(f"cannot resume {resume[0]!r}: the config asks for another network "
                                  f"({self.desc} vs the checkpoint's {resume[1]['policy']})")
            torch.manual_seed(cfg["seed"])
            self.device = resolve_device(cfg["device"])
            self.net = make_network(self.core, self.desc).to(self.device)
            self.opt = torch.optim.AdamW(self.net.parameters(), lr=self.az["learning_rate"],
                                         weight_decay=self.az["weight_decay"])
            self.search = self._make_search(self.az["simulations"], self.az["gumbel_scale"])
            self.replay = ReplayBuffer(self.az["replay_size"], self.core.observation_shape,
                                       self.core.num_actions, self.core.num_players)
            self.rng = np.random.default_rng(cfg["seed"])
            self.symmetries = self.core.symmetries() if self.az["augment"] else ()
            self.baselines = make_baselines(self.core, cfg, self.net, self.device)
            self.num_timesteps = 0
            self.n_updates = 0
            self.samples_trained = 0
            self.samples_played = 0
            self.games_finished = 0
            self.elapsed_before = 0.0
            self.resumed_from = None
            self.last_eval: dict = {}
            if resume is not None:
                self._restore(*resume)
        except BaseException:
            self.lock.release()
            raise

    # -- pieces -------------------------------------------------------------------------------
    def _make_search(self, simulations: int, gumbel_scale: float) -> GumbelSearch:
        return make_search(self.core, self.net, self.az, simulations, gumbel_scale, self.cfg["seed"], self.device)

    @property
    def steps(self) -> int:
        return self.num_timesteps

    def _restore(self, path: str, meta: dict, tensors: dict) -> None:
        from yyenvs.networks.checkpoint import load_optimizer_tensors, load_policy_tensors
        what = f"checkpoint {path!r}"
        load_policy_tensors(self.net, tensors, what)
        load_optimizer_tensors(self.opt, tensors, what)
        self.num_timesteps = int(meta["num_timesteps"])
        self.n_updates = int(meta.get("n_updates") or 0)
        self.games_finished = int(meta.get("games") or 0)
        self.elapsed_before = float(meta.get("elapsed_s") or 0.0)
        self.rng = np.random.default_rng([self.cfg["seed"], self.num_timesteps])
        self.resumed_from = path
        self.log(f"resuming {path} at step {self.num_timesteps}")

    def _file_contents(self, kind: str) -> tuple[dict, dict]:
        from yyenvs.networks.checkpoint import optimizer_tensors, policy_tensors
        tensors = policy_tensors(self.net)
        if kind == "checkpoint":
            tensors.update(optimizer_tensors(self.opt))
        return tensors, {"policy": self.desc, "num_timesteps": self.num_timesteps, "n_updates": self.n_updates,
                         "algo": ALGO, "games": self.games_finished}

    def eval_search_options(self) -> dict:
        """The config's search settings that differ from an az agent's defaults: the evaluations'
        searches (quick and final) use them, so they search as self-play does."""
        keys = [k for k in SEARCH_KEYS if k != "gumbel_scale"]  # noise at the root is self-play's alone
        options = {k: self.az[k] for k in keys if self.az[k] != GumbelSettings.default(k)}
        if self.cfg["device"] != "auto":  # the evaluations' networks run where the trainer's does
            options["device"] = self.cfg["device"]
        return options

    def final_entrant(self, final: str) -> str:
        from yyenvs.agents.az import az_spec
        return az_spec(final, self.az["eval_simulations"], self.eval_search_options())

    def _current_agent(self):
        from yyenvs.agents.az import AZAgent
        return AZAgent(self.core, self.net, self.cfg["seed"], self.az["eval_simulations"], label="current",
                       **self.eval_search_options())

    # -- learning -----------------------------------------------------------------------------
    def set_learning_rate(self, rate: float) -> None:
        for group in self.opt.param_groups:
            group["lr"] = rate

    def train_step(self) -> tuple[float, float]:
        """One gradient step on a batch from the replay buffer; its policy and value losses."""
        batch = self.replay.sample(self.az["batch_size"], self.rng, self.symmetries)
        obs, mask, policy, value = (t.to(self.device, non_blocking=True) for t in batch)
        logits, v = self.net(obs)
        logp = torch.log_softmax(logits.masked_fill(~mask, -1e9), dim=1)
        policy_loss = -(policy * torch.where(mask, logp, 0.0)).sum(1).mean()
        value_loss = ((v - value) ** 2).mean()
        loss = policy_loss + self.az["value_weight"] * value_loss
        self.opt.zero_grad(set_to_none=True)
        loss.backward()
        self.opt.step()
        self.n_updates += 1
        self.samples_trained += obs.shape[0]
        return float(policy_loss.detach()), float(value_loss.detach())

    # -- the run ------------------------------------------------------------------------------
    def train(self) -> dict:
        cfg, az, core = self.cfg, self.az, self.core
        G = cfg["num_envs"]
        self.t_start = time.time()
        max_seconds = 60.0 * cfg["max_minutes"] if cfg["max_minutes"] > 0 else math.inf
        if az["workers"]:
            from yyenvs.training.distributed import RaySelfPlay
            source = RaySelfPlay(self, self.ray_address)
        else:  # a resumed run starts new seed streams
            source = LocalSelfPlay(SelfPlay(core, self.search, G, cfg["seed"], self.games_finished, self.baselines,
                                            cfg["selfplay"]["baseline_share"], Targets.from_config(az)))
        self.source = source
        baseline_results = [[] for _ in self.baselines]
        writer = None
        if cfg["log"]["tensorboard"]:
            from torch.utils.tensorboard import SummaryWriter
            writer = SummaryWriter(os.path.join(self.dirs["tb"], "az"))
        bar = ProgressBar(cfg, self.num_timesteps, "move", core.name) if cfg["log"]["progress"] else None
        self.strength = StrengthLog(cfg, self.dirs["eval"], self.num_timesteps, self.elapsed_before,
                                    ladder_ratings(self.core))
        every = {"snapshot": cfg["selfplay"]["snapshot_every"], "checkpoint": cfg["checkpoint"]["every"]}
        due = {k: (self.num_timesteps // v + 1) * v if v != math.inf else math.inf for k, v in every.items()}
        losses = []
        step0, t0 = self.num_timesteps, time.time()
        last_log = t0
        while self.num_timesteps < cfg["total_timesteps"] and time.time() - t0 < max_seconds:
            samples, recorded, results, moves = source.next()
            self.num_timesteps += moves
            self.samples_played += recorded
            for sample in samples:
                self.replay.add(*sample)
            self.games_finished += len(samples)
            for k, win in results:
                baseline_results[k].append(win)
            if self.replay.size >= az["min_replay"]:
                if az["lr_schedule"] == "cosine":
                    done = max((self.num_timesteps - step0) / max(cfg["total_timesteps"] - step0, 1),
                               (time.time() - t0) / max_seconds)
                    self.set_learning_rate(cosine_rate(az["learning_rate"], az["lr_final"], done))
                while self.samples_trained < az["train_ratio"] * self.samples_played:
                    losses.append(self.train_step())
                source.trained(self)
            self._on_step(due, every, bar, writer, losses)
            if writer is not None and time.time() - last_log > 10 and losses:
                pl, vl = np.mean(losses, axis=0)
                writer.add_scalar("loss/policy", pl, self.num_timesteps)
                writer.add_scalar("loss/value", vl, self.num_timesteps)
                writer.add_scalar("train/learning_rate", self.opt.param_groups[0]["lr"], self.num_timesteps)
                writer.add_scalar("time/moves_per_second", (self.num_timesteps - step0) / (time.time() - t0),
                                  self.num_timesteps)
                for name, results in zip(cfg["selfplay"]["baselines"], baseline_results):
                    if results:
                        writer.add_scalar(f"selfplay/win_rate_vs_{name}", np.mean(results), self.num_timesteps)
                        results.clear()
                losses = []
                last_log = time.time()
        source.close()
        if time.time() - t0 >= max_seconds:
            self.log(f"max_minutes reached at step {self.num_timesteps}; stopping")
        if bar is not None:
            bar.close()
        if writer is not None:
            writer.close()
        ckpt = self.save_checkpoint()
        final = os.path.join(self.run_dir, "final.safetensors")
        self._save(final, "final")
        return {"checkpoint": ckpt, "final": final, "steps": self.num_timesteps, "elapsed_s": self.elapsed()}

    def _search_speed(self, bar) -> list[str]:
        """The self-play search's simulations per second since the bar last showed them, and the
        shares of its time in the network, the core and the tree kernels (none before a search ended)."""
        now, stats = time.time(), self.source.stats()
        before, then = getattr(bar, "search_stats", None), getattr(bar, "search_shown", now)
        bar.search_stats, bar.search_shown = stats, now
        if before is None or not stats.get("seconds", 0) > before.get("seconds", 0) or now <= then:
            return []
        d = {k: stats[k] - before.get(k, 0) for k in stats}
        rate = d["simulations"] / (now - then)
        return [f"{rate / 1000:.1f}k sims/s: net {100 * d['network'] / d['seconds']:.0f}% "
                f"core {100 * d['core'] / d['seconds']:.0f}% tree {100 * d['tree'] / d['seconds']:.0f}%"]

    def _on_step(self, due, every, bar, writer, losses) -> None:
        step = self.num_timesteps
        if step >= due["snapshot"]:
            self.save_snapshot()
            due["snapshot"] = (step // every["snapshot"] + 1) * every["snapshot"]
        if self.strength.due(step):
            self.last_eval = self.quick_eval()
            self.strength.record(self.last_eval, bar.write if bar is not None else self.log)
            if writer is not None:
                for name, r in self.last_eval.items():
                    if isinstance(r, dict):
                        writer.add_scalar(f"eval/win_rate_vs_{name}", r["win_rate"], step)
        if step >= due["checkpoint"]:
            self.save_checkpoint()
            due["checkpoint"] = (step // every["checkpoint"] + 1) * every["checkpoint"]
        if bar is not None and bar.due():
            parts = [f"games {self.games_finished}"]
            if losses:
                pl, vl = np.mean(losses[-50:], axis=0)
                parts.append(f"loss: policy {pl:.2f} value {vl:.3f}")
            if self.last_eval:
                parts.append("eval " + " ".join(f"{k} {100 * v['win_rate']:.0f}%"
                                                for k, v in self.last_eval.items() if isinstance(v, dict)))
            parts += self._search_speed(bar)
            bar.show(step, parts)
