"""The parts of the tree searches, split as mctx splits its own.

* :mod:`.tree`: the batch of trees in flat arrays, shared by the MCTS baseline
  (:mod:`yyenvs.agents.mcts`) and the Gumbel search (:mod:`yyenvs.agents.gumbel`);
* :mod:`.action_selection`: which edge a simulation takes at a node;
* :mod:`.qtransforms`: the completed, rescaled Q-values of the Gumbel root;
* :mod:`.seq_halving`: sequential halving's considered actions and schedule;
* :mod:`.backup`: a simulation's value added along its path;
* :mod:`.plugins`: the Gumbel search's optional parts (wins at once, proofs, rollouts).

The searches themselves (their simulation loops) are :mod:`yyenvs.agents.mcts`
and :mod:`yyenvs.agents.gumbel`.
"""
