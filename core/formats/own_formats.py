"""MOTChallenge files as keyframed tracks and as Referee's own box and action files, for
conversions (docs/measures.md §10): :func:`tracks_from_rows` and :func:`rows_of_tracks`
turn a file's rows into :class:`~referee.core.model.tracks.Track` objects and back, and
the writers below put tracks, per-frame boxes, LIRIS actions and label maps in
Referee's formats (MOTChallenge CSV, LIRIS XML, CDnet ground-truth PNGs).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import numpy as np

from referee.core.errors import InputFileError, InvalidOptionError
from referee.core.formats.cdnet import list_folder, read_gt
from referee.core.formats.frame_files import LabelMapFrames, one_video, write_files
from referee.core.formats.gt_png import encode_ground_truth_png
from referee.core.formats.liris_xml_writer import format_liris
from referee.core.formats.mot_csv import MotRows, format_mot_csv, read_mot_csv
from referee.core.formats.text_files import keeping_existing, write_bytes
from referee.core.measures.boxes import VideoBoxes
from referee.core.model.annotations import AnnotationSet
from referee.core.model.tracks import Track

#: File names of a CDnet ground-truth folder, by frame number.
GT_PATTERN = "gt{:06d}.png"
_GT_NAME = re.compile(r"gt([0-9]{6})\.png")


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


def read_mot_tracks(path: str | Path) -> tuple[Track, ...]:
    """The tracks of a MOTChallenge file, every box a keyframe.

    Raises
    ------
    InputFileError
        What :func:`read_mot_csv` refuses, or an id given twice on one frame.
    """
    try:
        return tracks_from_rows(read_mot_csv(path))
    except InvalidOptionError as error:
        raise InputFileError(path, str(error)) from None


def write_mot_tracks(tracks: Iterable[Track], path: str | Path, force: bool = False) -> None:
    """Write ``tracks`` as a MOTChallenge file, atomically (an existing file only with
    ``force``); keyframe flags are not written: every row reads back as a keyframe."""
    _write(path, format_mot_csv(rows_of_tracks(tracks)).encode(), force)


def write_mot_boxes(videos: Sequence[VideoBoxes], path: str | Path, force: bool = False) -> None:
    """Write one video's per-frame boxes as a MOTChallenge file, atomically: each box's
    identity (−1 without one) and confidence (1 without one); labels are not written."""
    one_video(len(videos), "MOTChallenge")
    frames, ids, boxes, conf = [], [], [], []
    for number in sorted(videos[0].frames):
        found = videos[0].frames[number]
        count = len(found)
        frames.append(np.full(count, number, dtype=np.int64))
        ids.append(found.ids if found.ids is not None else np.full(count, -1, dtype=np.int64))
        boxes.append(found.boxes)
        conf.append(found.confidences if found.confidences is not None else np.ones(count))
    rows = MotRows(
        np.concatenate(frames or [np.zeros(0, dtype=np.int64)]),
        np.concatenate(ids or [np.zeros(0, dtype=np.int64)]),
        np.concatenate(boxes or [np.zeros((0, 4))]),
        np.concatenate(conf or [np.zeros(0)]),
        np.arange(sum(len(f) for f in frames), dtype=np.int64),
    )
    _write(path, format_mot_csv(rows).encode(), force)


def write_liris_actions(annotations: AnnotationSet, path: str | Path, force: bool = False) -> None:
    """Write LIRIS actions as one LIRIS XML file, atomically."""
    _write(path, format_liris(annotations), force)


def write_cdnet_label_maps(
    maps: Mapping[str, Mapping[int, np.ndarray]], path: str | Path, force: bool = False
) -> None:
    """Write one video's label maps as a CDnet ground-truth folder ``path`` of
    ``gt%06d.png`` files (levels 0, 50, 85, 170, 255), none written if one exists
    (without ``force``)."""
    one_video(len(maps), "CDnet ground-truth")
    (frames,) = maps.values()
    folder = Path(path)
    write_files(
        {folder / GT_PATTERN.format(n): encode_ground_truth_png(frames[n]) for n in frames},
        force,
    )


def is_cdnet_truth_folder(path: Path) -> bool:
    """Whether ``path`` is a folder holding CDnet ground-truth files ``gt%06d.png``."""
    return path.is_dir() and any(_GT_NAME.fullmatch(n) for n in list_folder(path))


def read_cdnet_label_maps(path: str | Path) -> dict[str, LabelMapFrames]:
    """A CDnet ground-truth folder's label maps, each read when looked up; the video is
    named after the folder above it (``<video>/groundtruth``), else the folder."""
    folder = Path(path)
    frames = {
        int(found.group(1)): folder / name
        for name in list_folder(folder)
        if (found := _GT_NAME.fullmatch(name))
    }
    name = folder.parent.name if folder.name == "groundtruth" else folder.name
    draw = {n: (lambda file=file, n=n: read_gt(file, n)) for n, file in sorted(frames.items())}
    return {name: LabelMapFrames(draw)}


def _write(path: str | Path, data: bytes, force: bool) -> None:
    with keeping_existing(not force):
        write_bytes(path, data)
