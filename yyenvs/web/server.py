"""Play an agent in the browser: a small HTTP server on 127.0.0.1 that holds one game.

``yyenvs play --human --game koi --agents human greedy`` starts it.  The page
(:func:`yyenvs.web.pages.play_page`) asks for the game's view (``GET state``) and sends the
person's moves (``POST move`` with ``{"action": n}``); the server checks every move, lets the
agents answer until it is the person's turn again, and writes the game as a record when it ends.
``POST new`` starts the next game (the next seed; ``{"seat": k}`` puts the person in seat ``k``),
``POST resign`` gives the game up.  ``GET busy`` answers at once, even while agents move: whether the
server is working on a request and what numba is compiling, if anything (the page shows it).

Only legal moves are played: anything else is answered with HTTP 400 and a message, and the
game is unchanged.  The server answers only requests addressed to its own host and port (no
other host name can be pointed at it), takes moves only as ``application/json`` from its own
page (a browser sends another site's JSON only after asking, and the server never agrees; a
request that says it comes from another origin or site is refused), reads at most a few KB per
request, and serves nothing from disk.
"""
from __future__ import annotations

import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np

from yyenvs.core.compile_notice import compiling
from yyenvs.core.errors import RecordError
from yyenvs.core.record import free_stem, make_record, save_records
from yyenvs.web.pages import result_text

MAX_BODY = 4096
MAX_SEED = 2**63


class PlaySession:
    """One game at a time between the person (the seats in ``human``) and agents (the others).

    ``agents[p]``: the agent of seat ``p`` (None for the person); ``names[p]``: how records
    name it.  Games use seeds ``seed``, ``seed + 1``, ...; each finished game is written to
    ``save_dir`` as ``human-<date>-<time>-<game>-00000.json`` (None: not saved; a record that
cannot be written is reported in the view, the game is not undone).
    """

    def __init__(self, core, agents, names, seed: int = 0, save_dir=None):
        if len(agents) != core.num_players or len(names) != core.num_players:
            raise ValueError(f"one agent and one name per seat: {core.num_players} seats")
        if all(a is not None for a in agents):
            raise ValueError("no seat is the person's")
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= seed < MAX_SEED:
            raise ValueError(f"seed must be an integer from 0 to {MAX_SEED - 1}, got {seed!r}")
        self.core, self.agents, self.names = core, list(agents), [str(n) for n in names]
        self.save_dir = save_dir
        self.seed = int(seed) - 1
        self.lock = threading.Lock()
        self.saved: list[str] = []
        self.save_error = ""
        self._games = 0  # games begun: the k of the record names
        self.new_game()

    def new_game(self, seat=None) -> None:
        """The next game (the next seed); ``seat``: the person's seat in it (None: as before).
        With one person and several agents, the person and the agent in ``seat`` change places."""
        if seat is not None:
            self._take_seat(seat)
        self.seed += 1
        self._games += 1
        self.resigned = False
        self.state = self.core.init(np.array([self.seed], dtype=np.uint64))
        self.before = None
        self.moves: list[tuple[int, int]] = []
        self.returns = np.zeros(self.core.num_players)
        self.save_error = ""
        self._saved = False
        self._advance()

    def _take_seat(self, seat) -> None:
        mine = [p for p, a in enumerate(self.agents) if a is None]
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < self.core.num_players:
            raise ValueError(f"seat must be an integer from 0 to {self.core.num_players - 1}, got {seat!r}")
        if len(mine) != 1:
            raise ValueError("choosing a seat needs exactly one person at the table")
        p = mine[0]
        for seats in (self.agents, self.names):
            seats[p], seats[seat] = seats[seat], seats[p]

    def resign(self) -> None:
        """The person gives the game up: it is over, unsaved (a record holds only finished games)."""
        if self.state.done[0] or self.resigned:
            raise ValueError("the game is over; start a new one")
        self.resigned = True

    def _apply(self, action: int) -> None:
        self.before = self.state.copy()  # the picture draws the last move from -> to
        self.moves.append((int(self.state.current_player[0]), int(action)))
        self.core.step(self.state, np.array([action], dtype=np.int64))
        self.returns += self.state.rewards[0]

    def _advance(self) -> None:
        """Let chance and the agents move until the person is to act or the game is over."""
        core, st = self.core, self.state
        while not st.done[0]:
            seat = int(st.current_player[0])
            if core.explicit_chance and core.is_chance_node(st)[0]:
                self._apply(int(core.sample_chance(st)[0]))  # the game's own draw, as records replay it
            elif self.agents[seat] is None:
                return
            else:
                self._apply(int(self.agents[seat](st.copy(), core.legal_action_mask(st))[0]))
        if self.save_dir is not None and not self._saved:
            self._saved = True
            try:  # a record that cannot be written is reported on the page; the game stands
                record = make_record(core, self.seed, self.names, self.moves, st, 0, self.returns)
                stem = free_stem(self.save_dir, f"human-{time.strftime('%Y%m%d-%H%M%S')}-{self._games}")
                self.saved += save_records([record], self.save_dir, stem)
            except RecordError as e:
                self.save_error = f"the game could not be saved: {e}"

    def play(self, action) -> None:
        """The person's move; ValueError (nothing changes) unless it is theirs to make and legal."""
        st = self.state
        if st.done[0] or self.resigned:
            raise ValueError("the game is over; start a new one")
        seat = int(st.current_player[0])
        if self.agents[seat] is not None:
            raise ValueError("it is not your turn")
        if isinstance(action, bool) or not isinstance(action, int) or not 0 <= action < self.core.num_actions:
            raise ValueError(f"action must be an integer from 0 to {self.core.num_actions - 1}, got {action!r}")
        if not self.core.legal_action_mask(st)[0, action]:
            raise ValueError(f"{self.core.action_to_string(action)!r} is not a legal move now")
        before = (st.copy(), list(self.moves), self.returns.copy(), self.before)
        try:
            self._apply(action)
            self._advance()
        except Exception:  # an agent that fails: the person's move is taken back, nothing changes
            self.state, self.moves, self.returns, self.before = before
            raise

    def view(self) -> dict:
        """What the page shows: the picture, the legal moves with their click targets, the moves so far."""
        core, st = self.core, self.state
        last = self.moves[-1] if self.moves else None
        over = bool(st.done[0]) or self.resigned
        seat = int(st.current_player[0])
        legal = []
        if not over and self.agents[seat] is None:
            paths = core.click_targets(st, 0)
            legal = [{"action": int(a), "name": core.action_to_string(a), "path": list(paths.get(int(a), ()))}
                     for a in np.flatnonzero(core.legal_action_mask(st)[0])]
        who = lambda s: "chance" if s < 0 else f"{self.names[s]} (seat {s})"  # noqa: E731
        if self.resigned:
            result, status = "you resigned (the game is not saved)", "game over"
        elif over:
            result = result_text(self.names, self.returns.tolist(), bool(st.terminated[0]), core.solo_levels)
            status = "game over"
        else:
            result = ""
            status = "your move" if self.agents[seat] is None else f"{who(seat)} to move"
        return {"svg": core.render_svg(st, 0, last, self.before), "legal": legal, "over": over, "status": status,
                "result": result, "moves": [f"{who(s)}: {core.action_to_string(a)}" for s, a in self.moves],
                "seed": self.seed, "save_error": self.save_error, "you": self.you(),
                "seats": [f"{n} (seat {p})" for p, n in enumerate(core.player_names())],
                "my_seat": next(p for p, a in enumerate(self.agents) if a is None),
                "saved": self.saved[-1] if over and self._saved and not self.save_error else None}


    def you(self) -> str:
        """Who the person plays, e.g. "you play yin (seat 0) against greedy"."""
        names = self.core.player_names()
        mine = [f"{names[p]} (seat {p})" for p, a in enumerate(self.agents) if a is None]
        others = sorted({n for n, a in zip(self.names, self.agents) if a is not None})
        return f"you play {' and '.join(mine)}" + (f" against {', '.join(others)}" if others else "")


