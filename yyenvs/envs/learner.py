"""A batch of games seen from one learner seat, opponents playing the others.

This is the engine under both the Gymnasium environment (one game) and the
vector environment (many games, auto-reset): it is written once here.

* Every game ``i`` of the batch is a row of one core state.  Its ``k``-th
  episode uses the game seed ``derive_seeds(master_seed, i, k)`` (see
  :func:`yyenvs.core.rng.derive_seeds`), so the games of env ``i`` do not
  depend on the batch size.
* The learner's seat is drawn per episode (``learner_seat="random"``, from the
  game seed) or fixed (an int).  A seat given to :meth:`LearnerBatch.reset_rows`
  holds for the games that call starts only.
* The opponent is an :class:`~yyenvs.envs.opponent.Opponent` (any agent or
  callable is wrapped by :func:`~yyenvs.envs.opponent.as_opponent`).
* Between two learner decisions the opponents move, for all rows at once:
  rows whose player to move is not the learner are stepped together, as many
  times as needed (a player may act several times in a row).  With explicit
  chance (``chance="explicit"``) the env draws each chance outcome itself from
  the game's own stream (:meth:`~yyenvs.core.contract.GameCore.sample_chance`),
  so the games are those of the sampled mode and no agent is asked for one.
* The learner's reward is the sum of its per-step rewards since its last
  decision, so a result decided by an opponent's move reaches it.  Rewards
  the opponents earn it before its first decision of a game are paid on that
  first step.
* A game the opponents finish before the learner's first decision (a Koi
  quick start where the first swim wins) still gives the learner one step,
  so that it is paid its result: its mask offers action 0 alone, whatever
  action it sends is ignored, and the step returns the result with
  ``terminated`` (or ``truncated``) set.
* An illegal learner action ends the episode with reward -1 (the documented
  penalty); an action outside the action space (or not an integer) raises
  :class:`IllegalActionError` naming it, and nothing changes.
* An opponent's answer is checked for every row it was asked about: an
  integer, legal action per row, or :class:`OpponentError` naming the
  opponent, the env row and the action.  That env is then mid-turn and must
  be reset.
"""
from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from numba import njit

from yyenvs.core.contract import CHANCE_PLAYER, GameCore, IllegalActionError, OpponentError, OptionError, show
from yyenvs.core.rng import check_seed, derive_seeds, hash_u64
from yyenvs.envs.opponent import as_opponent

ILLEGAL_ACTION_REWARD = -1.0


#: the most games one LearnerBatch (Gymnasium vector env) holds
MAX_ENVS = 1 << 20


