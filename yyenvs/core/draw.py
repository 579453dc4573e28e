"""Tiny raster helpers for ``render_rgb`` (no image library needed).

A canvas is an (H, W, 3) uint8 array; every function draws in place.
"""
from __future__ import annotations

import numpy as np

Color = tuple[int, int, int]


def canvas(height: int, width: int, color: Color = (240, 230, 200)) -> np.ndarray:
    img = np.empty((height, width, 3), dtype=np.uint8)
    img[:] = color
    return img


def rect(img: np.ndarray, y0: int, x0: int, y1: int, x1: int, color: Color) -> None:
    """Fill the rectangle [y0, y1) x [x0, x1), clipped to the canvas."""
    h, w = img.shape[:2]
    img[max(y0, 0):min(y1, h), max(x0, 0):min(x1, w)] = color


def frame(img: np.ndarray, y0: int, x0: int, y1: int, x1: int, color: Color, t: int = 1) -> None:
    rect(img, y0, x0, y0 + t, x1, color)
    rect(img, y1 - t, x0, y1, x1, color)
    rect(img, y0, x0, y1, x0 + t, color)
    rect(img, y0, x1 - t, y1, x1, color)


def disc(img: np.ndarray, cy: float, cx: float, r: float, color: Color) -> None:
    h, w = img.shape[:2]
    y0, y1 = max(int(cy - r), 0), min(int(cy + r) + 2, h)
    x0, x1 = max(int(cx - r), 0), min(int(cx + r) + 2, w)
    if y0 >= y1 or x0 >= x1:
        return
    yy, xx = np.ogrid[y0:y1, x0:x1]
    inside = (yy - cy) ** 2 + (xx - cx) ** 2 <= r * r
    img[y0:y1, x0:x1][inside] = color


def ring(img: np.ndarray, cy: float, cx: float, r: float, color: Color, t: float = 2) -> None:
    h, w = img.shape[:2]
    y0, y1 = max(int(cy - r), 0), min(int(cy + r) + 2, h)
    x0, x1 = max(int(cx - r), 0), min(int(cx + r) + 2, w)
    if y0 >= y1 or x0 >= x1:
        return
    yy, xx = np.ogrid[y0:y1, x0:x1]
    d2 = (yy - cy) ** 2 + (xx - cx) ** 2
    img[y0:y1, x0:x1][(d2 <= r * r) & (d2 >= (r - t) ** 2)] = color


def line(img: np.ndarray, y0: float, x0: float, y1: float, x1: float, color: Color, t: float = 1) -> None:
    n = int(max(abs(y1 - y0), abs(x1 - x0))) + 1
    for k in range(n + 1):
        f = k / max(n, 1)
        disc(img, y0 + (y1 - y0) * f, x0 + (x1 - x0) * f, t / 2, color)


def pips(img: np.ndarray, cy: float, cx: float, n: int, r: float, color: Color) -> None:
    """``n`` small dots (1..6) centred at (cy, cx): a piece's value."""
    spots = {1: [(0, 0)], 2: [(-1, 0), (1, 0)], 3: [(-1, -1), (0, 0), (1, 1)],
             4: [(-1, -1), (-1, 1), (1, -1), (1, 1)],
             5: [(-1, -1), (-1, 1), (0, 0), (1, -1), (1, 1)],
             6: [(-1, -1), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 1)]}[int(n)]
    for dy, dx in spots:
        disc(img, cy + dy * r * 2.2, cx + dx * r * 2.2, r, color)
