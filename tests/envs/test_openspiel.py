"""The OpenSpiel registration (yyenvs.integrations.openspiel) and Shimmy's wrapper on top of it."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

import yyenvs.integrations.openspiel as yos  # noqa: E402  (registers the games)
from yyenvs.core.errors import OptionError  # noqa: E402
from yyenvs.games import GAMES, make_core  # noqa: E402

NAMES = {  # a small variant of each game, and Yin Yang at every player count
    "yoxii": ["yyenvs_yoxii"],
    "koi": ["yyenvs_koi(board_size=7,directions=4)", "yyenvs_koi(board_size=5,directions=8,quick_layout=row,quick_start=True,win_fry=14)"],
    "yinyang": [f"yyenvs_yinyang(num_players={n})" for n in (1, 2, 3, 4)],
}
ALL = [name for names in NAMES.values() for name in names]


def test_every_game_is_registered_from_its_spec():
    assert set(yos.register()) == {f"yyenvs_{g}" for g in GAMES} <= set(pyspiel.registered_names())
    T = pyspiel.GameType
    for game_id, spec in GAMES.items():
        game = pyspiel.load_game(f"yyenvs_{game_id}")
        t, core = game.get_type(), make_core(game_id, **({"chance": "explicit"} if spec.chance else {}))
        assert (t.min_num_players, t.max_num_players) == spec.players
        assert (t.chance_mode == T.ChanceMode.DETERMINISTIC) == (not spec.chance and not spec.random_setup)
        assert (t.information == T.Information.PERFECT_INFORMATION) == spec.perfect_information
        assert game.num_distinct_actions() == core.num_actions
        assert set(t.parameter_specification) == set(yos.parameters(spec))
    with pytest.raises(OptionError, match="board_size"):
        pyspiel.load_game("yyenvs_koi(board_size=6)")


def test_random_setup_is_declared_where_the_seed_changes_the_start():
    """spec.random_setup (the deal at the start) is true exactly where init depends on the seed."""
    for game_id, spec in GAMES.items():
        core = make_core(game_id)
        a, b = core.init(np.array([1], np.uint64)), core.init(np.array([2], np.uint64))
        same = all(np.array_equal(getattr(a, f.name), getattr(b, f.name)) for f in dataclasses.fields(a)
                   if f.name not in ("seed", "rng"))
        assert spec.random_setup == (not same), game_id


@pytest.mark.parametrize("name", ALL)
def test_random_sim_test_passes(name):
    game = pyspiel.load_game(name)
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


@pytest.mark.parametrize("name", ALL)
def test_serialize_round_trip_and_clones_draw_their_own_chance(name):
    game = pyspiel.load_game(name)
    rng = np.random.default_rng(0)
    state = game.new_initial_state()
    for _ in range(60):
        if state.is_terminal():
            break
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            assert abs(sum(probs) - 1) < 1e-9 and len(set(outcomes)) == len(outcomes)
            state.apply_action(int(rng.choice(outcomes, p=probs)))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    text = pyspiel.serialize_game_and_state(game, state)
    game2, state2 = pyspiel.deserialize_game_and_state(text)
    assert str(game2) == str(game) and state2.history() == state.history()
    assert str(state2) == str(state) and state2.returns() == state.returns()
    for p in range(game.num_players()):
        assert state2.observation_tensor(p) == state.observation_tensor(p)
        assert state2.observation_string(p) == state.observation_string(p)
    clone, before = state.clone(), (str(state), state.observation_tensor(0))  # independent of the original
    if not clone.is_terminal():
        action = (clone.chance_outcomes()[0][0] if clone.is_chance_node() else clone.legal_actions()[0])
        clone.apply_action(action)
        assert len(clone.history()) == len(state.history()) + 1
        assert (str(state), state.observation_tensor(0)) == before and str(clone) != str(state)


def test_yinyang_chance_nodes_follow_the_cores_probabilities():
    """Coin throws are chance nodes with the core's probabilities; the deal comes first, uniform."""
    game = pyspiel.load_game("yyenvs_yinyang(num_players=2)")
    state = game.new_initial_state()
    assert state.is_chance_node() and len(state.chance_outcomes()) == game.num_distinct_actions()
    state.apply_action(3)
    core = make_core("yinyang", chance="explicit")
    mirror = core.init(np.array([3], np.uint64))
    seen = 0
    rng = np.random.default_rng(1)
    while not state.is_terminal() and seen < 5:
        if state.is_chance_node():
            p = core.chance_probabilities(mirror)[0]
            assert dict(state.chance_outcomes()) == pytest.approx({int(a): p[a] for a in np.flatnonzero(p)})
            seen += 1
            action = int(rng.choice(np.flatnonzero(p), p=p[p > 0]))
        else:
            action = int(rng.choice(state.legal_actions()))
        state.apply_action(action)
        core.step(mirror, np.array([action]))
        assert np.array_equal(state.observation_tensor(0), core.observe(mirror, np.array([0], np.int8))[0].ravel())
    assert seen == 5


