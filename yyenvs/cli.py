"""The ``yyenvs`` command: ``bench``, ``play``, ``replay``, ``train``, ``eval``, ``checkpoint``.

``train`` and ``eval`` need the ``train`` extra (torch, stable-baselines3,
sb3-contrib); they live in ``yyenvs.training``.

A user error (a bad argument, game option, data file, config or checkpoint)
prints one line ``yyenvs <command>: error: ...`` on stderr and exits with
status 2; a traceback means a bug.
"""
from __future__ import annotations

import argparse
import math
import re
import sys

COMMANDS = {
    "bench": ("yyenvs.bench", "measure steps/s and memory of every game (random legal play)"),
    "play": ("yyenvs.play", "play a batch of games between two agents, or play one yourself (--human)"),
    "replay": ("yyenvs.replay", "write a game record as a self-contained HTML page to watch"),
    "train": ("yyenvs.training.train", "self-play training from a YAML config"),
    "eval": ("yyenvs.training.evaluate", "matches between checkpoints and baselines, with ratings"),
    "checkpoint": ("yyenvs.training.checkpoint_command", "inspect, export (policy only) or convert a checkpoint"),
}
TRAIN_EXTRA = {"torch", "stable_baselines3", "sb3_contrib"}
MAX_SEED = 2**63  # seeds are stored as uint64; the bound leaves room for seed + k
MAX_GAMES = 10_000_000      # games in one play/eval match (per-game arrays are allocated at once)
MAX_BATCH = 1_048_576       # games stepped at once (bench --batches, train num_envs)
MAX_YAML_DEPTH = 64         # nesting of YAML collections in configs and KEY=VALUE values
MAX_INT_CHARS = 100         # longest YAML integer literal (int64 needs at most 66 characters)
INT64 = 2**63


class ArgumentParser(argparse.ArgumentParser):
    """argparse whose errors are one line (no usage block); the exit status stays 2."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {one_line(message)}\n")

    def format_help(self) -> str:
        return super().format_help().replace("``", "")  # descriptions come from reST docstrings


def one_line(text) -> str:
    return " ".join(str(text).split())


def _integer(text: str, lo: int, hi: int | None, what: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = None
    if value is None or value < lo or (hi is not None and value >= hi):
        raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}")
    return value


def bounded_int(lo: int, hi: int):
    """argparse type factory: an integer in [lo, hi] (both included)."""
    def parse(text: str) -> int:
        return _integer(text, lo, hi + 1, f"an integer from {lo:,} to {hi:,}")
    parse.__name__ = f"integer in [{lo}, {hi}]"
    return parse


games_int = bounded_int(1, MAX_GAMES)   # argparse type of --games (play, eval)
batch_int = bounded_int(1, MAX_BATCH)   # argparse type of bench --batches


def positive_int(text: str) -> int:
    """argparse type: an integer >= 1."""
    return _integer(text, 1, None, "a positive integer")


def seed_int(text: str) -> int:
    """argparse type: a seed, an integer in [0, 2**63)."""
    return _integer(text, 0, MAX_SEED, "a seed: an integer from 0 to 2**63 - 1")


def positive_float(text: str) -> float:
    """argparse type: a finite number > 0."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"expected a finite number > 0, got {text!r}")
    return value


_QUOTED = re.compile(r'"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\n]|\'\')*\'|#[^\n]*')
_BRACKETS = re.compile(r"[\[\]{}]")


def _make_loader():
    import yaml
    from yaml.constructor import ConstructorError

    class Loader(yaml.SafeLoader):
        """SafeLoader that refuses duplicate mapping keys and over-long integer literals."""

        def construct_mapping(self, node, deep=False):
            if isinstance(node, yaml.MappingNode):
                seen = set()
                for key_node, _ in node.value:
                    if isinstance(key_node, yaml.ScalarNode) and key_node.tag != "tag:yaml.org,2002:merge":
                        key = self.construct_object(key_node)
                        try:
                            dup = key in seen
                            seen.add(key)
                        except TypeError:  # an unhashable key: the base class reports it
                            continue
                        if dup:
                            raise ConstructorError("while constructing a mapping", node.start_mark,
                                                   f"found duplicate key {key!r}", key_node.start_mark)
            return super().construct_mapping(node, deep=deep)

        def construct_yaml_int(self, node):
            if len(node.value) > MAX_INT_CHARS:
                raise ConstructorError(None, None, f"an integer of {len(node.value)} characters is too "
                                       f"long (at most {MAX_INT_CHARS})", node.start_mark)
            return super().construct_yaml_int(node)

    Loader.add_constructor("tag:yaml.org,2002:int", Loader.construct_yaml_int)
    return Loader


_LOADER = []


