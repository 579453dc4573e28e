"""The HTML pages: one template (``page.html``, with its script and style inline) filled with a
JSON blob, so that a replay is a single file that needs no network.

A replay's frames are the game's SVG pictures after each move, packed as line deltas: the
distinct SVG lines once, then per frame the edits against the frame before (a picture changes
in a few lines per move, so a 200-move game stays near 150 KB instead of ~10 MB).
"""
from __future__ import annotations

import difflib
import json
import re
from html import escape
from importlib import resources

from yyenvs.core.record import GameRecord, replay

PAGE = "page.html"


def _template() -> str:
    return resources.files("yyenvs.web").joinpath(PAGE).read_text(encoding="utf-8")


def fill(title: str, data: dict) -> str:
    """The page with ``title`` and ``data``, both placeholders filled in one pass (so that a
    placeholder inside a name stays text); in the JSON ``<``, ``>`` and ``&`` are written as
    escapes, so that no string can end or confuse the script element that holds it."""
    blob = (json.dumps(data, ensure_ascii=False)
            .replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e"))
    parts = {"__TITLE__": escape(title), "__DATA__": blob}
    return re.sub("__TITLE__|__DATA__", lambda m: parts[m.group(0)], _template())


def pack_frames(frames: list[str]) -> dict:
    """``{"lines": [...], "frames": [[[at, drop, [line indices]], ...], ...]}`` (see the module)."""
    table: dict[str, int] = {}
    packed, prev = [], []
    for frame in frames:
        idx = [table.setdefault(line, len(table)) for line in frame.split("\n")]
        ops = [[i1, i2 - i1, idx[j1:j2]] for tag, i1, i2, j1, j2 in
               difflib.SequenceMatcher(None, prev, idx, autojunk=False).get_opcodes() if tag != "equal"]
        packed.append(ops)
        prev = idx
    return {"lines": sorted(table, key=table.get), "frames": packed}


def unpack_frames(packed: dict) -> list[str]:
    """The inverse of :func:`pack_frames` (what the page's script does)."""
    out, prev = [], []
    for ops in packed["frames"]:
        cur = list(prev)
        for at, drop, add in reversed(ops):
            cur[at:at + drop] = add
        out.append("\n".join(packed["lines"][i] for i in cur))
        prev = cur
    return out


def result_text(players, returns, terminated: bool, levels=()) -> str:
    """The result in words: who won (or that it was a draw, or stopped), with the returns; a solo
    game's reward is its level, named by ``levels`` (the core's ``solo_levels``) where it has one."""
    ret = ", ".join(f"{r:g}" for r in returns)
    if not terminated:
        return "stopped before the end (no result)"
    if len(players) == 1:
        level = int(returns[0])
        name = f" ({levels[level]})" if 0 <= level < len(levels) else ""
        return f"{players[0]} reached achievement level {level}{name}"
    names = [f"{p} (seat {s})" for s, p in enumerate(players)]
    best = max(returns)
    winners = [n for n, r in zip(names, returns) if r == best]
    if len(winners) == len(names):
        return f"draw (returns {ret})"
    return f"{' and '.join(winners)} {'win' if len(winners) > 1 else 'wins'} (returns {ret})"


def replay_page(core, record: GameRecord) -> str:
    """A self-contained HTML page replaying ``record`` (checked by replaying it first)."""
    states = replay(core, record)
    frames = [core.render_svg(states[0], 0)]
    frames += [core.render_svg(st, 0, move, prev) for prev, st, move in zip(states, states[1:], record.moves)]
    title = f"{core.spec.title}: {' vs '.join(record.players)} (seed {record.seed})"
    who = lambda seat: "chance" if seat < 0 else record.players[seat]  # noqa: E731
    moves = [f"{who(seat)}: {name}" for (seat, _), name in zip(record.moves, record.notation)]
    return fill(title, {"mode": "replay", "moves": moves, "frames": pack_frames(frames),
                        "result": result_text(record.players, record.returns, record.terminated, core.solo_levels),
                        "players": record.players})


def play_page(title: str) -> str:
    """The page of the play server (it asks the server for everything it shows)."""
    return fill(title, {"mode": "play"})
