"""Golden playthroughs: recorded games replayed bit for bit.

Each file under ``tests/golden/`` holds, for one game variant, a few games:
the seed, every action played, and a digest of what the core showed after
each step (legal mask, the mover's observation, rewards, flags, player to
move, heuristic).  Replaying them checks that a change of layout or speed
changes nothing a user can see.  Only a documented rule fix may change a
recording, and it comes with a new env version (the game spec's ``version``,
stored in each file and checked here); re-record with ``python
tests/test_golden.py`` and say why in the commit and in the spec's version
history.
"""
from __future__ import annotations

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


def main() -> None:
    os.makedirs(GOLDEN_DIR, exist_ok=True)
    for game, options in CASES:
        core = make_core(game, **options)
        out = {"game": game, "version": game_spec(game).version, "options": options,
               "games": [record(core, s) for s in SEEDS]}
        with open(file_name(game, options), "w") as f:
            json.dump(out, f, separators=(",", ":"))
        print(file_name(game, options), [len(g["actions"]) for g in out["games"]], file=sys.stderr)


if __name__ == "__main__":
    main()
