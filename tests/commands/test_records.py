"""Game records: they replay bit for bit, at any batch size; every way a file can be wrong is
refused by name; the text notation round-trips; the CLI writes and replays them."""
from __future__ import annotations

import json
import os

import numpy as np
import pytest

from yyenvs.agents import make_agent
from yyenvs.evaluation.matches import pair_seeds, play_games, play_match
from yyenvs.core.errors import IllegalActionError, RecordError
from yyenvs.core.record import FORMAT_VERSION, GameRecorder, parse_record, read_record, replay, save_records, state_digest
from yyenvs.games import load_record, make_core, variants

VARIANTS = variants() + [("yinyang", {"chance": "explicit"}), ("yinyang", {"num_players": 4, "reward": "score"})]


def _records(core, n=4, seed=0):
    if core.num_players == 1:  # the solo game: greedy alone
        seeds = pair_seeds(seed, 0, 1, n)
        rec = GameRecorder(seeds, [["greedy"]] * n)
        play_games(core, [make_agent("greedy", core, 0)], np.zeros((n, 1), np.int64), seeds, recorder=rec)
        return {"records": rec.records}
    return play_match(core, make_agent("greedy", core, 0), make_agent("random", core, 1), n, seed=seed,
                      record_as=("greedy", "random"))


@pytest.mark.parametrize("game,options", VARIANTS)
def test_records_replay_to_the_same_final_state(game, options, tmp_path):
    core = make_core(game, **options)
    r = _records(core)
    paths = save_records(r["records"], tmp_path, "g")
    assert len(paths) == 4
    for k, path in enumerate(paths):
        record, rcore = load_record(path)
        states = replay(rcore, record)
        assert len(states) == len(record.moves) + 1 and states[-1].done[0]
        assert state_digest(states[-1], 0) == record.final_state
        if core.num_players > 1:  # seats alternate: A, B, A, B and B, A, B, A
            first = ["greedy", "random"] if k % 2 == 0 else ["random", "greedy"]
            assert record.players == [first[p % 2] for p in range(core.num_players)]
        assert record.notation == [core.action_to_string(a) for _, a in record.moves]
    if core.explicit_chance:  # chance outcomes are moves of seat -1, drawn by their probabilities
        assert any(s == -1 for rec in r["records"] for s, _ in rec.moves)
    if core.num_players == 2:
        assert sum(rec.returns[rec.players.index("greedy")] > 0 for rec in r["records"]) == r["wins"]


@pytest.mark.parametrize("game,options", [("koi", {"board_size": 7, "directions": 4}), ("yinyang", {}),
                                          ("yinyang", {"chance": "explicit", "num_players": 3})])
def test_records_do_not_depend_on_the_batch(game, options):
    core = make_core(game, **options)
    small, large = _records(core, 2, seed=9)["records"], _records(core, 6, seed=9)["records"]
    assert [r.to_json() for r in small] == [r.to_json() for r in large[:2]]


def _koi_record(tmp_path):
    core = make_core("koi")
    path = save_records(_records(core, 2)["records"][:1], tmp_path, "koi")[0]
    return core, path, json.loads(open(path).read())


def _write(tmp_path, obj, name="bad.json"):
    p = tmp_path / name
    p.write_text(obj if isinstance(obj, str) else json.dumps(obj))
    return str(p)


def test_a_record_of_another_game_version_or_options_is_refused(tmp_path):
    core, path, obj = _koi_record(tmp_path)
    with pytest.raises(RecordError, match="a game of 'koi', not 'yoxii'"):
        load_record(path, make_core("yoxii"))
    with pytest.raises(RecordError, match=r"board_size: record 7 vs 9"):
        load_record(path, make_core("koi", board_size=9))
    with pytest.raises(RecordError, match="version 7; this yyenvs plays version 1"):
        load_record(_write(tmp_path, {**obj, "game_version": 7}))
    with pytest.raises(RecordError, match="'chess', which yyenvs does not have"):
        load_record(_write(tmp_path, {**obj, "game": "chess"}))
    with pytest.raises(RecordError, match="do not fit koi"):
        load_record(_write(tmp_path, {**obj, "options": {**obj["options"], "board_size": 8}}))
    yy = {**obj, "game": "yinyang", "game_version": 1, "options": {"data_file": "/etc/passwd"}}
    with pytest.raises(RecordError, match="names a file in option data_file"):
        load_record(_write(tmp_path, yy))


