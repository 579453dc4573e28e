"""The networks, their checkpoint files and where they run.

* :mod:`.ppo_network`: the PPO policy (sb3-contrib's MaskablePPO policy with the package's feature
  extractors), and :mod:`.ppo_description`, the fields a checkpoint records of it;
* :mod:`.search_network`: the search's policy-value network, and :mod:`.search_description`;
* :mod:`.checkpoint`: the checkpoint file (safetensors with a checked JSON header): its format,
  reading and writing, and what it records of the game;
* :mod:`.device`: where a network runs (``auto``, ``cpu``, ``cuda``, ``cuda:<index>``).

torch is imported only by the modules that need it, when they are first imported.
"""
