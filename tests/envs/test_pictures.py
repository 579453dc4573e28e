"""The drawn pictures: every game's SVG and RGB show what a person needs to follow the game
(names, counts, whose turn, the last move), the two come from one scene, and every click target
the play page offers is drawn."""
from __future__ import annotations

import xml.etree.ElementTree as ET

import numpy as np
import pytest

from yyenvs.games import make_core, variants

SVG = "{http://www.w3.org/2000/svg}"


def _play(core, plies, seed=1):
    """A state after ``plies`` random legal moves (or the end), and the last move."""
    rng = np.random.default_rng(seed)
    st = core.init(np.array([seed], np.uint64))
    last = None
    for _ in range(plies):
        if st.done[0]:
            break
        seat = int(st.current_player[0])
        a = int(rng.choice(np.flatnonzero(core.legal_action_mask(st)[0])))
        core.step(st, np.array([a]))
        last = (seat, a)
    return st, last


def _texts(svg: str) -> list[str]:
    return [t.text or "" for t in ET.fromstring(svg).iter(SVG + "text")]


def _expected(core, st) -> list[str]:
    """Words each game's picture must show."""
    if core.name == "koi":
        n = core.board_size
        return [chr(ord("a") + c) for c in range(n)] + [str(r + 1) for r in range(n)] + [
            "Yin", "Yang", f"fry {int(st.fry[0, 0])} / {core.win_fry}", f"fry {int(st.fry[0, 1])} / {core.win_fry}"]
    if core.name == "yoxii":
        return list("abcdefg") + [str(r) for r in range(1, 8)] + ["White", "Red"]
    d = core.data
    words = list(d.city_names) + list(d.kingdom_names) + ["Tai Ji", "Yin area", "Yang area", "bag"]
    words += [f"Player {q}" for q in range(core.num_players)] + ["Qian", "Kun"]
    return words


@pytest.mark.parametrize("game,options", variants())
def test_the_picture_names_what_a_person_needs(game, options):
    core = make_core(game, **options)
    for plies in (0, 7, 10_000):
        st, last = _play(core, plies)
        svg = core.render_svg(st, 0, last)
        texts = _texts(svg)
        joined = " | ".join(texts)
        for word in _expected(core, st):
            assert any(word == t or t.startswith(word + " ") or f" {word}" in t or word in t.split(", ")
                       for t in texts), (word, joined[:500])
        if last is not None:
            assert any(t.startswith("last:") for t in texts) or "last:" in joined
            assert core.action_to_string(last[1]) in joined
        if st.terminated[0]:
            assert any(w in joined for w in ("wins", "game over", "draw", "score"))
        else:
            assert "to move" in joined or "to act" in joined or "chance" in joined
        if game == "yinyang" and st.terminated[0]:
            assert sum(t.startswith("score ") for t in texts) == core.num_players


@pytest.mark.parametrize("game,options", variants())
def test_rgb_and_svg_are_one_scene_and_text_is_drawn(game, options):
    core = make_core(game, **options)
    st, last = _play(core, 9)
    scene = core.scene(st, 0, last)
    img = core.render_rgb(st, 0, last)
    assert img.dtype == np.uint8 and img.shape == (scene.height, scene.width, 3)
    root = ET.fromstring(core.render_svg(st, 0, last))
    assert (int(root.get("width")), int(root.get("height"))) == (scene.width, scene.height)
    assert len(list(root)) == len(scene.shapes) + 1  # the background, then one element per shape
    scene.shapes = [s for s in scene.shapes if s[0] != "text"]
    assert not np.array_equal(scene.rgb(), img)  # the text is in the raster
    st2 = st.copy()
    if not st2.done[0]:
        core.step(st2, np.array([int(np.flatnonzero(core.legal_action_mask(st2)[0])[0])]))
        assert not np.array_equal(core.render_rgb(st2), core.render_rgb(st))


@pytest.mark.parametrize("game,options", variants())
def test_click_targets_are_legal_moves_drawn_on_the_picture(game, options):
    core = make_core(game, **options)
    seen = 0
    for plies in (0, 3, 12, 30):
        st, _ = _play(core, plies, seed=plies)
        if st.done[0]:
            continue
        targets = core.click_targets(st, 0)
        legal = set(np.flatnonzero(core.legal_action_mask(st)[0]).tolist())
        assert set(targets) <= legal
        drawn = {e.get("data-target") for e in ET.fromstring(core.render_svg(st, 0)).iter()
                 if e.get("data-target")}
        assert all(isinstance(path, tuple) and path for path in targets.values())
        assert {t for path in targets.values() for t in path} <= drawn
        seen += len(targets)
    assert seen > 0


def _shapes(svg: str) -> list:
    """Every drawn element but text, as (tag, attributes): what the picture shows beyond its words."""
    return [(e.tag, sorted(e.attrib.items())) for e in ET.fromstring(svg).iter() if not e.tag.endswith("text")]


