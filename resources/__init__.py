"""Files shipped with Referee that are not code: the LIRIS and CVAT XML schemas
(docs/measures.md §10) and the application icon."""

from pathlib import Path


def icon_path() -> Path:
    """Path of Referee's application icon (an SVG file)."""
    return Path(__file__).parent / "referee.svg"
