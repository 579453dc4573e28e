import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")  # pygame windows for render_mode="human"
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
