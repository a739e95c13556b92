"""Referee desktop application (PySide6). It draws what referee.core computes."""