def test_hidden_missions_stay_hidden_in_observations():
    game = pyspiel.load_game("yyenvs_yinyang(num_players=2)")
    a, b = game.new_initial_state(), game.new_initial_state()
    a.apply_action(0)
    b.apply_action(1)
    # the seat's own observation differs between deals only in what that seat may see
    core = make_core("yinyang", chance="explicit")
    for p in range(2):
        assert np.array_equal(a.observation_tensor(p),
                              core.observe(core.init(np.array([0], np.uint64)), np.array([p], np.int8))[0].ravel())
    assert a.observation_string(0) != a.observation_string(1)


@pytest.mark.parametrize("name", ["yyenvs_koi(board_size=5,directions=4,win_fry=14)", "yyenvs_yinyang(num_players=2)"])
def test_openspiels_python_mcts_bot_plays(name):
    from open_spiel.python.algorithms import mcts
    game = pyspiel.load_game(name)
    rng = np.random.RandomState(0)
    bot = mcts.MCTSBot(game, uct_c=2, max_simulations=8, evaluator=mcts.RandomRolloutEvaluator(1, rng),
                       random_state=rng)
    state = game.new_initial_state()
    moves = 0
    while not state.is_terminal() and moves < 12:
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            state.apply_action(int(rng.choice(outcomes, p=probs)))
            continue
        action = bot.step(state)
        assert action in state.legal_actions()
        state.apply_action(action)
        moves += 1
    assert moves == 12 or state.is_terminal()


def test_openspiels_evaluation_tools_play_whole_games():
    from open_spiel.python.algorithms import evaluate_bots, mcts
    game = pyspiel.load_game("yyenvs_yoxii")
    rng = np.random.RandomState(1)
    bots = [mcts.MCTSBot(game, uct_c=2, max_simulations=4, evaluator=mcts.RandomRolloutEvaluator(1, rng),
                         random_state=rng), pyspiel.make_uniform_random_bot(1, 2)]
    returns = evaluate_bots.evaluate_bots(game.new_initial_state(), bots, rng)
    assert sorted(returns) in ([-1.0, 1.0], [0.0, 0.0])


@pytest.mark.parametrize("name, config", [("yyenvs_koi", {"board_size": 5, "directions": 4, "win_fry": 14}), ("yyenvs_yoxii", None),
                                          ("yyenvs_yinyang", {"num_players": 3})])
def test_shimmy_wraps_them_as_pettingzoo_envs_that_pass_api_test(name, config):
    """By name and config: Shimmy's reset loads the game again by its name and that config."""
    shimmy = pytest.importorskip("shimmy")
    from pettingzoo.test import api_test
    env = shimmy.OpenSpielCompatibilityV0(game_name=name, config=config)
    env.reset(seed=0)
    assert len(env.possible_agents) == (config or {}).get("num_players", 2)
    api_test(env, num_cycles=30)
