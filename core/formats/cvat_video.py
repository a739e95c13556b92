"""CVAT for video 1.1 as Referee content: per-frame boxes, tracks, LIRIS actions
(docs/measures.md §10).

A track is on a frame from a shape that is not ``outside`` until its next
``outside`` shape; the frames a file does not write are CVAT's:

* between two shapes on frames ``f0 < f1``, boxes go linearly:
  ``v0 + (v1 − v0)·(f − f0)/(f1 − f0)`` for each of ``x, y, w, h``, unrounded;
* before an ``outside`` shape, and after a track's last shape up to the task's last
  frame (``<meta> <size>``, when given), the last box stays where it was;
* a mask stays as it was until the next mask (CVAT does not morph masks); a polygon
  track with a frame left out between two polygons is refused, as Referee does not
  morph polygons the way CVAT does (CVAT's exports write every frame).

Written shapes keep their ``keyframe`` flag; frames filled in are interpolated.
CVAT numbers frames from 0, Referee from 1 (CDnet, MOTChallenge): CVAT frame ``n``
is Referee frame ``n + first_frame``, ``first_frame`` 1 unless given (0 for LIRIS
files numbered from 0). A polygon's or mask's box is its bounding box. At most
:data:`~referee.core.limits.MAX_TRACK_BOXES` boxes are filled in, and at most
:data:`~referee.core.limits.MAX_BOXES_PER_FRAME` tracks may be on one frame.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from referee.core.errors import InputFileError, InvalidOptionError
from referee.core.formats.cvat_xml import VIDEO, CvatDocument, CvatTrack, read_cvat
from referee.core.limits import MAX_BOXES_PER_FRAME, MAX_FRAME_NUMBER, MAX_TRACK_BOXES
from referee.core.measures.boxes import VideoBoxes, boxes_from_rows
from referee.core.model.annotations import (
    ACTION_CLASSES,
    Action,
    AnnotationSet,
    VideoAnnotation,
    whole_pixels,
)
from referee.core.model.tracks import Track

#: Labels that name LIRIS classes, by code (``"DI"``) or description (``"discussion"``):
#: the map from labels to classes used when every label of a file is one of them.
LIRIS_LABELS: dict[str, int] = {
    name: number
    for number, (code, description) in ACTION_CLASSES.items()
    for name in (code, description)
}


@dataclass(frozen=True, eq=False)
class Appearance:
    """A track from one appearance to the frame before it leaves: a box per consecutive frame.

    Attributes
    ----------
    track
        The track.
    first
        Its first CVAT frame.
    boxes
        ``float64`` ``(n, 4)``: ``x, y, w, h`` on frames ``first … first + n − 1``.
    keyframes
        ``bool`` ``(n,)``: the frames the file writes as keyframes.
    shown
        ``int64`` ``(n,)``: the index in ``track.shapes`` of the shape each frame shows
        (its own, the one held, or the one interpolated from).
    """

    track: CvatTrack
    first: int
    boxes: np.ndarray
    keyframes: np.ndarray
    shown: np.ndarray

    @property
    def frames(self) -> np.ndarray:
        """Its CVAT frames."""
        return np.arange(self.first, self.first + len(self.boxes), dtype=np.int64)


def appearances(document: CvatDocument) -> list[Appearance]:
    """Every track's appearances, track by track in file order (see the module docstring).

    Raises
    ------
    InputFileError
        A polygon track with frames left out, more than ``MAX_TRACK_BOXES`` boxes, or
        more than ``MAX_BOXES_PER_FRAME`` tracks on one frame; naming the track.
    """
    found: list[Appearance] = []
    for track in document.tracks:
        held = sum(len(a.boxes) for a in found)
        found.extend(_track_appearances(track, document, MAX_TRACK_BOXES - held))
    frames = np.concatenate([a.frames for a in found] or [np.zeros(0, np.int64)])
    numbers, counts = np.unique(frames, return_counts=True)
    if len(counts) and np.max(counts) > MAX_BOXES_PER_FRAME:
        frame = int(numbers[np.argmax(counts)])
        over = [a for a in found if a.first <= frame < a.first + len(a.boxes)][MAX_BOXES_PER_FRAME]
        raise _track_error(
            document,
            over.track,
            f"frame {frame} has {np.max(counts):,} tracks on it, more than the "
            f"{MAX_BOXES_PER_FRAME:,} boxes Referee reads on one frame (MAX_BOXES_PER_FRAME)",
        )
    return found


def _track_appearances(track: CvatTrack, document: CvatDocument, room: int) -> list[Appearance]:
    """The appearances of one track, refused before they are made if they hold more than
    ``room`` boxes (what ``MAX_TRACK_BOXES`` leaves after the tracks before it)."""
    shapes = track.shapes
    runs: list[tuple[int, int]] = []  # (first shape, the outside one or the end) of each
    start: int | None = None
    for index, shape in enumerate(shapes):
        if shape.outside:
            if start is not None:
                runs.append((start, index))  # ends on the frame before the outside shape
            start = None
        elif start is None:
            start = index
    if start is not None:
        runs.append((start, len(shapes)))
    ends = [
        shapes[stop].frame - 1
        if stop < len(shapes)
        else max(shapes[-1].frame, (document.frame_count or 0) - 1)
        for _, stop in runs
    ]
    size = sum(end - shapes[first].frame + 1 for (first, _), end in zip(runs, ends))
    if size > room:
        raise _track_error(
            document,
            track,
            f"filled in between its shapes, the track has {size:,} boxes, which brings the "
            f"file's tracks beyond the {MAX_TRACK_BOXES:,} boxes Referee reads from one file "
            "(MAX_TRACK_BOXES)",
        )
    return [
        _appearance(track, first, stop, end, document) for (first, stop), end in zip(runs, ends)
    ]


def _appearance(
    track: CvatTrack, first: int, stop: int, end: int, document: CvatDocument
) -> Appearance:
    """The appearance of ``track.shapes[first:stop]`` (none outside), up to CVAT frame ``end``."""
    shapes = track.shapes
    start = shapes[first].frame
    n = end - start + 1
    boxes = np.zeros((n, 4))
    keyframes = np.zeros(n, dtype=bool)
    shown = np.zeros(n, dtype=np.int64)
    for index in range(first, stop):
        shape = shapes[index]
        row = shape.frame - start
        boxes[row], keyframes[row], shown[row] = shape.box, shape.keyframe, index
        following = shapes[index + 1].frame if index + 1 < stop else end + 1
        gap = following - shape.frame - 1
        if gap <= 0:
            continue
        rows = slice(row + 1, row + 1 + gap)
        shown[rows] = index
        if index + 1 == stop or shape.kind == "mask":  # held: before leaving, at the end, masks
            boxes[rows] = shape.box
        elif shape.kind == "polygon":
            raise _track_error(
                document,
                track,
                f"frames {shape.frame + 1}–{following - 1} between its polygons on frames "
                f"{shape.frame} and {following} are not written; Referee does not morph "
                "polygons as CVAT does: export the task from CVAT, which writes every frame",
            )
        else:
            step = np.arange(1, gap + 1, dtype=np.float64)[:, None] / (gap + 1)
            low, high = np.array(shape.box), np.array(shapes[index + 1].box)
            boxes[rows] = low + (high - low) * step
    return Appearance(track, start, boxes, keyframes, shown)


def _track_error(document: CvatDocument, track: CvatTrack, detail: str) -> InputFileError:
    return InputFileError(
        document.path, f'line {track.line}: <track id="{track.track_id}">: {detail}'
    )


def referee_frames(
    frames: np.ndarray, first_frame: int, lowest: int, document: CvatDocument, track: CvatTrack
) -> np.ndarray:
    """CVAT ``frames`` of ``track`` as Referee frames, checked to lie in
    ``lowest..MAX_FRAME_NUMBER``."""
    numbered = frames + first_frame
    if len(numbered) and (numbered[0] < lowest or numbered[-1] > MAX_FRAME_NUMBER):
        raise _track_error(
            document,
            track,
            f"CVAT frames {frames[0]}–{frames[-1]} are Referee frames {numbered[0]}–"
            f"{numbered[-1]} (first_frame={first_frame}), outside {lowest}..{MAX_FRAME_NUMBER:,}",
        )
    return numbered


# --------------------------------------------------------------------------- Referee content


def cvat_video_boxes(document: CvatDocument, first_frame: int = 1) -> VideoBoxes:
    """The per-frame boxes of a CVAT for video document: one video named
    :attr:`~CvatDocument.video_name`, each box with its track's id as identity and its
    label's place in ``<meta>`` (from 1) as label; within a frame, tracks in file order."""
    found = appearances(document)
    if not found:
        return VideoBoxes(document.video_name, {})
    numbers = {label: k for k, label in enumerate(document.labels, start=1)}
    return boxes_from_rows(
        document.video_name,
        np.concatenate(
            [referee_frames(a.frames, first_frame, 0, document, a.track) for a in found]
        ),
        np.concatenate([a.boxes for a in found]),
        np.concatenate([np.full(len(a.boxes), a.track.track_id) for a in found]),
        np.concatenate([np.full(len(a.boxes), numbers[a.track.label]) for a in found]),
    )


