"""Rendering for the environments: ``ansi``, ``rgb_array`` and ``human``.

``human`` is a pygame window showing ``render_rgb``; without pygame (it is in
the ``dev`` extra) the text picture is printed instead, with a warning.
"""
from __future__ import annotations

import gymnasium
import numpy as np

RENDER_MODES = ["ansi", "rgb_array", "human"]


def check_render_mode(render_mode, allowed=RENDER_MODES) -> None:
    if render_mode is not None and render_mode not in allowed:
        raise ValueError(f"render_mode={render_mode!r}; allowed: {allowed} or None")


class Renderer:
    """Renders row 0 of a core state in one of the render modes."""

    def __init__(self, core, render_mode):
        check_render_mode(render_mode)
        self.core = core
        self.render_mode = render_mode
        self._window = None

    def render(self, state, last_move=None):
        """``last_move``: (seat, action) of the move that led to ``state``, shown in the picture."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; pass render_mode=...")
            return None
        if state is None:
            raise RuntimeError("call reset() before render()")
        if self.render_mode == "ansi":
            return self.core.render_ansi(state, 0)
        # a core of another package may draw without the last move
        img = self.core.render_rgb(state, 0) if last_move is None else self.core.render_rgb(state, 0, last_move)
        if self.render_mode == "rgb_array":
            return img
        if self._window is None:
            self._window = HumanWindow(f"yyenvs {self.core.name}")
        self._window.show(img, self.core.render_ansi(state, 0))
        return None

    def close(self):
        if self._window is not None:
            self._window.close()
            self._window = None

    def __getstate__(self):  # a window does not pickle; a copy opens its own
        return {**self.__dict__, "_window": None}


class HumanWindow:
    def __init__(self, title: str):
        self.title = title
        self._screen = None
        try:
            import pygame  # noqa: F401
            self._pygame = pygame
        except ImportError:  # pragma: no cover - depends on the install
            gymnasium.logger.warn("pygame is not installed; render_mode='human' prints text")
            self._pygame = None

    def show(self, img: np.ndarray, text: str) -> None:
        if self._pygame is None:
            print(text)
            return
        pg = self._pygame
        if self._screen is None:
            pg.init()
            pg.display.set_caption(self.title)
            self._screen = pg.display.set_mode((img.shape[1], img.shape[0]))
        surface = pg.surfarray.make_surface(np.ascontiguousarray(img.transpose(1, 0, 2)))
        self._screen.blit(surface, (0, 0))
        pg.event.pump()
        pg.display.flip()

    def close(self) -> None:
        if self._pygame is not None and self._screen is not None:
            self._pygame.display.quit()
            self._screen = None
