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

from referee.core.formats.mot_csv import parse_mot_csv, updated_mot_csv
from referee.core.formats.own_formats import rows_of_tracks, tracks_from_rows
from referee.core.formats.text_files import decode_text
from referee.core.model.tracks import Track


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
