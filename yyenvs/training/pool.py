"""The self-play opponent pool: latest policy, past snapshots, scripted baselines.

One :class:`OpponentPool` is the opponent of a whole
:class:`~yyenvs.envs.learner.LearnerBatch` (an :class:`~yyenvs.envs.opponent.Opponent`):
at the start of every episode each env draws its opponent, and when opponents
are to move the rows are grouped by opponent and each opponent is called once
for its group (one batched forward pass per policy).

Sampling (AlphaStar-style prioritised fictitious self-play):

* with probability ``latest`` the opponent is the current policy itself;
* otherwise an opponent among the active snapshots and the baselines is drawn
  with weight ``max((1 - p) ** power, floor)``, ``p`` the learner's recent
  win rate against it (draws half, Laplace prior so a new entry starts at 0.5)
  -- the opponents it beats least are favoured.  With ``baseline_share > 0``
  that share of games goes to the baselines (PFSP among them) and the rest
  to the snapshots, so a growing pool does not crowd the baselines out.

Every finished game is recorded against its opponent (:meth:`on_episode_end`); these
recent results are the win rates shown by the progress bar and TensorBoard.
"""
from __future__ import annotations

import collections
import copy
import dataclasses

import numpy as np

from yyenvs.agents import make_agent
from yyenvs.agents.ppo import PolicyAgent
from yyenvs.envs.opponent import Opponent
from yyenvs.training.config import DEFAULTS, ConfigError

_SELFPLAY = DEFAULTS["selfplay"]


class PoolEntry:
    """One member of the pool: its agent (None once released), kind and recent results."""

    def __init__(self, name: str, kind: str, agent, step: int | None = None, path: str | None = None,
                 window: int = 400):
        self.name, self.kind, self.agent, self.step, self.path = name, kind, agent, step, path
        self.active = True
        self.results: collections.deque = collections.deque(maxlen=window)
        self.games = 0

    def win_rate(self, prior: bool = True) -> float:
        n = len(self.results)
        score = sum(1.0 if r > 0 else 0.5 if r == 0 else 0.0 for r in self.results)
        if prior:
            return (score + 1.0) / (n + 2.0)
        return score / n if n else float("nan")


@dataclasses.dataclass(frozen=True)
class PoolSettings:
    """How the pool draws and keeps opponents: the config's ``selfplay`` section
    (``sample`` is its ``opponent_sample``: opponents sample their moves, else play the argmax)."""
    baselines: tuple = tuple(_SELFPLAY["baselines"])
    latest: float = _SELFPLAY["latest"]
    pfsp_power: float = _SELFPLAY["pfsp_power"]
    pfsp_floor: float = _SELFPLAY["pfsp_floor"]
    window: int = _SELFPLAY["window"]
    max_snapshots: int = _SELFPLAY["max_snapshots"]
    sample: bool = _SELFPLAY["opponent_sample"]
    baseline_share: float = _SELFPLAY["baseline_share"]

    @classmethod
    def from_config(cls, selfplay: dict) -> "PoolSettings":
        names = [f.name for f in dataclasses.fields(cls) if f.name != "sample"]
        return cls(**{k: selfplay[k] for k in names}, sample=selfplay["opponent_sample"])


