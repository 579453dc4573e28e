"""The documentation runs as written and points at files that exist.

* Every ```python block of README.md and of docs/**/*.md runs, as written, in
  a fresh Python process (from the repository root, ``SDL_VIDEODRIVER=dummy``).
  Slow commands (training) are written as ```bash or ```text blocks instead.
* Every relative link of those files names an existing file, and a ``#anchor``
  on a Markdown file names one of its headings.
* The config-key table of docs/training.md is the one :func:`config_table`
  builds from ``yyenvs/training/config.py`` (defaults, ranges, choices and the
  comment beside each default).  ``python tests/commands/test_docs.py`` rewrites it.
"""
from __future__ import annotations

import ast
import io
import os
import pathlib
import re
import subprocess
import sys
import tokenize

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:  # ``python tests/commands/test_docs.py`` from anywhere
    sys.path.insert(0, str(ROOT))

DOC_FILES = [ROOT / "README.md"] + sorted((ROOT / "docs").rglob("*.md"))
FENCE = re.compile(r"^```([\w-]*)[^\n]*\n(.*?)^```[ \t]*$", re.M | re.S)
TABLE_START = "<!-- config-table:start -->"
TABLE_END = "<!-- config-table:end -->"
TRAINING_DOC = ROOT / "docs" / "training.md"


def _rel(path: pathlib.Path) -> str:
    return path.relative_to(ROOT).as_posix()


def python_blocks() -> list[tuple[str, int, str]]:
    """(file, index within the file, code) of every ```python block."""
    out = []
    for path in DOC_FILES:
        blocks = [code for lang, code in FENCE.findall(path.read_text(encoding="utf-8")) if lang == "python"]
        out += [(_rel(path), i, code) for i, code in enumerate(blocks)]
    return out


BLOCKS = python_blocks()


def test_docs_exist_and_have_examples():
    assert (ROOT / "docs").is_dir()
    assert len(DOC_FILES) >= 10, [_rel(p) for p in DOC_FILES]
    assert len(BLOCKS) >= 10


#: pages whose examples need an environment of their own, and the tests that run them there
OWN_ENVIRONMENT = {"docs/integrations/rllib.md": "tests/rllib/test_rllib.py (in .venv-rllib)"}


def run_block(where, index, code):
    env = {**os.environ, "SDL_VIDEODRIVER": "dummy"}
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       timeout=600, cwd=ROOT, env=env)
    assert r.returncode == 0, f"{where}, python block {index}:\n{r.stderr[-3000:]}"


@pytest.mark.parametrize("where,index,code", BLOCKS, ids=[f"{f}#{i}" for f, i, _ in BLOCKS])
def test_python_block_runs(where, index, code):
    if where in OWN_ENVIRONMENT:
        pytest.skip(f"run by {OWN_ENVIRONMENT[where]}")
    run_block(where, index, code)


def test_every_game_has_a_page_naming_its_options():
    import yyenvs
    for game, spec in yyenvs.GAMES.items():
        page = ROOT / "docs" / "games" / f"{game}.md"
        assert page.exists(), f"no docs page for {game}"
        text = page.read_text(encoding="utf-8")
        missing = [o.name for o in spec.options if f"`{o.name}`" not in text]
        assert not missing, f"{_rel(page)} does not describe the option(s) {missing}"
        assert spec.gym_id in text and spec.pettingzoo_module in text


# -- links ---------------------------------------------------------------------
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")


def _prose(text: str) -> str:
    """``text`` without fenced blocks and inline code (links there are not links)."""
    text = FENCE.sub("", text)
    return re.sub(r"`[^`\n]*`", "", text)


def _anchors(path: pathlib.Path) -> set[str]:
    """GitHub's anchors of the headings of a Markdown file."""
    seen: dict[str, int] = {}
    out = set()
    for line in FENCE.sub("", path.read_text(encoding="utf-8")).splitlines():
        m = re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
        if not m:
            continue
        slug = re.sub(r"[^\w\- ]", "", m.group(1).strip().lower()).replace(" ", "-")
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        out.add(slug if n == 0 else f"{slug}-{n}")
    return out


def relative_links() -> list[tuple[str, str]]:
    out = []
    for path in DOC_FILES:
        for target in LINK.findall(_prose(path.read_text(encoding="utf-8"))):
            if re.match(r"[a-z][a-z0-9+.-]*:", target, re.I):  # https:, mailto:
                continue
            out.append((_rel(path), target))
    return out


LINKS = relative_links()


def test_docs_link_to_each_other():
    linked = {os.path.normpath((ROOT / os.path.dirname(f) / t.split("#")[0]).as_posix())
              for f, t in LINKS if t.split("#")[0]}
    for path in DOC_FILES[1:]:
        assert os.path.normpath(path.as_posix()) in linked, f"no page links to {_rel(path)}"


@pytest.mark.parametrize("where,target", LINKS, ids=[f"{f}->{t}" for f, t in LINKS])
def test_relative_link_exists(where, target):
    file, _, anchor = target.partition("#")
    source = ROOT / where
    dest = (source.parent / file).resolve() if file else source
    assert dest.exists(), f"{where}: link {target!r} names a missing file"
    assert ROOT in dest.parents or dest == ROOT, f"{where}: link {target!r} leaves the repository"
    if anchor and dest.suffix == ".md":
        assert anchor in _anchors(dest), f"{where}: link {target!r}: no heading with that anchor"


