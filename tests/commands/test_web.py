"""The play server without a browser: only the person's legal moves are played, the agents
answer, bad requests are refused by name, and the finished game is saved as a record."""
from __future__ import annotations

import http.client
import json
import socket
import struct
import threading
import time

import numpy as np
import pytest

from yyenvs.agents import make_agent
from yyenvs.core.record import replay
from yyenvs.games import load_record, make_core
from yyenvs.commands.play import main as play_main
from yyenvs.web.server import PlaySession, serve


def _session(game="koi", human_seat=0, tmp_path=None, **options):
    core = make_core(game, **options)
    agent = make_agent("greedy", core, 1)
    seats = [None if p == human_seat else agent for p in range(core.num_players)]
    return PlaySession(core, seats, ["human" if a is None else "greedy" for a in seats], seed=2,
                       save_dir=None if tmp_path is None else str(tmp_path))


def test_only_the_persons_legal_moves_are_played(tmp_path):
    s = _session("yoxii", tmp_path=tmp_path)
    legal = [m["action"] for m in s.view()["legal"]]
    assert legal == np.flatnonzero(s.core.legal_action_mask(s.state)[0]).tolist()
    illegal = int(np.flatnonzero(~s.core.legal_action_mask(s.state)[0])[0])
    before = s.state.copy()
    for bad, message in ((illegal, "is not a legal move now"), (-1, "action must be an integer"),
                         (10**9, "action must be an integer"), ("3", "action must be an integer"),
                         (True, "action must be an integer"), (None, "action must be an integer"),
                         (1.5, "action must be an integer")):
        with pytest.raises(ValueError, match=message):
            s.play(bad)
        assert all(np.array_equal(getattr(before, f), getattr(s.state, f)) for f in vars(before))
    s.play(legal[0])
    assert [seat for seat, _ in s.moves] == [0, 1]  # the person's move, then the agent's answer
    while not s.state.done[0]:
        s.play(s.view()["legal"][0]["action"])
    with pytest.raises(ValueError, match="the game is over"):
        s.play(legal[0])
    view = s.view()
    assert view["over"] and view["legal"] == [] and view["saved"] == s.saved[0]
    record, core = load_record(s.saved[0])
    assert record.players == ["human", "greedy"] and len(replay(core, record)) == len(s.moves) + 1
    s.new_game()
    assert s.seed == 3 and s.moves == [] and not s.state.done[0]


def test_the_person_resigns_and_changes_seats(tmp_path):
    s = _session("koi", tmp_path=tmp_path)
    assert s.view()["you"] == "you play yin (seat 0) against greedy"
    assert s.view()["seats"] == ["yin (seat 0)", "yang (seat 1)"] and s.view()["my_seat"] == 0
    s.play(s.view()["legal"][0]["action"])
    s.resign()
    view = s.view()
    assert view["over"] and view["legal"] == [] and "resigned" in view["result"] and s.saved == []
    for refused in (lambda: s.resign(), lambda: s.play(0)):
        with pytest.raises(ValueError, match="the game is over"):
            refused()
    for bad in (2, -1, "1", True, None.__class__):
        with pytest.raises(ValueError, match="seat must be an integer from 0 to 1"):
            s.new_game(seat=bad)
    assert s.view()["over"]  # a refused seat changes nothing
    s.new_game(seat=1)  # the agent takes seat 0 and opens
    view = s.view()
    assert s.agents[0] is not None and s.agents[1] is None and s.names == ["greedy", "human"]
    assert [seat for seat, _ in s.moves] == [0] and view["you"].startswith("you play yang (seat 1)")
    assert view["my_seat"] == 1 and not view["over"]
    while not s.state.done[0]:
        s.play(s.view()["legal"][-1]["action"])
    record, _ = load_record(s.saved[0])
    assert record.players == ["greedy", "human"]


def test_the_agent_moves_first_when_the_person_sits_second():
    s = _session("koi", human_seat=1)
    assert [seat for seat, _ in s.moves] == [0] and s.view()["status"] == "your move"


def test_yinyang_turns_of_several_steps_and_explicit_chance():
    s = _session("yinyang", num_players=3, chance="explicit")
    steps = 0
    while not s.state.done[0]:
        seat = int(s.state.current_player[0])
        assert s.agents[seat] is None  # the session waits only for the person
        s.play(s.view()["legal"][-1]["action"])
        steps += 1
    assert any(seat == -1 for seat, _ in s.moves) and steps > 10