def cvat_tracks(document: CvatDocument, first_frame: int = 1) -> tuple[Track, ...]:
    """The tracks of a CVAT for video document: one :class:`~referee.core.model.tracks.Track`
    per appearance, with the CVAT track's id (an id that leaves and comes back is several
    tracks of one id, as in MOTChallenge), its written keyframes as keyframes and every
    other frame interpolated; sorted by id, then first frame. Labels, ``occluded`` and
    attributes are not kept (a track has none); every confidence is 1."""
    if first_frame < 1:
        raise InvalidOptionError(f"tracks number frames from 1; first_frame is {first_frame}")
    tracks = [
        Track(
            a.track.track_id,
            referee_frames(a.frames, first_frame, 1, document, a.track),
            a.boxes,
            ~a.keyframes,
        )
        for a in appearances(document)
    ]
    return tuple(sorted(tracks, key=lambda t: (t.track_id, t.first)))


def cvat_actions(
    document: CvatDocument, classes: Mapping[str, int] | None = None, first_frame: int = 1
) -> AnnotationSet:
    """The LIRIS actions of a CVAT for video document: one video, one action per appearance
    of a track (docs/measures.md §4).

    An action's class is its track's label through ``classes`` (label → LIRIS class
    1–10); without ``classes``, :data:`LIRIS_LABELS` when every label of the file's
    tracks is a LIRIS class's code or description. A track's first appearance is action
    ``id + 1`` (LIRIS numbers actions from 1), its later ones take the numbers after the
    largest. Boxes are rounded to whole pixels, halves up (docs/measures.md §10).

    Raises
    ------
    InputFileError
        Labels that are not LIRIS classes and no ``classes``; a track whose label is not
        in ``classes``; a box left of or above the image (LIRIS boxes lie at ``x, y ≥ 0``).
    InvalidOptionError
        A class of ``classes`` outside 1–10.
    """
    found = appearances(document)
    mapping = _liris_classes(document, classes)
    spare = max((t.track_id for t in document.tracks), default=-1) + 2
    numbered: set[int] = set()
    actions = []
    for appearance in found:
        track = appearance.track
        if track.label not in mapping:
            mapped = ", ".join(repr(label) for label in mapping) or "none"
            raise _track_error(
                document,
                track,
                f"its label {track.label!r} is not in the map of labels to LIRIS classes "
                f"(mapped: {mapped}); add it",
            )
        number = track.track_id + 1
        if number in numbered:
            number, spare = spare, spare + 1
        numbered.add(number)
        boxes = whole_pixels(appearance.boxes)
        if boxes.size and boxes.min() < 0:
            frame = int(appearance.frames[int(np.argmin(boxes.min(axis=1)))])
            raise _track_error(
                document,
                track,
                f"its box on frame {frame} lies left of or above the image; LIRIS boxes have "
                "x, y ≥ 0",
            )
        frames = referee_frames(appearance.frames, first_frame, 0, document, track)
        actions.append(
            Action(
                number, mapping[track.label], frames, boxes.astype(np.int64), ~appearance.keyframes
            )
        )
    return AnnotationSet.from_videos([VideoAnnotation(document.video_name, tuple(actions))])


