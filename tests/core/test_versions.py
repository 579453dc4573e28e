"""Earlier environment versions stay registered with the defaults they had, and their files load.

Koi-v1 changed only Koi's default options (the rules are v0's): ``yyenvs/Koi-v0``, ``yyenvs.koi_v0``
and ``yyenvs/koi-v0`` still make the v0 default game, and records and checkpoints written by v0 (which
hold every option) load and replay.
"""
from __future__ import annotations

import json

import gymnasium as gym
import numpy as np
import pettingzoo
import pytest

import yyenvs
from tests.agents.test_checkpoints import rewrite_metadata, tiny_checkpoint
from yyenvs.core.errors import OptionError
from yyenvs.games import game_spec, load_record, make_core

KOI = game_spec("koi")
V0 = KOI.defaults_of(0)


def test_koi_v0_keeps_its_defaults_everywhere():
    assert KOI.version == 1 and KOI.versions == (1, 0)
    assert V0 != KOI.defaults and V0["board_size"] == 9 and V0["directions"] == 8
    assert gym.make("yyenvs/Koi-v0").unwrapped.core.options == V0
    assert gym.make("yyenvs/Koi-v1").unwrapped.core.options == KOI.defaults
    assert gym.make("yyenvs/Koi-v0", directions=4).unwrapped.core.options == {**V0, "directions": 4}
    assert gym.make_vec("yyenvs/Koi-v0", num_envs=2, vectorization_mode="vector_entry_point").core.options == V0
    assert yyenvs.koi_v0.raw_env().core.options == V0
    assert yyenvs.koi_v0.env().unwrapped.core.options == V0
    assert yyenvs.koi_v1.raw_env().core.options == KOI.defaults
    assert yyenvs.koi_v0.raw_env.metadata["name"] == "koi_v0"
    if hasattr(pettingzoo, "make"):
        assert pettingzoo.make("aec", "yyenvs/koi-v0").unwrapped.core.options == V0
    with pytest.raises(AttributeError):
        yyenvs.koi_v2  # noqa: B018
    with pytest.raises(OptionError, match="versions"):
        from yyenvs.envs.aec import aec_factories
        aec_factories("koi", version=5)


def test_a_v0_record_replays_and_a_v0_checkpoint_loads(tmp_path):
    from yyenvs.agents.ppo import load_policy
    from yyenvs.evaluation.matches import play_match
    core = make_core("koi", **V0)
    rec = play_match(core, yyenvs.agents.make_agent("greedy", core, 0), yyenvs.agents.make_agent("random", core, 1),
                     2, record_as=("greedy", "random"))["records"][0]
    obj = {**rec.to_json(), "game_version": 0}
    path = tmp_path / "v0.json"
    path.write_text(json.dumps(obj))
    record, replayed = load_record(str(path))
    assert record.game_version == 0 and replayed.options == V0
    same_game = make_core("koi", board_size=9, directions=8, win_fry=14)  # quick_layout: v1's, unused
    assert same_game.options["quick_layout"] != V0["quick_layout"]
    assert load_record(str(path), same_game)[1] is same_game
    with pytest.raises(Exception, match="version 3"):
        bad = tmp_path / "v3.json"
        bad.write_text(json.dumps({**obj, "game_version": 3}))
        load_record(str(bad))
    ck = tmp_path / "v0.safetensors"
    tiny_checkpoint(core, ck)
    rewrite_metadata(ck, lambda m: m.update(game_version=0))
    policy, meta = load_policy(ck, core)
    load_policy(ck, same_game)  # the same game: the unused quick_layout does not count
    with pytest.raises(Exception, match="other options .quick_layout: checkpoint '<unset>' vs requested 'spread', "
                                        "quick_start: checkpoint False vs requested True"):
        load_policy(ck, make_core("koi", board_size=9, directions=8, win_fry=14, quick_start=True))
    assert meta["game_version"] == 0 and np.isfinite(next(policy.parameters()).detach().numpy()).all()


def test_files_of_v0_without_quick_layout_keep_the_row_layout(tmp_path):
    """``quick_layout`` came with v1: a v0 record or checkpoint does not name it, and reads as v0's
    quick start ("row"), while a v1 file without it reads as v1's default."""
    from yyenvs.networks.checkpoint import read_metadata
    from yyenvs.evaluation.matches import play_match
    core = make_core("koi", **{**V0, "quick_start": True})
    rec = play_match(core, yyenvs.agents.make_agent("greedy", core, 0), yyenvs.agents.make_agent("random", core, 1),
                     2, record_as=("greedy", "random"))["records"][0]
    obj = rec.to_json()
    del obj["options"]["quick_layout"]  # as v0 wrote it
    path = tmp_path / "v0.json"
    path.write_text(json.dumps({**obj, "game_version": 0}))
    record, replayed = load_record(str(path))
    assert replayed.options["quick_layout"] == "row" and replayed.options == core.options
    path.write_text(json.dumps({**obj, "game_version": 1}))  # the same moves from the spread layout
    with pytest.raises(Exception, match="move 0 .* is not legal there"):
        load_record(str(path))
    ck = tmp_path / "v0.safetensors"
    tiny_checkpoint(core, ck)
    rewrite_metadata(ck, lambda m: (m["options"].pop("quick_layout"), m.update(game_version=0)))
    assert read_metadata(ck, core)["options"]["quick_layout"] == "row"
    rewrite_metadata(ck, lambda m: m.update(game_version=1))
    assert read_metadata(ck)["options"]["quick_layout"] == "spread"