# -- the config table ------------------------------------------------------------
def _default_comments(config_module) -> dict[str, str]:
    """The comment written beside each key of ``DEFAULTS`` in yyenvs/training/config.py, by flat key."""
    source = pathlib.Path(config_module.__file__).read_text(encoding="utf-8")
    comments = {}
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.COMMENT:
            comments[tok.start[0]] = tok.string.lstrip("#").strip()
    tree = ast.parse(source)
    node = next(n.value for n in ast.walk(tree)
                if isinstance(n, (ast.Assign, ast.AnnAssign)) and isinstance(n.value, ast.Dict)
                and any(isinstance(t, ast.Name) and t.id == "DEFAULTS"
                        for t in (n.targets if isinstance(n, ast.Assign) else [n.target])))
    out = {}

    def walk(d: ast.Dict, prefix: str):
        for k, v in zip(d.keys, d.values):
            if k is None:  # a ``**mapping`` inside the literal: its keys' meanings are in DESCRIPTIONS
                continue
            key = prefix + k.value
            if isinstance(v, ast.Dict) and key not in config_module.FREE_DICTS:
                walk(v, key + ".")
                continue
            text = comments.get(v.end_lineno) or comments.get(k.lineno)
            choices = config_module.CHOICES.get(key)
            if text and choices and re.sub(r"[\s|/,]+", " ", text).split() == [str(c) for c in choices]:
                text = None  # only the choices again: the allowed column has them
            if text:
                out[key] = text
    walk(node, "")
    return out


def _yaml_value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return "[" + ", ".join(_yaml_value(x) for x in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_yaml_value(v)}" for k, v in value.items()) + "}"
    return str(value)


def _bound(text: str) -> str:
    """A bound of an interval: a large power of two or ten as 2^k / 10^k."""
    if not text.isdigit() or int(text) < 10_000:
        return text
    n = int(text)
    if n & (n - 1) == 0:
        return f"2^{n.bit_length() - 1}"
    k = len(text) - 1
    return f"10^{k}" if n == 10 ** k else f"{n:,}"


def _allowed(config_module, key: str, default) -> str:
    if key in config_module.CHOICES:
        return " / ".join(str(c) for c in config_module.CHOICES[key])
    if key in config_module.RANGES:
        kind = "integer" if isinstance(default, int) and not isinstance(default, bool) else "number"
        interval = re.sub(r"[\w.]+", lambda m: _bound(m.group(0)), config_module.RANGES[key])
        return f"{kind} in {interval}"
    if key in config_module.LIST_ENTRIES:
        return f"list; each entry {config_module.LIST_ENTRIES[key][0]}"
    if isinstance(default, bool):
        return "true / false"
    if isinstance(default, dict):
        return "mapping"
    if isinstance(default, int):
        return "integer"
    if isinstance(default, float):
        return "number"
    return "text"


def _cell(text: str) -> str:
    """``text`` as the text of a table cell (Markdown's special characters escaped)."""
    for char, escaped in (("\\", "\\\\"), ("|", "\\|"), ("*", "\\*"), ("<", "&lt;"), (">", "&gt;")):
        text = text.replace(char, escaped)
    return text


def config_table() -> str:
    """The Markdown table of every config key: key, default, allowed values, meaning.

    Built from ``yyenvs.training.config``: ``FLAT_DEFAULTS`` (key and default), ``RANGES``,
    ``CHOICES`` and ``LIST_ENTRIES`` (allowed values) and, for the meaning, the
    comment written beside the key's default (a ``DESCRIPTIONS`` mapping, when the
    module has one, takes precedence).
    """
    from yyenvs.training import config
    meanings = {**_default_comments(config), **getattr(config, "DESCRIPTIONS", {})}
    rows = ["| key | default | allowed | meaning |", "|---|---|---|---|"]
    for key, default in config.FLAT_DEFAULTS.items():
        rows.append(f"| `{key}` | `{_cell(_yaml_value(default))}` | {_cell(_allowed(config, key, default))} "
                    f"| {_cell(meanings.get(key, ''))} |")
    return "\n".join(rows)


def _with_table(text: str, table: str) -> str:
    start, end = text.index(TABLE_START), text.index(TABLE_END)
    return text[:start + len(TABLE_START)] + "\n" + table + "\n" + text[end:]


def test_config_table_matches_the_defaults():
    text = TRAINING_DOC.read_text(encoding="utf-8")
    assert text.count(TABLE_START) == 1 and text.count(TABLE_END) == 1
    assert text.index(TABLE_START) < text.index(TABLE_END)
    assert _with_table(text, config_table()) == text, \
        "docs/training.md: the config table is out of date; run `python tests/commands/test_docs.py`"


if __name__ == "__main__":
    doc = TRAINING_DOC.read_text(encoding="utf-8")
    new = _with_table(doc, config_table())
    if new != doc:
        TRAINING_DOC.write_text(new, encoding="utf-8")
        print(f"rewrote the config table of {_rel(TRAINING_DOC)}")
    else:
        print(f"{_rel(TRAINING_DOC)}: the config table is up to date")
