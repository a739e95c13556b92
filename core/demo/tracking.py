"""A small multi-object tracker over binary foreground masks.

:func:`track_masks` turns a sequence of background-subtraction masks into
actions (docs/measures.md §4): per frame it cleans the mask (opening, then closing),
finds connected components above a minimum area, and links them to the
tracks of earlier frames greedily, best overlap first. A track that finds no
component for a few frames ends; short tracks are dropped; the frames a
track missed are filled by linear interpolation and flagged as interpolated.
Each track's class comes from a simple rule on its boxes (shape and
motion), so it can be wrong, as in a real detector.

The tracker has no notion of identity beyond overlap and distance: objects
that touch become one component, an object that splits (or is partly
absorbed into the background) becomes several, and noise that persists
becomes a track. Those are the mistakes it is meant to make.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from dataclasses import dataclass

import cv2
import numpy as np

from referee.core.errors import InvalidOptionError
from referee.core.model.annotations import ACTION_CLASSES, Action

Box = tuple[int, int, int, int]  # x, y, w, h in pixels


@dataclass(frozen=True)
class TrackerParams:
    """Parameters of :func:`track_masks`; sizes in pixels, durations in frames.

    Attributes
    ----------
    open_size, close_size
        Sides of the square kernels of the morphological opening (removes
        specks) and the closing that follows it (joins fragments of one
        object). 0 or 1 skips the step.
    min_area
        Components with fewer foreground pixels are ignored.
    max_distance
        A component whose box does not overlap a track's predicted box is
        linked to it only if their centres are at most this far apart.
    max_missed
        A track ends after this many consecutive frames without a component;
        a gap at most this long is bridged by interpolated boxes.
    min_length
        Tracks with fewer keyframes (frames with a component) are dropped.
    person_aspect
        A track whose median box height / width is at least this is a person.
    still_frames, still_radius
        A track is *still* if, over some ``still_frames`` consecutive
        frames, its box centre stays within ``still_radius`` pixels (in x and
        in y) of where it was at the first of them.
    still_class, person_class, vehicle_class
        LIRIS classes (1–10) given to still tracks, to other tall tracks and
        to all other tracks.
    """

    open_size: int = 3
    close_size: int = 5
    min_area: int = 30
    max_distance: float = 12.0
    max_missed: int = 3
    min_length: int = 8
    person_aspect: float = 1.2
    still_frames: int = 15
    still_radius: float = 2.0
    still_class: int = 7
    person_class: int = 4
    vehicle_class: int = 5

    def __post_init__(self) -> None:
        for name in ("open_size", "close_size", "min_area", "max_missed"):
            if getattr(self, name) < 0:
                raise InvalidOptionError(f"tracker {name} must be >= 0, not {getattr(self, name)}")
        for name in ("min_length", "still_frames"):
            if getattr(self, name) < 1:
                raise InvalidOptionError(f"tracker {name} must be >= 1, not {getattr(self, name)}")
        if self.max_distance < 0 or self.still_radius < 0 or self.person_aspect <= 0:
            raise InvalidOptionError("tracker distances and aspect ratio must be positive")
        for name in ("still_class", "person_class", "vehicle_class"):
            if getattr(self, name) not in ACTION_CLASSES:
                raise InvalidOptionError(
                    f"tracker {name} {getattr(self, name)} is not a LIRIS "
                    f"class (1–{max(ACTION_CLASSES)})"
                )


def track_masks(
    masks: Iterable[tuple[int, np.ndarray]], params: TrackerParams = TrackerParams()
) -> list[Action]:
    """Track the foreground blobs of a mask sequence; one action per kept track.

    Parameters
    ----------
    masks
        ``(frame number, mask)`` pairs in increasing frame order; any non-zero
        pixel is foreground. A frame number that skips counts the skipped
        frames as frames without any component.
    params
        Clean-up, linking and classification parameters.

    Returns
    -------
    list of Action
        Numbered 1, 2, … in order of first frame (then of creation). Every
        action has one box per frame from its first to its last keyframe;
        bridged frames are flagged interpolated. Boxes are ``x, y, w, h`` in
        pixels (docs/measures.md §4).

    Raises
    ------
    InvalidOptionError
        If frame numbers do not increase or a mask is not two-dimensional.
    """
    open_kernel = _kernel(params.open_size)
    close_kernel = _kernel(params.close_size)
    live: list[_Track] = []
    finished: list[_Track] = []
    previous: int | None = None
    serials = itertools.count()
    for frame, mask in masks:
        frame = int(frame)
        if previous is not None and frame <= previous:
            raise InvalidOptionError(f"mask frames must increase: frame {frame} after {previous}")
        previous = frame
        boxes = _components(mask, open_kernel, close_kernel, params.min_area, frame)
        matched_tracks, matched_boxes = _link(live, boxes, frame, params.max_distance)
        for track_index, box_index in zip(matched_tracks, matched_boxes):
            live[track_index].extend(frame, boxes[box_index])
        matched = set(matched_tracks)
        still_live = []
        for index, track in enumerate(live):
            if index in matched or frame - track.last_frame <= params.max_missed:
                still_live.append(track)
            else:
                finished.append(track)
        live = still_live
        taken = set(matched_boxes)
        live.extend(
            _Track.start(next(serials), frame, box) for i, box in enumerate(boxes) if i not in taken
        )
    finished.extend(live)
    kept = [track for track in finished if track.keyframes >= params.min_length]
    kept.sort(key=lambda track: (track.first_frame, track.serial))
    return [
        track.to_action(number, classify_track(track.boxes_array(), params))
        for number, track in enumerate(kept, start=1)
    ]


def classify_track(boxes: np.ndarray, params: TrackerParams = TrackerParams()) -> int:
    """LIRIS class of a track from its ``(n, 4)`` per-frame boxes ``x, y, w, h``.

    Still (see :class:`TrackerParams`) → ``still_class``; else median
    height / width ≥ ``person_aspect`` → ``person_class``; else
    ``vehicle_class``.
    """
    boxes = np.asarray(boxes, dtype=np.float64).reshape(-1, 4)
    centres = boxes[:, :2] + boxes[:, 2:] / 2.0
    window = params.still_frames
    for start in range(len(boxes) - window + 1):
        offsets = np.abs(centres[start : start + window] - centres[start])
        if np.all(offsets <= params.still_radius):
            return params.still_class
    aspect = float(np.median(boxes[:, 3] / np.maximum(boxes[:, 2], 1.0)))
    return params.person_class if aspect >= params.person_aspect else params.vehicle_class


def box_iou(a: Box, b: Box) -> float:
    """Intersection over union of two ``x, y, w, h`` boxes (half-open pixel ranges)."""
    iw = min(a[0] + a[2], b[0] + b[2]) - max(a[0], b[0])
    ih = min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1])
    if iw <= 0 or ih <= 0:
        return 0.0
    inter = iw * ih
    return inter / float(a[2] * a[3] + b[2] * b[3] - inter)


# --------------------------------------------------------------------------- internals


def _kernel(size: int) -> np.ndarray | None:
    return np.ones((size, size), np.uint8) if size > 1 else None


def _components(
    mask: np.ndarray,
    open_kernel: np.ndarray | None,
    close_kernel: np.ndarray | None,
    min_area: int,
    frame: int,
) -> list[Box]:
    """Boxes of the cleaned mask's 8-connected components with at least ``min_area`` pixels."""
    mask = np.asarray(mask)
    if mask.ndim != 2:
        raise InvalidOptionError(
            f"mask of frame {frame} must be two-dimensional, not of shape {mask.shape}"
        )
    binary = (mask != 0).astype(np.uint8)
    if open_kernel is not None:
        binary = cv2.morphologyEx(binary, cv2.MORPH_OPEN, open_kernel)
    if close_kernel is not None:
        binary = cv2.morphologyEx(binary, cv2.MORPH_CLOSE, close_kernel)
    count, _, stats, _ = cv2.connectedComponentsWithStats(binary, connectivity=8)
    return [
        (int(x), int(y), int(w), int(h)) for x, y, w, h, area in stats[1:count] if area >= min_area
    ]


