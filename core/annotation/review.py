"""The annotator's decisions on a frame that are not saved yet (docs/measures.md §8).

A frame becomes ground truth in one of two ways: the annotator paints it by
hand, or starts it from a draft (a detector's mask, the consensus) or marks it
without an edit, and then accepts it. :class:`Review` is what the document keeps
per frame until it is saved; :func:`status_of` tells the :class:`FrameStatus`
the window shows (and the timeline colours) from it.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from referee.core.model.origins import Origin


class FrameStatus(enum.Enum):
    """What a frame's ground truth is, as the window shows it."""

    NONE = "no ground truth"
    GROUND_TRUTH = "ground truth"  # saved (possibly with unsaved hand edits)
    DRAFT = "draft"  # waits to be accepted; not saved
    ACCEPTED = "accepted"  # accepted or painted by hand; written by the next save
    UNMARKED = "unmarked"  # ground truth on disk, removed from the record by the next save

    @property
    def is_annotated(self) -> bool:
        """Whether the frame counts as annotated once the document is saved."""
        return self in (FrameStatus.GROUND_TRUTH, FrameStatus.ACCEPTED)


@dataclass(frozen=True)
class Review:
    """Unsaved decisions on one frame.

    Attributes
    ----------
    origin
        The draft the frame's label map was started from, or :data:`BLANK` when it
        was marked annotated without an edit; ``None``: only hand edits.
    accepted
        When the annotator accepted the draft (UTC, as
        :func:`~referee.core.model.origins.now_utc` writes it), or ``None``.
    unmarked
        The frame's ground truth on disk is to leave the annotated record.
    """

    origin: Origin | None = None
    accepted: str | None = None
    unmarked: bool = False


#: A frame without unsaved decisions.
UNTOUCHED = Review()


def status_of(review: Review, saved: bool, edited: bool) -> FrameStatus:
    """The status of a frame from its review, whether it is saved ground truth
    (``saved``) and whether its label map differs from the saved one (``edited``)."""
    if review.unmarked:
        return FrameStatus.UNMARKED
    if review.origin is not None:
        return FrameStatus.ACCEPTED if review.accepted is not None else FrameStatus.DRAFT
    if edited and not saved:
        return FrameStatus.ACCEPTED  # painted by hand: the annotator made it
    return FrameStatus.GROUND_TRUTH if saved else FrameStatus.NONE
