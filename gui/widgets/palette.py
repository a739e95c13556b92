"""Colours shared by every view, named by meaning, and what a box over the frame looks like.

The comparison overlay and the ground truth take Okabe–Ito colours; detectors
take :data:`~referee.core.colours.DETECTOR_PALETTE`, kept apart from them.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from referee.core.colours import OKABE_ITO
from referee.core.measures.pixel import COMPARISON_LABELS

__all__ = [
    "COMPARISON_RGBA",
    "DETECTOR_RGB",
    "GROUND_TRUTH_RGB",
    "LINE_SAMPLE_RGB",
    "BoxDrawing",
    "BoxLine",
    "LegendEntry",
]

#: RGBA of each comparison code (index = code of
#: :func:`~referee.core.measures.pixel.comparison_labels`).
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


class BoxLine(enum.Enum):
    """How a box's outline is drawn; what each means is said by the view's legend."""

    SOLID = "solid"
    DASHED = "dashed"
    DOTTED = "dotted"


@dataclass(frozen=True)
class BoxDrawing:
    """One box to draw over the frame, in image pixels (x, y of the top-left corner).

    ``line`` tells what the box is (e.g. a vetoed pair is dashed); ``tooltip``
    is shown on hover; ``marker`` is a short tag written after the label
    ("miss", "false alarm") or ``None``; a ``highlighted`` box is drawn thicker.
    """

    x: float
    y: float
    width: float
    height: float
    label: str
    colour: tuple[int, int, int]
    line: BoxLine = BoxLine.SOLID
    tooltip: str = ""
    marker: str | None = None
    highlighted: bool = False

    @property
    def text(self) -> str:
        """The label as written over the frame: the label and its marker."""
        return self.label if self.marker is None else f"{self.label} · {self.marker}"


@dataclass(frozen=True)
class LegendEntry:
    """One row of a box legend: a line sample of ``colour`` and ``line`` style, and its meaning."""

    text: str
    colour: tuple[int, int, int]
    line: BoxLine = BoxLine.SOLID


#: Colour of legend samples that explain a line style rather than a colour:
#: a grey with 3.9:1 contrast on white and on the dark theme's background alike.
LINE_SAMPLE_RGB = (128, 128, 128)
