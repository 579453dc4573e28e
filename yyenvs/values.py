"""Values a user types: YAML scalars and collections (configs, ``KEY=VALUE`` overrides, ``--option``
values), read safely and within limits, and one-line error messages.  The command line and the
training config both read them here."""
from __future__ import annotations

import re

MAX_SEED = 2**63  # seeds are stored as uint64; the bound leaves room for seed + k
MAX_GAMES = 10_000_000      # games in one play/eval match (per-game arrays are allocated at once)
MAX_BATCH = 1_048_576       # games stepped at once (bench --batches, train num_envs)
MAX_YAML_DEPTH = 64         # nesting of YAML collections in configs and KEY=VALUE values
MAX_INT_CHARS = 100         # longest YAML integer literal (int64 needs at most 66 characters)
INT64 = 2**63


def one_line(text) -> str:
    return " ".join(str(text).split())


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
