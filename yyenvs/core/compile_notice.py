"""One line on stderr when numba compiles a part of yyenvs for this machine.

Kernels are compiled on their first call and cached on disk (numba's cache, next to the package's
files or under ``NUMBA_CACHE_DIR``), so only a process that finds the cache empty or stale compiles.
That first call can take from a few seconds to half a minute; the line says which part is being
compiled and about how long it takes, once per part and process::

    yyenvs: compiling Yin Yang's kernels for this machine, once (about 20 s; later runs load them from numba's cache)

:func:`compiling` tells what is being compiled now (the play page shows it).  ``YYENVS_COMPILE_NOTICE=0``
silences the line.
"""
from __future__ import annotations

import os
import sys
import threading
import time

from numba.core import event

#: the parts, by the module of the kernel being compiled: (words, about how many seconds they took to
#: compile on the 2-core machine of docs/performance.md#compile-time, in a game and a search agent's match)
PARTS = {
    "yyenvs.games.yoxii": ("Yoxii's kernels", 8),
    "yyenvs.games.koi": ("Yin Yang Koi's kernels", 6),
    "yyenvs.games.yinyang": ("Yin Yang's kernels", 21),
    "yyenvs.search": ("the searches' kernels", 10),
    "yyenvs.agents": ("the agents' kernels", 1),
    "yyenvs.core": ("the shared kernels", 1),
}

_shown: set[str] = set()
_now = threading.local()
_current: dict = {}  # the outermost compilation under way: {"part": words, "since": time}


def part_of(module: str) -> str | None:
    """The key of :data:`PARTS` that ``module`` belongs to (None: not a part of yyenvs)."""
    return next((p for p in PARTS if module == p or module.startswith(p + ".")), None)


def compiling() -> dict | None:
    """``{"part": ..., "seconds": ...}``: what numba is compiling now and for how long so far, or None."""
    current = dict(_current)
    return None if not current else {"part": current["part"], "seconds": time.time() - current["since"]}


class _Notice(event.Listener):
    def on_start(self, ev):
        depth = getattr(_now, "depth", 0)
        _now.depth = depth + 1
        part = part_of(getattr(ev.data["dispatcher"].py_func, "__module__", "") or "")
        if depth or part is None:
            return
        words, about = PARTS[part]
        _current.update(part=words, since=time.time())
        if part not in _shown and os.environ.get("YYENVS_COMPILE_NOTICE", "1") != "0":
            _shown.add(part)
            print(f"yyenvs: compiling {words} for this machine, once (about {about} s; later runs load them "
                  "from numba's cache)", file=sys.stderr, flush=True)

    def on_end(self, ev):
        _now.depth = max(getattr(_now, "depth", 1) - 1, 0)
        if _now.depth == 0:
            _current.clear()


_installed: list = []


def install() -> None:
    """Listen to numba's compilations (once per process)."""
    if not _installed:
        _installed.append(_Notice())
        event.register("numba:compile", _installed[0])
