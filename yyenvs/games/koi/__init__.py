"""Yin Yang Koi: two koi families on a wrapping pond (spec: ``seeds/koi.md``).

``core`` the core class, ``rules`` the state layout and the rule kernels,
``text`` move notation and text boards, ``render`` the pictures, ``spec`` the declared facts.
"""
