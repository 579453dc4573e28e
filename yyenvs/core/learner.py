"""A batch of games seen from one learner seat, opponents playing the others.

This is the engine under both the Gymnasium environment (one game) and the
vector environment (many games, auto-reset): it is written once here.

* Every game ``i`` of the batch is a row of one core state.  Its ``k``-th
  episode uses the game seed ``hash(master_seed, i, k)``, so the games of env
  ``i`` do not depend on the batch size.
* The learner's seat is drawn per episode (``learner_seat="random"``, from the
  game seed) or fixed (an int).
* Between two learner decisions the opponents move, for all rows at once:
  rows whose player to move is not the learner are stepped together, as many
  times as needed (a player may act several times in a row).
* The learner's reward is the sum of its per-step rewards since its last
  decision, so a result decided by an opponent's move reaches it.
* An illegal learner action ends the episode with reward -1 (the documented
  penalty); an action outside the action space raises.
"""
from __future__ import annotations

import numpy as np

from yyenvs.core.contract import GameCore, IllegalActionError, OptionError
from yyenvs.core.rng import hash_u64

ILLEGAL_ACTION_REWARD = -1.0


class LearnerBatch:
    def __init__(self, core: GameCore, num_envs: int, opponent, learner_seat="random"):
        if not isinstance(num_envs, (int, np.integer)) or isinstance(num_envs, bool) or num_envs < 1:
            raise OptionError(f"num_envs must be a positive integer, got {num_envs!r}")
        self.core = core
        self.num_envs = int(num_envs)
        self.opponent = opponent
        self.learner_seat_option = self._check_seat(learner_seat)
        self.master_seed = np.uint64(0)
        self.episode = np.zeros(self.num_envs, dtype=np.uint64)
        self.state = None
        self.learner_seat = np.zeros(self.num_envs, dtype=np.int8)
        self.mask = None

    def _check_seat(self, seat):
        if seat == "random" or (isinstance(seat, (int, np.integer)) and not isinstance(seat, bool)
                                and 0 <= seat < self.core.num_players):
            return seat
        raise OptionError(f"learner_seat must be 'random' or a seat in 0..{self.core.num_players - 1}, "
                          f"got {seat!r}")

    # -- episodes -------------------------------------------------------------------
    def seed(self, master_seed: int) -> None:
        self.master_seed = np.uint64(int(master_seed) % (1 << 64))
        self.episode[:] = 0

    def _new_games(self, rows: np.ndarray):
        seeds = hash_u64(self.master_seed, rows.astype(np.uint64), self.episode[rows])
        self.episode[rows] += np.uint64(1)
        games = self.core.init(seeds)
        if self.learner_seat_option == "random":
            seats = (hash_u64(seeds, np.uint64(7)) % np.uint64(self.core.num_players)).astype(np.int8)
        else:
            seats = np.full(rows.size, self.learner_seat_option, dtype=np.int8)
        return games, seats

    def reset_rows(self, rows: np.ndarray, learner_seat=None) -> np.ndarray:
        """Start new games in ``rows``; returns the learner's accumulated reward
        from opponent moves made before its first decision (normally zero)."""
        rows = np.asarray(rows, dtype=np.int64)
        games, seats = self._new_games(rows)
        if learner_seat is not None:
            seats[:] = self._check_seat(learner_seat) if learner_seat != "random" else seats
        if self.state is None:
            self.state = games
        else:
            self.state.put(rows, games)
        self.learner_seat[rows] = seats
        if hasattr(self.opponent, "on_episode_start"):
            self.opponent.on_episode_start(rows)
        reward = np.zeros(self.num_envs, dtype=np.float32)
        self._play_opponents(rows, reward)
        return reward

    def reset(self, learner_seat=None):
        self.state = None
        self.reset_rows(np.arange(self.num_envs), learner_seat)
        return self.observe(), self.action_masks()

    # -- the opponents ----------------------------------------------------------------
    def _play_opponents(self, rows: np.ndarray, reward: np.ndarray) -> None:
        """Step rows of ``rows`` until the learner is to move or the game is over."""
        s = self.state
        seat = self.learner_seat
        while True:
            waiting = rows[(s.current_player[rows] != seat[rows]) & ~s.done[rows]]
            if waiting.size == 0:
                break
            sub = s.take(waiting)
            sub_mask = self.core.legal_action_mask(sub)
            sub_actions = np.asarray(self.opponent(sub, sub_mask, waiting)
                                     if _wants_env_ids(self.opponent) else self.opponent(sub, sub_mask))
            actions = np.full(self.num_envs, -1, dtype=np.int64)
            actions[waiting] = sub_actions
            self.core.step(s, actions)
            reward[waiting] += s.rewards[waiting, seat[waiting]]
        self.mask = None

    # -- the learner's step --------------------------------------------------------------
    def step(self, actions: np.ndarray):
        """One learner action per row.  Returns learner rewards, terminated,
        truncated, and a per-row ``illegal`` flag; finished rows are *not* reset."""
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs,):
            raise IllegalActionError(f"expected {self.num_envs} actions, got shape {actions.shape}")
        if not np.issubdtype(actions.dtype, np.integer):
            if not (np.issubdtype(actions.dtype, np.floating) and np.all(actions == np.round(actions))):
                raise IllegalActionError(f"actions must be integers, got {actions.dtype}")
        actions = actions.astype(np.int64)
        out = np.flatnonzero((actions < 0) | (actions >= self.core.num_actions))
        if out.size:
            i = int(out[0])
            raise IllegalActionError(f"{self.core.name}: action {int(actions[i])} (env {i}) is outside "
                                     f"the action space [0, {self.core.num_actions})")
        s = self.state
        rows = np.arange(self.num_envs)
        mask = self.action_masks()
        legal = mask[rows, actions]
        illegal = ~legal & ~s.done
        reward = np.zeros(self.num_envs, dtype=np.float32)
        live = legal & ~s.done
        self.core.step(s, np.where(live, actions, -1))
        reward[live] += s.rewards[live, self.learner_seat[live]]
        self._play_opponents(np.flatnonzero(live), reward)
        reward[illegal] = ILLEGAL_ACTION_REWARD
        terminated = s.terminated | illegal
        truncated = s.truncated & ~illegal
        return reward, terminated, truncated, illegal

    # -- views -------------------------------------------------------------------------
    def observe(self) -> np.ndarray:
        return self.core.observe(self.state, self.learner_seat)

    def action_masks(self) -> np.ndarray:
        if self.mask is None:
            self.mask = self.core.legal_action_mask(self.state)
        return self.mask

    def outcome(self, rows) -> np.ndarray:
        """+1 / 0 / -1 by the sign of the learner's final reward (finished rows)."""
        return np.sign(self.state.rewards[rows, self.learner_seat[rows]])


def _wants_env_ids(opponent) -> bool:
    return getattr(opponent, "wants_env_ids", False)
