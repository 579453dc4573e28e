"""Game records: one finished (or stopped) game as versioned JSON that replays bit for bit.

A record holds the game id and version, its options, the seed the game was started from, the
entrant in each seat, every move as (seat, action, notation) with chance outcomes as seat -1
(explicit chance only: in the sampled mode chance follows from the seed; either way the outcomes are
the game's own draws from its seeded stream), and the result: each
seat's total reward, whether the game ended or was stopped, the game's own scores where it has
them, and a digest of the final state.  :func:`replay` plays the moves again from the seed and
checks every one of them and the result, so a record that replays is the game that was played.

Records are data: :func:`read_record` parses bounded UTF-8 JSON and checks every field's type
and range before anything uses it; nothing is ever evaluated.
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import os

import numpy as np

from yyenvs.core.contract import CHANCE_PLAYER, GameCore
from yyenvs.core.errors import RecordError, show
from yyenvs.core.files import read_text_file, unique_keys

FORMAT = "yyenvs-game-record"
FORMAT_VERSION = 1
MAX_RECORD_BYTES = 32 * 2**20
MAX_MOVES = 1_000_000
MAX_NAME = 1000  # characters of an entrant's name
FIELDS = ("format", "format_version", "game", "game_version", "options", "seed", "players", "moves",
          "returns", "terminated", "truncated", "scores", "final_state")


@dataclasses.dataclass
class GameRecord:
    game: str
    game_version: int
    options: dict
    seed: int  # what ``core.init`` was given for this game
    players: list  # the entrant in each seat, by name
    moves: list  # [(seat, action)], seat -1 (CHANCE_PLAYER) for a chance outcome
    notation: list  # the moves in the game's notation
    returns: list  # each seat's total reward
    terminated: bool
    truncated: bool
    scores: list | None  # the game's own final scores (``core.scores``), where it has them
    final_state: str  # sha256 of the final state (:func:`state_digest`)

    def to_json(self) -> dict:
        return {"format": FORMAT, "format_version": FORMAT_VERSION, "game": self.game,
                "game_version": self.game_version, "options": self.options, "seed": self.seed,
                "players": self.players,
                "moves": [{"seat": s, "action": a, "move": n}
                          for (s, a), n in zip(self.moves, self.notation)],
                "returns": self.returns, "terminated": self.terminated, "truncated": self.truncated,
                "scores": self.scores, "final_state": self.final_state}

    def dumps(self) -> str:
        return json.dumps(self.to_json(), indent=1, ensure_ascii=False) + "\n"


def json_options(core: GameCore) -> dict:
    """The core's options as JSON holds them (what records and checkpoints compare)."""
    return json.loads(json.dumps(core.options, sort_keys=True))


def state_digest(state, index: int) -> str:
    """sha256 over every field of row ``index`` (name, dtype, shape and bytes, in field order) but
    ``rewards``, which hold the last step's rewards only (a batch steps finished rows on, with no
    rewards); the record's ``returns`` hold their sums."""
    h = hashlib.sha256()
    for f in dataclasses.fields(state):
        if f.name == "rewards":
            continue
        a = np.ascontiguousarray(getattr(state, f.name)[index])
        h.update(f"{f.name}:{a.dtype.str}:{a.shape};".encode())
        h.update(a.tobytes())
    return h.hexdigest()


def _scores(core: GameCore, state, index: int):
    fn = getattr(core, "scores", None)
    if fn is None or not state.done[index]:
        return None
    return np.asarray(fn(state.take([index]))[0]).tolist()


def make_record(core: GameCore, seed: int, players, moves, state, index: int, returns) -> GameRecord:
    """The record of row ``index`` of ``state`` (finished), started from ``seed``, played by ``moves``,
    with ``returns``, each seat's total reward (summed by whoever played the game)."""
    return GameRecord(core.name, core.spec.version, json_options(core), int(seed), [str(p) for p in players],
                      [(int(s), int(a)) for s, a in moves], [core.action_to_string(a) for _, a in moves],
                      [float(r) for r in returns], bool(state.terminated[index]), bool(state.truncated[index]),
                      _scores(core, state, index), state_digest(state, index))


