"""The scripted baselines over every available two-player game."""
import numpy as np
import pytest

from yyenvs.agents import GreedyAgent, RandomAgent, make_agent
from yyenvs.core.contract import OptionError
from yyenvs.games import GAMES, make_core
from yyenvs.play import play_match

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


def test_make_agent_specs():
    core = make_core("yoxii")
    assert isinstance(make_agent("random", core), RandomAgent)
    assert isinstance(make_agent("greedy", core), GreedyAgent)
    fn = lambda state, mask: np.argmax(mask, 1)  # noqa: E731
    assert make_agent(fn, core) is fn
    for bad in ("champion", "greedy:3", 42, "mcts:many"):
        with pytest.raises(OptionError):
            make_agent(bad, core)
