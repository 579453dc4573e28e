"""Golden playthroughs: recorded games replayed bit for bit.

Beside each digest file, ``<variant>.txt`` is the first game as a person reads it (as OpenSpiel's
playthrough files): every position's text picture, the player to move, the legal actions by name,
the action taken and the rewards, for the first ``TEXT_PLIES`` plies, and the mover's observation
(its non-zero entries, plane by plane) for the first ``OBSERVATION_PLIES``; a change shows as a diff.

Each file under ``tests/core/golden/`` holds, for one game variant, a few games:
the seed, every action played, and a digest of what the core showed after
each step (legal mask, the mover's observation, rewards, flags, player to
move, heuristic).  Replaying them checks that a change of layout or speed
changes nothing a user can see.  Only a documented rule fix may change a
recording, and it comes with a new env version (the game spec's ``version``,
stored in each file and checked here); re-record with ``python
tests/core/test_golden.py`` and say why in the commit and in the spec's version
history.
"""
from __future__ import annotations

import difflib
import hashlib
import json
import os
import sys

import numpy as np
import pytest

from yyenvs.games import game_spec, make_core, variants

GOLDEN_DIR = os.path.join(os.path.dirname(__file__), "golden")
CASES = variants()
SEEDS = tuple(range(8))
TEXT_PLIES = 30  # plies of the first game written out as text (a whole Yoxii game)
OBSERVATION_PLIES = 3  # of those, the first plies whose observation is written out too


def file_name(game, options) -> str:
    tag = "_".join(f"{k}-{v}" for k, v in sorted(options.items())) or "default"
    return os.path.join(GOLDEN_DIR, f"{game}_{tag}.json")


def digest(core, state) -> str:
    """What the core shows of row 0 now, as a short hash."""
    h = hashlib.sha256()
    h.update(core.legal_action_mask(state).tobytes())
    h.update(core.observe(state, state.current_player).tobytes())
    for a in (state.rewards, state.terminated, state.truncated, state.current_player, state.ply):
        h.update(np.ascontiguousarray(a).tobytes())
    if not state.done[0]:
        h.update(np.asarray(core.heuristic(state, state.current_player), np.float64).tobytes())
    return h.hexdigest()[:16]


def record(core, seed: int, max_plies: int = 600) -> dict:
    """One game from ``seed`` with actions drawn from a stream of its own (independent of the agents)."""
    state = core.init([seed])
    rng = np.random.default_rng([seed, 0x601D])
    actions, digests = [], [digest(core, state)]
    while not state.done[0] and len(actions) < max_plies:
        legal = np.flatnonzero(core.legal_action_mask(state)[0])
        a = int(legal[rng.integers(legal.size)])
        core.step(state, np.array([a]))
        actions.append(a)
        digests.append(digest(core, state))
    return {"seed": seed, "actions": actions, "digests": digests}


@pytest.mark.parametrize("game, options", CASES, ids=[os.path.basename(file_name(g, o)) for g, o in CASES])
def test_golden_playthrough_replays(game, options):
    with open(file_name(game, options)) as f:
        golden = json.load(f)
    assert golden["game"] == game and golden["options"] == options
    # a version whose rules are today's (only its defaults differ) keeps its recordings
    assert game_spec(game).reads_version(golden["version"]), "a new env version needs new recordings"
    core = make_core(game, **options)
    for g in golden["games"]:
        state = core.init([g["seed"]])
        assert digest(core, state) == g["digests"][0], f"seed {g['seed']}: first position differs"
        for k, a in enumerate(g["actions"]):
            assert core.legal_action_mask(state)[0, a], f"seed {g['seed']} ply {k}: action {a} no longer legal"
            core.step(state, np.array([a]))
            assert digest(core, state) == g["digests"][k + 1], f"seed {g['seed']}: differs after ply {k}"


def text_name(game, options) -> str:
    return file_name(game, options)[:-len(".json")] + ".txt"


