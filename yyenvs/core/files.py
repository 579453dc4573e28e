"""Reading user files safely: bounded UTF-8 text, JSON objects without repeated keys.

Shared by the config loader, the Yin Yang data files and the checkpoint metadata.
"""
from __future__ import annotations

import os
import stat

from yyenvs.core.contract import OptionError, show


def read_text_file(path: str, where: str, limit: int, error: type[Exception]) -> str:
    """The UTF-8 text of ``path``, or ``error`` naming ``where`` and what is wrong.

    Only regular files are opened (a FIFO or a device such as /dev/zero could block or
    never end), at most ``limit + 1`` bytes are read, and NUL bytes (UTF-16, binary
    files) are refused.
    """
    try:
        regular = stat.S_ISREG(os.stat(path).st_mode)
        if regular:
            with open(path, "rb") as f:
                data = f.read(limit + 1)
    except FileNotFoundError:
        raise error(f"{where} does not exist") from None
    except (OSError, ValueError) as e:  # ValueError: a NUL byte in the path
        raise error(f"{where} cannot be read: {e}") from None
    if not regular:
        raise error(f"{where} is not a regular file")
    if len(data) > limit:
        raise error(f"{where} is larger than the {limit // 2**20} MiB limit")
    try:
        if b"\0" in data:  # valid UTF-8 but a sign of UTF-16 or a binary file
            raise UnicodeError("it contains NUL bytes")
        return data.decode("utf-8-sig")
    except UnicodeError as e:
        raise error(f"{where} is not UTF-8 text ({e}); UTF-16 and binary files are refused, "
                    "save it as UTF-8") from None


def unique_keys(pairs) -> dict:
    """``object_pairs_hook`` for ``json.loads``: a key given twice is refused (json keeps the last)."""
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set = set()
        key = next(k for k, _ in pairs if k in seen or seen.add(k))
        raise ValueError(f"duplicate key {show(key)} in an object")
    return out


def same_file(a, b) -> bool:
    """Whether paths ``a`` and ``b`` name one file (through links too; missing files compare by path)."""
    try:
        return os.path.samefile(a, b)
    except (OSError, ValueError):
        return os.path.realpath(a) == os.path.realpath(b)


def write_text_file(path, text: str) -> None:
    """Write ``text`` to ``path`` as UTF-8, or OptionError saying why it cannot be written."""
    try:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    except OSError as e:
        raise OptionError(f"cannot write {os.fspath(path)!r}: {e.strerror or e}") from None


def check_output(path, inputs=(), named: bool = True, force: bool = False, flag: str = "--force") -> str:
    """``path`` if writing it loses nothing the user did not give up; else OptionError.

    Writing over one of ``inputs`` (the same file, through any link) is always
    refused, and so is writing to anything but a regular file (a FIFO nobody reads
    would block, a device never ends) or through a link the user did not name.  An
    existing file the user did not name (``named=False``: a name the command made
    up, or a file inside a directory the user named) is refused unless ``force``
    (the command's ``flag``).
    """
    path = os.fspath(path)
    for given in inputs:
        if given is not None and same_file(path, given):
            raise OptionError(f"{path!r} is also an input: writing it would replace {os.fspath(given)!r}; "
                              "choose another output")
    if os.path.isdir(path):
        raise OptionError(f"{path!r} is a directory; give a file to write")
    if os.path.lexists(path) and not os.path.isfile(path):
        raise OptionError(f"{path!r} exists and is not a regular file (a FIFO, a device, a broken link); "
                          "choose another output")
    if os.path.islink(path) and not named:
        raise OptionError(f"{path!r} is a link to {os.path.realpath(path)!r}, which writing it would replace; "
                          "remove the link or choose another output")
    if os.path.lexists(path) and not named and not force:
        raise OptionError(f"{path!r} exists already; give {flag} to replace it, or choose another output")
    return path
