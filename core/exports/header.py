"""The head of every JSON file Referee writes: what it is, and the versions behind it."""

from __future__ import annotations

from typing import Any

from referee.core.versions import library_versions


def json_header(format_name: str, format_version: int) -> dict[str, Any]:
    """``format`` and ``version`` of the file, and ``versions``: Referee's, Python's,
    NumPy's, SciPy's and OpenCV's (to reproduce its numbers)."""
    return {"format": format_name, "version": format_version, "versions": library_versions()}
