"""Self-play training (MaskablePPO on the batched core) and checkpoint evaluation.

Needs the ``train`` extra (torch, stable-baselines3, sb3-contrib, tensorboard,
tqdm, matplotlib).  Entry points: ``yyenvs train`` (:mod:`yyenvs.training.train`) and
``yyenvs eval`` (:mod:`yyenvs.training.evaluate`).
"""