class GameRecorder:
    """Collects the moves of a batch of games as they are played (see ``play_games``)."""

    def __init__(self, seeds, players):
        self.seeds = np.asarray(seeds, dtype=np.uint64)
        self.players = [list(p) for p in players]  # (G, P) entrant names
        self.seats: list[np.ndarray] = []
        self.actions: list[np.ndarray] = []
        self.records: list[GameRecord] = []

    def step(self, state, actions) -> None:
        """Note the actions about to be applied to ``state`` (-1: the row does not move)."""
        self.seats.append(np.asarray(state.current_player, dtype=np.int64).copy())
        self.actions.append(np.asarray(actions, dtype=np.int64).copy())

    def finish(self, core: GameCore, state, returns) -> list[GameRecord]:
        """The records of every game of the batch (also kept as ``self.records``), from its final
        ``state`` and (G, P) ``returns``."""
        seats = np.stack(self.seats, 1) if self.seats else np.zeros((len(self.seeds), 0), np.int64)
        actions = np.stack(self.actions, 1) if self.actions else seats
        out = []
        for g in range(len(self.seeds)):
            played = actions[g] >= 0
            moves = list(zip(seats[g, played].tolist(), actions[g, played].tolist()))
            out.append(make_record(core, int(self.seeds[g]), self.players[g], moves, state, g, returns[g]))
        self.records = out
        return out


# -- reading -----------------------------------------------------------------------------
def _fail(where: str, field: str, problem: str):
    raise RecordError(f"{where}: {field}: {problem}")


def _int(v, where, field, low, high) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or not low <= v <= high:
        _fail(where, field, f"expected an integer from {low} to {high}, got {show(v)}")
    return v


def _numbers(v, depth: int) -> bool:
    """A list of at most 64 integers, or of such lists, nested at most ``depth`` deep."""
    if not isinstance(v, list) or len(v) > 64 or depth == 0:
        return False
    return all((isinstance(x, int) and not isinstance(x, bool) and abs(x) < 2**63) or _numbers(x, depth - 1)
               for x in v)


