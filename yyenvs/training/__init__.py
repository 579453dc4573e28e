"""Self-play training: MaskablePPO on the batched vector env, and search with learning.

Needs the ``train`` extra (torch, stable-baselines3, sb3-contrib, tensorboard,
tqdm, matplotlib).  Entry point: ``yyenvs train`` (:mod:`yyenvs.commands.train`).
Evaluation, which trains nothing, is :mod:`yyenvs.evaluation`.
"""
