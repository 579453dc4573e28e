"""The replay page and the play page in a real browser (headless Chromium through Selenium).

Skipped when Chromium or its driver is missing, unless YYENVS_BROWSER_TESTS=1 (as in .ci/run),
where a missing browser fails.
"""
from __future__ import annotations

import io
import os
import shutil
import threading
import time

import numpy as np
import pytest

from yyenvs.agents import make_agent
from yyenvs.evaluation.matches import play_match
from yyenvs.games import load_record, make_core
from yyenvs.core.record import replay
from yyenvs.web.pages import replay_page, result_text
from yyenvs.web.server import PlaySession, serve

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")
REQUIRED = os.environ.get("YYENVS_BROWSER_TESTS") == "1"
GAMES = [("yoxii", {}), ("koi", {}), ("koi", {"board_size": 7, "directions": 4}), ("yinyang", {}),
         ("yinyang", {"num_players": 3})]


@pytest.fixture(scope="module")
def browser():
    if not (CHROMIUM and DRIVER):
        if REQUIRED:
            pytest.fail("YYENVS_BROWSER_TESTS=1 but chromium or chromedriver is missing "
                        "(Debian: apt-get install chromium chromium-driver)")
        pytest.skip("chromium and chromedriver are not installed")
    try:
        from selenium import webdriver
    except ImportError:
        if REQUIRED:
            pytest.fail("YYENVS_BROWSER_TESTS=1 but selenium is not installed (it is in the dev extra)")
        pytest.skip("selenium is not installed")
    from selenium.webdriver.chrome.service import Service
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1600,1000",
                "--disable-gpu"):
        opts.add_argument(arg)
    driver = webdriver.Chrome(service=Service(DRIVER), options=opts)
    yield driver
    driver.quit()


def _wait(driver, script, timeout=20.0):
    """The value of ``script`` once it is truthy (fails after ``timeout`` seconds)."""
    end = time.time() + timeout
    while time.time() < end:
        value = driver.execute_script(script)
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for: {script}")


def _board_colours(driver) -> set:
    """The colours of the board area of a screenshot (PNG decoded by Pillow)."""
    from PIL import Image
    img = np.asarray(Image.open(io.BytesIO(driver.get_screenshot_as_png())).convert("RGB"))
    rect = driver.execute_script("const r = document.querySelector('#board svg').getBoundingClientRect();"
                                 "return [r.left, r.top, r.width, r.height, window.devicePixelRatio];")
    x, y, w, h, dpr = (float(v) for v in rect)
    crop = img[int(y * dpr):int((y + h) * dpr), int(x * dpr):int((x + w) * dpr)]
    assert crop.size, "the board is not on screen"
    return {tuple(c) for c in crop.reshape(-1, 3)[::7].tolist()}


def _shown(driver) -> tuple:
    """(texts, number of shapes) of the picture on the page."""
    return tuple(driver.execute_script(
        "const svg = document.querySelector('#board svg');"
        "return [[...svg.querySelectorAll('text')].map(t => t.textContent), svg.querySelectorAll('*').length];"))


def _drawn(svg: str) -> tuple:
    """(texts, number of shapes) of an SVG document."""
    import xml.etree.ElementTree as ET
    root = ET.fromstring(svg)
    return [t.text or "" for t in root.iter("{http://www.w3.org/2000/svg}text")], len(list(root.iter())) - 1


def _record(game, options, tmp_path):
    core = make_core(game, **options)
    r = play_match(core, make_agent("greedy", core, 0), make_agent("random", core, 1), 2,
                   seed=3, record_as=("greedy", "random"))["records"][0]
    page = tmp_path / f"{game}.html"
    page.write_text(replay_page(core, r), encoding="utf-8")
    return core, r, page


