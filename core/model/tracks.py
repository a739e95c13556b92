"""MOTChallenge tracks: one id, one box per consecutive frame (docs/measures.md §5, §10).

A :class:`Track` is the rows of one MOTChallenge id over a run of consecutive
frames, each box flagged as a keyframe or as interpolated: what the box editor
edits (:mod:`referee.core.annotation.keyframes`) and what track formats read
and write (MOTChallenge, CVAT for video). A MOT id seen on frames with a gap
becomes several tracks with the same :attr:`Track.track_id`. Boxes are
``(x, y, w, h)`` in pixels.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from referee.core.errors import InvalidOptionError
from referee.core.limits import MAX_COORDINATE, MAX_FRAME_NUMBER
from referee.core.model.annotations import FrameSpan

#: Largest id in absolute value: ids up to 2**53 are exact after reading as a decimal.
MAX_ID = 2**53

_DEFAULT: np.ndarray = np.zeros(0)
"""Default of :attr:`Track.interpolated` and :attr:`Track.conf`, told apart by identity."""


@dataclass(frozen=True, eq=False)
class Track(FrameSpan):
    """The boxes of one MOTChallenge id over consecutive frames (docs/measures.md §5).

    Attributes
    ----------
    track_id
        The MOTChallenge id, a whole number up to 2**53 in size.
    frames
        ``int64`` frame numbers, strictly consecutive, from 1 to
        :data:`~referee.core.limits.MAX_FRAME_NUMBER` (MOTChallenge frames are 1-based).
    boxes
        ``float64`` ``(n, 4)``: ``x, y, w, h`` in pixels, row k for ``frames[k]``;
        ``w, h ≥ 0`` and every value at most
        :data:`~referee.core.limits.MAX_COORDINATE` in absolute value.
    interpolated
        ``bool`` ``(n,)``: True where the box was interpolated, False for keyframes.
        Omitted: every box is a keyframe.
    conf
        ``float64`` ``(n,)``: the confidence column (MOTChallenge ground truth: 0 for
        a box not to be considered). Omitted: all 1.0.
    """

    track_id: int
    frames: np.ndarray
    boxes: np.ndarray
    interpolated: np.ndarray = field(default_factory=lambda: _DEFAULT)
    conf: np.ndarray = field(default_factory=lambda: _DEFAULT)

    def __post_init__(self) -> None:
        frames = np.asarray(self.frames, dtype=np.int64).reshape(-1)
        boxes = np.asarray(self.boxes, dtype=np.float64).reshape(-1, 4)
        n = len(frames)
        flags = (
            np.zeros(n, dtype=bool)
            if self.interpolated is _DEFAULT
            else np.asarray(self.interpolated, dtype=bool).reshape(-1)
        )
        conf = (
            np.ones(n, dtype=np.float64)
            if self.conf is _DEFAULT
            else np.asarray(self.conf, dtype=np.float64).reshape(-1)
        )
        what = f"track {self.track_id}"
        if abs(self.track_id) > MAX_ID:
            raise InvalidOptionError(f"{what}: ids are whole numbers up to 2**53 in size")
        if n == 0:
            raise InvalidOptionError(f"{what} has no box")
        if len(boxes) != n or len(flags) != n or len(conf) != n:
            raise InvalidOptionError(
                f"{what}: {n} frames but {len(boxes)} boxes, {len(flags)} keyframe flags "
                f"and {len(conf)} confidences"
            )
        if np.any(np.diff(frames) != 1):
            raise InvalidOptionError(f"{what}: frames must be consecutive and unique")
        if frames[0] < 1 or frames[-1] > MAX_FRAME_NUMBER:
            raise InvalidOptionError(
                f"{what}: frame numbers run from 1 to {MAX_FRAME_NUMBER:,}, not "
                f"{frames[0]}–{frames[-1]}"
            )
        if not (np.all(np.isfinite(boxes)) and np.all(np.isfinite(conf))):
            raise InvalidOptionError(f"{what}: boxes and confidences must be finite numbers")
        if np.any(boxes[:, 2:] < 0):
            raise InvalidOptionError(f"{what}: box width and height cannot be negative")
        if np.any(np.abs(boxes) > MAX_COORDINATE):
            raise InvalidOptionError(
                f"{what}: box coordinates and sizes are at most {MAX_COORDINATE:,} pixels "
                "in absolute value"
            )
        for name, value in (
            ("frames", frames),
            ("boxes", boxes),
            ("interpolated", flags),
            ("conf", conf),
        ):
            value.setflags(write=False)
            object.__setattr__(self, name, value)

    def same_as(self, other: Track) -> bool:
        """Equal id, frames, boxes, keyframe flags and confidences."""
        return (
            self.track_id == other.track_id
            and np.array_equal(self.frames, other.frames)
            and np.array_equal(self.boxes, other.boxes)
            and np.array_equal(self.interpolated, other.interpolated)
            and np.array_equal(self.conf, other.conf)
        )
