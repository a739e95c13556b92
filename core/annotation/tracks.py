"""MOTChallenge files as tracks (docs/measures.md §5, §10).

A :class:`~referee.core.model.tracks.Track` is what the box editor edits of a
MOTChallenge file: the rows of one id over a run of consecutive frames, each
box flagged as a keyframe or as interpolated; its boxes are the file's floats
as read, whole pixels where the editor set or filled them in
(:mod:`referee.core.annotation.keyframes`). :func:`parse_tracks` reads a file's
bytes and :func:`updated_tracks` writes the tracks back over them, keeping
every row that did not change (docs/measures.md §10).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import numpy as np

from referee.core.errors import InvalidOptionError
from referee.core.formats.mot_csv import MotRows, parse_mot_csv, updated_mot_csv
from referee.core.formats.text_files import decode_text
from referee.core.model.tracks import Track


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
