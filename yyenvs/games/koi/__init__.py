"""Yin Yang Koi: two koi families on a wrapping pond (spec: ``seeds/koi.md``).

``core`` the core class, ``rules`` the state layout and the rule kernels,
``text`` move notation and text boards, ``ansi`` the text picture, ``picture`` the drawn
scene, ``spec`` the declared facts.
"""