def parse_record(text: str, where: str = "record") -> GameRecord:
    """A :class:`GameRecord` from JSON text; :class:`RecordError` naming the field that is wrong."""
    try:
        obj = json.loads(text, object_pairs_hook=unique_keys,
                         parse_constant=lambda c: _fail(where, "JSON", f"{c} is not allowed"))
    except RecordError:
        raise
    except (ValueError, RecursionError) as e:
        raise RecordError(f"{where} is not valid JSON: {e}") from None
    if not isinstance(obj, dict):
        _fail(where, "the file", f"expected a JSON object, got {type(obj).__name__}")
    if obj.get("format") != FORMAT:
        _fail(where, "format", f"expected {FORMAT!r} (a yyenvs game record), got {show(obj.get('format'))}")
    version = obj.get("format_version")
    if type(version) is not int or version != FORMAT_VERSION:  # true == 1.0 == 1 in Python
        _fail(where, "format_version", f"this yyenvs reads version {FORMAT_VERSION}, "
                                       f"got {show(obj.get('format_version'))}")
    missing = [k for k in FIELDS if k not in obj]
    extra = sorted(set(obj) - set(FIELDS))
    if missing or extra:
        _fail(where, "fields", f"missing {missing}, unknown {extra}")
    game = obj["game"]
    if not isinstance(game, str) or not game.isidentifier() or len(game) > 64:
        _fail(where, "game", f"expected a game id, got {show(game)}")
    version = _int(obj["game_version"], where, "game_version", 0, 2**31)
    options = obj["options"]
    if not isinstance(options, dict) or any(
            not isinstance(v, (str, int, float, bool, type(None))) for v in options.values()):
        _fail(where, "options", "expected an object of strings, numbers, booleans or nulls")
    seed = _int(obj["seed"], where, "seed", 0, 2**64 - 1)
    players = obj["players"]
    if not isinstance(players, list) or not 1 <= len(players) <= 64 or any(
            not isinstance(p, str) or len(p) > MAX_NAME for p in players):
        _fail(where, "players", f"expected a list of 1 to 64 names of at most {MAX_NAME} characters")
    raw = obj["moves"]
    if not isinstance(raw, list) or len(raw) > MAX_MOVES:
        _fail(where, "moves", f"expected a list of at most {MAX_MOVES:,} moves")
    moves, notation = [], []
    for k, m in enumerate(raw):
        if not isinstance(m, dict) or set(m) != {"seat", "action", "move"}:
            _fail(where, f"moves[{k}]", 'expected {"seat", "action", "move"}')
        moves.append((_int(m["seat"], where, f"moves[{k}].seat", CHANCE_PLAYER, len(players) - 1),
                      _int(m["action"], where, f"moves[{k}].action", 0, 2**31)))
        if not isinstance(m["move"], str) or len(m["move"]) > 1000:
            _fail(where, f"moves[{k}].move", f"expected the move's notation, got {show(m['move'])}")
        notation.append(m["move"])
    returns = obj["returns"]
    if not isinstance(returns, list) or len(returns) != len(players) or any(
            isinstance(r, bool) or not isinstance(r, (int, float)) or not math.isfinite(r) for r in returns):
        _fail(where, "returns", "expected one finite number per seat")
    for key in ("terminated", "truncated"):
        if not isinstance(obj[key], bool):
            _fail(where, key, f"expected true or false, got {show(obj[key])}")
    digest = obj["final_state"]
    if not isinstance(digest, str) or len(digest) != 64 or any(c not in "0123456789abcdef" for c in digest):
        _fail(where, "final_state", "expected a sha256 digest (64 lowercase hex digits)")
    scores = obj["scores"]
    if scores is not None and not _numbers(scores, 3):
        _fail(where, "scores", "expected null or a list (of lists) of at most 64 integers each")
    return GameRecord(game, version, options, seed, players, moves, notation,
                      [float(r) for r in returns], obj["terminated"], obj["truncated"], scores, digest)


def read_record(path) -> GameRecord:
    """The record in file ``path`` (bounded UTF-8 JSON), checked field by field."""
    where = f"game record {os.fspath(path)!r}"
    return parse_record(read_text_file(path, where, MAX_RECORD_BYTES, RecordError), where)


def write_record(record: GameRecord, path) -> str:
    """Write ``record`` to a new file ``path`` (an existing file is never overwritten)."""
    try:
        with open(path, "x", encoding="utf-8") as f:
            f.write(record.dumps())
    except FileExistsError:
        raise RecordError(f"{os.fspath(path)!r} exists already; records are never overwritten") from None
    return os.fspath(path)


def check_record_dir(directory) -> str:
    """``directory`` as a string; RecordError if it, or a folder above it, is a file."""
    directory = os.fspath(directory)
    path = os.path.abspath(directory)
    while not os.path.isdir(path):
        if os.path.lexists(path):
            raise RecordError(f"{path!r} is a file; give a directory for the records")
        path = os.path.dirname(path)
    return directory


def record_paths(directory, stem: str, n: int) -> list[str]:
    """The files :func:`save_records` writes for ``n`` records; RecordError if one exists already
    or ``directory`` is a file (so a run can refuse before it plays rather than after)."""
    directory = check_record_dir(directory)
    paths = [os.path.join(directory, f"{stem}-{k:05d}.json") for k in range(n)]
    taken = next((p for p in paths if os.path.exists(p)), None)
    if taken is not None:
        raise RecordError(f"{taken!r} exists already; records are never overwritten (choose another directory)")
    return paths