@pytest.mark.parametrize("game", ["koi", "yoxii", "yinyang"])
def test_the_last_move_is_marked_on_the_board_not_only_named(game):
    """A move that names a place on the board (a point, a square, a city, a trigram) is marked
    there: the picture with the last move has a shape the one without lacks."""
    core = make_core(game)
    marked = 0
    for plies in range(1, 30):
        before, _ = _play(core, plies - 1)  # the same random moves, one fewer
        st, last = _play(core, plies)
        if st.done[0] or last[1] not in core.click_targets(before, 0):
            continue  # a Yin Yang card or pass: named in the header only
        extra = [x for x in _shapes(core.render_svg(st, 0, last)) if x not in _shapes(core.render_svg(st, 0))]
        assert extra, (plies, core.action_to_string(last[1]))
        marked += 1
    assert marked >= 5


def test_the_winner_shown_comes_from_the_board_not_the_last_rewards():
    """Rows of a batch that ended earlier have no rewards in the last step; their picture still names
    the winner (Yoxii: the points around the totem)."""
    core = make_core("yoxii")
    st = core.init(np.arange(8, dtype=np.uint64))
    rng = np.random.default_rng(0)
    while not st.done.all():
        mask = core.legal_action_mask(st)
        core.step(st, np.where(st.done, -1, (rng.random(mask.shape) * mask).argmax(1)))
    scores = core.scores(st)
    for i in range(8):
        (w_sum, w_n), (r_sum, r_n) = scores[i]
        want = ("White wins" if (w_sum, w_n) > (r_sum, r_n) else "Red wins" if (w_sum, w_n) < (r_sum, r_n)
                else "draw")
        assert want in _texts(core.render_svg(st, i)), (i, scores[i])
        assert core.render_ansi(st, i).splitlines()[-1] == "game over: " + want.lower().replace(" wins", " wins")


def test_yin_yang_city_names_do_not_overlap():
    """Each city's name, read from the drawn picture with its width estimated at 0.6 em a letter,
    overlaps no other name and covers the centre of no other city."""
    from yyenvs.games.yinyang.picture import NAME_SIZE, text_box
    core = make_core("yinyang")
    names = set(core.data.city_names)
    root = ET.fromstring(core.render_svg(core.init(np.array([0])), 0))
    ns = "{http://www.w3.org/2000/svg}"
    boxes = [text_box(float(t.get("x")), float(t.get("y")), t.text, float(t.get("font-size")), t.get("text-anchor"))
             for t in root.iter(ns + "text") if t.text in names and float(t.get("font-size")) == NAME_SIZE]
    assert len(boxes) == len(names)
    centres = [(float(c.get("cx")), float(c.get("cy"))) for c in root.iter(ns + "circle")
               if (c.get("data-target") or "").startswith("city")]
    for k, a in enumerate(boxes):
        for b in boxes[k + 1:]:
            assert min(a[2], b[2]) <= max(a[0], b[0]) or min(a[3], b[3]) <= max(a[1], b[1]), (a, b)
        covered = [(x, y) for x, y in centres if a[0] - 6 < x < a[2] + 6 and a[1] - 6 < y < a[3] + 6]
        assert not covered, (a, covered)


def _highlight_lines(svg: str) -> list[tuple[float, float, float, float]]:
    return [tuple(float(e.get(k)) for k in ("x1", "y1", "x2", "y2")) for e in ET.fromstring(svg).iter()
            if e.tag.endswith("line") and e.get("stroke") == "#fac828"]


def test_the_last_swim_is_drawn_from_its_start_and_across_the_edge():
    """Given the state before, Koi's picture draws the swim through every point it crossed; koi1 N
    of the quick start leaves g3 by the top edge and comes back from the bottom to g5."""
    core = make_core("koi", quick_start=True)
    st = core.init(np.array([0]))
    before = st.copy()
    a = core.string_to_action("koi1 N")
    core.step(st, np.array([a]))
    assert _highlight_lines(core.render_svg(st, 0, (0, a))) == []  # without the state before: no path
    lines = _highlight_lines(core.render_svg(st, 0, (0, a), before))
    # g3 -> g2 -> g1 -> (edge) -> g7 -> g6 -> g5: 2 inner segments, 2 half ones at the edge, 2 more inside
    assert len(lines) == 6 and len({x for line in lines for x in (line[0], line[2])}) == 1  # one column
    ys = sorted(y for line in lines for y in (line[1], line[3]))
    top, bottom = 26, 26 + 7 * core_cell(core)
    assert ys[0] == top and ys[-1] == bottom  # the path touches both edges: it wrapped


def core_cell(core) -> int:
    from yyenvs.games.koi.picture import _cell
    return _cell(core.board_size)


def test_the_totems_last_step_is_drawn_from_to():
    core = make_core("yoxii")
    st = core.init(np.array([0]))
    before = st.copy()
    a = int(np.flatnonzero(core.legal_action_mask(st)[0])[0])  # the totem one square north
    core.step(st, np.array([a]))
    (line,) = _highlight_lines(core.render_svg(st, 0, (0, a), before))
    assert line[0] == line[2] and line[1] - line[3] == 60  # one square up, in the same column
