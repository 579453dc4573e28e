"""Yoxii: two players, a totem and pieces of value 1-4 on a 37-square island."""
