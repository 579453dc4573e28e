"""Dice race: a tiny two-player game with chance, in plain numpy, for the search tests.

Each player has a counter starting at 0; whoever reaches :data:`TARGET`
first wins (+1, the other -1).  On a turn a player either *walks* (action 0:
+1) or *rolls* (action 1): the die shows face ``k`` with probability
``PROBS[k]`` and the counter moves ``FACES[k]``.  A game stops without a
result (truncated) after :data:`MAX_TURNS` turns.

Option ``chance``: ``"sampled"`` (the default) throws the die inside
``step`` from the row's own stream ``rng``; ``"explicit"`` stops after a roll
with ``current_player == CHANCE_PLAYER``, lists the faces as actions
``2 + k`` (``legal_action_mask``, ``chance_probabilities``) and applies the
face it is stepped with.  :meth:`sample_chance` draws the face sampled mode
would, so both modes play the same game from one seed.
"""
from __future__ import annotations

import dataclasses

import numpy as np

from yyenvs.core.contract import CHANCE_PLAYER, BatchState, GameCore
from yyenvs.core.rng import game_seeds, hash_u64, uniform01
from yyenvs.core.spec import GameSpec, Option

TARGET = 8
MAX_TURNS = 30
FACES = np.array([0, 2, 4], np.int16)  # how far face k moves the counter
PROBS = np.array([0.5, 0.3, 0.2])  # the chance of face k
WALK, ROLL, FIRST_FACE = 0, 1, 2
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)

SPEC = GameSpec(
    id="dicerace", title="Dice Race", gym_name="DiceRace", version=0, core="tests.agents.chance_toy:DiceRaceCore",
    players=(2, 2), chance=True, max_game_length=MAX_TURNS,
    options=(Option("chance", "choice", "sampled", "'sampled' or 'explicit' die throws",
                    choices=("sampled", "explicit")),),
    variants=({}, {"chance": "explicit"}),
    doc="walk one step or roll a loaded die; first to the target wins",
)


@dataclasses.dataclass
class DiceRaceState(BatchState):
    pos: np.ndarray  # (B, 2) int16 each player's counter
    turns: np.ndarray  # (B,) int16 turns played
    roller: np.ndarray  # (B,) int8 the player whose roll waits for its face (explicit), else -1
    rng: np.ndarray  # (B,) uint64 the row's own random stream


class DiceRaceCore(GameCore):
    spec = SPEC

    def __init__(self, **options):
        super().__init__(**options)
        self.num_players = 2
        self.num_actions = FIRST_FACE + (len(FACES) if self.explicit_chance else 0)
        self.observation_shape = (4,)
        # a chance node after every roll doubles the steps of a game
        self.max_game_length = MAX_TURNS * (2 if self.explicit_chance else 1)

    def init(self, seeds) -> DiceRaceState:
        seeds = game_seeds(seeds)
        B = seeds.shape[0]
        return DiceRaceState(
            **DiceRaceState.start_of_game(seeds.copy(), 2), pos=np.zeros((B, 2), np.int16), turns=np.zeros(B, np.int16),
            roller=np.full(B, -1, np.int8), rng=hash_u64(seeds, np.uint64(0xD1CE)))

    # -- rules ------------------------------------------------------------------
    def _draw_faces(self, s: DiceRaceState, rows: np.ndarray) -> np.ndarray:
        """The face each of ``rows`` throws from its own stream (advances it)."""
        s.rng[rows] += _GOLDEN
        u = uniform01(s.rng[rows])
        return np.minimum(np.searchsorted(np.cumsum(PROBS), u, side="right"), len(FACES) - 1)

    def _mask(self, s: DiceRaceState, out) -> None:
        out[:] = False
        chance = s.current_player == CHANCE_PLAYER
        play = ~s.done & ~chance
        out[play, WALK] = True
        out[play, ROLL] = True
        if self.explicit_chance:
            out[~s.done & chance, FIRST_FACE:] = True

    def _step(self, s: DiceRaceState, actions) -> int:
        mask = np.zeros((s.batch_size, self.num_actions), bool)
        self._mask(s, mask)
        act = actions >= 0
        rows = np.flatnonzero(act)
        bad = rows[~mask[rows, actions[rows]]]
        if bad.size:
            return int(bad[0])
        s.rewards[:] = 0.0
        s.ply[act] += 1
        mover = np.where(actions >= FIRST_FACE, s.roller, s.current_player).astype(np.int64)
        advance = np.zeros(s.batch_size, np.int16)
        advance[actions == WALK] = 1
        rolled = np.flatnonzero(actions == ROLL)
        if self.explicit_chance:
            s.roller[rolled] = s.current_player[rolled]
            s.current_player[rolled] = CHANCE_PLAYER
            faced = np.flatnonzero(actions >= FIRST_FACE)
            advance[faced] = FACES[actions[faced] - FIRST_FACE]
            s.roller[faced] = -1
            ends = act & (actions != ROLL)  # turns that end with this step
        else:
            advance[rolled] = FACES[self._draw_faces(s, rolled)]
            ends = act
        e = np.flatnonzero(ends)
        p = mover[e]
        s.pos[e, p] += advance[e]
        s.turns[e] += 1
        won = s.pos[e, p] >= TARGET
        w, pw = e[won], p[won]
        s.terminated[w] = True
        s.current_player[w] = pw  # the winner, as after a sampled roll
        s.rewards[w, pw] = 1.0
        s.rewards[w, 1 - pw] = -1.0
        on = e[~won]
        s.truncated[on] = s.turns[on] >= MAX_TURNS
        s.current_player[on] = 1 - p[~won]
        return -1

    def _chance_probabilities(self, s: DiceRaceState, out) -> None:
        chance = (s.current_player == CHANCE_PLAYER) & ~s.done
        out[chance, FIRST_FACE:] = PROBS

    def _sample_chance(self, s: DiceRaceState, out) -> None:
        rows = np.flatnonzero((s.current_player == CHANCE_PLAYER) & ~s.done)
        out[rows] = FIRST_FACE + self._draw_faces(s, rows)

    def _observe(self, s: DiceRaceState, seats, out) -> None:
        B = s.batch_size
        me = seats.astype(np.int64)
        out[:, 0] = s.pos[np.arange(B), me] / TARGET
        out[:, 1] = s.pos[np.arange(B), 1 - me] / TARGET
        out[:, 2] = s.current_player == seats
        out[:, 3] = s.current_player == CHANCE_PLAYER

    def _heuristic(self, s: DiceRaceState, seats, out) -> None:
        B = s.batch_size
        me = seats.astype(np.int64)
        lead = s.pos[np.arange(B), me].astype(np.float64) - s.pos[np.arange(B), 1 - me]
        out[:] = np.where(s.terminated, 100.0 * s.rewards[np.arange(B), me],
                          np.where(s.truncated, 0.0, lead))

    def render_ansi(self, s: DiceRaceState, index: int = 0) -> str:
        return f"counters {s.pos[index].tolist()}, to move {int(s.current_player[index])}"

    def render_rgb(self, s: DiceRaceState, index: int = 0) -> np.ndarray:
        return np.zeros((8, 8, 3), np.uint8)