class OpponentPool(Opponent):
    """The self-play opponent of every env of a batch (see the module docstring)."""

    def __init__(self, core, num_envs: int, latest_policy, settings: PoolSettings = PoolSettings(),
                 seed: int = 0):
        self.core = core
        self.num_envs = int(num_envs)
        self.latest_share = float(settings.latest)
        self.baseline_share = float(settings.baseline_share)
        if self.latest_share + self.baseline_share > 1.0 + 1e-9:
            raise ConfigError(f"selfplay.latest ({settings.latest}) + selfplay.baseline_share "
                              f"({settings.baseline_share}) must not exceed 1")
        self.pfsp_power = float(settings.pfsp_power)
        self.pfsp_floor = float(settings.pfsp_floor)
        self.window = int(settings.window)
        self.max_snapshots = int(settings.max_snapshots)
        self.sample = bool(settings.sample)
        self.seed = int(seed)
        baselines = settings.baselines
        self.rng = np.random.default_rng([self.seed, 0x9001])
        self.entries: list[PoolEntry] = [
            PoolEntry("latest", "latest", PolicyAgent(core, latest_policy, self.seed, not self.sample,
                                                     label="latest"), window=self.window)]
        for k, name in enumerate(baselines):
            self.entries.append(PoolEntry(name, "baseline", make_agent(name, core, self.seed + 1 + k),
                                         window=self.window))
        self.assignment = np.zeros(self.num_envs, dtype=np.int64)

    # -- membership ---------------------------------------------------------------------
    def set_latest_policy(self, policy) -> None:
        self.entries[0].agent.policy = policy

    def snapshots(self) -> list[PoolEntry]:
        return [e for e in self.entries if e.kind == "snapshot"]

    def add_snapshot(self, policy, step: int, path: str | None = None, copy_policy: bool = True) -> PoolEntry:
        """Add a frozen copy of ``policy`` (taken at ``step``) to the pool."""
        if copy_policy:
            policy = copy.deepcopy(policy)
        policy.set_training_mode(False)
        for p in policy.parameters():
            p.requires_grad_(False)
        name = f"snap_{int(step)}"
        e = PoolEntry(name, "snapshot", PolicyAgent(self.core, policy, self.seed + int(step) % 100003,
                                                   not self.sample, label=name),
                     step=int(step), path=path, window=self.window)
        self.entries.append(e)
        active = [s for s in self.snapshots() if s.active]
        for old in active[:max(0, len(active) - self.max_snapshots)]:
            old.active = False
        self._release()
        return e

    def _release(self) -> None:
        used = set(np.unique(self.assignment).tolist())
        for k, e in enumerate(self.entries):
            if not e.active and e.agent is not None and k not in used:
                e.agent = None  # frees the frozen policy

    # -- sampling -----------------------------------------------------------------------
    def probabilities(self) -> np.ndarray:
        """The probability of each entry being drawn for a new episode."""
        p = np.zeros(len(self.entries))
        others = [k for k, e in enumerate(self.entries) if e.active and e.kind != "latest"]
        if not others:
            p[0] = 1.0
            return p
        p[0] = self.latest_share
        rest = 1.0 - self.latest_share
        groups = [others]
        if self.baseline_share > 0:
            base = [k for k in others if self.entries[k].kind == "baseline"]
            snaps = [k for k in others if self.entries[k].kind != "baseline"]
            if base and snaps:
                groups = [base, snaps]
                shares = [self.baseline_share, rest - self.baseline_share]
        if len(groups) == 1:
            shares = [rest]
        for group, share in zip(groups, shares):
            w = np.array([self._pfsp_weight(k) for k in group])
            p[group] = share * w / w.sum()
        return p

    def _pfsp_weight(self, k: int) -> float:
        return max((1.0 - self.entries[k].win_rate()) ** self.pfsp_power, self.pfsp_floor)

    def on_episode_start(self, env_ids) -> None:
        env_ids = np.asarray(env_ids, dtype=np.int64)
        if env_ids.size:
            p = self.probabilities()
            self.assignment[env_ids] = self.rng.choice(len(p), size=env_ids.size, p=p)

    def __call__(self, state, mask, env_ids) -> np.ndarray:
        who = self.assignment[np.asarray(env_ids, dtype=np.int64)]
        out = np.empty(state.batch_size, dtype=np.int64)
        for k in np.unique(who):
            rows = np.flatnonzero(who == k)
            sub = state if rows.size == state.batch_size else state.take(rows)
            out[rows] = self.entries[k].agent(sub, mask[rows])
        return out

    def on_episode_end(self, env_ids, outcomes, learner_seats=None) -> None:
        """Results (+1 win, 0 draw, -1 loss, for the learner) of games that just ended.

        The vector env calls this before the rows restart (and get new opponents)."""
        for i, r in zip(np.asarray(env_ids, dtype=np.int64), np.asarray(outcomes, dtype=np.float64)):
            e = self.entries[self.assignment[i]]
            e.results.append(float(r))
            e.games += 1

    @property
    def label(self) -> str:
        return f"self-play pool ({len(self.entries)} entries)"

    def names(self, env_ids) -> list[str]:
        return [self.entries[k].name for k in self.assignment[np.asarray(env_ids, dtype=np.int64)]]

    # -- reporting and persistence ------------------------------------------------------------
    def summary(self) -> dict:
        """name -> {win_rate (recent, no prior), games, prob} for every active entry."""
        p = self.probabilities()
        return {e.name: {"win_rate": e.win_rate(prior=False), "recent": len(e.results),
                         "games": e.games, "prob": float(p[k])}
                for k, e in enumerate(self.entries) if e.active}

    def state_dict(self) -> dict:
        return {"entries": [{"name": e.name, "kind": e.kind, "step": e.step, "path": e.path,
                             "active": e.active, "games": e.games, "results": list(e.results)}
                            for e in self.entries],
                "rng": self.rng.bit_generator.state}

    def load_state_dict(self, state: dict, load_policy) -> None:
        """Restore results, snapshots and the RNG from a state validated by
        :func:`yyenvs.networks.checkpoint.check_pool_state`.

        ``load_policy(path)`` gives a snapshot's policy, or None when it cannot
        be loaded (the entry then stays in the pool's history, inactive)."""
        by_name = {e.name: e for e in self.entries}
        active = [k for k, d in enumerate(state["entries"]) if d["kind"] == "snapshot" and d["active"]]
        load = set(active[len(active) - self.max_snapshots:]) if self.max_snapshots else set()
        for k, d in enumerate(state["entries"]):
            if d["kind"] == "snapshot":
                policy = load_policy(d["path"]) if k in load else None  # only the newest are played
                if policy is not None:
                    e = self.add_snapshot(policy, d["step"], d["path"], copy_policy=False)
                else:
                    e = PoolEntry(d["name"], "snapshot", None, d["step"], d["path"], self.window)
                    e.active = False
                    self.entries.append(e)
            else:
                e = by_name.get(d["name"])
                if e is None:  # a baseline no longer configured
                    continue
            e.results.extend(d["results"][-self.window:])
            e.games = int(d["games"])
        self.rng.bit_generator.state = state["rng"]