def _request(port, method, path, body=None, host=None, **headers):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    headers = {"Host": host or f"127.0.0.1:{port}", "Content-Type": "application/json",
               **{k.replace("_", "-"): v for k, v in headers.items()}}
    c.request(method, path, body=body, headers=headers)
    r = c.getresponse()
    return r.status, r.read()


def test_http_refusals_name_what_is_wrong():
    s = _session("koi")
    server = serve(s, "t", 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port = server.server_address[1]
    try:
        status, page = _request(port, "GET", "/")
        assert status == 200 and b"<!DOCTYPE html>" in page
        assert _request(port, "GET", "/state", host="evil.example:80")[0] == 403
        assert _request(port, "GET", "/etc/passwd")[0] == 404
        move = json.dumps({"action": 0}).encode()
        # another site's page: its Origin or Sec-Fetch-Site gives it away; a simple (no-cors) POST is text/plain
        assert _request(port, "POST", "/move", move, Origin="http://evil.example")[0] == 403
        assert _request(port, "POST", "/move", move, Sec_Fetch_Site="cross-site")[0] == 403
        assert _request(port, "POST", "/move", move, Content_Type="text/plain")[0] == 415
        assert len(s.moves) == 0
        for body, message in ((b"{", b"not JSON"), (b"[1]", b"must be a JSON object"),
                              (b"[" * 4000, b"not JSON"), (b"x" * 5000, b"a request body of 0 to"),
                              (json.dumps({"action": 10**6}).encode(), b"action must be an integer")):
            status, answer = _request(port, "POST", "/move", body)
            assert status == 400 and message in answer, answer
        legal = json.loads(_request(port, "GET", "/state")[1])["legal"]
        status, answer = _request(port, "POST", "/move", json.dumps({"action": legal[0]["action"]}).encode(),
                                  Origin=f"http://127.0.0.1:{port}")
        assert status == 200 and len(json.loads(answer)["moves"]) == 2
    finally:
        server.shutdown()
        server.server_close()


def test_play_cli_refuses_bad_human_settings(capsys):
    for argv, message in ((["--human", "--agents", "greedy", "random"], "'human' once"),
                          (["--agents", "human", "greedy"], "needs --human"),
                          (["--human", "--agents", "human", "greedy", "--port", "70000"], "--port must be"),
                          (["--agents", "greedy"], "takes two agents")):
        with pytest.raises(SystemExit):
            play_main(argv)
        assert message in capsys.readouterr().err


def test_a_failing_agent_takes_the_move_back():
    core = make_core("koi")

    def broken(state, mask):
        raise RuntimeError("out of memory")
    s = PlaySession(core, [None, broken], ["human", "broken"], seed=0)
    before = s.state.copy()
    with pytest.raises(RuntimeError, match="out of memory"):
        s.play(s.view()["legal"][0]["action"])
    assert s.moves == [] and all(np.array_equal(getattr(before, f), getattr(s.state, f)) for f in vars(before))


def test_a_record_that_cannot_be_written_is_reported_and_the_game_stands(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    s = _session("yoxii", tmp_path=None)
    s.save_dir = str(blocker)
    while not s.state.done[0]:
        s.play(s.view()["legal"][0]["action"])
    view = s.view()
    assert view["over"] and view["saved"] is None and "could not be saved" in view["save_error"]
    ok = _session("yoxii", tmp_path=tmp_path / "games")
    for _ in range(2):  # two games of one session, and a second session: never the same file
        while not ok.state.done[0]:
            ok.play(ok.view()["legal"][0]["action"])
        ok.new_game()
    again = _session("yoxii", tmp_path=tmp_path / "games")
    while not again.state.done[0]:
        again.play(again.view()["legal"][0]["action"])
    assert len(set(ok.saved + again.saved)) == 3 and not again.save_error


def test_session_refuses_bad_seeds():
    core = make_core("koi")
    for seed in (-1, 2**63, 1.5, True):
        with pytest.raises(ValueError, match="seed must be an integer"):
            PlaySession(core, [None, make_agent("random", core)], ["a", "b"], seed=seed)


def test_clients_that_hang_up_leave_no_traceback(capfd):
    """A closed tab mid-answer is normal: the server stays quiet and keeps serving."""
    server = serve(_session("yinyang"), "t", 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port = server.server_address[1]
    try:
        for _ in range(5):
            with socket.create_connection(("127.0.0.1", port)) as c:
                c.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                c.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))  # reset, unread
        time.sleep(0.5)
        assert _request(port, "GET", "/state")[0] == 200
    finally:
        server.shutdown()
        server.server_close()
    err = capfd.readouterr().err
    assert "Traceback" not in err and "Error" not in err, err


def test_terminal_play_reads_moves_by_number_or_name(tmp_path):
    """``yyenvs play --human --terminal``: a whole game from typed answers; bad answers are
    refused with a line and change nothing; 'resign', 'new' and the end of input work."""
    from yyenvs.commands.play import play_in_terminal
    s = _session("koi", tmp_path=tmp_path)
    out, answers = [], iter(["bogus", "999", "resign", "0", "new"])

    def read(prompt):
        if s.view()["over"] and s.moves and s.saved:
            raise EOFError  # the finished game: stop
        try:
            return next(answers)
        except StopIteration:  # then by name, the last legal move each time
            return s.view()["legal"][-1]["name"].upper()
    assert play_in_terminal(s, read, out.append) == 0
    text = "\n".join(out)
    assert "you play yin (seat 0) against greedy" in out[0]
    assert "not a move now: 'bogus'" in text and "not a move now: '999'" in text
    assert "you resigned" in text and "not a move now: '0'" in text  # no moves after resigning
    assert s.state.done[0] and len(s.saved) == 1 and "game over:" in text
    record, core = load_record(s.saved[0])
    assert record.players == ["human", "greedy"] and len(replay(core, record)) == len(s.moves) + 1


def test_busy_answers_while_the_agent_moves(monkeypatch):
    """GET /busy is answered during a move: the agent is thinking, and what numba compiles, if anything."""
    import yyenvs.web.server as server_module
    release, entered = threading.Event(), threading.Event()
    s = _session("koi")
    greedy = s.agents[1]

    def slow(state, mask):
        entered.set()
        release.wait(10)
        return greedy(state, mask)
    s.agents[1] = slow
    server = serve(s, "t", 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port = server.server_address[1]
    try:
        assert json.loads(_request(port, "GET", "/busy")[1]) == {"thinking": False, "compiling": None}
        legal = json.loads(_request(port, "GET", "/state")[1])["legal"]
        move = threading.Thread(target=_request, args=(port, "POST", "/move",
                                                       json.dumps({"action": legal[0]["action"]}).encode()))
        move.start()
        assert entered.wait(10)
        monkeypatch.setattr(server_module, "compiling", lambda: {"part": "Yoxii's kernels", "seconds": 3.0})
        busy = json.loads(_request(port, "GET", "/busy")[1])
        assert busy == {"thinking": True, "compiling": {"part": "Yoxii's kernels", "seconds": 3.0}}
        release.set()
        move.join(10)
        assert len(s.moves) == 2
    finally:
        release.set()
        server.shutdown()
        server.server_close()


def test_terminal_play_ends_cleanly_on_ctrl_c_a_closed_output_and_undecodable_input(tmp_path):
    from yyenvs.commands.play import OUTPUT_CLOSED, play_in_terminal
    s = _session("koi", tmp_path=tmp_path)
    out = []

    def interrupted(prompt):
        raise KeyboardInterrupt
    assert play_in_terminal(s, interrupted, out.append) == 130 and out[-1].endswith("stopped (Ctrl-C)")

    def closed(line):
        raise BrokenPipeError
    assert play_in_terminal(s, lambda prompt: "quit", closed) == OUTPUT_CLOSED
    answers = iter([UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid start byte"), "quit"])

    def read(prompt):
        a = next(answers)
        if isinstance(a, Exception):
            raise a
        return a
    out.clear()
    assert play_in_terminal(s, read, out.append) == 0
    assert any("not text in this terminal's encoding" in line for line in out)

    def end_of_input(prompt):
        raise EOFError
    assert play_in_terminal(s, end_of_input, out.append) == 0
    assert out[-1] == "\nend of input: the game stops unfinished"


def test_terminal_play_says_when_a_record_cannot_be_saved(tmp_path):
    from yyenvs.commands.play import play_in_terminal
    s = _session("koi", tmp_path=tmp_path / "games")
    (tmp_path / "games").write_text("a file where the folder was")
    out = []

    def read(prompt):
        if s.view()["over"]:
            raise EOFError
        return s.view()["legal"][0]["name"]
    assert play_in_terminal(s, read, out.append) == 0
    assert any("could not be saved" in line for line in out), out[-3:]
