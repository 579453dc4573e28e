"""Self-play games of the search trainer: every game's moves chosen by one batched Gumbel search
(:class:`SelfPlay`), in this process (:class:`LocalSelfPlay`) or in Ray workers
(:mod:`yyenvs.training.distributed`)."""
from __future__ import annotations

import dataclasses

import numpy as np

from yyenvs.search.gumbel import GumbelSearch
from yyenvs.networks.search_network import NetworkEvaluator
from yyenvs.core.moves import sample_weighted
from yyenvs.core.rng import derive_seeds, uniform01
from yyenvs.training.config import DEFAULTS, PRIOR, SEARCH_KEYS, ConfigError


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


def make_search(core, net, az: dict, simulations: int, gumbel_scale: float, seed: int,
                device="cpu") -> GumbelSearch:
    """The search of the ``az`` config section over ``net`` (run on ``device``)."""
    settings = {**{k: az[k] for k in SEARCH_KEYS}, "gumbel_scale": gumbel_scale}
    return GumbelSearch(core, NetworkEvaluator(net, device), simulations, seed=seed, **settings)


def make_baselines(core, cfg: dict, net, device="cpu") -> list:
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
    return [AZAgent(core, net, seed, label=PRIOR, sample=True, device=device) if name == PRIOR else make_agent(name, core, seed)
            for name, seed in zip(sp["baselines"], seeds)]


def sample_policy(policy: np.ndarray, seeds: np.ndarray, plies: np.ndarray) -> np.ndarray:
    """One action per row drawn from ``policy`` (B, A) with a uniform from the game's seed and ply
    (the same draw at any batch size)."""
    u = uniform01(seeds, plies.astype(np.uint64), np.uint64(0x5A4D))
    out = np.empty(policy.shape[0], np.int64)
    sample_weighted(np.ascontiguousarray(policy, dtype=np.float64), u, out)
    return out


def score_margins(core, state) -> np.ndarray:
    """(B, P) in [-1, 1]: each seat's final score minus the best other seat's, over the sum of
    their sizes (a game's ``scores``; with several numbers per seat, the first counts)."""
    s = np.asarray(core.scores(state), dtype=np.float64)
    s = s[..., 0] if s.ndim == 3 else s
    P = s.shape[1]
    other = np.stack([np.delete(s, i, axis=1).max(axis=1) for i in range(P)], axis=1)
    return (s - other) / np.maximum(np.abs(s) + np.abs(other), 1.0)


@dataclasses.dataclass(frozen=True)
class Targets:
    """How moves and value targets are shaped (the config's ``az.sample_plies``,
    ``az.score_weight``, ``az.q_weight``; :class:`SelfPlay` says what each does)."""
    sample_plies: int = DEFAULTS["az"]["sample_plies"]
    score_weight: float = DEFAULTS["az"]["score_weight"]
    q_weight: float = DEFAULTS["az"]["q_weight"]

    @classmethod
    def from_config(cls, az: dict) -> "Targets":
        return cls(int(az["sample_plies"]), float(az["score_weight"]), float(az["q_weight"]))


class SelfPlay:
    """``games`` games played at once in one core state, every move of the network searched.

    :meth:`step` plays one move of every game and hands back the finished
    games' positions with their targets.  Game slot ``g`` plays the games of
    seed stream ``stream * games + g``, so self-play in the trainer's process
    and in each Ray worker (:mod:`yyenvs.training.distributed`) plays games of its own.
    The first ``selfplay.baseline_share`` of the slots play one seat with a
    baseline (the slots take ``baselines`` in turn; the baseline's seat moves on
    by one with each new game in a slot); those seats are neither searched nor
    recorded.  ``targets`` (:class:`Targets`): in a game's first ``sample_plies`` plies the network's move is drawn
    from the search's improved policy instead of being the search's choice (the
    openings then vary, and so do the positions either seat learns from).  With
    ``score_weight`` w the value targets are (1 - w) x the returns + w x the final
    score margin (:func:`score_margins`), so that among lost games the closer ones
    rank higher (a seat that always loses still learns which moves lose less).  With
    ``q_weight`` w each position's target is (1 - w) x that + w x the search's root value.
    The returns are discounted by the search's ``discount`` per step to the game's end.
    """

    def __init__(self, core, search: GumbelSearch, games: int, seed: int, stream: int, baselines: list,
                 baseline_share: float, targets: Targets = Targets()):
        self.core, self.search, self.games, self.seed = core, search, int(games), seed
        self.steps = np.zeros(self.games, np.int64)  # steps played in each slot's game
        self.sample_plies = targets.sample_plies
        self.score_weight = targets.score_weight
        self.q_weight = targets.q_weight
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
                                               self.search.settings.discount))
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


def search_stats(search: GumbelSearch) -> dict:
    """What ``search`` has done so far: its simulations, the seconds its searches took, and of those the
    seconds in the network, the core and the tree kernels."""
    return {"simulations": search.simulated, "seconds": search.seconds, **search.timings}


class LocalSelfPlay:
    """Self-play in the trainer's process: one move of every game per :meth:`next`."""

    def __init__(self, selfplay: SelfPlay):
        self.selfplay = selfplay

    def stats(self) -> dict:
        """:func:`search_stats` of the self-play search so far."""
        return search_stats(self.selfplay.search)

    def next(self):
        """(finished games' samples, positions recorded, baseline results, moves played)."""
        samples, recorded, results = self.selfplay.step()
        return samples, recorded, results, self.selfplay.games

    def trained(self, trainer) -> None:  # the search reads the trainer's network itself
        pass

    def close(self) -> None:
        pass
