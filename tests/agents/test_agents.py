"""The scripted baselines over every available two-player game."""
import numpy as np
import pytest

from yyenvs.agents import GreedyAgent, RandomAgent, make_agent
from yyenvs.core.contract import OptionError
from yyenvs.core.moves import _best_per_row, greedy_actions, sample_weighted
from yyenvs.games import GAMES, make_core
from yyenvs.commands.play import play_match

TWO_PLAYER = [g for g in list(GAMES) if make_core(g).num_players == 2]


@pytest.mark.parametrize("game", list(GAMES))
@pytest.mark.parametrize("cls", [RandomAgent, GreedyAgent])
def test_agents_pick_legal_actions_and_skip_finished_rows(game, cls):
    core = make_core(game)
    agent = cls(core, seed=3)
    s = core.init(np.arange(16, dtype=np.uint64))
    for _ in range(12):
        mask = core.legal_action_mask(s)
        a = agent(s, mask)
        live = ~s.done
        assert mask[np.flatnonzero(live), a[live]].all()
        assert (a[~live] == -1).all()
        if s.done.all():
            break
        core.step(s, a)


@pytest.mark.parametrize("game", list(GAMES))
def test_random_agent_is_per_game_deterministic(game):
    core = make_core(game)
    s = core.init(np.arange(8, dtype=np.uint64))
    mask = core.legal_action_mask(s)
    whole = RandomAgent(core, seed=1)(s, mask)
    alone = [RandomAgent(core, seed=1)(s.take([i]), mask[[i]])[0] for i in range(8)]
    assert whole.tolist() == alone
    other = RandomAgent(core, seed=2)(s, mask)
    assert whole.tolist() != other.tolist() or mask.sum(1).max() == 1


def test_random_agent_is_uniform_over_legal_actions():
    core = make_core("yoxii")
    s = core.init(np.arange(20000, dtype=np.uint64))
    mask = core.legal_action_mask(s)
    a = RandomAgent(core, seed=0)(s, mask)
    counts = np.bincount(a, minlength=core.num_actions)[mask[0]]
    assert counts.size == 256
    # 20000 draws over 256 actions: about 78 each; a chi-square test at a loose level
    chi2 = ((counts - counts.mean()) ** 2 / counts.mean()).sum()
    assert chi2 < 350


@pytest.mark.parametrize("game", TWO_PLAYER)
def test_greedy_beats_random_clearly(game):
    core = make_core(game)
    r = play_match(core, GreedyAgent(core, 0), RandomAgent(core, 1), 200, seed=4)
    assert r["wins"] > 1.5 * r["losses"], r
    first, second = r["by_start"]["first"], r["by_start"]["second"]
    assert sum(first) == sum(second) == 100  # seats alternate
    assert (first[0] + second[0], first[1] + second[1], first[2] + second[2]) == (r["wins"], r["draws"], r["losses"])


def test_match_split_by_start_names_the_seat():
    """Game 0 has agent A in the first seat, game 1 in the second: by_start reports each where it belongs."""
    from yyenvs.evaluation.matches import pair_seeds, play_games, seat_pattern
    core = make_core("koi", board_size=5, directions=4, win_fry=14)
    for seed in range(6):
        a, b = GreedyAgent(core, 0), RandomAgent(core, 1)
        r = play_match(core, a, b, 2, seed=seed)
        scores, _ = play_games(core, [a, b], seat_pattern(0, 1, 2, 2), pair_seeds(seed, 0, 1, 2))
        won_first, won_second = scores[0, 0] > scores[0, 1], scores[1, 1] > scores[1, 0]
        assert r["by_start"]["first"][0] == won_first and r["by_start"]["second"][0] == won_second