@pytest.mark.parametrize("change,message", [
    (lambda o: o["moves"][3].update(action=o["moves"][4]["action"]), "not legal there|is by seat|calls it"),
    (lambda o: o["moves"][3].update(seat=1 - o["moves"][3]["seat"]), "is by seat"),
    (lambda o: o["moves"][3].update(move="koi0 N"), "calls it 'koi0 N'"),
    (lambda o: o["moves"].pop(), "the game is running"),
    (lambda o: o["moves"].append(dict(o["moves"][-1])), "after the game ended"),
    (lambda o: o.update(returns=[o["returns"][1], o["returns"][0]]), "replayed returns"),
    (lambda o: o.update(final_state="0" * 64), "final state differs"),
    (lambda o: o.update(seed=o["seed"] + 1), "not legal there|final state|replayed returns|running"),
    (lambda o: o.update(scores=[o["scores"][1], o["scores"][0] + 1]), "replayed scores"),
])
def test_a_record_that_is_not_the_game_it_claims_is_refused(tmp_path, change, message):
    """Loading replays the record, so an edited one is refused there."""
    core, _, obj = _koi_record(tmp_path)
    change(obj)
    path = _write(tmp_path, obj)
    with pytest.raises(RecordError, match=message):
        load_record(path)
    with pytest.raises(RecordError, match=message):
        replay(core, read_record(path))


def test_explicit_chance_outcomes_are_the_games_own_draws(tmp_path):
    """Chance outcomes come from the game's stream, so explicit chance plays the sampled games, and an
    outcome edited in the record is refused."""
    sampled, explicit = make_core("yinyang"), make_core("yinyang", chance="explicit")

    def first(state, mask):  # the same choices in both modes (a random agent's draws depend on the ply)
        return np.where(mask.any(1), np.argmax(mask, 1), -1)
    a, b = (play_match(c, first, first, 2, record_as=("a", "b"))["records"] for c in (sampled, explicit))
    for ra, rb in zip(a, b):
        assert [m for m in rb.moves if m[0] >= 0] == ra.moves and ra.returns == rb.returns
    obj = b[0].to_json()
    k = next(i for i, m in enumerate(obj["moves"]) if m["seat"] == -1 and m["move"].startswith("chance: 3"))
    other = next(o for o in range(explicit.num_actions) if explicit.action_to_string(o).startswith("chance: 2 Yang"))
    obj["moves"][k].update(action=other, move=explicit.action_to_string(other))
    with pytest.raises(RecordError, match="not the one the game's stream draws"):
        load_record(_write(tmp_path, obj))


@pytest.mark.parametrize("text,message", [
    ('{"format": "yyenvs-game-record"', "not valid JSON"),
    ("[1, 2]", "expected a JSON object"),
    ('{"format": "pgn"}', "a yyenvs game record"),
    ('{"format": "yyenvs-game-record", "format_version": 99}', f"reads version {FORMAT_VERSION}"),
    ('{"format": "yyenvs-game-record", "format_version": true}', f"reads version {FORMAT_VERSION}, got True"),
    ('{"format": "yyenvs-game-record", "format_version": 1.0}', f"reads version {FORMAT_VERSION}, got 1.0"),
])
def test_foreign_or_truncated_files_are_refused(tmp_path, text, message):
    with pytest.raises(RecordError, match=message):
        read_record(_write(tmp_path, text))


@pytest.mark.parametrize("field,value,message", [
    ("seed", -1, "seed: expected an integer"),
    ("seed", 2**64, "seed: expected an integer"),
    ("seed", True, "seed: expected an integer"),
    ("players", "ab", "players: expected a list"),
    ("moves", [{"seat": 0, "action": 1}], r"moves\[0\]"),
    ("moves", [{"seat": 5, "action": 1, "move": "x"}], r"moves\[0\].seat"),
    ("moves", [{"seat": 0, "action": -3, "move": "x"}], r"moves\[0\].action"),
    ("returns", [1.0], "returns: expected one finite number per seat"),
    ("terminated", "yes", "terminated: expected true or false"),
    ("final_state", "abc", "final_state: expected a sha256"),
    ("options", {"board_size": [9]}, "options: expected an object"),
    ("extra", 1, r"unknown \['extra'\]"),
])
def test_every_field_is_checked(tmp_path, field, value, message):
    _, _, obj = _koi_record(tmp_path)
    obj[field] = value
    with pytest.raises(RecordError, match=message):
        read_record(_write(tmp_path, obj))