def _wrapped(head: str, names: list[str], width: int = 100) -> str:
    """``head`` and the names, comma-separated, in lines of at most ``width`` (a name is never cut)."""
    lines, line = [], head
    for k, name in enumerate(names):
        item = name + ("," if k < len(names) - 1 else "")
        if len(line) + 1 + len(item) > width:
            lines.append(line)
            line = " "
        line += " " + item
    return "\n".join(lines + [line])


def observation_text(core, state, seat: int) -> list[str]:
    """The observation ``seat`` gets of row 0, its non-zero entries only: per plane the points (a1 is
    the first column of the first row) for planes, per index for a flat vector; ``=v`` where not 1."""
    obs = core.observe(state, np.array([seat]))[0]

    def entry(name, v):
        return name if v == 1 else f"{name}={v:.6g}"
    if obs.ndim == 1:
        return [_wrapped(f"observation ({obs.size} values), non-zero:",
                         [entry(str(i), obs[i]) for i in np.flatnonzero(obs)])]
    lines = [f"observation {'x'.join(map(str, obs.shape))}, non-zero entries per plane:"]
    for c in range(obs.shape[2]):
        rows, cols = np.nonzero(obs[:, :, c])
        points = [entry(f"{chr(ord('a') + x)}{y + 1}", obs[y, x, c]) for y, x in zip(rows, cols)]
        lines.append(_wrapped(f"  {c}:", points) if points else f"  {c}: none")
    return lines


def playthrough_text(core, game: dict) -> str:
    """The recorded game ``game`` (seed and actions) as text, ply by ply, up to ``TEXT_PLIES``."""
    names = core.player_names()
    state = core.init([game["seed"]])
    lines = [f"game {core.name}, version {core.spec.version}, options {core.options}, seed {game['seed']}"]
    for k, a in enumerate(game["actions"][:TEXT_PLIES]):
        mover = int(state.current_player[0])
        legal = [core.action_to_string(b) for b in np.flatnonzero(core.legal_action_mask(state)[0])]
        lines += [f"--- ply {k}", core.render_ansi(state, 0), f"to move: {mover} ({names[mover]})"]
        if k < OBSERVATION_PLIES and mover >= 0:
            lines += observation_text(core, state, mover)
        lines += [_wrapped(f"legal ({len(legal)}):", legal), f"action: {a} ({core.action_to_string(a)})"]
        core.step(state, np.array([a]))
        lines.append(f"rewards: {state.rewards[0].tolist()}")
    lines += ["--- after the last ply shown", core.render_ansi(state, 0)]
    return "\n".join(line.rstrip() for text in lines for line in text.splitlines()) + "\n"


@pytest.mark.parametrize("game, options", CASES, ids=[os.path.basename(text_name(g, o)) for g, o in CASES])
def test_golden_playthrough_reads_the_same(game, options):
    """The first recorded game, written out again, is its text file line for line."""
    with open(file_name(game, options)) as f:
        first = json.load(f)["games"][0]
    with open(text_name(game, options), encoding="utf-8") as f:
        want = f.read()
    got = playthrough_text(make_core(game, **options), first)
    diff = list(difflib.unified_diff(want.splitlines(), got.splitlines(), "recorded", "now", lineterm="", n=2))
    assert not diff, "\n".join(diff[:60])


def main() -> None:
    os.makedirs(GOLDEN_DIR, exist_ok=True)
    for game, options in CASES:
        core = make_core(game, **options)
        out = {"game": game, "version": game_spec(game).version, "options": options,
               "games": [record(core, s) for s in SEEDS]}
        with open(file_name(game, options), "w") as f:
            json.dump(out, f, separators=(",", ":"))
        with open(text_name(game, options), "w", encoding="utf-8") as f:
            f.write(playthrough_text(core, out["games"][0]))
        print(file_name(game, options), [len(g["actions"]) for g in out["games"]], file=sys.stderr)


if __name__ == "__main__":
    main()
