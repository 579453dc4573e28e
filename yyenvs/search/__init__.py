"""The tree searches, split as mctx splits its own: the parts first, then the two searches.

* :mod:`.tree`: the batch of trees in flat arrays, shared by both searches;
* :mod:`.action_selection`: which edge a simulation takes at a node;
* :mod:`.qtransforms`: the completed, rescaled Q-values of the Gumbel root;
* :mod:`.seq_halving`: sequential halving's considered actions and schedule;
* :mod:`.backup`: a simulation's value added along its path;
* :mod:`.rollout`: the rollouts that value a leaf by play and the game's heuristic;
* :mod:`.solver`: exhaustive proofs of a position's result within a budget;
* :mod:`.plugins`: the Gumbel search's optional parts (wins at once, proofs, rollouts);
* :mod:`.settings`: each search's settings, one frozen dataclass per search;
* :mod:`.gumbel`: the search with a policy-value network (Gumbel at the root, PUCT below);
* :mod:`.mcts`: the MCTS baseline (UCT/PUCT with rollouts).

The agents that play them are :mod:`yyenvs.agents.az` and :mod:`yyenvs.agents.mcts`.
"""
