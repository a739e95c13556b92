"""Colours shared by every view: colour-blind-safe (Okabe–Ito) and named by meaning."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from referee.core.pixel import COMPARISON_LABELS

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

#: RGBA of each comparison code (index = code of ``core.pixel.comparison_labels``).
#: True negatives are transparent; "not evaluated" is a faint grey veil.
COMPARISON_RGBA: tuple[tuple[int, int, int, int], ...] = (
    (0, 0, 0, 0),
    (*OKABE_ITO["bluish green"], 255),
    (*OKABE_ITO["vermillion"], 255),
    (*OKABE_ITO["sky blue"], 255),
    (*OKABE_ITO["reddish purple"], 255),
    (*OKABE_ITO["grey"], 110),
)
assert len(COMPARISON_RGBA) == len(COMPARISON_LABELS)

#: Colours for a series of detectors, in order (cycled).
SERIES: tuple[tuple[int, int, int], ...] = tuple(
    OKABE_ITO[name] for name in ("blue", "orange", "bluish green", "reddish purple",
                                 "sky blue", "vermillion", "yellow", "grey"))

#: Colour of ground-truth and detector masks when drawn alone.
GROUND_TRUTH_RGB = OKABE_ITO["yellow"]
DETECTOR_RGB = OKABE_ITO["blue"]


def series_colour(index: int) -> tuple[int, int, int]:
    """Colour of the ``index``-th detector or pair (cycles through :data:`SERIES`)."""
    return SERIES[index % len(SERIES)]


@dataclass(frozen=True)
class BoxDrawing:
    """One box to draw over the frame, in image pixels (x, y of the top-left corner).

    ``dashed`` marks a vetoed pair; ``tooltip`` is shown on hover; ``marker``
    is a short tag drawn in the corner ("miss", "false alarm") or ``None``.
    """

    x: float
    y: float
    width: float
    height: float
    label: str
    colour: tuple[int, int, int]
    dashed: bool = False
    tooltip: str = ""
    marker: Optional[str] = None
    highlighted: bool = False