def _liris_classes(document: CvatDocument, classes: Mapping[str, int] | None) -> dict[str, int]:
    if classes is not None:
        wrong = {label: c for label, c in classes.items() if c not in ACTION_CLASSES}
        if wrong:
            raise InvalidOptionError(
                f"LIRIS classes are 1–{max(ACTION_CLASSES)}; the map gives {wrong}"
            )
        return dict(classes)
    used = sorted({t.label for t in document.tracks if t.shapes} - set(LIRIS_LABELS))
    if used:
        raise InputFileError(
            document.path,
            f"labels {', '.join(map(repr, used))} are not LIRIS classes (DI, GI, … or their "
            "descriptions); give a map from labels to LIRIS classes 1–10 (classes=…)",
        )
    return LIRIS_LABELS


# --------------------------------------------------------------------------- reading files


def read_cvat_video_boxes(
    path: str | Path, min_conf: float | None = None, first_frame: int = 1
) -> list[VideoBoxes]:
    """The per-frame boxes of a CVAT for video file (:func:`cvat_video_boxes`); CVAT has no
    confidence, so ``min_conf`` keeps every box."""
    return [cvat_video_boxes(read_cvat(path, VIDEO), first_frame)]


def read_cvat_tracks(path: str | Path, first_frame: int = 1) -> tuple[Track, ...]:
    """The tracks of a CVAT for video file (:func:`cvat_tracks`)."""
    return cvat_tracks(read_cvat(path, VIDEO), first_frame)


def read_cvat_actions(
    path: str | Path, classes: Mapping[str, int] | None = None, first_frame: int = 1
) -> AnnotationSet:
    """The LIRIS actions of a CVAT for video file (:func:`cvat_actions`)."""
    return cvat_actions(read_cvat(path, VIDEO), classes, first_frame)
