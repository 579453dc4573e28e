"""Where a network runs: ``auto``, ``cpu`` or ``cuda[:<index>]``.

``auto`` is the first GPU when torch sees one, else the CPU, so nothing changes
for a machine without a GPU.  A GPU name that torch cannot use is refused by
name (a CPU build of torch, or an index past the GPUs it sees).  On a GPU the
search's forward passes run under bf16 autocast, with observations copied from
a pinned host buffer without blocking; the weights stay float32, and
checkpoints are written from CPU copies, so a file does not depend on the
device that wrote it.  Searches are deterministic for a seed on the CPU; bf16
on a GPU rounds differently, so a GPU search may choose other moves than a CPU
search of the same seed.
"""
from __future__ import annotations

import re

from yyenvs.core.errors import OptionError, show

#: the names a device may have
DEVICE_NAMES = "auto, cpu, cuda or cuda:<index>"
_CUDA = re.compile(r"cuda(?::([0-9]{1,3}))?")


class DeviceError(OptionError):
    """A device name that is not one of :data:`DEVICE_NAMES`, or a GPU torch cannot use here."""


def check_device_name(name) -> str:
    """``name`` if it is written as a device (whether or not this machine has it); else DeviceError."""
    if not isinstance(name, str) or not (name in ("auto", "cpu") or _CUDA.fullmatch(name)):
        raise DeviceError(f"device must be {DEVICE_NAMES}, got {show(name)}")
    return name


def resolve_device(name):
    """The ``torch.device`` that ``name`` means on this machine (DeviceError if it has none such)."""
    import torch
    check_device_name(name)
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if name == "cpu":
        return torch.device("cpu")
    if not torch.cuda.is_available():
        build = "a CPU-only build" if torch.version.cuda is None else f"CUDA {torch.version.cuda}, no GPU visible"
        raise DeviceError(f"device {name!r}: torch {torch.__version__} here has no GPU ({build}); "
                          f"use device=cpu or device=auto")
    index = int(_CUDA.fullmatch(name).group(1) or 0)
    count = torch.cuda.device_count()
    if index >= count:
        raise DeviceError(f"device {name!r}: torch sees {count} GPU(s), cuda:0 to cuda:{count - 1}")
    return torch.device("cuda", index)