class LearnerBatch:
    def __init__(self, core: GameCore, num_envs: int, opponent, learner_seat="random"):
        if not isinstance(num_envs, (int, np.integer)) or isinstance(num_envs, bool) or num_envs < 1:
            raise OptionError(f"num_envs must be a positive integer, got {show(num_envs)}")
        if num_envs > MAX_ENVS:
            raise OptionError(f"num_envs must be at most {MAX_ENVS:,} (2**20), got {show(num_envs)}")
        self.core = core
        self.num_envs = int(num_envs)
        self.opponent = as_opponent(opponent)
        self.learner_seat_option = self.check_seat(learner_seat)
        self.master_seed = np.uint64(0)
        self.episode = np.zeros(self.num_envs, dtype=np.uint64)
        self.state = None
        self.learner_seat = np.zeros(self.num_envs, dtype=np.int8)
        self.mask = None
        # the learner's reward from opponents' moves made before its first decision of a game
        self.carry = np.zeros(self.num_envs, dtype=np.float32)
        # games over before the learner's first decision: one step left, to pay the result
        self.unplayed = np.zeros(self.num_envs, dtype=bool)

    def check_seat(self, seat):
        """``seat`` as a ``learner_seat`` setting (``"random"`` or a seat number), or OptionError."""
        if (isinstance(seat, str) and seat == "random") or (
                isinstance(seat, (int, np.integer)) and not isinstance(seat, (bool, np.bool_))
                and 0 <= seat < self.core.num_players):
            return seat if isinstance(seat, str) else int(seat)
        raise OptionError(f"learner_seat must be 'random' or a seat in 0..{self.core.num_players - 1}, "
                          f"got {show(seat)}")

    def reset_seat(self, options):
        """The checked ``learner_seat`` of a ``reset(options=...)`` mapping (None when absent)."""
        seat = reset_options(options).get("learner_seat")
        return None if seat is None else self.check_seat(seat)

    # -- episodes -------------------------------------------------------------------
    def seed(self, master_seed: int) -> None:
        self.master_seed = np.uint64(check_seed(master_seed, "master seed") % (1 << 64))
        self.episode[:] = 0

    def _new_games(self, rows: np.ndarray, learner_seat):
        seeds = derive_seeds(self.master_seed, rows.astype(np.uint64), self.episode[rows])
        self.episode[rows] += np.uint64(1)
        games = self.core.init(seeds)
        if learner_seat == "random":
            seats = (hash_u64(seeds, np.uint64(7)) % np.uint64(self.core.num_players)).astype(np.int8)
        else:
            seats = np.full(rows.size, learner_seat, dtype=np.int8)
        return games, seats

    def reset_rows(self, rows: np.ndarray, learner_seat=None) -> None:
        """Start new games in ``rows``, the opponents moving until the learner is to move.

        ``learner_seat`` (None: the constructor's setting) holds for these games only.
        """
        rows = np.asarray(rows, dtype=np.int64)
        seat = self.learner_seat_option if learner_seat is None else self.check_seat(learner_seat)
        games, seats = self._new_games(rows, seat)
        if self.state is None:
            self.state = games
        else:
            self.state.put(rows, games)
        self.learner_seat[rows] = seats
        self.opponent.on_episode_start(rows)
        self.carry[rows] = 0
        self._play_opponents(rows, self.carry)
        self.unplayed[rows] = self.state.done[rows]

    def reset(self, learner_seat=None):
        """New games in every row (``learner_seat`` as in :meth:`reset_rows`)."""
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
            if self.core.explicit_chance and self._draw_chance(waiting, reward):
                continue
            sub = s.take(waiting)
            sub_mask = self.core.legal_action_mask(sub)
            answer = self.opponent(sub, sub_mask, waiting)
            actions = np.full(self.num_envs, -1, dtype=np.int64)
            actions[waiting] = self._check_opponent(answer, sub, sub_mask, waiting)
            self.core.step_checked(s, actions)  # each checked by _check_opponent
            reward[waiting] += s.rewards[waiting, seat[waiting]]
        self.mask = None

    def _draw_chance(self, waiting: np.ndarray, reward: np.ndarray) -> bool:
        """Resolve the chance nodes among rows ``waiting`` from each game's own stream
        (:meth:`~yyenvs.core.contract.GameCore.resolve_chance`); whether there were any."""
        s, seat = self.state, self.learner_seat
        chance = waiting[s.current_player[waiting] == CHANCE_PLAYER]
        if chance.size == 0:
            return False
        sub = s.take(chance)
        got = self.core.resolve_chance(sub)
        s.put(chance, sub)
        reward[chance] += got[np.arange(chance.size), seat[chance]]
        return True

    def _check_opponent(self, answer, sub, sub_mask, waiting) -> np.ndarray:
        """The opponent's actions for rows ``waiting`` if each is a legal integer action.

        Anything else would be skipped by the core (a negative action) or
        refused by it, and the loop above would never end.
        """
        core = self.core
        try:
            acts = core.coerce_actions(answer, waiting.size, where=lambda i: f"env {waiting[i]}",
                                       beyond="outside the action space")
        except IllegalActionError as e:
            detail = str(e).removeprefix(f"{core.name}: ")
            raise OpponentError(f"{core.name}: opponent {self.opponent.label} "
                                f"answered badly: {detail}") from None
        i = _first_unplayable(acts, sub_mask)
        if i >= 0:
            who = f"{core.name}: opponent {self.opponent.label}"
            value = answer[i] if isinstance(answer, (list, tuple)) else np.asarray(answer)[i]
            why = ("is illegal" if 0 <= acts[i] < core.num_actions
                   else f"is outside the action space [0, {core.num_actions})")
            raise OpponentError(f"{who} chose action {show(value)} for env {int(waiting[i])} "
                                f"(player {int(sub.current_player[i])} to move), which {why}")
        return acts

    # -- the learner's step --------------------------------------------------------------
    def check_actions(self, actions, skip: np.ndarray | None = None) -> np.ndarray:
        """``actions`` as (num_envs,) int64 inside the action space (0 where ``skip``),
        or IllegalActionError naming the first that is not."""
        given = actions
        actions = self.core.coerce_actions(given, self.num_envs, where=lambda i: f"env {i}",
                                           beyond="outside the action space")
        if skip is not None:
            actions = np.where(skip, 0, actions)
        out = ((actions < 0) | (actions >= self.core.num_actions)).nonzero()[0]
        if out.size:
            i = int(out[0])
            value = given[i] if isinstance(given, (list, tuple)) else np.asarray(given)[i]
            raise IllegalActionError(f"{self.core.name}: action {show(value)} (env {i}) is outside "
                                     f"the action space [0, {self.core.num_actions})")
        return actions

    def step(self, actions: np.ndarray, skip: np.ndarray | None = None):
        """One learner action per row.  Returns learner rewards, terminated,
        truncated, and a per-row ``illegal`` flag; finished rows are *not* reset.

        Rows where ``skip`` (bool per row) is set are left as they are, whatever
        their action (Gymnasium's NEXT_STEP autoreset ignores it), and return
        neither flag.  A row in :attr:`unplayed` takes its one step: its action is
        ignored and the result its opponents made is paid."""
        actions = self.check_actions(actions, skip)
        s = self.state
        rows = np.arange(self.num_envs)
        acting = np.ones(self.num_envs, bool) if skip is None else ~skip
        legal = self.action_masks()[rows, actions]
        playing = acting & ~s.done
        illegal = ~legal & playing
        live = legal & playing
        reward = self.carry * acting
        self.carry[acting] = 0
        self.unplayed[acting] = False
        self.core.step_checked(s, np.where(live, actions, -1))  # checked above: once per step
        reward[live] += s.rewards[live, self.learner_seat[live]]
        self._play_opponents(live.nonzero()[0], reward)
        reward[illegal] = ILLEGAL_ACTION_REWARD
        terminated = (s.terminated & acting) | illegal
        truncated = s.truncated & acting & ~illegal
        return reward, terminated, truncated, illegal

    # -- views -------------------------------------------------------------------------
    def started(self, what: str):
        """The state, or the package's one error for a call before ``reset()`` (``what``: the call)."""
        if self.state is None:
            raise RuntimeError(f"call reset() before {what}")
        return self.state

    def observe(self) -> np.ndarray:
        return self.core.observe(self.started("observe()"), self.learner_seat)

    def action_masks(self) -> np.ndarray:
        """(num_envs, num_actions) bool: the learner's legal actions; action 0 alone in an
        :attr:`unplayed` game, none in a game it has finished."""
        if self.mask is None:
            self.mask = self.core.legal_action_mask(self.started("action_masks()"))
            self.mask[self.unplayed] = False
            self.mask[self.unplayed, 0] = True
        return self.mask


@njit(cache=True)
def _first_unplayable(actions, mask):
    """First row whose action is outside the action space or illegal; -1 if none."""
    for i in range(actions.shape[0]):
        a = actions[i]
        if a < 0 or a >= mask.shape[1] or not mask[i, a]:
            return i
    return -1


RESET_OPTIONS = ("learner_seat",)


def reset_options(options, allowed=RESET_OPTIONS) -> dict:
    """The ``options`` of a ``reset(options=...)`` call as a dict (None: ``{}``).

    TypeError unless a mapping; ValueError naming any key outside ``allowed``
    (``allowed=None`` takes any key, as the AEC env does).
    """
    if options is None:
        return {}
    if not isinstance(options, Mapping):
        raise TypeError(f"reset options must be a dict or None, got {show(options)}")
    if allowed is not None:
        unknown = sorted((k for k in options if k not in allowed), key=repr)
        if unknown:
            raise ValueError(f"unknown reset option(s) {unknown}; allowed: {list(allowed)}")
    return dict(options)
