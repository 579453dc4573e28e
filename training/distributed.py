"""Evaluation on Ray: the pairs of a cross-table as Ray tasks (``yyenvs eval ... --ray [ADDRESS]``).

Each task gets the game, its options, the entrants' specs and one pair, and
builds the entrants again in its own process with the seeds the driver used
(:func:`training.evaluate.make_entrants`).  A pair's games depend only on the
tournament seed, the pair and the entrants (:func:`yyenvs.agents.match.pair_seeds`,
per-game agent streams), so the table is the one a local run gives, whatever
the number of workers or the order in which the tasks finish.  Checkpoint
paths are passed as absolute paths: on a cluster of several machines they
must name the same files on every machine (a shared file system).
"""
from __future__ import annotations

import os
import re

from yyenvs.agents.az import az_checkpoint_path, parse_az_spec
from yyenvs.core.contract import OptionError

#: what ``--ray`` takes: ``auto``, ``host:port`` or ``ray://host:port``
ADDRESS = re.compile(r"auto|(ray://)?[\w.\-]+:\d+")


def check_address(address: str) -> str:
    """``address`` if it looks like a Ray address ("" : start Ray here), else OptionError."""
    if address == "" or ADDRESS.fullmatch(address):
        return address
    raise OptionError(f"--ray: {address!r} is not a Ray address (auto, host:port or ray://host:port); "
                      f"give --ray after the entrants, or --ray=ADDRESS")


def portable_spec(spec: str) -> str:
    """``spec`` with its checkpoint path made absolute (so that a worker elsewhere finds the same file)."""
    path = az_checkpoint_path(spec)
    if path is not None:
        _, n = parse_az_spec(spec)
        return f"az:{os.path.abspath(path)}" + (f":{n}" if n is not None else "")
    return os.path.abspath(spec) if os.path.exists(spec) else spec


def _pair_task(game: str, options: dict, specs: list[str], seed: int, deterministic: bool,
               i: int, j: int, games: int):
    import torch

    from training.evaluate import make_entrants, play_pair
    from yyenvs.games import make_core
    torch.set_num_threads(1)  # one task per core
    core = make_core(game, **options)
    return play_pair(core, make_entrants(specs, core, seed, deterministic), i, j, games, seed)


def ray_pairs(core, entrants, jobs, seed: int, address: str, deterministic: bool = True):
    """Yields ``(k, play_pair(...) of jobs[k])`` as the Ray tasks finish.

    ``address``: "" starts Ray on this machine (``ray.init()``), anything else
    connects to that cluster; a Ray already initialised in this process is used as it is."""
    try:
        import ray
    except ImportError:
        raise OptionError("--ray needs Ray: pip install -e '.[ray]'") from None
    check_address(address)
    missing = [e.name for e in entrants if e.spec is None]
    if missing:
        raise OptionError(f"entrants {missing} were not made from specs, so Ray workers cannot build them")
    if not ray.is_initialized():
        ray.init(address=address or None, include_dashboard=False, log_to_driver=False)
    specs = [portable_spec(e.spec) for e in entrants]
    task = ray.remote(num_cpus=1)(_pair_task)
    futures = {task.remote(core.name, dict(core.options), specs, seed, deterministic, i, j, g): k
               for k, (i, j, g) in enumerate(jobs)}
    pending = list(futures)
    while pending:
        ready, pending = ray.wait(pending, num_returns=1)
        for ref in ready:
            yield futures[ref], ray.get(ref)
