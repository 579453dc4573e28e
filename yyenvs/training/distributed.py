"""Ray self-play workers for the search-with-learning trainer (Ray itself is started or joined as
evaluation does, :func:`yyenvs.evaluation.cluster.init_ray`).

Self-play (``yyenvs train --algo az az.workers=N [--ray-address ADDRESS]``):
``N`` actors (:class:`SelfPlayWorker`), each playing ``az.worker_games`` games
with its own copy of the network and its own seed streams, hand their finished
games to the learner every ``az.worker_moves`` moves; the learner trains on
them in its replay buffer as the in-process trainer does, and sends the new
weights to the workers every ``az.broadcast_every`` gradient steps
(:class:`RaySelfPlay`).  Which worker's games arrive first depends on timing,
so a run with workers is not repeatable move for move, unlike the in-process
trainer.
"""
from __future__ import annotations

from yyenvs.evaluation.cluster import init_ray


def network_weights(net) -> dict:
    """The network's tensors as numpy arrays (what goes to the workers)."""
    return {k: v.detach().cpu().numpy() for k, v in net.state_dict().items()}


class SelfPlayWorker:
    """One Ray actor's self-play: its own core state, network copy, search and seed streams."""

    def __init__(self, cfg: dict, desc: dict, worker: int, stream: int, weights: dict, gpu: bool = False):
        from yyenvs.core.threads import set_threads
        from yyenvs.training.selfplay import SelfPlay, Targets, make_baselines, make_search
        from yyenvs.networks.search_network import make_network
        from yyenvs.games import make_core
        # the CPUs Ray gave this actor, not every core of its machine; torch as in AZTrainer
        self.threads = set_threads(torch_threads=1)
        az = cfg["az"]
        core = make_core(cfg["game"], **cfg["game_options"])
        device = "cuda" if gpu else "cpu"  # Ray shows an actor the GPU it shares as cuda:0
        self.net = make_network(core, desc)
        self.set_weights(weights)
        search = make_search(core, self.net, az, az["simulations"], az["gumbel_scale"],
                             cfg["seed"] + 104_729 * (worker + 1), device)
        self.selfplay = SelfPlay(core, search, az["worker_games"] or cfg["num_envs"], cfg["seed"], stream,
                                 make_baselines(core, cfg, self.net, device), cfg["selfplay"]["baseline_share"],
                                 Targets.from_config(az))

    def set_weights(self, weights: dict) -> None:
        import torch
        self.net.load_state_dict({k: torch.from_numpy(v) for k, v in weights.items()})
        self.net.eval()

    def play(self, moves: int):
        """``moves`` moves of every game: (samples, positions recorded, baseline results, moves played,
        the search's statistics so far)."""
        from yyenvs.training.selfplay import search_stats
        samples, recorded, results = [], 0, []
        for _ in range(moves):
            s, r, b = self.selfplay.step()
            samples += s
            recorded += r
            results += b
        return samples, recorded, results, moves * self.selfplay.games, search_stats(self.selfplay.search)


class RaySelfPlay:
    """The learner's side: keeps every worker playing and hands on what they finish."""

    def __init__(self, trainer, address: str | None):
        init_ray(address)
        import ray
        az = trainer.az
        self.moves, self.every = az["worker_moves"], az["broadcast_every"]
        n = az["workers"]
        weights = ray.put(network_weights(trainer.net))
        gpu = trainer.device.type == "cuda"  # the workers share the learner's GPU, each a slice of it
        actor = ray.remote(num_cpus=1, num_gpus=1.0 / (n + 1) if gpu else 0)(SelfPlayWorker)
        # new seed streams per worker, and per resumed run
        self.workers = [actor.remote(trainer.cfg, trainer.desc, w, trainer.games_finished * n + w, weights, gpu)
                        for w in range(n)]
        self.version = [0] * n
        self.worker_stats = [{}] * n  # each worker's search statistics as of its last play
        self.latest, self.weights, self.sent_at = 0, weights, trainer.n_updates
        self.running = {w.play.remote(self.moves): k for k, w in enumerate(self.workers)}

    def next(self):
        import ray
        (ref,), _ = ray.wait(list(self.running), num_returns=1)
        k = self.running.pop(ref)
        result = ray.get(ref)
        if self.version[k] < self.latest:  # an actor runs its calls in order: the weights come first
            self.workers[k].set_weights.remote(self.weights)
            self.version[k] = self.latest
        self.running[self.workers[k].play.remote(self.moves)] = k
        self.worker_stats[k] = result[4]
        return result[:4]

    def stats(self) -> dict:
        """The workers' :func:`~yyenvs.training.selfplay.search_stats` summed, as of their last play."""
        return {key: sum(s.get(key, 0) for s in self.worker_stats) for key in set().union(*self.worker_stats)}

    def trained(self, trainer) -> None:
        import ray
        if trainer.n_updates - self.sent_at >= self.every:
            self.weights, self.latest, self.sent_at = ray.put(network_weights(trainer.net)), self.latest + 1, \
                trainer.n_updates

    def close(self) -> None:
        import ray
        for w in self.workers:
            ray.kill(w)
        self.workers, self.running = [], {}
