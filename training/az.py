"""Self-play training with Gumbel search and a policy-value network (Gumbel AlphaZero).

``yyenvs train --algo az --config configs/az_koi.yaml [KEY=VALUE ...]``.

* ``num_envs`` games are played at once, all in one core state.  Every move
  of every game is chosen by one batched search
  (:class:`yyenvs.agents.gumbel.GumbelSearch`, ``az.simulations`` per move)
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
  progress bar shows moves, moves/s and the last evaluation; TensorBoard logs
  go to ``run_dir/tb``.  At the end the final network (with search) plays the
  baselines and a round robin of snapshots is rated (``run_dir/eval``).
"""
from __future__ import annotations

import math
import os
import sys
import time

import numpy as np
import torch

from yyenvs.agents.gumbel import GumbelSearch
from yyenvs.core.errors import NetworkError
from yyenvs.agents.pvnet import NetworkEvaluator, make_network, network_description
from yyenvs.agents.base import sample_weighted
from yyenvs.core.rng import derive_seeds, uniform01
from training.config import PRIOR, ConfigError
from training.train import TrainingRun, checkpoint_files

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


class PendingGames:
    """Recorded positions of the games in progress, waiting for their value targets."""

    FIELDS = ("obs", "mask", "policy", "mover", "returns_before", "searched", "step")

    def __init__(self, games: int, obs_shape, num_actions: int, num_players: int, max_length: int):
        L = min(max_length + 1, 64)  # grows (doubling) for longer games
        self.length = np.zeros(games, np.int64)
        self.obs = np.zeros((games, L, *obs_shape), np.float16)
        self.mask = np.zeros((games, L, num_actions), np.bool_)
        self.policy = np.zeros((games, L, num_actions), np.float16)
        self.mover = np.zeros((games, L), np.int64)
        self.returns_before = np.zeros((games, L, num_players), np.float64)
        self.searched = np.zeros((games, L, num_players), np.float32)  # the search's root value, per seat
        self.step = np.zeros((games, L), np.int64)  # the game's steps before the position

    def record(self, rows, obs, mask, policy, mover, returns, searched, step) -> None:
        t = self.length[rows]
        L = self.obs.shape[1]
        if t.max() >= L:
            for name in self.FIELDS:
                old = getattr(self, name)
                grown = np.zeros((old.shape[0], 2 * L) + old.shape[2:], old.dtype)
                grown[:, :L] = old
                setattr(self, name, grown)
        self.obs[rows, t] = obs
        self.mask[rows, t] = mask
        self.policy[rows, t] = policy
        self.mover[rows, t] = mover
        self.returns_before[rows, t] = returns
        self.searched[rows, t] = searched
        self.step[rows, t] = step
        self.length[rows] = t + 1

    def finish(self, row: int, returns: np.ndarray, q_weight: float = 0.0, steps: int = 0,
               discount: float = 1.0):
        """The samples of game ``row`` with their value targets (from each mover's seat); clears it.

        The target is each seat's return from the position on, discounted by ``discount`` for
        each step after the position's own up to the game's last (its ``steps``-th; the games
        here reward only at their end), or with ``q_weight`` w, (1 - w) x that return + w x the
        search's value of the position."""
        n = int(self.length[row])
        P = returns.shape[0]
        after = returns[None, :] - self.returns_before[row, :n]  # each seat's return from then on
        if discount != 1.0:
            after = after * discount ** (steps - 1 - self.step[row, :n])[:, None]
        if q_weight:
            after = (1.0 - q_weight) * after + q_weight * self.searched[row, :n]
        seats = (self.mover[row, :n, None] + np.arange(P)) % P
        value = np.take_along_axis(after, seats, axis=1).astype(np.float32)
        out = (self.obs[row, :n].copy(), self.mask[row, :n].copy(), self.policy[row, :n].copy(), value)
        self.length[row] = 0
        return out


