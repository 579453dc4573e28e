"""Threads, chosen on purpose: how many the kernels and the networks use, and that none of them spins.

One setting decides it: ``--threads N`` on every command (``threads: N`` in a training config,
``YYENVS_THREADS=N`` in the environment, :func:`set_threads` in Python).  By default it is the
number of cores this process may use: its CPU affinity, or, inside a Ray worker, the CPUs Ray
assigned to that worker, so that workers on one machine divide its cores instead of each taking
all of them.

* numba's kernels run on that many threads (never more than ``NUMBA_NUM_THREADS``).
* torch runs on that many threads in PPO training, and on one thread where the network is called
  once per move or per simulation wave (matches, the search trainer; ``torch_threads=1``): there a
  second torch thread cost more in waking than it saved (docs/performance.md#threads).
* Idle threads sleep instead of spinning: ``OMP_WAIT_POLICY=PASSIVE`` is set, unless the
  environment sets it already, before torch or numba load their OpenMP runtime.  OpenMP reads it
  once, when it loads, so a program that imports torch before yyenvs keeps torch's default
  (spinning) unless it sets the variable itself.  Spinning threads hold their core while they
  wait: beside another busy process a search agent's moves took 3-5 times as long.
"""
from __future__ import annotations

import os
import sys

#: the largest thread count accepted
MAX_THREADS = 1024

_WAIT_POLICY = "OMP_WAIT_POLICY"
_chosen: dict = {}  # what set_threads chose last: {"threads": n, "torch": n}


def sleep_when_idle() -> None:
    """Ask OpenMP (torch's and numba's) to let idle threads sleep, unless the user chose otherwise
    (an empty ``OMP_WAIT_POLICY=`` keeps OpenMP's own default).  Called when yyenvs is imported,
    which is before the runtimes load in the package's commands."""
    if os.environ.get(_WAIT_POLICY) == "":
        del os.environ[_WAIT_POLICY]
    else:
        os.environ.setdefault(_WAIT_POLICY, "PASSIVE")


def cores_available() -> int:
    """The cores this process may use: Ray's CPUs for this worker inside a Ray worker, else the
    process's CPU affinity (``os.cpu_count()`` where the system has none)."""
    ray_cpus = _ray_worker_cpus()
    if ray_cpus is not None:
        return ray_cpus
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def _ray_worker_cpus() -> int | None:
    """The CPUs Ray assigned to this process if it is a Ray worker (at least 1), else None."""
    ray = sys.modules.get("ray")
    if ray is None or not ray.is_initialized():
        return None
    try:
        cpus = ray.get_runtime_context().get_assigned_resources().get("CPU", 0)
    except AssertionError:  # Ray's answer in the driver, whose cores are its own
        return None
    return max(1, int(cpus))


def default_threads() -> int:
    """Inside a Ray worker the CPUs Ray assigned it; else ``YYENVS_THREADS`` if set, else
    :func:`cores_available`."""
    text = os.environ.get("YYENVS_THREADS", "").strip()
    if not text or _ray_worker_cpus() is not None:
        return cores_available()
    return check_threads(text, "YYENVS_THREADS")


def check_threads(value, what: str = "threads") -> int:
    """``value`` as a thread count from 1 to :data:`MAX_THREADS`, else ValueError naming ``what``."""
    try:
        n = int(value) if not isinstance(value, bool) and str(value).strip().isdigit() else None
    except ValueError:
        n = None
    if n is None or not 1 <= n <= MAX_THREADS:
        raise ValueError(f"{what}: expected a thread count from 1 to {MAX_THREADS}, got {value!r}")
    return n


def set_threads(threads: int | None = None, torch_threads: int | None = None) -> dict:
    """Set numba's threads to ``threads`` (None: :func:`default_threads`) and torch's to
    ``torch_threads`` (None: the same); returns ``{"threads": numba's count, "torch": torch's count}``.

    torch is set now if it is imported, else when the package's networks import it
    (:func:`apply_to_torch`)."""
    import numba
    n = default_threads() if threads is None else check_threads(threads)
    torch_n = n if torch_threads is None else check_threads(torch_threads, "torch_threads")  # before any change
    kernels = min(n, numba.config.NUMBA_NUM_THREADS)
    numba.set_num_threads(kernels)
    _chosen.update(threads=kernels, torch=torch_n)
    apply_to_torch()
    return dict(_chosen)


def apply_to_torch() -> None:
    """torch's threads as :func:`set_threads` last chose them, if it did and torch is imported (the
    modules of the package's networks call this when they import torch)."""
    torch = sys.modules.get("torch")
    if _chosen and torch is not None:
        torch.set_num_threads(_chosen["torch"])


def fit_ray_worker() -> dict | None:
    """Inside a Ray worker, :func:`set_threads` to the CPUs Ray assigned it (RLlib's env runners
    call this, so that they share a machine's cores); elsewhere nothing (None)."""
    if _ray_worker_cpus() is None:
        return None
    return set_threads()
