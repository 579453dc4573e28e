"""The test suite, by layer: core, games/<id>, agents, envs, training, commands (rllib/ runs in
its own environment)."""
import pathlib

#: the repository's root folder
ROOT = pathlib.Path(__file__).resolve().parent.parent