def _handler(session: PlaySession, page: str):
    class Handler(BaseHTTPRequestHandler):
        timeout = 10  # seconds a client may take to send its request

        def log_message(self, *args):  # quiet: the terminal shows the URL only
            pass

        def _send(self, code: int, body: bytes, kind: str) -> None:
            self.send_response(code)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(body)

        def _json(self, code: int, obj) -> None:
            self._send(code, json.dumps(obj).encode(), "application/json")

        def _own_host(self) -> bool:
            port = self.server.server_address[1]
            own = (f"127.0.0.1:{port}", f"localhost:{port}")
            origin = self.headers.get("Origin")
            return (self.headers.get("Host", "") in own
                    and (origin is None or origin in tuple(f"http://{h}" for h in own))
                    and self.headers.get("Sec-Fetch-Site", "same-origin") in ("same-origin", "none"))

        def do_GET(self):
            if not self._own_host():
                return self._json(403, {"error": "wrong host"})
            if self.path in ("/", "/index.html"):
                return self._send(200, page.encode(), "text/html; charset=utf-8")
            if self.path == "/state":
                with session.lock:
                    return self._json(200, session.view())
            if self.path == "/busy":  # without the lock: answered while agents move
                return self._json(200, {"thinking": session.lock.locked(), "compiling": compiling()})
            self._json(404, {"error": f"no page {self.path!r}"})

        def do_POST(self):
            if not self._own_host():
                return self._json(403, {"error": "wrong host"})
            if self.headers.get("Content-Type", "").split(";")[0].strip() != "application/json":
                return self._json(415, {"error": "send moves as application/json"})
            try:
                n = int(self.headers.get("Content-Length", "0"))
            except ValueError:
                n = -1
            if not 0 <= n <= MAX_BODY:
                return self._json(400, {"error": f"a request body of 0 to {MAX_BODY} bytes is expected"})
            try:
                body = json.loads(self.rfile.read(n) or b"{}")
            except (ValueError, RecursionError):
                return self._json(400, {"error": "the request body is not JSON"})
            if not isinstance(body, dict):
                return self._json(400, {"error": "the request body must be a JSON object"})
            with session.lock:
                try:
                    if self.path == "/move":
                        session.play(body.get("action"))
                    elif self.path == "/new":
                        session.new_game(body.get("seat"))
                    elif self.path == "/resign":
                        session.resign()
                    else:
                        return self._json(404, {"error": f"no action {self.path!r}"})
                except ValueError as e:
                    return self._json(400, {"error": str(e)})
                except Exception as e:  # an agent failed; play() took the move back
                    return self._json(500, {"error": f"the agent failed: {type(e).__name__}: {e}"})
                return self._json(200, session.view())

    return Handler


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        """A client that hangs up mid-answer is normal (a closed tab); anything else is reported."""
        if not isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            super().handle_error(request, client_address)


def serve(session: PlaySession, title: str, port: int = 0) -> ThreadingHTTPServer:
    """A server for ``session`` on 127.0.0.1:``port`` (0: a free port), not yet serving:
    call ``serve_forever()`` (or run it in a thread); ``server_address[1]`` is the port."""
    from yyenvs.web.pages import play_page
    server = _Server(("127.0.0.1", port), _handler(session, play_page(title)))
    return server
