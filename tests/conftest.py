import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")  # pygame windows for render_mode="human"
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

# Under pytest-xdist each worker already has a core of its own: keep numba's
# parallel kernels to one thread there so two workers don't fight over 2 cores.
if "PYTEST_XDIST_WORKER" in os.environ:
    os.environ.setdefault("NUMBA_NUM_THREADS", "1")
