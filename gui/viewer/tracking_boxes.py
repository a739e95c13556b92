"""Boxes to draw for a tracker's CLEAR MOT matching on one frame (docs/measures.md §5).

Maps the core's :class:`~referee.core.measures.tracking_frames.BoxOutcome` list to
:class:`~referee.gui.widgets.palette.BoxDrawing` objects; it computes nothing. Ground
truth is drawn in the ground-truth yellow and the tracker in its detector's colour;
the line tells the outcome: solid for a match, dotted for a miss or a false positive,
dashed and thick for an identity switch or an object matched again after a gap, so
that a switch is seen at a glance.
"""

from __future__ import annotations

from collections.abc import Sequence

from referee.core.colours import OKABE_ITO
from referee.core.measures.tracking_frames import BoxOutcome, TrackOutcome
from referee.gui.widgets.palette import (
    GROUND_TRUTH_RGB,
    LINE_SAMPLE_RGB,
    BoxDrawing,
    BoxLine,
    LegendEntry,
)

#: Line of a box of each outcome.
OUTCOME_LINES: dict[TrackOutcome, BoxLine] = {
    TrackOutcome.MATCHED: BoxLine.SOLID,
    TrackOutcome.MISS: BoxLine.DOTTED,
    TrackOutcome.FALSE_POSITIVE: BoxLine.DOTTED,
}
#: What each line means, in the legend.
LINE_MEANINGS: dict[BoxLine, str] = {
    BoxLine.SOLID: "matched",
    BoxLine.DASHED: "identity switch or resumed (thick)",
    BoxLine.DOTTED: "miss or false positive",
}
#: How the timeline marks a tracker's events (name, colour, pyqtgraph symbol): identity
#: switches, then fragmentations.
SWITCH_MARKS = ("identity switch", OKABE_ITO["vermillion"], "t")
FRAGMENT_MARKS = ("resumed after a gap", OKABE_ITO["orange"], "d")
#: Keys of the previous and next identity switch (Go menu, Tracking dock).
PREVIOUS_SWITCH_KEY, NEXT_SWITCH_KEY = "Ctrl+[", "Ctrl+]"
_MARKERS: dict[TrackOutcome, str] = {
    TrackOutcome.MISS: "miss",
    TrackOutcome.FALSE_POSITIVE: "false positive",
}


def _marker(outcome: BoxOutcome) -> str | None:
    events = []
    if outcome.switched:
        before = "?" if outcome.previous is None else str(outcome.previous)
        events.append(f"switch {before}→{outcome.partner}")
    if outcome.resumed:
        events.append("resumed")
    return ", ".join(events) or _MARKERS.get(outcome.outcome)


def _tooltip(outcome: BoxOutcome) -> str:
    side = "ground-truth object" if outcome.groundtruth else "tracker identity"
    other = "tracker identity" if outcome.groundtruth else "ground-truth object"
    text = f"{side} {outcome.identity}: {outcome.outcome.value}"
    if outcome.partner is not None:
        text += f" to {other} {outcome.partner}"
    if outcome.switched:
        text += f"; identity switch (before: tracker identity {outcome.previous})"
    if outcome.resumed:
        text += "; matched again after unmatched frames (a fragmentation)"
    return text


def tracking_drawings(
    outcomes: Sequence[BoxOutcome], detector_rgb: tuple[int, int, int]
) -> list[BoxDrawing]:
    """The boxes of one frame: ground truth labelled ``GT <id>``, the tracker ``T <id>``;
    a switched or resumed object, and the tracker box it is matched to, drawn thick."""
    eventful = {o.partner for o in outcomes if o.groundtruth and (o.switched or o.resumed)}
    drawings = []
    for o in outcomes:
        x, y, width, height = o.box
        highlighted = (
            o.switched or o.resumed
            if o.groundtruth
            else o.outcome is TrackOutcome.MATCHED and o.identity in eventful
        )
        drawings.append(
            BoxDrawing(
                x,
                y,
                width,
                height,
                label=f"{'GT' if o.groundtruth else 'T'} {o.identity}",
                colour=GROUND_TRUTH_RGB if o.groundtruth else detector_rgb,
                line=BoxLine.DASHED if highlighted else OUTCOME_LINES[o.outcome],
                tooltip=_tooltip(o),
                marker=_marker(o),
                highlighted=highlighted,
            )
        )
    return drawings


def tracking_legend(
    drawings: Sequence[BoxDrawing], detector_rgb: tuple[int, int, int]
) -> list[LegendEntry]:
    """The legend of ``drawings``: the two colours, then the meaning of each line drawn."""
    lines = {drawing.line for drawing in drawings}
    return [
        LegendEntry("ground truth", GROUND_TRUTH_RGB),
        LegendEntry("tracker", detector_rgb),
        *(
            LegendEntry(text, LINE_SAMPLE_RGB, line)
            for line, text in LINE_MEANINGS.items()
            if line in lines
        ),
    ]