def _link(
    tracks: list[_Track], boxes: list[Box], frame: int, max_distance: float
) -> tuple[list[int], list[int]]:
    """Greedy one-to-one linking: largest IoU with the predicted box first, then nearest centre."""
    candidates = []
    for t, track in enumerate(tracks):
        predicted = track.predict(frame)
        px, py = _centre(predicted)
        for b, box in enumerate(boxes):
            iou = box_iou(predicted, box)
            bx, by = _centre(box)
            distance = float(np.hypot(bx - px, by - py))
            if iou > 0 or distance <= max_distance:
                candidates.append((-iou, distance, t, b))
    candidates.sort()
    used_tracks: list[int] = []
    used_boxes: list[int] = []
    for _, _, t, b in candidates:
        if t not in used_tracks and b not in used_boxes:
            used_tracks.append(t)
            used_boxes.append(b)
    return used_tracks, used_boxes


def _centre(box: Box) -> tuple[float, float]:
    return box[0] + box[2] / 2.0, box[1] + box[3] / 2.0


@dataclass
class _Track:
    serial: int
    first_frame: int
    last_frame: int
    boxes: list[Box]
    interpolated: list[bool]
    velocity: tuple[float, float] = (0.0, 0.0)
    keyframes: int = 1

    @classmethod
    def start(cls, serial: int, frame: int, box: Box) -> _Track:
        return cls(serial, frame, frame, [box], [False])

    def predict(self, frame: int) -> Box:
        """The last box moved at the track's velocity up to ``frame``."""
        x, y, w, h = self.boxes[-1]
        steps = frame - self.last_frame
        return (round(x + self.velocity[0] * steps), round(y + self.velocity[1] * steps), w, h)

    def extend(self, frame: int, box: Box) -> None:
        """Add the keyframe ``box`` on ``frame``, interpolating the frames missed since the last."""
        last = self.boxes[-1]
        gap = frame - self.last_frame
        start, end = np.array(last, np.float64), np.array(box, np.float64)
        for step in range(1, gap):
            between = start + (end - start) * (step / gap)
            x, y, w, h = (int(v) for v in np.rint(between))
            self.boxes.append((x, y, w, h))
            self.interpolated.append(True)
        (lx, ly), (bx, by) = _centre(last), _centre(box)
        moved = ((bx - lx) / gap, (by - ly) / gap)
        self.velocity = (
            0.5 * self.velocity[0] + 0.5 * moved[0],
            0.5 * self.velocity[1] + 0.5 * moved[1],
        )
        self.boxes.append(box)
        self.interpolated.append(False)
        self.last_frame = frame
        self.keyframes += 1

    def boxes_array(self) -> np.ndarray:
        return np.array(self.boxes, dtype=np.int64).reshape(-1, 4)

    def to_action(self, number: int, action_class: int) -> Action:
        frames = np.arange(self.first_frame, self.last_frame + 1, dtype=np.int64)
        return Action(
            number,
            action_class,
            frames,
            self.boxes_array(),
            np.array(self.interpolated, dtype=bool),
        )
