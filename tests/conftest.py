import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")  # pygame windows for render_mode="human"
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

# Under pytest-xdist each worker already has a core of its own: keep numba's
# parallel kernels to one thread there so two workers don't fight over 2 cores.
if "PYTEST_XDIST_WORKER" in os.environ:
    os.environ.setdefault("NUMBA_NUM_THREADS", "1")
    os.environ.setdefault("YYENVS_THREADS", "1")  # torch too (docs/performance.md#threads)

# Property tests draw the same examples on every run, so the default suite (and CI) is
# reproducible; `pytest --hypothesis-profile=explore` draws fresh ones to look for new failures.
from hypothesis import settings  # noqa: E402

settings.register_profile("default", derandomize=True, database=None)
settings.register_profile("explore", derandomize=False)
settings.load_profile("default")
