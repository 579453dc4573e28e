"""The environments alone (``pip install .``, no extras): scripted evaluation runs, and an agent that
needs the train extra says in one line which extra to install.

Each command runs in a fresh process whose imports of the train extra's modules fail, as they do where
those are not installed; ``./dev test`` also runs this file in ``.venv-envs``, where they are not.
"""
from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

import yyenvs

TRAIN_EXTRA = ("torch", "safetensors", "sb3_contrib", "stable_baselines3", "tensorboard", "tqdm", "rich",
               "matplotlib")
PRELUDE = textwrap.dedent(f"""
    import importlib.abc, sys

    class WithoutTrainExtra(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name.partition(".")[0] in {TRAIN_EXTRA!r}:
                raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)

    sys.meta_path.insert(0, WithoutTrainExtra())
""")
INSTALL = "pip install 'yyenvs[train]'"
SEARCH_CHECKPOINT = yyenvs.__path__[0] + "/agents/pretrained/search/koi.safetensors"


def without_extras(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", PRELUDE + textwrap.dedent(code)], capture_output=True,
                          text=True, timeout=300)


def command(*args: str) -> subprocess.CompletedProcess:
    return without_extras(f"from yyenvs.commands.cli import main; sys.exit(main({list(args)!r}))")


def test_scripted_evaluation_runs_without_torch():
    done = command("eval", "--game", "yoxii", "greedy", "random", "--games", "4", "--threads", "1")
    assert done.returncode == 0, done.stderr
    assert "greedy" in done.stdout and "ratings" in done.stdout


@pytest.mark.parametrize("args, names", [
    (("play", "--game", "yoxii", "--agents", "greedy", "pretrained"), "the agent 'pretrained' needs torch"),
    (("eval", "--game", "koi", "greedy", "pretrained", "--games", "2"), "the agent 'pretrained' needs torch"),
    (("eval", "--game", "koi", "greedy", f"az:{SEARCH_CHECKPOINT}", "--games", "2"), "needs safetensors"),
])
def test_an_agent_that_needs_the_train_extra_names_it_in_one_line(args, names):
    done = command(*args)
    assert done.returncode == 2 and done.stdout == "", done.stderr
    line, = done.stderr.splitlines()
    assert line.startswith(f"yyenvs {args[0]}: error: ") and names in line and line.endswith(INSTALL), line


def test_the_library_raises_a_module_not_found_error_that_names_the_extra():
    done = without_extras("""
        import gymnasium as gym
        import yyenvs
        env = gym.make("yyenvs/Koi-v1", opponent="greedy")   # the environments themselves need no extra
        env.reset(seed=0)
        env.step(int(env.unwrapped.action_masks().argmax()))
        try:
            gym.make("yyenvs/Koi-v1", opponent="pretrained")
        except ModuleNotFoundError as e:
            print(type(e).__name__, e.name, e)
    """)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("MissingExtraError torch the agent 'pretrained'") and INSTALL in done.stdout


def test_evaluation_imports_without_torch():
    """Matches, cross-tables, ratings, equal time and Ray pairs are libraries of their own: none of them
    needs the train extra until an entrant with a network is made."""
    done = without_extras("""
        import yyenvs.evaluation.cluster, yyenvs.evaluation.equal_time, yyenvs.evaluation.matches
        import yyenvs.evaluation.ratings, yyenvs.evaluation.tournament
        from yyenvs.evaluation.matches import make_entrants
        from yyenvs.evaluation.tournament import tournament
        from yyenvs.games import make_core
        core = make_core("koi")
        result = tournament(core, make_entrants(["greedy", "random"], core), games=2)
        print(sorted(result["entrants"][0]))
    """)
    assert done.returncode == 0, done.stderr
    assert "rating" in done.stdout
