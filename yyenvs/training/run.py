"""What both trainers share: the run directory (its lock, its checkpoints, snapshots and
evaluations) and the loop's bookkeeping (:class:`TrainingRun`); PPO's :class:`yyenvs.training.train.Trainer`
and the search trainer :class:`yyenvs.training.az.AZTrainer` build on it."""
from __future__ import annotations

import glob
import os
import re
import sys
import time

import numpy as np

from yyenvs.games import make_core
from yyenvs.training.config import ConfigError

CKPT_RE = re.compile(r"ckpt_(\d{10})\.safetensors$")


def checkpoint_files(run_dir: str) -> list[tuple[int, str]]:
    """(step, path) of the run's checkpoints, oldest first."""
    out = []
    for path in glob.glob(os.path.join(run_dir, "checkpoints", "ckpt_*.safetensors")):
        m = CKPT_RE.search(path)
        if m:
            out.append((int(m.group(1)), path))
    return sorted(out)


class RunLock:
    """An exclusive lock on a run directory for as long as a run uses it.

    ``flock`` locks vanish with the process that held them, so the lock of a
    process that died is taken over without any clean-up.
    """

    def __init__(self, run_dir: str):
        import fcntl
        self.path = os.path.join(run_dir, ".lock")
        try:  # never through a link: a crafted run_dir must not make us write elsewhere
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o644)
        except OSError as e:
            raise ConfigError(f"run_dir {run_dir!r}: cannot use its lock file {self.path!r}: "
                              f"{e.strerror or e}") from None
        self.fh = os.fdopen(fd, "r+")
        try:
            fcntl.flock(self.fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            self.fh.seek(0)
            holder = self.fh.read().strip() or "another process"
            self.fh.close()
            raise ConfigError(f"run_dir {run_dir!r} is in use by another training run (pid {holder}); "
                              "wait for it to finish or choose another run_dir") from None
        self.fh.truncate(0)
        self.fh.write(str(os.getpid()))
        self.fh.flush()

    def release(self) -> None:
        if not self.fh.closed:
            self.fh.close()  # closing the file releases the flock


class TrainingRun:
    """What every trainer's run has: its config, game core, locked run directory, clock and
    final evaluation.  A trainer subclasses it (:class:`Trainer` for PPO,
    :class:`yyenvs.training.az.AZTrainer`)."""

    #: the ``algo`` a training checkpoint of this trainer records
    algo = ""

    def _open_run(self, cfg: dict, log=None) -> None:
        self.cfg = cfg
        self.log = log or (lambda msg: print(msg, file=sys.stderr, flush=True))
        self._set_threads()
        self.core = make_core(cfg["game"], **cfg["game_options"])
        self._make_run_dirs()
        self.lock = RunLock(self.run_dir)

    # -- the run directory ------------------------------------------------------------
    #: torch's threads (None: the config's ``threads``)
    torch_threads: int | None = None

    def _set_threads(self) -> None:
        from yyenvs.core.threads import set_threads
        self.threads = set_threads(self.cfg["threads"] or None, self.torch_threads)

    def _make_run_dirs(self) -> None:
        """``run_dir`` (a new one per run where it holds ``{time}``) and its sub-directories."""
        cfg = self.cfg
        if "{time}" in cfg["run_dir"]:  # a new directory per run (the quick demo)
            cfg["run_dir"] = cfg["run_dir"].replace("{time}", time.strftime("%Y%m%d-%H%M%S"))
        self.run_dir = cfg["run_dir"]
        self.dirs = {k: os.path.join(self.run_dir, k) for k in ("checkpoints", "snapshots", "tb", "eval")}
        try:
            for d in self.dirs.values():
                os.makedirs(d, exist_ok=True)
        except OSError as e:
            raise ConfigError(f"run_dir {self.run_dir!r} cannot be used: {e.strerror or e}") from None

    def close(self) -> None:
        """Release the run directory."""
        self.lock.release()

    def _remove_stale_temporaries(self) -> None:
        """Half-written files of a killed run (never read: a save renames only complete files)."""
        pattern = [os.path.join(self.dirs[d], "*.safetensors.tmp*") for d in ("checkpoints", "snapshots")]
        for tmp in glob.glob(pattern[0]) + glob.glob(pattern[1]) + glob.glob(
                os.path.join(self.run_dir, "final.safetensors.tmp*")):
            if os.path.isfile(tmp) and not os.path.islink(tmp):
                os.remove(tmp)

    def _find_resume_point(self):
        """``(path, meta, tensors)`` of the newest complete checkpoint, or None for a fresh run.

        A newest checkpoint that cannot be read (truncated, altered, malformed) is
        skipped and reported; one for another game or other options is refused.
        """
        from yyenvs.networks.checkpoint import CheckpointError, check_compatible, read_checkpoint
        ckpts = checkpoint_files(self.run_dir)
        legacy = glob.glob(os.path.join(self.dirs["checkpoints"], "ckpt_*.zip"))
        if legacy and not ckpts:
            raise CheckpointError(
                f"run_dir {self.run_dir!r} holds checkpoints in the earlier stable-baselines3 zip format, "
                "which is not loaded (loading it unpickles, which can run code); convert the newest with "
                f"'yyenvs checkpoint convert --trust {sorted(legacy)[-1]}' if you trust it, "
                "or choose another run_dir")
        if not ckpts:
            self._refuse_earlier_outputs()
            return None
        if not self.cfg["resume"]:
            raise ConfigError(f"run_dir {self.run_dir!r} already holds checkpoints; set resume=true "
                              "to continue that run or choose another run_dir")
        for _, path in reversed(ckpts):
            try:
                meta, tensors = read_checkpoint(path)
            except CheckpointError as e:  # read without a core: a fault of the file itself
                self.log(f"skipping incomplete or unreadable checkpoint: {e}")
                continue
            if meta["kind"] != "checkpoint" or meta.get("algo", "MaskablePPO") != self.algo or (
                    self.algo == "MaskablePPO" and meta.get("pool") is None):
                self.log(f"skipping {path!r}: a {meta['kind']} file, not a training checkpoint")
                continue
            if meta["game"] != self.core.name:
                raise CheckpointError(f"cannot resume {path!r}: it is a {meta['game']!r} run but the config "
                                      f"asks for {self.core.name!r}")
            try:
                check_compatible(meta, self.core, f"checkpoint {path!r}")
            except CheckpointError as e:
                raise CheckpointError(f"cannot resume: {e}") from None
            return path, meta, tensors
        raise CheckpointError(f"run_dir {self.run_dir!r}: none of its {len(ckpts)} checkpoints is readable; "
                              "choose another run_dir")

    def _refuse_earlier_outputs(self) -> None:
        """ConfigError if a fresh run would write over files of an earlier run in ``run_dir``."""
        earlier = [os.path.join(self.run_dir, "final.safetensors"),
                   os.path.join(self.dirs["eval"], "eval.json"), os.path.join(self.dirs["eval"], "ratings.png")]
        earlier += sorted(glob.glob(os.path.join(self.dirs["snapshots"], "*.safetensors")))[:1]
        found = next((p for p in earlier if os.path.lexists(p)), None)
        if found is not None:
            raise ConfigError(f"run_dir {self.run_dir!r} holds {found!r} from an earlier run and no checkpoint "
                              "to resume from; a new run would replace it: choose another run_dir")

    def elapsed(self) -> float:
        return self.elapsed_before + (time.time() - self.t_start if hasattr(self, "t_start") else 0.0)

    # -- saving: a trainer gives its file's contents (_file_contents), the rest is shared ------------
    def _file_contents(self, kind: str) -> tuple[dict, dict]:
        """(tensors, metadata fields) of the network now: its parameters (and, for a ``checkpoint``,
        the optimiser's state), its description and counters."""
        raise NotImplementedError

    def _save(self, path: str, kind: str, **extra) -> dict:
        from yyenvs.networks.checkpoint import game_metadata, write_checkpoint
        tensors, fields = self._file_contents(kind)
        return write_checkpoint(path, tensors, {"kind": kind, **game_metadata(self.core), **fields, **extra})

    def _checkpoint_extra(self) -> dict:
        """What else a training checkpoint keeps to resume (PPO: its opponent pool)."""
        return {}

    def save_checkpoint(self, keep: int = 2) -> str:
        path = os.path.join(self.dirs["checkpoints"], f"ckpt_{self.steps:010d}.safetensors")
        self._save(path, "checkpoint", **self._checkpoint_extra(), config=self.cfg, elapsed_s=self.elapsed())
        for _, old in checkpoint_files(self.run_dir)[:-keep]:
            os.remove(old)  # only once the newer one is complete
        return path

    def save_snapshot(self) -> str:
        name = f"step_{self.steps:010d}.safetensors"
        self._save(os.path.join(self.dirs["snapshots"], name), "snapshot")
        return name

    # -- evaluation during training ------------------------------------------------------------
    def _current_agent(self):
        """The network now, as the agent the quick evaluation plays."""
        raise NotImplementedError

    def quick_eval(self) -> dict:
        """The network now against each of ``eval.opponents``, ``eval.games`` games each."""
        from yyenvs.agents import make_agent
        from yyenvs.evaluation.matches import play_match
        from yyenvs.evaluation.ratings import wilson_interval
        ev = self.cfg["eval"]
        me = self._current_agent()
        out = {"step": self.steps}
        for k, name in enumerate(ev["opponents"]):
            r = play_match(self.core, me, make_agent(name, self.core, 1000 + k), ev["games"],
                           seed=self.cfg["seed"] + self.steps)
            w, d, l = r["wins"], r["draws"], r["losses"]
            n = w + d + l
            out[name] = {"wins": w, "draws": d, "losses": l, "win_rate": w / n, "ci95": list(wilson_interval(w, n))}
        return out

    def final_entrant(self, final: str) -> str:
        """The agent spec of the final policy in the final evaluation."""
        return final

    def final_evaluation(self, print_fn=print) -> dict | None:
        """The final policy vs the baselines (``eval.final_games`` each) plus a round
        robin of evenly spaced snapshots (``eval.table_games`` per pair): table,
        ratings, ``run_dir/eval/eval.json`` and ``ratings.png``."""
        from yyenvs.evaluation.matches import make_entrants
        from yyenvs.evaluation.tournament import format_table, tournament, write_outputs
        ev = self.cfg["eval"]
        if ev["final_games"] <= 0 and ev["table_games"] <= 0:
            return None
        final = os.path.join(self.run_dir, "final.safetensors")
        snaps = sorted(glob.glob(os.path.join(self.dirs["snapshots"], "step_*.safetensors")))
        k = ev["table_snapshots"]
        if len(snaps) > k:
            idx = np.unique(np.round(np.linspace(0, len(snaps) - 1, k)).astype(int)) if k else []
            snaps = [snaps[i] for i in idx]
        baselines = list(dict.fromkeys(ev["opponents"]))
        entrants = make_entrants([self.final_entrant(final)] + snaps + baselines, self.core, self.cfg["seed"],
                                 deterministic=ev["deterministic"])
        entrants[0].name = "final"
        n = len(entrants)
        base = set(range(n - len(baselines), n))
        final_games = max(ev["final_games"], 2) if ev["final_games"] else ev["table_games"]
        # the final policy against each baseline: final_games; every other pair: table_games
        games = {(i, j): final_games if i == 0 and j in base else ev["table_games"]
                 for i in range(n) for j in range(i + 1, n)}
        games = {p: g for p, g in games.items() if g >= 2}
        t0 = time.time()
        result = tournament(self.core, entrants, games, seed=self.cfg["seed"] + 77)
        result["training_steps"] = self.steps
        paths = write_outputs(result, self.dirs["eval"])
        print_fn(format_table(result))
        print_fn(headline(result))
        print_fn(f"evaluation took {time.time() - t0:.0f}s; wrote {paths['json']} and {paths['plot']}")
        return result


def headline(result: dict, player: str = "final") -> str:
    lines = []
    for r in result["table"]:
        if r["player"] == player and r["opponent"] in ("random", "greedy") or (
                r["player"] == player and not r["opponent"].startswith("step_")):
            lo, hi = r["win_rate_ci95"]
            lines.append(f"{player} vs {r['opponent']}: {r['wins']} wins, {r['draws']} draws, "
                         f"{r['losses']} losses in {r['games']} games -> win rate "
                         f"{100 * r['win_rate']:.1f}% (95% CI {100 * lo:.1f}-{100 * hi:.1f}%)")
    return "\n".join(lines)