@pytest.mark.parametrize("game,options", GAMES)
def test_replay_page_steps_through_the_game_offline(browser, tmp_path, game, options):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    core, record, page = _record(game, options, tmp_path)
    browser.get(page.as_uri())
    n = len(record.moves)
    assert _wait(browser, "return document.body.dataset.frame") == "0"
    # offline: the page asked for nothing beyond itself
    assert browser.execute_script("return performance.getEntriesByType('resource').length") == 0
    assert browser.find_element(By.ID, "controls").is_displayed()
    first = browser.find_element(By.ID, "board").get_attribute("innerHTML")
    colours_first = _board_colours(browser)
    body = browser.find_element(By.TAG_NAME, "body")
    body.send_keys(Keys.ARROW_RIGHT)
    assert _wait(browser, "return document.body.dataset.frame") == "1"
    second = browser.find_element(By.ID, "board").get_attribute("innerHTML")
    assert second != first
    states = replay(core, record)
    assert tuple(_shown(browser)) == tuple(_drawn(core.render_svg(states[1], 0, record.moves[0], states[0])))
    assert browser.find_element(By.ID, "result").text == ""
    body.send_keys(Keys.END)
    assert _wait(browser, "return document.body.dataset.frame") == str(n)
    assert browser.find_element(By.ID, "result").text == result_text(record.players, record.returns,
                                                                     record.terminated, core.solo_levels)
    assert browser.find_element(By.ID, "slider").get_attribute("value") == str(n)
    assert tuple(_shown(browser)) == tuple(_drawn(core.render_svg(states[-1], 0, record.moves[-1], states[-2])))
    # the screenshot shows a drawn board, and the last frame differs from the first
    colours_last = _board_colours(browser)
    assert len(colours_last) > 20 and colours_last != colours_first
    body.send_keys(Keys.HOME)
    assert _wait(browser, "return document.body.dataset.frame") == "0"


