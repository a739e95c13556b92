"""Colours shared by the GUI and the reports: colour-blind-safe (Okabe–Ito), as RGB 0–255."""

from __future__ import annotations

#: The Okabe–Ito palette, readable with every common colour-vision deficiency.
OKABE_ITO: dict[str, tuple[int, int, int]] = {
    "orange": (230, 159, 0),
    "sky blue": (86, 180, 233),
    "bluish green": (0, 158, 115),
    "yellow": (240, 228, 66),
    "blue": (0, 114, 178),
    "vermillion": (213, 94, 0),
    "reddish purple": (204, 121, 167),
    "grey": (153, 153, 153),
}

#: Colours for a series of detectors, in order (cycled).
SERIES: tuple[tuple[int, int, int], ...] = tuple(
    OKABE_ITO[name]
    for name in (
        "blue",
        "orange",
        "bluish green",
        "reddish purple",
        "sky blue",
        "vermillion",
        "yellow",
        "grey",
    )
)


def series_colour(index: int) -> tuple[int, int, int]:
    """Colour of the ``index``-th detector or pair (cycles through :data:`SERIES`)."""
    return SERIES[index % len(SERIES)]