def test_make_agent_specs():
    core = make_core("yoxii")
    assert isinstance(make_agent("random", core), RandomAgent)
    assert isinstance(make_agent("greedy", core), GreedyAgent)
    fn = lambda state, mask: np.argmax(mask, 1)  # noqa: E731
    assert make_agent(fn, core) is fn
    for bad in ("champion", "greedy:3", 42, "mcts:many"):
        with pytest.raises(OptionError):
            make_agent(bad, core)


def test_greedy_takes_the_best_value_and_breaks_ties_per_game():
    """The one greedy choice (GreedyAgent and MCTS's greedy rollouts): the highest value wins;
    among equal values the row's own random number picks, favouring no action id."""
    core = make_core("yoxii")
    s = core.init(np.arange(2000, dtype=np.uint64))
    mask = core.legal_action_mask(s)
    u = RandomAgent(core, seed=1).uniforms(s)
    ties = greedy_actions(core, s, mask, u, value=lambda children, movers: None)
    assert mask[np.arange(s.batch_size), ties].all()
    assert np.unique(ties).size > 150  # 2000 picks among the 256 legal (tied) actions
    alone = [greedy_actions(core, s.take([i]), mask[[i]], u[[i]], value=lambda c, m: None)[0]
             for i in range(5)]
    assert alone == ties[:5].tolist()
    # distinct values: the best one, whatever the tie-break
    rng = np.random.default_rng(0)
    values = {}

    def value(children, movers):
        v = rng.permutation(children.batch_size).astype(np.float64)
        values["v"] = v
        return v

    best = greedy_actions(core, s.take(np.arange(50)), mask[:50], u[:50], value=value)
    rows, acts = np.nonzero(mask[:50])
    for r in range(50):
        mine = rows == r
        assert best[r] == acts[mine][np.argmax(values["v"][mine])]
    # GreedyAgent is that choice with its own per-game numbers and the core's heuristic
    g = GreedyAgent(core, seed=3)
    np.testing.assert_array_equal(g.act(s.take(np.arange(64)), mask[:64]),
                                  greedy_actions(core, s.take(np.arange(64)), mask[:64],
                                                 g.uniforms(s.take(np.arange(64)))))


def test_greedy_tie_break_is_uniform_among_tied_actions():
    """256 tied actions over 20000 games: the row's own number decides, each tied action alike."""
    R, A = 20000, 256
    rows = np.repeat(np.arange(R), A)
    actions = np.tile(np.arange(A, dtype=np.int64), R)
    u = np.random.default_rng(0).random(R)
    out = np.full(R, -1, np.int64)
    _best_per_row(rows, actions, np.zeros(R * A), u, out)
    counts = np.bincount(out, minlength=A)
    chi2 = ((counts - R / A) ** 2 / (R / A)).sum()
    assert chi2 < 360, chi2  # 255 degrees of freedom: 360 is beyond the 99.99th percentile
    assert counts[:A // 2].sum() / R < 0.53  # low action ids are not favoured
    # values beat the tie-break: one action worth a little more wins every game
    value = np.zeros(R * A)
    value[actions == 200] = 1e-3
    _best_per_row(rows, actions, value, u, out)
    assert (out == 200).all()


def test_sample_weighted_draws_by_the_weights():
    """Chance outcomes in MCTS rollouts: drawn by probability, never a zero-weight action."""
    w = np.array([[0.0, 0.5, 0.0, 0.3, 0.2, -1.0]])
    n = 20000
    u = (np.arange(n) + 0.5) / n  # an even spread of numbers: counts come out nearly exact
    out = np.empty(n, np.int64)
    sample_weighted(np.repeat(w, n, axis=0), u, out)
    np.testing.assert_allclose(np.bincount(out, minlength=6) / n, [0, 0.5, 0, 0.3, 0.2, 0], atol=1e-3)
    out1 = np.empty(2, np.int64)
    sample_weighted(np.array([[0.0, 0.0], [0.0, 2.0]]), np.array([0.5, 0.999999]), out1)
    assert out1.tolist() == [-1, 1]