def free_stem(directory, stem: str) -> str:
    """``stem``, or ``stem-2``, ``stem-3``, ... : the first whose first record file is free."""
    out, n = stem, 1
    while os.path.exists(os.path.join(os.fspath(directory), f"{out}-00000.json")):
        n += 1
        out = f"{stem}-{n}"
    return out


def save_records(records, directory, stem: str) -> list[str]:
    """Write ``records`` as ``directory/<stem>-<k>.json`` (k = 00000, 00001, ...); the paths."""
    paths = record_paths(directory, stem, len(records))
    try:
        os.makedirs(os.fspath(directory), exist_ok=True)
        return [write_record(r, p) for r, p in zip(records, paths)]
    except OSError as e:
        raise RecordError(f"cannot write records to {os.fspath(directory)!r}: {e.strerror or e}") from None


# -- checking and replaying -------------------------------------------------------------------
def check_record(record: GameRecord, core: GameCore) -> None:
    """RecordError unless ``record`` is a game of ``core``: same game, version and options."""
    if record.game != core.name:
        raise RecordError(f"the record is a game of {record.game!r}, not {core.name!r}")
    if not core.spec.reads_version(record.game_version):  # an earlier version with today's rules replays
        raise RecordError(f"the record is of {record.game} version {record.game_version}; this yyenvs "
                          f"plays version {core.spec.version}, whose rules may differ")
    want = core.spec.deciding(json_options(core))
    given = core.spec.deciding(core.spec.options_of(record.game_version, record.options))  # later options: defaults
    if given != want:
        diff = ", ".join(f"{k}: record {given.get(k, '<unset>')!r} vs {want.get(k, '<unset>')!r}"
                         for k in sorted(set(want) | set(given))
                         if given.get(k, "<unset>") != want.get(k, "<unset>"))
        raise RecordError(f"the record was played with other {record.game} options ({diff})")
    if len(record.players) != core.num_players:
        raise RecordError(f"the record names {len(record.players)} players; the game has {core.num_players}")


def play_move(core: GameCore, state, seat: int, action: int, name: str, k: int) -> None:
    """Step one-row ``state`` with move ``k`` of a record or position, checking it first: the game
    is running, ``seat`` is to act, a chance outcome is the game's own draw, the action is legal
    and ``name`` is its notation.  RecordError naming the move otherwise."""
    if state.done[0]:
        raise RecordError(f"move {k} ({name!r}) comes after the game ended")
    to_act = int(state.current_player[0])
    if seat != to_act:
        raise RecordError(f"move {k} ({name!r}) is by seat {seat}, but seat {to_act} is to act")
    if seat == CHANCE_PLAYER:  # drawn from the game's stream: the draw must be the record's
        drawn = int(core.sample_chance(state)[0])
        if drawn != action:
            raise RecordError(f"move {k}: the chance outcome {name!r} is not the one the game's stream "
                              f"draws there ({core.action_to_string(drawn)!r})")
    if action >= core.num_actions or not core.legal_action_mask(state)[0, action]:
        raise RecordError(f"move {k} ({name!r}, action {action}) is not legal there")
    if core.action_to_string(action) != name:
        raise RecordError(f"move {k}: action {action} is {core.action_to_string(action)!r}, "
                          f"the record calls it {name!r}")
    core.step(state, np.array([action]))


