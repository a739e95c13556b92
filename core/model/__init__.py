"""Plain data: videos, confusion matrices, annotations and projects.

Nothing here reads a file or computes a measure.
"""
