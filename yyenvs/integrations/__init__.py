"""Adapters to other libraries, each an optional extra (``pip install "yyenvs[openspiel]"``).

A module here may import every layer of the package below it (core, games,
agents, envs) and its own library, never ``training``; importing
``yyenvs.integrations`` alone imports none of the libraries.
"""