def _serve(core, agent_spec, tmp_path, human_seat=0):
    agent = make_agent(agent_spec, core, 1)
    seats = [None if p == human_seat else agent for p in range(core.num_players)]
    names = ["human" if p == human_seat else agent_spec for p in range(core.num_players)]
    session = PlaySession(core, seats, names, seed=5, save_dir=str(tmp_path / "games"))
    server = serve(session, "test", 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return session, server, f"http://127.0.0.1:{server.server_address[1]}/"


@pytest.mark.parametrize("game,options", GAMES)
def test_play_page_plays_a_whole_game_against_an_agent(browser, tmp_path, game, options):
    """Clicks on legal moves get the agent's reply; an illegal click or request is refused; the
    finished game is saved as a record that replays."""
    from selenium.webdriver.common.by import By
    core = make_core(game, **options)
    session, server, url = _serve(core, "greedy", tmp_path, human_seat=1 if game == "koi" else 0)
    try:
        browser.get(url)
        plies = int(_wait(browser, "return document.body.dataset.plies"))
        assert plies == len(session.moves)
        assert not browser.find_element(By.ID, "controls").is_displayed()  # no replay controls here
        # a shape that is a click target but no legal move's: refused on the page
        blocked = browser.execute_script(
            "return [...document.querySelectorAll('#board [data-target]:not(.legal)')].length")
        if blocked:
            browser.execute_script("document.querySelector('#board [data-target]:not(.legal)')"
                                   ".dispatchEvent(new MouseEvent('click', {bubbles: true}))")
            assert "no legal move there" in browser.find_element(By.ID, "message").text
            assert int(browser.execute_script("return document.body.dataset.plies")) == plies
        # an illegal action sent to the server: HTTP 400 with a message, the game unchanged
        status = browser.execute_async_script(
            "const done = arguments[arguments.length - 1];"
            "fetch('move', {method: 'POST', body: JSON.stringify({action: 999999}),"
            "               headers: {'Content-Type': 'application/json'}})"
            ".then(async r => done([r.status, (await r.json()).error]));")
        assert status[0] == 400 and "action must be an integer" in status[1]
        status = browser.execute_async_script(  # what a simple cross-site form or fetch could send
            "const done = arguments[arguments.length - 1];"
            "fetch('move', {method: 'POST', body: '{\"action\": 0}'}).then(r => done(r.status));")
        assert status == 415 and len(session.moves) == plies
        moves = 0
        while browser.execute_script("return document.body.dataset.over") != "1":
            before = len(session.moves)
            legal = browser.execute_script(
                "return [...document.querySelectorAll('#board [data-target].legal')].map(e => e.dataset.target)")
            if moves % 2 == 0 and legal:  # a click on the board ...
                browser.execute_script(f"document.querySelector('#board [data-target=\"{legal[0]}\"]')"
                                       ".dispatchEvent(new MouseEvent('click', {bubbles: true}))")
                _wait(browser, f"return +document.body.dataset.plies > {before} || "
                               "document.getElementById('message').textContent.includes('pick one')")
                if int(browser.execute_script("return document.body.dataset.plies")) == before:
                    # ... that left several moves to choose from: only those are offered
                    offered = browser.find_elements(By.CSS_SELECTOR, "#legal button")
                    assert 1 < len(offered) < len(session.view()["legal"]) + 1
                    offered[0].click()
            else:  # ... or a move by name
                browser.find_elements(By.CSS_SELECTOR, "#legal button")[-1].click()
            _wait(browser, f"return +document.body.dataset.plies > {before}")
            after = len(session.moves)
            assert after > before
            if not session.state.done[0]:  # the agent answered: it is the person's turn again
                assert int(session.state.current_player[0]) in (0, 1) and \
                    session.agents[int(session.state.current_player[0])] is None
            moves += 1
            assert moves < 2000
        assert browser.find_element(By.ID, "result").text == result_text(
            session.names, session.returns.tolist(), bool(session.state.terminated[0]), core.solo_levels)
        assert len(session.saved) == 1
        record, rcore = load_record(session.saved[0])
        assert record.players.count("human") == 1 and len(replay(rcore, record)) == len(session.moves) + 1
        assert len(_board_colours(browser)) > 20
    finally:
        server.shutdown()
        server.server_close()


CENTRE_HITS = """
const out = [];
for (const el of document.querySelectorAll('#board [data-target].legal')) {
  el.scrollIntoView({block: "center", inline: "center"});
  const r = el.getBoundingClientRect();
  const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
  const got = hit && hit.closest('[data-target]');
  out.push([el.dataset.target, got ? got.dataset.target : (hit ? hit.tagName : null)]);
}
return out;
"""


@pytest.mark.parametrize("game,options", GAMES + [("yinyang", {"num_players": 4})])
def test_the_centre_of_every_legal_target_takes_the_click(browser, tmp_path, game, options):
    """A click at the centre of every drawn legal target reaches that target, whatever is drawn on
    it (a koi's number, a city's goods or a neighbour's name), through the first moves of a game."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    core = make_core(game, **options)
    session, server, url = _serve(core, "random", tmp_path, human_seat=0)
    try:
        browser.get(url)
        for turn in range(8):  # Koi: five placements, then swims (a koi's number drawn on it)
            plies = int(_wait(browser, "return document.body.dataset.plies"))
            if browser.execute_script("return document.body.dataset.over") == "1":
                break
            hits = browser.execute_script(CENTRE_HITS)
            if not hits:  # a decision with nothing to point at (a Yin Yang card or a pass): by name
                assert turn > 0, "no legal move is drawn on the board at the start"
                browser.find_elements(By.CSS_SELECTOR, "#legal button")[0].click()
                _wait(browser, f"return +document.body.dataset.plies > {plies}")
                continue
            missed = [(want, got) for want, got in hits if want != got]
            assert not missed, f"{len(missed)} of {len(hits)} targets ignore a click on their centre: {missed[:5]}"
            # a real mouse click on the centre of one of them plays it (or offers its moves)
            el = browser.find_elements(By.CSS_SELECTOR, "#board [data-target].legal")[turn % len(hits)]
            ActionChains(browser).move_to_element(el).click().perform()
            _wait(browser, f"return +document.body.dataset.plies > {plies} || "
                           "document.getElementById('message').textContent.includes('pick one')")
            if int(browser.execute_script("return document.body.dataset.plies")) == plies:
                browser.find_elements(By.CSS_SELECTOR, "#legal button")[0].click()
                _wait(browser, f"return +document.body.dataset.plies > {plies}")
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize("game,options", [("yoxii", {}), ("koi", {}), ("yinyang", {})])
def test_a_whole_game_played_by_mouse_clicks_on_the_board(browser, tmp_path, game, options):
    """Each move is clicked where it happens, step by step along its path of targets (Koi: the koi,
    then where it stops; Yoxii: where the totem goes, then the square), with real mouse clicks at
    the targets' centres; a button is clicked only for what the board cannot show (a value, a card)."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    core = make_core(game, **options)
    session, server, url = _serve(core, "random", tmp_path, human_seat=0)
    rng = np.random.default_rng(0)
    clicked = {}  # path length -> clicks made at that depth
    kinds = set()  # the kinds of target clicked: a Koi point, a Yoxii square, a Yin Yang city or trigram

    def kind(target):
        return target.rstrip("0123456789")
    try:
        browser.get(url)
        for _ in range(3000):
            plies = int(_wait(browser, "return document.body.dataset.plies"))
            if browser.execute_script("return document.body.dataset.over") == "1":
                break
            legal = session.view()["legal"]
            with_path = [m for m in legal if m["path"]]
            new_kind = [m for m in with_path if kind(m["path"][0]) not in kinds]  # each kind clicked once at least
            pick_from = new_kind or with_path or legal
            move = pick_from[rng.integers(len(pick_from))]
            kinds.update(kind(t) for t in move["path"])
            for depth, target in enumerate(move["path"]):
                el = browser.find_element(By.CSS_SELECTOR, f'#board [data-target="{target}"].legal')
                ActionChains(browser).move_to_element(el).click().perform()
                clicked[depth] = clicked.get(depth, 0) + 1
                if _wait(browser, f"return +document.body.dataset.plies > {plies} || "
                                  "document.getElementById('message').textContent.includes('pick one')"):
                    if int(browser.execute_script("return document.body.dataset.plies")) > plies:
                        break
            if int(browser.execute_script("return document.body.dataset.plies")) == plies:
                buttons = browser.find_elements(By.CSS_SELECTOR, f'#legal button[data-action="{move["action"]}"]')
                assert len(buttons) == 1, move  # what the clicks left open is offered by name
                buttons[0].click()
            _wait(browser, f"return +document.body.dataset.plies > {plies}")
            assert tuple(session.moves[plies]) == (0, move["action"])  # the move clicked is the one played
        assert browser.execute_script("return document.body.dataset.over") == "1"
        assert clicked.get(0, 0) > 3 and (game == "yinyang" or clicked.get(1, 0) > 0), clicked
        assert kinds == {"yoxii": {"c"}, "koi": {"p"}, "yinyang": {"city", "trigram"}}[game], kinds
    finally:
        server.shutdown()
        server.server_close()


FITS = """
const inView = (id) => { const r = document.getElementById(id).getBoundingClientRect();
                         return r.top >= 0 && r.bottom <= window.innerHeight && r.right <= window.innerWidth; };
const b = document.querySelector('#board svg').getBoundingClientRect();
return [b.bottom <= window.innerHeight + 1 && b.right <= window.innerWidth + 1, inView('you'), inView('status'),
        inView('table'), window.innerWidth, window.innerHeight];
"""


@pytest.mark.parametrize("game,options", [("yoxii", {}), ("koi", {}), ("yinyang", {"num_players": 3})])
def test_the_play_page_says_who_you_are_fits_the_window_and_offers_resign_and_seats(browser, tmp_path,
                                                                                   game, options):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select
    core = make_core(game, **options)
    session, server, url = _serve(core, "random", tmp_path, human_seat=0)
    size = browser.get_window_size()
    try:
        browser.set_window_size(1280, 800)
        browser.get(url)
        _wait(browser, "return document.body.dataset.plies")
        you = browser.find_element(By.ID, "you").text
        assert you == session.view()["you"] and you.startswith(f"you play {core.player_names()[0]} (seat 0)")
        *fits, width, height = browser.execute_script(FITS)
        assert all(fits), (fits, width, height)  # the board, who you are, the prompt and the table in view
        browser.find_element(By.ID, "resign").click()
        _wait(browser, "return document.body.dataset.over === '1'")
        assert "resigned" in browser.find_element(By.ID, "result").text
        Select(browser.find_element(By.ID, "seat")).select_by_value("1")
        browser.find_element(By.ID, "again").click()
        _wait(browser, "return document.body.dataset.over === '0'")
        assert session.agents[1] is None and session.moves and session.moves[0][0] == 0  # the agent opened
        assert browser.find_element(By.ID, "you").text.startswith(f"you play {core.player_names()[1]} (seat 1)")
    finally:
        browser.set_window_size(size["width"], size["height"])
        server.shutdown()
        server.server_close()


def test_the_replay_page_plays_by_itself(browser, tmp_path):
    from selenium.webdriver.common.by import By
    core, record, page = _record("koi", {}, tmp_path)
    browser.get(page.as_uri())
    assert _wait(browser, "return document.body.dataset.frame") == "0"
    browser.find_element(By.ID, "autoplay").click()
    assert _wait(browser, "return +document.body.dataset.frame >= 2 && document.body.dataset.frame", 10)
    browser.find_element(By.ID, "autoplay").click()  # pause: the frame stays
    frame = browser.execute_script("return document.body.dataset.frame")
    time.sleep(1.7)
    assert browser.execute_script("return document.body.dataset.frame") == frame


def test_hostile_names_in_a_record_stay_text(browser, tmp_path):
    """Names are data: a placeholder, markup or a comment opener in a player's name shows as text."""
    from selenium.webdriver.common.by import By
    core = make_core("koi", board_size=7, directions=4)
    record = play_match(core, make_agent("greedy", core, 0), make_agent("random", core, 1), 2,
                        record_as=("__DATA__ <img src=x onerror=document.title='hacked'>", "<!--<script>"))["records"][0]
    page = tmp_path / "hostile.html"
    page.write_text(replay_page(core, record), encoding="utf-8")
    browser.get(page.as_uri())
    assert _wait(browser, "return document.body.dataset.frame") == "0"  # the page's script ran
    assert browser.execute_script("return document.querySelectorAll('img').length") == 0
    assert browser.title != "hacked" and "<img src=x" in browser.find_element(By.ID, "title").text
    assert "<!--<script>" in browser.find_element(By.ID, "moves").text
