"""Plainfeed: plain-language explainers of technical feed posts, with every number checked."""

__version__ = "0.1.0"
