"""Ray for evaluation: connecting to a cluster, and the pairs of a cross-table as Ray tasks.

``yyenvs eval ... --ray [ADDRESS]``: each task gets the game, its options, the entrants' specs and
one pair, and builds the entrants again in its own process with the seeds the driver used
(:func:`yyenvs.evaluation.matches.make_entrants`).  A pair's games depend only on the tournament
seed, the pair and the entrants (:func:`yyenvs.evaluation.matches.pair_seeds`, per-game agent
streams), so the table is the one a local run gives, whatever the number of workers or the order in
which the tasks finish.  Checkpoint paths are passed as absolute paths: on a cluster of several
machines they must name the same files on every machine (a shared file system).
"""
from __future__ import annotations

import os
import re

from yyenvs.agents.az import az_checkpoint_path, az_spec, parse_az_spec
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
        _, n, options = parse_az_spec(spec)
        return az_spec(os.path.abspath(path), n, options)
    return os.path.abspath(spec) if os.path.exists(spec) else spec


def init_ray(address: str | None) -> None:
    """Ray in this process: started here (``""``), or connected to the cluster at ``address``."""
    try:
        import ray
    except ImportError:
        raise OptionError("Ray is needed here: pip install -e '.[ray]'") from None
    if ray.is_initialized():
        return
    address = check_address(address or "")
    if address not in ("", "auto"):
        _check_reachable(address)
    try:
        ray.init(address=address or None, include_dashboard=False, log_to_driver=False)
    except ConnectionError as e:  # "auto" with no Ray running here, a cluster that went away
        raise OptionError(f"--ray {address!r}: {' '.join(str(e).split())}") from None


#: seconds to wait for a cluster's port to answer (Ray itself keeps retrying for minutes)
CONNECT_TIMEOUT = 5.0


def _check_reachable(address: str) -> None:
    """OptionError unless something accepts a connection at ``address`` (host:port) within seconds."""
    import socket
    host, _, port = address.removeprefix("ray://").rpartition(":")
    try:
        socket.create_connection((host, int(port)), timeout=CONNECT_TIMEOUT).close()
    except (OSError, ValueError, OverflowError) as e:  # refused, unknown host, timed out, port > 65535
        why = " ".join(str(getattr(e, "strerror", None) or e or type(e).__name__).split())
        raise OptionError(f"--ray {address!r}: no Ray cluster answers there ({why}); start one with "
                          "'ray start --head', or give --ray without an address to start Ray here") from None


def _pair_task(game: str, options: dict, specs: list[str], seed: int, deterministic: bool,
               i: int, j: int, games: int):
    from yyenvs.core.threads import set_threads
    from yyenvs.evaluation.matches import make_entrants, play_pair
    from yyenvs.games import make_core
    set_threads(torch_threads=1)  # the CPUs Ray gave this task (one), not every core of its machine
    core = make_core(game, **options)
    return play_pair(core, make_entrants(specs, core, seed, deterministic), i, j, games, seed)


def ray_pairs(core, entrants, jobs, seed: int, address: str, deterministic: bool = True):
    """Yields ``(k, play_pair(...) of jobs[k])`` as the Ray tasks finish.

    ``address``: "" starts Ray on this machine (``ray.init()``), anything else
    connects to that cluster; a Ray already initialised in this process is used as it is."""
    missing = [e.name for e in entrants if e.spec is None]
    if missing:
        raise OptionError(f"entrants {missing} were not made from specs, so Ray workers cannot build them")
    init_ray(address)
    import ray
    specs = [portable_spec(e.spec) for e in entrants]
    task = ray.remote(num_cpus=1)(_pair_task)
    futures = {task.remote(core.name, dict(core.options), specs, seed, deterministic, i, j, g): k
               for k, (i, j, g) in enumerate(jobs)}
    pending = list(futures)
    while pending:
        ready, pending = ray.wait(pending, num_returns=1)
        for ref in ready:
            yield futures[ref], ray.get(ref)
