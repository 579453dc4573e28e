"""Every ```python block of the README runs as written."""
import pathlib
import re
import subprocess
import sys

import pytest

README = pathlib.Path(__file__).resolve().parents[1] / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)


def test_readme_has_examples():
    assert len(BLOCKS) >= 5


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_readme_example_runs(index):
    r = subprocess.run([sys.executable, "-c", BLOCKS[index]], capture_output=True, text=True,
                       timeout=600, env={"SDL_VIDEODRIVER": "dummy", **__import__("os").environ})
    assert r.returncode == 0, r.stderr[-2000:]