def test_nan_duplicate_keys_and_non_files_are_refused(tmp_path):
    _, path, obj = _koi_record(tmp_path)
    text = open(path).read()
    with pytest.raises(RecordError, match="NaN is not allowed"):
        parse_record(text.replace('"returns": [', '"returns": [NaN, '))
    with pytest.raises(RecordError, match="duplicate key"):
        parse_record(text.replace('"seed":', '"seed": 1, "seed":'))
    with pytest.raises(RecordError, match="not a regular file"):
        read_record(str(tmp_path))
    with pytest.raises(RecordError, match="does not exist"):
        read_record(str(tmp_path / "missing.json"))


def test_records_are_never_overwritten(tmp_path):
    core = make_core("yoxii")
    recs = _records(core, 2)["records"]
    save_records(recs, tmp_path, "g")
    before = open(tmp_path / "g-00000.json").read()
    with pytest.raises(RecordError, match="exists already"):
        save_records(recs[::-1], tmp_path, "g")
    assert open(tmp_path / "g-00000.json").read() == before
    with pytest.raises(RecordError, match="is a file"):
        save_records(recs, tmp_path / "g-00000.json", "g")


@pytest.mark.parametrize("game,options", VARIANTS)
def test_notation_round_trips_for_every_action(game, options):
    core = make_core(game, **options)
    names = [core.action_to_string(a) for a in range(core.num_actions)]
    assert len(set(names)) == core.num_actions  # one name per action
    assert [core.string_to_action(n) for n in names] == list(range(core.num_actions))
    for bad in ("", "no such move", 12, None, "place zz", "place a", "place a1x", "koi9 N"):
        with pytest.raises(IllegalActionError):
            core.string_to_action(bad)


def test_cli_saves_games_and_replays_them(tmp_path, capsys):
    from yyenvs.commands.evaluate import main as eval_main
    from yyenvs.commands.play import main as play_main
    from yyenvs.commands.replay import main as replay_main
    assert play_main(["--game", "koi", "--agents", "greedy", "random", "--games", "4",
                      "--save-games", str(tmp_path / "play")]) == 0
    assert sorted(os.listdir(tmp_path / "play")) == [f"game-{k:05d}.json" for k in range(4)]
    assert eval_main(["--game", "yoxii", "random", "greedy", "mcts:4", "--games", "2",
                      "--save-games", str(tmp_path / "eval")]) == 0
    assert sorted(os.listdir(tmp_path / "eval")) == sorted(f"{i}-{j}-{k:05d}.json" for i, j in
                                                           ((0, 1), (0, 2), (1, 2)) for k in range(2))
    rec = read_record(tmp_path / "eval" / "1-2-00001.json")
    assert rec.players == ["mcts:4", "greedy"]
    out = tmp_path / "game.html"
    assert replay_main([str(tmp_path / "play" / "game-00000.json"), "-o", str(out)]) == 0
    html = out.read_text()
    assert html.startswith("<!DOCTYPE html>") and "http://" not in html.replace(
        'xmlns="http://www.w3.org/2000/svg"', "").replace("xmlns=\\\"http://www.w3.org/2000/svg\\\"", "")
    for game, extra in (("yoxii", []), ("yinyang", ["--option", "num_players=3"]),
                        ("yinyang", ["--option", "num_players=1"])):  # one command: play a game, write its page
        page = tmp_path / f"{game}-{len(extra)}.html"
        assert replay_main(["--game", game, *extra, "--agents", "greedy", *(["random"] if not extra or
                            extra[1] != "num_players=1" else []), "-o", str(page)]) == 0
        assert page.read_text().count('"mode": "replay"') == 1
    for argv in ([], ["x.json", "--game", "koi"], ["--game", "koi", "--agents", "greedy"]):
        with pytest.raises(SystemExit):
            replay_main(argv)
    capsys.readouterr()
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    from yyenvs.commands.cli import main as cli_main  # where user errors become one line and status 2
    assert cli_main(["replay", str(bad)]) == 2
    assert "not valid JSON" in capsys.readouterr().err


