"""A process that compiles a game's kernels (an empty numba cache) says so once; one that loads them does not."""
import os
import subprocess
import sys

from yyenvs.core.compile_notice import PARTS, compiling, part_of

GAME = ("import numpy as np, yyenvs\n"
        "core = yyenvs.make_core('koi', board_size=5, directions=4, win_fry=14)\n"
        "state = core.init(np.arange(4))\n"
        "for _ in range(3):\n"
        "    core.step(state, core.legal_action_mask(state).argmax(1))\n")


def test_the_compile_line_appears_once_on_a_cold_cache(tmp_path):
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path))
    env.pop("YYENVS_COMPILE_NOTICE", None)
    runs = [subprocess.run([sys.executable, "-c", GAME], env=env, capture_output=True, text=True, check=True).stderr
            for _ in range(2)]
    line = "yyenvs: compiling Yin Yang Koi's kernels for this machine, once (about"
    assert runs[0].count(line) == 1, runs[0]
    assert "compiling" not in runs[1]  # the cache is warm now
    quiet = subprocess.run([sys.executable, "-c", GAME], env=dict(env, YYENVS_COMPILE_NOTICE="0",
                                                                  NUMBA_CACHE_DIR=str(tmp_path / "other")),
                           capture_output=True, text=True, check=True).stderr
    assert "compiling" not in quiet


def test_parts_are_named_by_module():
    assert part_of("yyenvs.games.yinyang.mask") == "yyenvs.games.yinyang"
    assert part_of("yyenvs.search.tree") == "yyenvs.search"
    assert part_of("yyenvs.gamesx") is None and part_of("mypackage.kernels") is None
    assert set(PARTS) >= {"yyenvs.games.yoxii", "yyenvs.games.koi", "yyenvs.games.yinyang"}
    assert compiling() is None  # nothing compiles between calls
