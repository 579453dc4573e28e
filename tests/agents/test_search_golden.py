"""Golden searches: sequential halving's schedule in seven cases, and four search trees pinned.

The trees come from searches whose arithmetic is the same on every machine: a stub network of exact
binary fractions, no Gumbel noise and no heuristic rollouts, so a tree differs only when the search
does.  ``python tests/agents/test_search_golden.py`` rewrites ``golden_searches.json`` after a change
that is meant to alter the searches (say why in the commit).
"""
from __future__ import annotations

import json
import pathlib
import sys

import numpy as np
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:  # ``python tests/agents/test_search_golden.py`` from anywhere
    sys.path.insert(0, str(ROOT))

from yyenvs.core.contract import CHANCE_PLAYER  # noqa: E402
from yyenvs.games import make_core  # noqa: E402
from yyenvs.search.gumbel import GumbelSearch  # noqa: E402
from yyenvs.search.mcts import MCTS  # noqa: E402
from yyenvs.search.seq_halving import considered_visits  # noqa: E402

GOLDEN = pathlib.Path(__file__).with_name("golden_searches.json")


# -- sequential halving ------------------------------------------------------------------------
@pytest.mark.parametrize("max_considered, simulations, expected", [
    # exactly max_considered * log2(max_considered) simulations: 8, then 4 twice, then 2
    (8, 24, [0] * 8 + [1] * 4 + [2] * 4 + [3, 3, 4, 4, 5, 5, 6, 6]),
    # more: the rounds of 4 repeat, and the last two share what is left
    (8, 47, [0] * 8 + [1] * 4 + [2] * 4 + [3] * 4 + [k for k in range(4, 18) for _ in range(2)][:27]),
    (8, 2, [0, 0]),  # fewer than the first round
    (8, 13, [0] * 8 + [1] * 4 + [2]),  # cut inside the second round
    (7, 24, [0] * 7 + [1, 1, 1, 2, 2, 2] + [3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8]),  # not a power of two
    (0, 16, list(range(16))),  # nothing to halve: one action visited again and again
    (1, 16, list(range(16))),
])
def test_sequential_halving_schedule_cases(max_considered, simulations, expected):
    assert len(expected) == simulations
    assert considered_visits(max_considered, simulations) == tuple(expected)


# -- golden trees ------------------------------------------------------------------------------
def exact_network(core):
    """A stub network whose outputs are exact binary fractions of a row's observation, so that no
    machine rounds them differently: logits in steps of 1/4, values in steps of 1/8."""
    A, P = core.num_actions, core.num_players

    def evaluate(obs):
        key = np.floor(obs.reshape(obs.shape[0], -1).astype(np.float64).sum(axis=1) * 64).astype(np.int64)
        logits = ((key[:, None] * 7 + np.arange(A) * 13) % 11) / 4.0
        values = (((key[:, None] + np.arange(P) * 5) % 9) - 4) / 8.0
        return logits.astype(np.float32), values.astype(np.float32)
    return evaluate


def roots(core, n=3, plies=6, seed=0):
    """``n`` positions a few plies into games of random legal moves (chance drawn by the game)."""
    state = core.init(np.arange(n, dtype=np.uint64) + seed)
    rng = np.random.default_rng(seed)
    for _ in range(plies):
        mask = core.legal_action_mask(state)
        live = ~state.done
        actions = np.array([rng.choice(np.flatnonzero(m)) if ok else -1 for m, ok in zip(mask, live)])
        core.step(state, actions)
    keep = np.flatnonzero(~state.done & (state.current_player != CHANCE_PLAYER))
    return state.take(keep)


def tree_record(tree, chosen) -> dict:
    """Per root: the chosen action and each visited root action's visits; the nodes per row used."""
    out = []
    for r, node in enumerate(tree.roots):
        edges = range(tree.first_edge[node], tree.first_edge[node] + tree.num_edges[node])
        visits = {int(tree.edge_action[e]): int(tree.visits[tree.edge_child[e]])
                  for e in edges if tree.edge_child[e] >= 0}
        out.append({"action": int(chosen[r]), "visits": {str(a): v for a, v in sorted(visits.items())},
                    "nodes": int(tree.node_count[r])})
    return out


def gumbel_tree(game, options, settings):
    core = make_core(game, **options)
    search = GumbelSearch(core, exact_network(core), 40, seed=1, gumbel_scale=0.0, max_considered=8, **settings)
    result = search.run(roots(core))
    record = tree_record(result.tree, result.action)
    for row, policy in zip(record, result.policy):
        row["policy"] = {str(a): round(float(policy[a]), 6) for a in np.flatnonzero(policy)}
    return record


def mcts_tree(game, options):
    core = make_core(game, **options)
    search = MCTS(core, seed=1, simulations=200, prior="uniform", rollout="random", max_rollout_steps=None)
    tree = search.search(roots(core))
    return tree_record(tree, search.best_actions(tree))


CASES = {
    "gumbel koi 7x7 quick start": lambda: gumbel_tree("koi", {"quick_start": True}, {}),
    "gumbel yoxii find_wins": lambda: gumbel_tree("yoxii", {}, {"find_wins": True}),
    "gumbel yinyang 3 players, chance": lambda: gumbel_tree("yinyang", {"num_players": 3}, {"discount": 0.9}),
    "mcts koi 7x7 quick start, uct": lambda: mcts_tree("koi", {"quick_start": True}),
}


@pytest.mark.parametrize("case", list(CASES))
def test_search_tree_is_the_golden_one(case):
    golden = json.loads(GOLDEN.read_text())[case]
    got = CASES[case]()
    assert [row["action"] for row in got] == [row["action"] for row in golden]
    for row, want in zip(got, golden):
        assert row["visits"] == want["visits"] and row["nodes"] == want["nodes"]
        if "policy" in want:
            assert row["policy"].keys() == want["policy"].keys()
            assert np.allclose(list(row["policy"].values()), list(want["policy"].values()), atol=2e-6)


if __name__ == "__main__":
    GOLDEN.write_text(json.dumps({case: make() for case, make in CASES.items()}, indent=1) + "\n")
    print(f"wrote {GOLDEN.relative_to(ROOT)}")
