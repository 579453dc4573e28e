"""The SB3 callback of a self-play run: snapshots, checkpoints, evaluation, progress, logs."""
from __future__ import annotations

import math
import time

from stable_baselines3.common.callbacks import BaseCallback

from yyenvs.evaluation.ladder import ladder_ratings
from yyenvs.training.progress import ProgressBar, StrengthLog


def _next_multiple(step: int, every: int) -> int:
    return (step // every + 1) * every


class SelfPlayCallback(BaseCallback):
    def __init__(self, trainer):
        super().__init__(verbose=0)
        self.trainer = trainer
        cfg = trainer.cfg
        self.snapshot_every = cfg["selfplay"]["snapshot_every"]
        self.ckpt_every = cfg["checkpoint"]["every"]
        self.max_seconds = 60.0 * cfg["max_minutes"] if cfg["max_minutes"] > 0 else math.inf
        self.bar = None
        self.stopped_early = False

    def _on_training_start(self) -> None:
        step = int(self.model.num_timesteps)
        self.next_snapshot = _next_multiple(step, self.snapshot_every)
        self.next_ckpt = _next_multiple(step, self.ckpt_every)
        t = self.trainer
        self.strength = StrengthLog(t.cfg, t.dirs["eval"], step, t.elapsed_before, ladder_ratings(t.core))
        self.t0 = time.time()
        self.step0 = step
        if t.cfg["log"]["progress"]:
            self.bar = ProgressBar(t.cfg, step, "step", t.core.name)

    def _postfix(self) -> str:
        parts = []
        summary = self.trainer.pool.summary()
        for name in ("random", "greedy", "latest"):
            s = summary.get(name)
            if s and s["recent"]:
                parts.append(f"{name[:3]} {100 * s['win_rate']:.0f}%")
        snaps = [s for n, s in summary.items() if n.startswith("snap_") and s["recent"]]
        if snaps:
            parts.append(f"pool {len(snaps)}")
        ev = self.trainer.last_eval
        if ev:
            parts.append("eval " + " ".join(f"{k[:3]} {100 * v['win_rate']:.0f}%"
                                            for k, v in ev.items() if isinstance(v, dict)))
        return " | ".join(parts)

    def _on_step(self) -> bool:
        t = self.trainer
        step = int(self.model.num_timesteps)
        if self.bar is not None and self.bar.due():
            self.bar.show(step, [self._postfix()])
        if step >= self.next_snapshot:
            t.save_snapshot()
            self.next_snapshot = _next_multiple(step, self.snapshot_every)
        if self.strength.due(step):
            t.last_eval = t.quick_eval()
            self.strength.record(t.last_eval, self.bar.write if self.bar is not None else t.log)
            for name, r in t.last_eval.items():
                if isinstance(r, dict):
                    self.logger.record(f"eval/win_rate_vs_{name}", r["win_rate"])
                    self.logger.record(f"eval/win_rate_vs_{name}_ci_low", r["ci95"][0])
        if step >= self.next_ckpt:
            t.save_checkpoint()
            self.next_ckpt = _next_multiple(step, self.ckpt_every)
        if time.time() - self.t0 > self.max_seconds:
            t.log(f"max_minutes reached at step {step}; stopping")
            self.stopped_early = True
            return False
        return True

    def _on_rollout_end(self) -> None:
        t = self.trainer
        for name, s in t.pool.summary().items():
            if s["recent"]:
                self.logger.record(f"pool/win_rate_vs_{name}", s["win_rate"])
            self.logger.record(f"pool/prob_{name}", s["prob"])
        self.logger.record("pool/snapshots", len([e for e in t.pool.entries if e.kind == "snapshot" and e.active]))
        dt = time.time() - self.t0
        if dt > 0:
            self.logger.record("time/steps_per_second", (self.model.num_timesteps - self.step0) / dt)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.show(int(self.model.num_timesteps), [self._postfix()])
            self.bar.close()
            self.bar = None
