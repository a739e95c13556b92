"""MOTChallenge tracks: one id, one box per consecutive frame (docs/measures.md §5, §10).

A :class:`Track` is what the box editor edits of a MOTChallenge file: the rows
of one id over a run of consecutive frames, each box flagged as a keyframe or
as interpolated. A MOT id seen on frames with a gap becomes several tracks
with the same :attr:`Track.track_id`. Boxes are ``(x, y, w, h)`` in pixels:
the file's floats as read, whole pixels where the editor set or filled them
in (:mod:`referee.core.annotation.keyframes`). :func:`parse_tracks` reads a
file's bytes and :func:`updated_tracks` writes the tracks back over them,
keeping every row that did not change (docs/measures.md §10).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from referee.core.errors import InvalidOptionError
from referee.core.formats.mot_csv import MAX_ID, MotRows, parse_mot_csv, updated_mot_csv
from referee.core.formats.text_files import decode_text
from referee.core.limits import MAX_COORDINATE, MAX_FRAME_NUMBER
from referee.core.model.annotations import FrameSpan

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


def tracks_from_rows(rows: MotRows) -> tuple[Track, ...]:
    """The tracks of a MOTChallenge file's rows, every box a keyframe (docs/measures.md §10).

    One track per id per run of consecutive frames, ordered by id, then first
    frame.

    Raises
    ------
    InvalidOptionError
        An id given twice on one frame (the editor needs one box per id and frame).
    """
    order = np.lexsort((rows.frames, rows.ids))
    ids, frames = rows.ids[order], rows.frames[order]
    same_id = np.diff(ids) == 0
    repeated = np.flatnonzero(same_id & (np.diff(frames) == 0))
    if len(repeated):
        k = repeated[0]
        raise InvalidOptionError(
            f"id {ids[k]} appears twice on frame {frames[k]} (lines {rows.lines[order[k]]} and "
            f"{rows.lines[order[k + 1]]}); give each id at most one box per frame to edit tracks"
        )
    starts = np.flatnonzero(~(same_id & (np.diff(frames) == 1))) + 1
    return tuple(
        Track(int(ids[run[0]]), frames[run], rows.boxes[order[run]], conf=rows.conf[order[run]])
        for run in np.split(np.arange(len(order)), starts)
        if len(run)
    )


def rows_of_tracks(tracks: Iterable[Track]) -> MotRows:
    """MOTChallenge rows of ``tracks``, sorted by frame, then id (docs/measures.md §10).

    ``lines`` numbers the rows 0 to n−1. Keyframe flags are not rows' data and
    are dropped. Rows read by :func:`tracks_from_rows` come back identical when
    they were sorted by frame, then id.
    """
    tracks = tuple(tracks)
    frames = np.concatenate([t.frames for t in tracks] or [np.zeros(0, dtype=np.int64)])
    ids = np.concatenate(
        [np.full(len(t), t.track_id, dtype=np.int64) for t in tracks]
        or [np.zeros(0, dtype=np.int64)]
    )
    boxes = np.concatenate([t.boxes for t in tracks] or [np.zeros((0, 4))])
    conf = np.concatenate([t.conf for t in tracks] or [np.zeros(0)])
    order = np.lexsort((ids, frames))
    return MotRows(
        frames[order], ids[order], boxes[order], conf[order], np.arange(len(order), dtype=np.int64)
    )


def parse_tracks(data: bytes, path: str | Path = "<bytes>") -> tuple[Track, ...]:
    """The tracks of a MOTChallenge file's bytes (UTF-8, byte-order mark allowed);
    ``path`` only names it in errors.

    Raises
    ------
    InputFileError
        What :func:`~referee.core.formats.mot_csv.parse_mot_csv` refuses, or bytes
        that are not UTF-8 text.
    InvalidOptionError
        An id given twice on one frame (see :func:`tracks_from_rows`).
    """
    return tracks_from_rows(parse_mot_csv(decode_text(data, path), path))


def updated_tracks(
    original: bytes | None, tracks: Iterable[Track], path: str | Path = "<original>"
) -> bytes:
    """The MOTChallenge file ``original`` (its bytes as read, ``None`` for a new file)
    holding ``tracks`` instead (docs/measures.md §10).

    Rows known by ``(frame, id)`` whose box and confidence did not change come
    back as they were; see :func:`~referee.core.formats.mot_csv.updated_mot_csv`
    for the rest. :func:`parse_tracks` of the result gives ``tracks`` (keyframe
    flags aside: every row read is a keyframe).

    Raises
    ------
    InvalidOptionError
        Two tracks of one id on the same frame.
    InputFileError
        ``original`` is not a MOTChallenge file with one box per id and frame.
    """
    return updated_mot_csv(original, rows_of_tracks(tracks), path)
