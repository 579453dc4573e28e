"""What every agent is: a batch of states and masks in, a batch of actions out."""
from __future__ import annotations

import operator

import numpy as np
from numba import njit

from yyenvs.core.contract import BatchState, GameCore, show
from yyenvs.core.rng import uniform01


class Agent:
    """A batched policy over one game core.

    ``act(state, mask)`` returns one action per row: a legal one for rows with
    a legal action, -1 for finished rows.  Agents that draw random numbers use
    a per-game stream (their seed, the row's game seed and its ply), so a game
    plays the same at any batch size.
    """

    name = "agent"

    def __init__(self, core: GameCore, seed: int = 0):
        self.core = core
        if isinstance(seed, (bool, np.bool_)):
            raise TypeError(f"agent seed must be an integer, got {show(seed)}")
        seed = operator.index(seed)  # numpy integers too
        if not -(1 << 63) <= seed < 1 << 64:  # 2**64 would wrap onto seed 0
            raise ValueError(f"agent seed must be an integer in [-2**63, 2**64), got {show(seed)}")
        self.seed = np.uint64(seed % (1 << 64))

    def act(self, state: BatchState, mask: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def __call__(self, state: BatchState, mask: np.ndarray) -> np.ndarray:
        return self.act(state, mask)

    def legal_mask(self, state: BatchState, mask) -> np.ndarray:
        """``mask`` as a C-contiguous (B, num_actions) bool array; ValueError if its shape is not that,
        or if a row waits for a chance outcome (agents play for players; the caller draws chance,
        e.g. with :meth:`~yyenvs.core.contract.GameCore.sample_chance`).

        The kernels index it by the state's rows and count its bytes as 0 / 1,
        so a bool array holding other bytes (``uint8_array.view(bool)``) is
        normalised (any non-zero byte is True).
        """
        was_bool = isinstance(mask, np.ndarray) and mask.dtype == np.bool_
        mask = np.ascontiguousarray(mask, dtype=bool)
        shape = (state.batch_size, self.core.num_actions)
        if mask.shape != shape:
            raise ValueError(f"{self.name}: the legal-action mask must have shape {shape}, got {mask.shape}")
        if self.core.explicit_chance:
            chance = np.flatnonzero(self.core.is_chance_node(state))
            if chance.size:
                raise ValueError(f"{self.name}: row {int(chance[0])} waits for a chance outcome; an agent "
                                 "chooses for players only (draw chance with core.sample_chance)")
        if was_bool and _odd_bytes(mask.view(np.uint8).reshape(-1)):  # a cast makes 0 / 1 itself
            mask = mask.view(np.uint8) != 0
        return mask

    def uniforms(self, state: BatchState, salt: int = 0) -> np.ndarray:
        """One U[0, 1) per row, a pure function of (agent seed, game seed, ply, salt)."""
        return uniform01(self.seed, state.seed, state.ply.astype(np.uint64), np.uint64(salt))

    def __repr__(self) -> str:
        return f"{type(self).__name__}(seed={int(self.seed)})"


@njit(cache=True)
def _odd_bytes(flat):
    """Whether a bool array's bytes (``flat``: uint8) hold anything but 0 and 1."""
    acc = np.uint8(0)
    for i in range(flat.shape[0]):
        acc |= flat[i]
    return acc > 1
