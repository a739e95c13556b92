"""Colours shared by every view: colour-blind-safe (Okabe–Ito) and named by meaning."""

from __future__ import annotations

from dataclasses import dataclass

from referee.core.colours import OKABE_ITO, SERIES, series_colour
from referee.core.measures.pixel import COMPARISON_LABELS

__all__ = [
    "COMPARISON_RGBA",
    "DETECTOR_RGB",
    "GROUND_TRUTH_RGB",
    "OKABE_ITO",
    "SERIES",
    "BoxDrawing",
    "detector_colour",
    "series_colour",
]

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

#: Colour of ground-truth and detector masks when drawn alone.
GROUND_TRUTH_RGB = OKABE_ITO["yellow"]
DETECTOR_RGB = OKABE_ITO["blue"]


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
    marker: str | None = None
    highlighted: bool = False


def detector_colour(index: int) -> tuple[int, int, int]:
    """Colour of the project's ``index``-th detector, the same in every view, plot and table."""
    return series_colour(index)