def make_search(core, net, az: dict, simulations: int, gumbel_scale: float, seed: int) -> GumbelSearch:
    """The search of the ``az`` config section over ``net``."""
    return GumbelSearch(core, NetworkEvaluator(net), simulations, az["max_considered"], gumbel_scale,
                        az["c_puct"], az["value_scale"], az["maxvisit_init"], seed=seed,
                        find_wins=az["find_wins"], discount=az["discount"])


def make_baselines(core, cfg: dict, net) -> list:
    """The agents of ``selfplay.baselines``, or none when ``selfplay.baseline_share`` is 0.

    ``prior`` is ``net`` itself without search, each move drawn from its policy: a
    weaker player that improves with the network (so the other seat, searched, meets
    and learns to punish the mistakes of a fallible opponent)."""
    from yyenvs.agents import make_agent
    from yyenvs.agents.az import AZAgent
    sp = cfg["selfplay"]
    if sp["baseline_share"] == 0 or not sp["baselines"]:
        return []
    if core.num_players < 2:
        raise ConfigError(f"selfplay.baseline_share: {core.name} here has one player, so no seat is "
                          f"left for a baseline; set it to 0")
    seeds = [cfg["seed"] + 7919 * (k + 1) for k in range(len(sp["baselines"]))]
    return [AZAgent(core, net, seed, label=PRIOR, sample=True) if name == PRIOR else make_agent(name, core, seed)
            for name, seed in zip(sp["baselines"], seeds)]


def sample_policy(policy: np.ndarray, seeds: np.ndarray, plies: np.ndarray) -> np.ndarray:
    """One action per row drawn from ``policy`` (B, A) with a uniform from the game's seed and ply
    (the same draw at any batch size)."""
    u = uniform01(seeds, plies.astype(np.uint64), np.uint64(0x5A4D))
    out = np.empty(policy.shape[0], np.int64)
    sample_weighted(np.ascontiguousarray(policy, dtype=np.float64), u, out)
    return out


def cosine_rate(start: float, final: float, done: float) -> float:
    """The learning rate ``done`` (0 to 1) of the way through a cosine schedule from
    ``start`` down to ``final`` x ``start``."""
    done = min(max(done, 0.0), 1.0)
    return start * (final + (1.0 - final) * 0.5 * (1.0 + math.cos(math.pi * done)))


def score_margins(core, state) -> np.ndarray:
    """(B, P) in [-1, 1]: each seat's final score minus the best other seat's, over the sum of
    their sizes (a game's ``scores``; with several numbers per seat, the first counts)."""
    s = np.asarray(core.scores(state), dtype=np.float64)
    s = s[..., 0] if s.ndim == 3 else s
    P = s.shape[1]
    other = np.stack([np.delete(s, i, axis=1).max(axis=1) for i in range(P)], axis=1)
    return (s - other) / np.maximum(np.abs(s) + np.abs(other), 1.0)


