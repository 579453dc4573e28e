"""The ``human`` render mode: a pygame window showing ``render_rgb``.

Without pygame (it is in the ``dev`` extra) the text picture is printed
instead, with a one-time warning.
"""
from __future__ import annotations

import numpy as np


class HumanWindow:
    def __init__(self, title: str):
        self.title = title
        self._screen = None
        try:
            import pygame  # noqa: F401
            self._pygame = pygame
        except ImportError:  # pragma: no cover - depends on the install
            import gymnasium
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
