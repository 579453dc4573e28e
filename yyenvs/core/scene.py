"""Pictures drawn once, shown two ways: a :class:`Scene` is a list of shapes that becomes an SVG
document (:meth:`Scene.svg`, for pages and replays) or an RGB array (:meth:`Scene.rgb`, for
``render_mode="rgb_array"``), so both always show the same thing.

Coordinates are pixels, y pointing down.  A shape may carry a ``target``: a short name the play
page uses to map clicks to moves (SVG attribute ``data-target``).  The raster uses Pillow and its
built-in font, so no system font is needed.
"""
from __future__ import annotations

from html import escape

import numpy as np

Color = tuple  # (r, g, b) integers 0-255

ANCHORS = {"start": "l", "middle": "m", "end": "r"}  # SVG text-anchor -> Pillow anchor column
PASS_CLICKS = ' pointer-events="none"'  # on every shape that is no click target


def _hex(color) -> str:
    return "none" if color is None else "#%02x%02x%02x" % tuple(int(c) for c in color)


def _num(x) -> str:
    return f"{float(x):.1f}".rstrip("0").rstrip(".")


class Scene:
    """An empty picture of ``width`` x ``height`` pixels on ``background``."""

    def __init__(self, width: int, height: int, background: Color = (240, 230, 200)):
        self.width, self.height, self.background = int(width), int(height), background
        self.shapes: list[tuple] = []

    # -- drawing -------------------------------------------------------------
    def rect(self, x, y, w, h, fill, stroke=None, stroke_width=1.0, target=None):
        self.shapes.append(("rect", (x, y, w, h), fill, stroke, stroke_width, target))

    def circle(self, cx, cy, r, fill, stroke=None, stroke_width=1.0, target=None):
        self.shapes.append(("circle", (cx, cy, r), fill, stroke, stroke_width, target))

    def polygon(self, points, fill, stroke=None, stroke_width=1.0, target=None):
        self.shapes.append(("polygon", tuple(points), fill, stroke, stroke_width, target))

    def line(self, x1, y1, x2, y2, stroke, width=1.0):
        self.shapes.append(("line", (x1, y1, x2, y2), None, stroke, width, None))

    def text(self, x, y, text, size=12, fill=(20, 20, 20), anchor="start", bold=False, halo=None):
        """``text`` with its start (or middle, end) at (x, y), y the line's centre; ``halo``: a colour
        drawn around the letters, so that a label stays readable over lines and other labels."""
        if anchor not in ANCHORS:
            raise ValueError(f"anchor must be one of {sorted(ANCHORS)}, got {anchor!r}")
        self.shapes.append(("text", (x, y, str(text), size, anchor, bold), fill, halo, 0, None))

    # -- output --------------------------------------------------------------
    def svg(self) -> str:
        """The scene as a standalone SVG document (UTF-8 text)."""
        out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{self.width}" height="{self.height}" '
               f'viewBox="0 0 {self.width} {self.height}" font-family="DejaVu Sans, Arial, sans-serif">',
               f'<rect width="{self.width}" height="{self.height}" fill="{_hex(self.background)}"/>']
        for kind, g, fill, stroke, sw, target in self.shapes:
            paint = f' fill="{_hex(fill)}"'
            if stroke is not None and kind != "text":
                paint += f' stroke="{_hex(stroke)}" stroke-width="{_num(sw)}"'
            if target is not None:
                paint += f' data-target="{escape(str(target))}"'
            else:  # drawn over a target (a koi's number, a city's goods): let the click through to it
                paint += PASS_CLICKS
            if kind == "rect":
                x, y, w, h = g
                out.append(f'<rect x="{_num(x)}" y="{_num(y)}" width="{_num(w)}" height="{_num(h)}"{paint}/>')
            elif kind == "circle":
                out.append(f'<circle cx="{_num(g[0])}" cy="{_num(g[1])}" r="{_num(g[2])}"{paint}/>')
            elif kind == "polygon":
                pts = " ".join(f"{_num(x)},{_num(y)}" for x, y in g)
                out.append(f'<polygon points="{pts}"{paint}/>')
            elif kind == "line":
                x1, y1, x2, y2 = g
                out.append(f'<line x1="{_num(x1)}" y1="{_num(y1)}" x2="{_num(x2)}" y2="{_num(y2)}" '
                           f'stroke="{_hex(stroke)}" stroke-width="{_num(sw)}" stroke-linecap="round"{PASS_CLICKS}/>')
            else:
                x, y, text, size, anchor, bold = g
                weight = ' font-weight="bold"' if bold else ""
                halo = (f' stroke="{_hex(stroke)}" stroke-width="3" paint-order="stroke" stroke-linejoin="round"'
                        if stroke is not None else "")
                out.append(f'<text x="{_num(x)}" y="{_num(y)}" font-size="{_num(size)}" '
                           f'text-anchor="{anchor}" dominant-baseline="central"{weight}{halo} '
                           f'fill="{_hex(fill)}"{PASS_CLICKS}>{escape(text)}</text>')
        out.append("</svg>")
        return "\n".join(out)

    def rgb(self, scale: float = 1.0) -> np.ndarray:
        """The scene as an (H, W, 3) uint8 array, ``scale`` times the scene's size."""
        from PIL import Image, ImageDraw, ImageFont

        s = float(scale)
        img = Image.new("RGB", (max(1, round(self.width * s)), max(1, round(self.height * s))),
                        tuple(int(c) for c in self.background))
        pen = ImageDraw.Draw(img)
        fonts: dict = {}
        for kind, g, fill, stroke, sw, _ in self.shapes:
            f = None if fill is None else tuple(int(c) for c in fill)
            o = None if stroke is None else tuple(int(c) for c in stroke)
            w = max(1, round(sw * s)) if stroke is not None and kind != "text" else 0
            if kind == "rect":
                x, y, rw, rh = (v * s for v in g)
                pen.rectangle((x, y, x + rw, y + rh), fill=f, outline=o, width=w)
            elif kind == "circle":
                cx, cy, r = (v * s for v in g)
                pen.ellipse((cx - r, cy - r, cx + r, cy + r), fill=f, outline=o, width=w)
            elif kind == "polygon":
                pen.polygon([(x * s, y * s) for x, y in g], fill=f, outline=o, width=w)
            elif kind == "line":
                x1, y1, x2, y2 = (v * s for v in g)
                pen.line((x1, y1, x2, y2), fill=o, width=w)
            else:
                x, y, text, size, anchor, bold = g
                px = max(6, round(size * s))
                font = fonts.get(px)
                if font is None:
                    font = fonts[px] = ImageFont.load_default(size=px)
                halo = {} if o is None else {"stroke_width": max(1, round(1.5 * s)), "stroke_fill": o}
                # the built-in font has no bold face: bold text gets a one-pixel shadow
                if bold:
                    pen.text((x * s + 1, y * s), text, fill=f, font=font, anchor=ANCHORS[anchor] + "m", **halo)
                pen.text((x * s, y * s), text, fill=f, font=font, anchor=ANCHORS[anchor] + "m", **halo)
        return np.asarray(img, dtype=np.uint8).copy()