class SelfPlay:
    """``games`` games played at once in one core state, every move of the network searched.

    :meth:`step` plays one move of every game and hands back the finished
    games' positions with their targets.  Game slot ``g`` plays the games of
    seed stream ``stream * games + g``, so self-play in the trainer's process
    and in each Ray worker (:mod:`training.distributed`) plays games of its own.
    The first ``selfplay.baseline_share`` of the slots play one seat with a
    baseline (the slots take ``baselines`` in turn; the baseline's seat moves on
    by one with each new game in a slot); those seats are neither searched nor
    recorded.  In a game's first ``sample_plies`` plies the network's move is drawn
    from the search's improved policy instead of being the search's choice (the
    openings then vary, and so do the positions either seat learns from).  With
    ``score_weight`` w the value targets are (1 - w) x the returns + w x the final
    score margin (:func:`score_margins`), so that among lost games the closer ones
    rank higher (a seat that always loses still learns which moves lose less).  With
    ``q_weight`` w each position's target is (1 - w) x that + w x the search's root value.
    The returns are discounted by the search's ``discount`` per step to the game's end.
    """

    def __init__(self, core, search: GumbelSearch, games: int, seed: int, stream: int, baselines: list,
                 baseline_share: float, sample_plies: int = 0, score_weight: float = 0.0,
                 q_weight: float = 0.0):
        self.core, self.search, self.games, self.seed = core, search, int(games), seed
        self.steps = np.zeros(self.games, np.int64)  # steps played in each slot's game
        self.sample_plies = int(sample_plies)
        self.score_weight = float(score_weight)
        self.q_weight = float(q_weight)
        self.baselines, self.baseline_share = baselines, baseline_share
        self.stream = int(stream) * self.games + np.arange(self.games)
        P, A = core.num_players, core.num_actions
        self.games_in_slot = np.zeros(self.games, np.int64)  # games begun in each slot
        self.state = core.init(derive_seeds(seed, self.stream, 0))
        self.returns = np.zeros((self.games, P))
        self.pending = PendingGames(self.games, core.observation_shape, A, P, core.max_game_length)
        self.baseline_of = np.arange(self.games) % max(len(baselines), 1)
        self.baseline_seat = self.baseline_seats(self.games_in_slot)

    def baseline_seats(self, games_in_slot: np.ndarray) -> np.ndarray:
        """Per game slot, the seat a baseline plays (-1: self-play)."""
        seats = np.full(games_in_slot.shape[0], -1, np.int64)
        n = int(round(self.baseline_share * games_in_slot.shape[0])) if self.baselines else 0
        seats[:n] = (np.arange(n) // len(self.baselines) + games_in_slot[:n]) % self.core.num_players
        return seats

    def step(self):
        """One move of every game: (finished games' samples, positions recorded, baseline results).

        A sample is (obs, mask, policy, value) of one finished game; a baseline
        result is (baseline index, 1.0 if the network beat it else 0.0), seen
        from the seat after the baseline's."""
        core, state, mask = self.core, self.state, self.core.legal_action_mask(self.state)
        nlegal = mask.sum(axis=1)
        actions = np.argmax(mask, axis=1).astype(np.int64)
        by_baseline = (self.baseline_seat == state.current_player) & (nlegal > 1)
        for k, agent in enumerate(self.baselines):
            rows = np.flatnonzero(by_baseline & (self.baseline_of == k))
            if rows.size:
                actions[rows] = agent.act(state.take(rows), mask[rows])
        rows = np.flatnonzero((nlegal > 1) & ~by_baseline)  # the network's moves: searched and recorded
        if rows.size:
            sub = state.take(rows)
            result = self.search.run(sub)
            actions[rows] = result.action
            early = np.flatnonzero(sub.ply < self.sample_plies)
            if early.size:
                actions[rows[early]] = sample_policy(result.policy[early], sub.seed[early], sub.ply[early])
            self.pending.record(rows, core.observe(sub, sub.current_player), mask[rows], result.policy,
                                sub.current_player.astype(np.int64), self.returns[rows], result.value,
                                self.steps[rows])
        core.step(state, actions)
        self.steps += 1
        self.returns += state.rewards
        ended = np.flatnonzero(state.done)
        samples, results = [], []
        P = core.num_players
        targets = self.returns[ended]
        if self.score_weight and ended.size:
            w = self.score_weight
            targets = (1 - w) * targets + w * score_margins(core, state.take(ended))
        for k, g in enumerate(ended):
            samples.append(self.pending.finish(g, targets[k], self.q_weight, int(self.steps[g]),
                                               self.search.discount))
            b = self.baseline_seat[g]
            if b >= 0:
                results.append((int(self.baseline_of[g]), float(self.returns[g, (b + 1) % P] > self.returns[g, b])))
        if ended.size:
            self.games_in_slot[ended] += 1
            self.baseline_seat = self.baseline_seats(self.games_in_slot)
            state.put(ended, core.init(derive_seeds(self.seed, self.stream[ended], self.games_in_slot[ended])))
            self.returns[ended] = 0.0
            self.steps[ended] = 0
        return samples, int(rows.size), results


class LocalSelfPlay:
    """Self-play in the trainer's process: one move of every game per :meth:`next`."""

    def __init__(self, selfplay: SelfPlay):
        self.selfplay = selfplay

    def next(self):
        """(finished games' samples, positions recorded, baseline results, moves played)."""
        samples, recorded, results = self.selfplay.step()
        return samples, recorded, results, self.selfplay.games

    def trained(self, trainer) -> None:  # the search reads the trainer's network itself
        pass

    def close(self) -> None:
        pass


class AZTrainer(TrainingRun):
    """One Gumbel AlphaZero training run (fresh or resumed) described by a config dict."""

    algo = ALGO

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
            self.net = make_network(self.core, self.desc)
            self.opt = torch.optim.AdamW(self.net.parameters(), lr=self.az["learning_rate"],
                                         weight_decay=self.az["weight_decay"])
            self.search = self._make_search(self.az["simulations"], self.az["gumbel_scale"])
            self.replay = ReplayBuffer(self.az["replay_size"], self.core.observation_shape,
                                       self.core.num_actions, self.core.num_players)
            self.rng = np.random.default_rng(cfg["seed"])
            self.symmetries = self.core.symmetries() if self.az["augment"] else ()
            self.baselines = make_baselines(self.core, cfg, self.net)
            self.num_timesteps = 0
            self.n_updates = 0
            self.samples_trained = 0
            self.samples_played = 0
            self.games_finished = 0
            self.elapsed_before = 0.0
            self.resumed_from = None
            self.last_eval: dict = {}
            self.recent: list[float] = []  # losses since the last log line
            if resume is not None:
                self._restore(*resume)
        except BaseException:
            self.lock.release()
            raise

    # -- pieces -------------------------------------------------------------------------------
    def _make_search(self, simulations: int, gumbel_scale: float) -> GumbelSearch:
        return make_search(self.core, self.net, self.az, simulations, gumbel_scale, self.cfg["seed"])

    @property
    def steps(self) -> int:
        return self.num_timesteps

    def _restore(self, path: str, meta: dict, tensors: dict) -> None:
        from yyenvs.agents.checkpoint import load_optimizer_tensors, load_policy_tensors
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

    def _save(self, path: str, kind: str, **extra) -> dict:
        from yyenvs.agents.checkpoint import game_metadata, optimizer_tensors, policy_tensors, write_checkpoint
        tensors = policy_tensors(self.net)
        if kind == "checkpoint":
            tensors.update(optimizer_tensors(self.opt))
        meta = {"kind": kind, **game_metadata(self.core), "policy": self.desc,
                "num_timesteps": self.num_timesteps, "n_updates": self.n_updates, "algo": ALGO,
                "games": self.games_finished, **extra}
        return write_checkpoint(path, tensors, meta)

    def save_checkpoint(self, keep: int = 2) -> str:
        path = os.path.join(self.dirs["checkpoints"], f"ckpt_{self.num_timesteps:010d}.safetensors")
        self._save(path, "checkpoint", config=self.cfg, elapsed_s=self.elapsed())
        for _, old in checkpoint_files(self.run_dir)[:-keep]:
            os.remove(old)
        return path

    def save_snapshot(self) -> str:
        name = f"step_{self.num_timesteps:010d}.safetensors"
        self._save(os.path.join(self.dirs["snapshots"], name), "snapshot")
        return name

    def eval_search_options(self) -> dict:
        """The config's search settings that differ from an az agent's defaults: the evaluations'
        searches (quick and final) use them, so they search as self-play does."""
        import inspect
        defaults = inspect.signature(GumbelSearch).parameters
        keys = ("max_considered", "c_puct", "value_scale", "maxvisit_init", "find_wins", "discount")
        return {k: self.az[k] for k in keys if self.az[k] != defaults[k].default}

    def final_entrant(self, final: str) -> str:
        from yyenvs.agents.az import az_spec
        return az_spec(final, self.az["eval_simulations"], self.eval_search_options())

    def quick_eval(self) -> dict:
        from yyenvs.agents import make_agent
        from yyenvs.agents.az import AZAgent
        from yyenvs.agents.match import play_match
        from training.ratings import wilson_interval
        ev = self.cfg["eval"]
        me = AZAgent(self.core, self.net, self.cfg["seed"], self.az["eval_simulations"], label="current",
                     **self.eval_search_options())
        out = {"step": self.num_timesteps}
        for k, name in enumerate(ev["opponents"]):
            r = play_match(self.core, me, make_agent(name, self.core, 1000 + k), ev["games"],
                           seed=self.cfg["seed"] + self.num_timesteps)
            w, d, l = r["wins"], r["draws"], r["losses"]
            n = w + d + l
            out[name] = {"wins": w, "draws": d, "losses": l, "win_rate": w / n, "ci95": list(wilson_interval(w, n))}
        return out

    # -- learning -----------------------------------------------------------------------------
    def set_learning_rate(self, rate: float) -> None:
        for group in self.opt.param_groups:
            group["lr"] = rate

    def train_step(self) -> float:
        obs, mask, policy, value = self.replay.sample(self.az["batch_size"], self.rng, self.symmetries)
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
            from training.distributed import RaySelfPlay
            source = RaySelfPlay(self, self.ray_address)
        else:  # a resumed run starts new seed streams
            source = LocalSelfPlay(SelfPlay(core, self.search, G, cfg["seed"], self.games_finished, self.baselines,
                                            cfg["selfplay"]["baseline_share"], az["sample_plies"],
                                            az["score_weight"], az["q_weight"]))
        self.source = source
        baseline_results = [[] for _ in self.baselines]
        writer = None
        if cfg["log"]["tensorboard"]:
            from torch.utils.tensorboard import SummaryWriter
            writer = SummaryWriter(os.path.join(self.dirs["tb"], "az"))
        bar = None
        if cfg["log"]["progress"]:
            from tqdm import tqdm
            bar = tqdm(total=cfg["total_timesteps"], initial=self.num_timesteps, unit="move", unit_scale=True,
                       dynamic_ncols=True, file=sys.stderr, mininterval=1.0, smoothing=0.1, desc=core.name)
        every = {"snapshot": cfg["selfplay"]["snapshot_every"], "checkpoint": cfg["checkpoint"]["every"],
                 "eval": cfg["eval"]["every"] or math.inf}
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

    def _on_step(self, due, every, bar, writer, losses) -> None:
        step = self.num_timesteps
        if step >= due["snapshot"]:
            self.save_snapshot()
            due["snapshot"] = (step // every["snapshot"] + 1) * every["snapshot"]
        if step >= due["eval"]:
            self.last_eval = self.quick_eval()
            if writer is not None:
                for name, r in self.last_eval.items():
                    if isinstance(r, dict):
                        writer.add_scalar(f"eval/win_rate_vs_{name}", r["win_rate"], step)
            due["eval"] = (step // every["eval"] + 1) * every["eval"]
        if step >= due["checkpoint"]:
            self.save_checkpoint()
            due["checkpoint"] = (step // every["checkpoint"] + 1) * every["checkpoint"]
        if bar is not None and time.time() - getattr(bar, "last_shown", 0.0) > 1.0:
            bar.last_shown = time.time()
            bar.n = min(step, bar.total)
            parts = [f"games {self.games_finished}"]
            if losses:
                pl, vl = np.mean(losses[-50:], axis=0)
                parts.append(f"loss {pl:.2f}/{vl:.3f}")
            if self.last_eval:
                parts.append("eval " + " ".join(f"{k[:3]} {100 * v['win_rate']:.0f}%"
                                                for k, v in self.last_eval.items() if isinstance(v, dict)))
            bar.set_postfix_str(" | ".join(parts), refresh=False)
            bar.refresh()
