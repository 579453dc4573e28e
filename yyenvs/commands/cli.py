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
import sys

from yyenvs.values import MAX_BATCH, MAX_GAMES, MAX_SEED, one_line

COMMANDS = {
    "bench": ("yyenvs.commands.bench", "measure steps/s and memory of every game (random legal play)"),
    "play": ("yyenvs.commands.play", "play a batch of games between two agents, or play one yourself (--human)"),
    "replay": ("yyenvs.commands.replay", "write a game record as a self-contained HTML page to watch"),
    "train": ("yyenvs.commands.train", "self-play training from a YAML config"),
    "eval": ("yyenvs.commands.evaluate", "matches between checkpoints and baselines, with ratings"),
    "checkpoint": ("yyenvs.commands.checkpoint", "inspect, export (policy only) or convert a checkpoint"),
}
#: the train extra's modules: a command that meets one missing says which extra to install
TRAIN_EXTRA = {"torch", "stable_baselines3", "sb3_contrib", "safetensors", "tensorboard", "tqdm", "rich",
               "matplotlib"}


class ArgumentParser(argparse.ArgumentParser):
    """argparse whose errors are one line (no usage block); the exit status stays 2."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {one_line(message)}\n")

    def format_help(self) -> str:
        return super().format_help().replace("``", "")  # descriptions come from reST docstrings


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


def thread_count(text: str) -> int:
    """argparse type of ``--threads``: a thread count (:func:`yyenvs.core.threads.check_threads`)."""
    from yyenvs.core.threads import check_threads
    try:
        return check_threads(text, "--threads")
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e).removeprefix("--threads: ")) from None


def add_threads_argument(parser: argparse.ArgumentParser) -> None:
    """``--threads N``: the threads the command's kernels and networks use (docs/performance.md#threads)."""
    parser.add_argument("--threads", type=thread_count, default=None, metavar="N",
                        help="threads for numba's kernels and torch (default: the cores this process may use, "
                             "or YYENVS_THREADS); see docs/performance.md#threads")


def refuse_unused(parser, args, needs: str, given: bool, **defaults) -> None:
    """A usage error naming each option of ``defaults`` (argument name: its default) that is set while
    ``needs`` is not ``given``: it would have no effect."""
    unused = [f"--{k.replace('_', '-')}" for k, v in defaults.items() if getattr(args, k) != v]
    if unused and not given:
        parser.error(f"{', '.join(unused)} only work{'s' if len(unused) == 1 else ''} with {needs}")


def run(command: str, fn, argv) -> int:
    """``fn(argv)`` with the package's user errors turned into one line and status 2."""
    # OptionError covers ConfigError, DataFileError, CheckpointError and RecordError too
    from yyenvs.core.contract import IllegalActionError, OptionError
    from yyenvs.core.errors import MissingExtraError
    try:
        return int(fn(argv) or 0)
    except (OptionError, IllegalActionError, MissingExtraError) as e:
        print(f"yyenvs {command}: error: {one_line(e)}", file=sys.stderr)
        return 2
    except ModuleNotFoundError as e:
        if (e.name or "").partition(".")[0] not in TRAIN_EXTRA:
            raise
        print(f"yyenvs {command}: error: {e.name} is not installed; this needs the train extra "
              "(pip install 'yyenvs[train]')", file=sys.stderr)
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
    return run(command, lambda args: importlib.import_module(COMMANDS[command][0]).main(args), argv[1:])


if __name__ == "__main__":
    sys.exit(main())
