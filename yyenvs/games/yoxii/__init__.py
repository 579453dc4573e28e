"""Yoxii: two players, a totem and pieces of value 1-4 on a 37-square island.

``core`` the core class, ``rules`` the board and the rule kernels, ``features``
the optional lookahead features, ``render`` the pictures, ``spec`` the declared facts.
"""
