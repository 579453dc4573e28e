"""Yin Yang (1-4 players and solo): batched core, data file and validator."""
