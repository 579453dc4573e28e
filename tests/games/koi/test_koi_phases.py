"""benchmarks/koi_phases.py: each agent moves only in its own phase and seat."""
import importlib.util

import numpy as np

from yyenvs.agents import RandomAgent
from yyenvs.core.rng import derive_seeds
from yyenvs.games import make_core
from yyenvs.games.koi.rules import SETUP

from tests import ROOT

_PATH = ROOT / "benchmarks" / "koi_phases.py"
_spec = importlib.util.spec_from_file_location("koi_phases", _PATH)
koi_phases = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(koi_phases)


class Spy(RandomAgent):
    """Random play that remembers the (phase, seat) of every row it moved."""

    def __init__(self, core, seed):
        super().__init__(core, seed)
        self.seen = set()

    def act(self, state, mask):
        self.seen |= set(zip(state.phase.tolist(), state.current_player.tolist()))
        return super().act(state, mask)


def test_each_agent_moves_in_its_phase_and_seat():
    core = make_core("koi", board_size=7, directions=8)
    for seat in (0, 1):
        setup, swim, opponent = Spy(core, 1), Spy(core, 2), Spy(core, 3)
        (w, d, l), clock = koi_phases.play(core, setup, swim, opponent, seat, derive_seeds(0, 0, np.arange(12)))
        assert w + d + l == 12
        assert {s for s, _ in setup.seen} == {SETUP} and {p for _, p in setup.seen} == {seat}
        assert SETUP not in {s for s, _ in swim.seen} and {p for _, p in swim.seen} == {seat}
        assert {p for _, p in opponent.seen} == {1 - seat}
        assert {s for s, _ in opponent.seen} == {SETUP, 1 - SETUP}
        assert clock["setup"][1] == 12 * 5  # five koi placed per game by the split seat
