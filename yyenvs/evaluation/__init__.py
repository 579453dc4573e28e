"""Evaluation: matches between agents, cross-tables with ratings, and equal-time matches.

* :mod:`.matches`: batched games between agents, seats alternating, scored pairwise; the entrants of
  a cross-table and the games of one pair;
* :mod:`.tournament`: the cross-table, its intervals and ratings, as text, ``eval.json`` and a plot;
* :mod:`.ratings`: Bradley-Terry ratings and Wilson intervals;
* :mod:`.equal_time`: a search's simulations scaled until its time per move matches an opponent's;
* :mod:`.cluster`: the pairs of a cross-table as Ray tasks.

None of it imports torch: scripted entrants need only the environments; an entrant with a network
imports torch when it is made.
"""
