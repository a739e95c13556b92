"""Referee core: evaluation of video-analysis algorithms, with no Qt dependency."""

__version__ = "0.1.0"
