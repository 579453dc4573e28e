"""The play server without a browser: only the person's legal moves are played, the agents
answer, bad requests are refused by name, and the finished game is saved as a record."""
from __future__ import annotations

import http.client
import json
import threading

import numpy as np
import pytest

from yyenvs.agents import make_agent
from yyenvs.core.record import replay
from yyenvs.games import load_record, make_core
from yyenvs.play import main as play_main
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


def _request(port, method, path, body=None, host=None):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    headers = {"Host": host or f"127.0.0.1:{port}"}
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
        for body, message in ((b"{", b"not JSON"), (b"[1]", b"must be a JSON object"),
                              (b"x" * 5000, b"a request body of 0 to"),
                              (json.dumps({"action": 10**6}).encode(), b"action must be an integer")):
            status, answer = _request(port, "POST", "/move", body)
            assert status == 400 and message in answer, answer
        legal = json.loads(_request(port, "GET", "/state")[1])["legal"]
        status, answer = _request(port, "POST", "/move", json.dumps({"action": legal[0]["action"]}).encode())
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