def test_a_replay_page_stays_small():
    from yyenvs.web.pages import pack_frames, replay_page, unpack_frames
    for game, options in (("koi", {}), ("yinyang", {}), ("yinyang", {"num_players": 4})):
        core = make_core(game, **options)
        rec = _records(core, 2)["records"][0]
        page = replay_page(core, rec)
        states = replay(core, rec)
        frames = [core.render_svg(states[0], 0)] + [core.render_svg(s, 0, m) for s, m in zip(states[1:], rec.moves)]
        assert unpack_frames(pack_frames(frames)) == frames
        assert len(page.encode()) < 400_000, (game, options, len(page))
        assert len(page.encode()) < sum(map(len, frames)) / 5 or game == "koi"


def test_yoxii_text_boards_round_trip_and_refuse_bad_boards():
    core = make_core("yoxii")
    fields = ("board", "totem", "stock", "current_player", "ply", "terminated", "rewards")
    rng = np.random.default_rng(5)
    for seed in range(6):
        st = core.init(np.array([seed], np.uint64))
        while True:
            back = core.from_text(core.to_text(st))
            assert all(np.array_equal(getattr(st, f), getattr(back, f)) for f in fields), core.to_text(st)
            if st.done[0]:
                break
            core.step(st, np.array([rng.choice(np.flatnonzero(core.legal_action_mask(st)[0]))]))
    start = core.to_text(core.init(np.zeros(1, np.uint64)))
    lines = start.splitlines()
    for text, message in (
            ("\n".join(lines[:6]), "7 lines of 7 tokens"),
            (start.replace("T", "."), "exactly one T"),
            (start.replace("-", ".", 1), "missing corner square"),
            (start.replace(".", "X1", 1), "unknown token"),
            (start.replace(".", "W1", 2), "as many pieces as Red or one more"),
            (start.replace(".", "W4", 4).replace(".", "R4", 4), "more pieces of a value"),
            (7, "is a string")):
        with pytest.raises(ValueError, match=message):
            core.from_text(text)


@pytest.mark.parametrize("game,options", VARIANTS)
def test_position_text_round_trips_in_every_game(game, options):
    from yyenvs.core.record import position_text
    from yyenvs.games import read_position
    core = make_core(game, **options)
    rec = _records(core, 2)["records"][1]
    for k in (0, len(rec.moves) // 2, len(rec.moves)):
        text = position_text(core, rec.seed, rec.moves[:k])
        back, state, seed, moves = read_position(text)
        assert moves == rec.moves[:k] and seed == rec.seed and position_text(back, seed, moves) == text
        assert state_digest(state, 0) == state_digest(replay(core, rec)[k], 0)


def test_bad_position_texts_are_refused_by_name():
    from yyenvs.core.record import position_text
    from yyenvs.games import read_position
    core = make_core("koi")
    good = position_text(core, 3, [(0, core.string_to_action("place e1"))])
    head, seed, move = good.splitlines()
    for text, message in (("", "starts with"), ("koi {}", "starts with"), ("koi v9 {}\nseed 1", "version 9"),
                          ("chess v0 {}\nseed 1", "'chess'"), ("koi v0 {board_size: 9}\nseed 1", "not a JSON"),
                          ("koi v0 {\"board_size\": 8}\nseed 1", "do not fit koi"),
                          (f"{head}\nseed -1", "seed <n>"), (f"{head}\nseeds 1", "seed <n>"),
                          (f"{head}\n{seed}\nplace z9", "move 0"), (f"{head}\n{seed}\n{move}\n{move}", "not legal"),
                          ('yinyang v1 {"data_file": "/etc/passwd"}\nseed 1', "names a file in option data_file"),
                          (7, "is text")):
        with pytest.raises(RecordError, match=message):
            read_position(text)
    with pytest.raises(RecordError, match="not of koi with"):
        read_position(good, make_core("koi", board_size=9))