def replay_states(core: GameCore, record: GameRecord, check_result: bool = True):
    """Yield the one-row state before the first move and after each move, checking as it goes:
    each move's seat is the one to act, each action is legal and named as the record names it,
    and at the end the result and the final state's digest are the record's."""
    check_record(record, core)
    state = core.init(np.array([record.seed], dtype=np.uint64))
    yield state.copy()
    returns = np.zeros(core.num_players)
    for k, ((seat, action), name) in enumerate(zip(record.moves, record.notation)):
        play_move(core, state, seat, action, name, k)
        returns += state.rewards[0]
        yield state.copy()
    if not check_result:
        return
    if bool(state.terminated[0]) != record.terminated or bool(state.truncated[0]) != record.truncated:
        raise RecordError(f"after the record's {len(record.moves)} moves the game is "
                          f"{'over' if state.terminated[0] else 'stopped' if state.truncated[0] else 'running'}, "
                          f"the record says terminated={record.terminated}, truncated={record.truncated}")
    if [float(r) for r in returns] != record.returns:
        raise RecordError(f"the replayed returns {returns.tolist()} are not the record's {record.returns}")
    if _scores(core, state, 0) != record.scores:
        raise RecordError(f"the replayed scores {_scores(core, state, 0)} are not the record's {record.scores}")
    if state_digest(state, 0) != record.final_state:
        raise RecordError("the replayed final state differs from the record's (final_state digest)")


def replay(core: GameCore, record: GameRecord) -> list:
    """Every one-row state of the game (see :func:`replay_states`), after checking the whole record."""
    return list(replay_states(core, record))


# -- positions as text ------------------------------------------------------------------------
POSITION_MAX_BYTES = 4 * 2**20


def position_text(core: GameCore, seed: int, moves) -> str:
    """A position as text: ``<game> v<version> <options as JSON>``, ``seed <n>``, then one line per
    move in the game's notation (chance outcomes too, with explicit chance).  Every game's positions
    have this form, hidden draws included; :func:`read_position` reads it back."""
    head = f"{core.name} v{core.spec.version} {json.dumps(json_options(core), sort_keys=True)}"
    return "\n".join([head, f"seed {int(seed)}"] + [core.action_to_string(a) for _, a in moves]) + "\n"


def parse_position(text: str):
    """``(game, version, options, seed, move names)`` of a position text; RecordError naming what is wrong."""
    if not isinstance(text, str) or len(text.encode("utf-8", "replace")) > POSITION_MAX_BYTES:
        raise RecordError(f"a position is text of at most {POSITION_MAX_BYTES // 2**20} MiB, got {show(text)}")
    lines = [line.strip() for line in text.strip().splitlines()]
    head = lines[0].split(" ", 2) if lines else []
    if len(head) != 3 or not head[0].isidentifier() or not head[1].startswith("v") or not head[1][1:].isdigit():
        raise RecordError("a position starts with '<game> v<version> {options}', e.g. 'koi v0 {}'")
    try:
        options = json.loads(head[2], object_pairs_hook=unique_keys)
    except (ValueError, RecursionError) as e:
        raise RecordError(f"the position's options are not a JSON object: {e}") from None
    if not isinstance(options, dict) or any(not isinstance(v, (str, int, float, bool, type(None)))
                                            for v in options.values()):
        raise RecordError("the position's options must be a JSON object of strings, numbers, booleans or nulls")
    seed_line = lines[1].split() if len(lines) > 1 else []
    if len(seed_line) != 2 or seed_line[0] != "seed" or not seed_line[1].isdigit() or int(seed_line[1]) >= 2**64:
        raise RecordError("the position's second line is 'seed <n>', n from 0 to 2**64 - 1")
    if len(lines) - 2 > MAX_MOVES:
        raise RecordError(f"a position has at most {MAX_MOVES:,} moves")
    return head[0], int(head[1][1:]), options, int(seed_line[1]), lines[2:]


def position_state(core: GameCore, seed: int, names):
    """``(state, moves)``: the one-row state after the named moves from ``seed``, each checked
    (:func:`play_move`), and the moves as (seat, action)."""
    state = core.init(np.array([seed], dtype=np.uint64))
    moves = []
    for k, name in enumerate(names):
        try:
            action = core.string_to_action(name)
        except ValueError as e:
            raise RecordError(f"move {k}: {e}") from None
        seat = int(state.current_player[0])
        play_move(core, state, seat, action, name, k)
        moves.append((seat, action))
    return state, moves