def load_yaml(text: str, what: str, error=None):
    """Parse untrusted YAML ``text`` (a config file or a KEY=VALUE value) safely.

    Refused with ``error(message)`` (default :class:`OptionError`), the message
    starting with ``what``: invalid YAML, YAML tags (``!...``), anchors and aliases
    (``&a`` / ``*a``: alias bombs), nesting deeper than :data:`MAX_YAML_DEPTH`
    (checked by a cheap character scan before any parsing, then exactly), duplicate
    mapping keys and integer literals longer than :data:`MAX_INT_CHARS` characters.
    """
    import yaml
    if error is None:
        from yyenvs.core.contract import OptionError as error

    def refuse(message):
        return error(f"{what} {message}")
    # cheap pre-scan of flow brackets, quoted strings and comments dropped (roughly): deep
    # "[[[[..." makes the YAML scanner quadratic
    depth = deep = 0
    for m in _BRACKETS.finditer(_QUOTED.sub("", text)):
        depth = depth + 1 if m.group() in "[{" else max(depth - 1, 0)
        deep = max(deep, depth)
        if deep > MAX_YAML_DEPTH:
            raise refuse(f"nests deeper than {MAX_YAML_DEPTH} levels")
    problem = None
    try:
        depth = 0
        for t in yaml.scan(text, Loader=yaml.SafeLoader):
            if isinstance(t, yaml.TagToken):
                problem = "uses a YAML tag ('!...'); tags are not allowed"
            elif isinstance(t, (yaml.AnchorToken, yaml.AliasToken)):
                problem = "uses a YAML anchor or alias ('&...' / '*...'); they are not allowed"
            elif isinstance(t, (yaml.FlowSequenceStartToken, yaml.FlowMappingStartToken,
                                yaml.BlockSequenceStartToken, yaml.BlockMappingStartToken)):
                depth += 1
                if depth > MAX_YAML_DEPTH:
                    problem = f"nests deeper than {MAX_YAML_DEPTH} levels"
            elif isinstance(t, (yaml.FlowSequenceEndToken, yaml.FlowMappingEndToken, yaml.BlockEndToken)):
                depth -= 1
            if problem:
                break
        if not problem:
            if not _LOADER:
                _LOADER.append(_make_loader())
            return yaml.load(text, Loader=_LOADER[0])
    except (yaml.YAMLError, ValueError, RecursionError) as e:  # ValueError: an int too long
        problem = f"is not valid YAML: {one_line(e)[:300]}"
    raise refuse(problem)


def _check_ints(value, what: str, error, depth=0):
    if isinstance(value, int) and not isinstance(value, bool) and not -INT64 <= value < INT64:
        raise error(f"{what}: the integer {str(value)[:30]}... does not fit in 64 bits")
    if isinstance(value, dict):
        for k, v in value.items():
            _check_ints(k, what, error)
            _check_ints(v, what, error)
    elif isinstance(value, list):
        for v in value:
            _check_ints(v, what, error)


def parse_option(text: str, flag: str = "--option", error=None) -> tuple[str, object]:
    """``KEY=VALUE`` (a game option or a config override on the command line) -> ``(key, value)``,
    the value parsed as YAML.

    The one KEY=VALUE parser (``--option`` of ``play`` / ``eval``, the config overrides of
    ``train``).  Raises ``error`` (default :class:`OptionError`) with a one-line message
    naming ``flag`` and ``text``: a bad form (no ``=``, empty key), invalid YAML, tags,
    anchors/aliases, nesting deeper than :data:`MAX_YAML_DEPTH`, duplicate keys, integers
    that do not fit in 64 bits.  An empty (or blank) value is the empty string.
    """
    if error is None:
        from yyenvs.core.contract import OptionError as error
    key, sep, value = text.partition("=")
    key = key.strip()
    if not sep or not key:
        raise error(f"{flag} expects KEY=VALUE, got {text[:80]!r}")
    what = f"{flag} {text[:80]!r}: the value"
    parsed = load_yaml(value, what, error) if value.strip() else ""
    _check_ints(parsed, what, error)
    return key, parsed


def parse_options(items, flag: str = "--option") -> dict:
    """``{key: value}`` of several ``KEY=VALUE`` texts (:func:`parse_option`; the last of a key wins)."""
    return dict(parse_option(text, flag) for text in items)


def run(command: str, fn, argv) -> int:
    """``fn(argv)`` with the package's user errors turned into one line and status 2."""
    # OptionError covers ConfigError, DataFileError, CheckpointError and RecordError too
    from yyenvs.core.contract import IllegalActionError, OptionError
    try:
        return int(fn(argv) or 0)
    except (OptionError, IllegalActionError) as e:
        print(f"yyenvs {command}: error: {one_line(e)}", file=sys.stderr)
        return 2


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["--version"]:
        from importlib.metadata import version
        print(f"yyenvs {version('yyenvs')}")
        return 0
    if not argv or argv[0] in ("-h", "--help") or argv[0] not in COMMANDS:
        parser = ArgumentParser(prog="yyenvs", description="Board-game environments and agents: Yoxii, "
                                "Yin Yang Koi and Yin Yang.", formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog="commands:\n" + "\n".join(f"  {k:<11} {v[1]}" for k, v in COMMANDS.items())
                                + "\n\n'yyenvs COMMAND --help' describes a command's options.")
        parser.add_argument("command", choices=list(COMMANDS), help="what to run (below)")
        parser.add_argument("--version", action="store_true", help="print the version and exit")
        if argv and argv[0] not in ("-h", "--help"):
            parser.error(f"unknown command {argv[0]!r}; choose from {list(COMMANDS)}")
        parser.print_help()
        return 0 if argv else 2
    import importlib
    command = argv[0]
    try:
        module = importlib.import_module(COMMANDS[command][0])
    except ModuleNotFoundError as e:
        if e.name not in TRAIN_EXTRA:
            raise
        print(f"yyenvs {command}: error: {e.name} is not installed; this command needs the train "
              "extra (pip install 'yyenvs[train]')", file=sys.stderr)
        return 2
    return run(command, module.main, argv[1:])


if __name__ == "__main__":
    sys.exit(main())
