"""Balance of a game variant under strong play: does the turn order decide the game?

One agent (``--agent``, default ``mcts:1600``) plays every seat of ``--games``
games of each variant.  Per variant one line: each turn-order position's wins
(the first mover is position 1) with a 95% Wilson interval, draws and
truncations, the game length in plies and in decisions per player (mean and
standard deviation), and the mean number of legal moves per decision.  With
``--prove PLIES`` the position after PLIES plies of each game is also searched
exhaustively (:func:`yyenvs.search.solver.prove`, ``--budget`` positions,
``--depth`` moves) and the share proven won for the player to move is printed.
The same seed gives the same games.

    .venv/bin/python benchmarks/balance.py --game koi --games 200
    .venv/bin/python benchmarks/balance.py --game koi --variant directions=4 --variant board_size=7,directions=4
    .venv/bin/python benchmarks/balance.py --game koi --variant quick_start=true --prove 0 --depth 7
    .venv/bin/python benchmarks/balance.py --game yinyang --variant num_players=3 --agent mcts:400
"""
from __future__ import annotations

import argparse
import time

import numpy as np
import yaml

from yyenvs.agents import make_agent
from yyenvs.evaluation.matches import pair_seeds
from yyenvs.commands.bench import hardware
from yyenvs.games import make_core
from yyenvs.evaluation.ratings import wilson_interval


def turn_positions(first: np.ndarray, num_players: int) -> np.ndarray:
    """(G, P): the turn-order position (0: moves first) of each seat, seats moving in cyclic order."""
    return (np.arange(num_players)[None, :] - first[:, None]) % num_players


def tally(scores: np.ndarray, first: np.ndarray, truncated: np.ndarray) -> dict:
    """Wins per turn-order position and draws, from the (G, P) final scores.

    A game is won by the one seat with the highest score; a tie for the highest
    is a draw, and so is a truncated game (it was stopped, not decided).
    """
    G, P = scores.shape
    top = scores.max(axis=1, keepdims=True)
    sole = ((scores == top).sum(axis=1) == 1) & ~truncated
    winner = np.where(sole, scores.argmax(axis=1), -1)
    won = np.flatnonzero(sole)
    position = turn_positions(first, P)[won, winner[won]]
    wins = np.bincount(position, minlength=P)
    return {"games": G, "wins": wins, "draws": int(G - sole.sum()), "truncated": int(truncated.sum())}


def play_variant(core, agent, seeds: np.ndarray, prove_at: int | None) -> dict:
    """Self-play of ``agent`` in every seat; per game the scores, the first mover, the plies and
    decisions, the legal moves seen, and (``prove_at``) the state after that many plies."""
    state = core.init(seeds)
    G, P = state.batch_size, core.num_players
    first = state.current_player.astype(np.int64).copy()
    scores, plies = np.zeros((G, P)), np.zeros(G, np.int64)
    decisions, legal_total = np.zeros((G, P), np.int64), 0
    snapshot = state.take(np.arange(G)) if prove_at == 0 else None
    for ply in range(core.max_game_length + 1):
        live = ~state.done
        if not live.any():
            break
        mask = core.legal_action_mask(state)
        actions = np.full(G, -1, np.int64)
        if core.explicit_chance:
            chance = core.is_chance_node(state)
            actions[chance] = core.sample_chance(state)[chance]
            live &= ~chance
        rows = np.flatnonzero(live)
        actions[rows] = agent(state.take(rows), mask[rows])
        decisions[rows, state.current_player[rows].astype(np.int64)] += 1
        legal_total += int(mask[rows].sum())
        core.step(state, actions)
        scores += state.rewards
        plies += actions >= 0
        if prove_at is not None and ply + 1 == prove_at:
            snapshot = state.take(np.arange(G))
    return {"scores": scores, "first": first, "truncated": state.truncated.copy(), "plies": plies,
            "decisions": decisions, "legal_per_decision": legal_total / max(1, decisions.sum()),
            "snapshot": snapshot}


def proven_share(core, snapshot, budget: int, depth: int) -> tuple[int, int]:
    """(positions proven won for the player to move, positions searched), finished games left out."""
    from yyenvs.search.solver import prove
    live = np.flatnonzero(~snapshot.done)
    if live.size == 0:
        return 0, 0
    states = snapshot.take(live)
    proof = prove(core, states, budget, depth)
    mine = proof.root_result[np.arange(live.size), states.current_player.astype(np.int64)]
    return int((proof.root_known & (mine >= core.reward_range[1])).sum()), int(live.size)


def describe(variant: str, result: dict, proof, seconds: float) -> str:
    t = tally(result["scores"], result["first"], result["truncated"])
    G, P = result["scores"].shape
    parts = [variant or "default"]
    for pos in range(P):
        lo, hi = wilson_interval(t["wins"][pos], G)
        parts.append(f"position {pos + 1} wins {t['wins'][pos]}/{G} = {t['wins'][pos] / G:.1%} "
                     f"[{lo:.1%}-{hi:.1%}]")
    d = result["decisions"]
    parts += [f"draws {t['draws']}", f"truncated {t['truncated']}",
              f"plies {result['plies'].mean():.1f} ± {result['plies'].std():.1f}",
              f"decisions per player {d.mean():.1f} ± {d.std():.1f}",
              f"legal moves {result['legal_per_decision']:.1f}"]
    if proof is not None:
        parts.append(f"proven won for the mover {proof[0]}/{proof[1]}")
    parts.append(f"{seconds:.0f} s")
    return " | ".join(parts)


def parse_variant(text: str) -> dict:
    """``board_size=7,directions=4`` as game options (values read as YAML scalars)."""
    options = {}
    for item in filter(None, text.split(",")):
        key, sep, value = item.partition("=")
        if not sep:
            raise argparse.ArgumentTypeError(f"a variant is KEY=VALUE[,KEY=VALUE...], got {item!r}")
        options[key.strip()] = yaml.safe_load(value)
    return options


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--game", default="koi")
    p.add_argument("--variant", action="append", default=None, metavar="KEY=VALUE[,...]",
                   help="game options of one variant (repeat for more; default: the game's defaults)")
    p.add_argument("--agent", default="mcts:1600")
    p.add_argument("--games", type=int, default=200)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--prove", type=int, default=None, metavar="PLIES",
                   help="also prove the positions after PLIES plies (0: the starting positions)")
    p.add_argument("--budget", type=int, default=200_000)
    p.add_argument("--depth", type=int, default=6)
    args = p.parse_args(argv)
    for name, value in (("--games", args.games), ("--seed", args.seed), ("--budget", args.budget),
                        ("--depth", args.depth), ("--prove", args.prove or 0)):
        if value < 0 or (name == "--games" and value < 1):
            p.error(f"{name} must be {'positive' if name == '--games' else 'at least 0'}, got {value}")
    print(f"# {hardware()}")
    print(f"# {args.game}, {args.agent} in every seat, {args.games} games, seed {args.seed}")
    seeds = pair_seeds(args.seed, 0, 1, args.games)  # the games play_match would play
    for text in args.variant or [""]:
        core = make_core(args.game, **parse_variant(text))
        agent = make_agent(args.agent, core, args.seed)
        t0 = time.perf_counter()
        result = play_variant(core, agent, seeds, args.prove)
        proof = None
        if args.prove is not None and result["snapshot"] is not None:
            proof = proven_share(core, result["snapshot"], args.budget, args.depth)
        print(describe(text, result, proof, time.perf_counter() - t0), flush=True)


if __name__ == "__main__":
    main()
