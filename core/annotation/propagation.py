"""Propagating a box to the next frames with an OpenCV tracker (docs/measures.md §5).

The annotator draws a box on one frame; a tracker (CSRT, KCF or MIL of
OpenCV's contrib modules) follows it over the next frames and proposes one box
per frame, which the editor shows as drafts until they are accepted as
keyframes. Boxes are ``(x, y, w, h)`` in whole pixels with half-open extents
(docs/measures.md §4, §5).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from referee.core.errors import InvalidOptionError
from referee.core.progress import CancelToken, ProgressCallback, check, report

#: The trackers :func:`propagate_box` can use, by name.
TRACKERS: tuple[str, ...] = ("csrt", "kcf", "mil")
#: The smallest width and height of a box to propagate, in pixels: OpenCV's MIL tracker
#: never returns from its start on smaller boxes, and CSRT fails on 1-pixel sides.
MIN_BOX_SIDE = 6

_CREATE: dict[str, Callable[[], cv2.Tracker]] = {
    "csrt": cv2.TrackerCSRT.create,
    "kcf": cv2.TrackerKCF.create,
    "mil": cv2.TrackerMIL.create,
}

PixelBox = tuple[int, int, int, int]


@dataclass(frozen=True)
class Propagation:
    """The boxes a tracker proposed.

    Attributes
    ----------
    boxes
        Frame → ``(x, y, w, h)`` in whole pixels, clipped to the image, for every
        frame tracked (the start frame excluded).
    lost_at
        The first frame where the tracker lost the object (it reported a failure
        or its box left the image), which has no box; ``None`` if it never did.
    tracker
        The tracker's name, one of :data:`TRACKERS`.
    seconds
        Wall-clock time taken, frame reading included.
    """

    boxes: dict[int, PixelBox]
    lost_at: int | None
    tracker: str
    seconds: float


def propagate_box(
    read_frame: Callable[[int], np.ndarray],
    start: int,
    box: Sequence[float],
    count: int,
    last_frame: int,
    tracker: str = "csrt",
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> Propagation:
    """Follow ``box`` from frame ``start`` over frames ``start + 1 … min(start + count, last_frame)``.

    Stops at the first frame where the tracker loses the object.

    Parameters
    ----------
    read_frame
        Frame number → image, grey ``uint8 (h, w)`` or BGR ``uint8 (h, w, 3)``;
        grey frames are given to the tracker as BGR.
    start
        The frame where ``box`` was drawn.
    box
        ``(x, y, w, h)`` in pixels on frame ``start``; decimals are rounded to the
        nearest pixel (halves up) and the box is clipped to the image.
    count
        How many frames to track at most (0: none).
    last_frame
        The video's last frame; tracking never goes beyond it.
    tracker
        One of :data:`TRACKERS`.
    progress, cancel
        ``progress(done, total)`` after each frame; ``cancel`` is checked before
        each frame.

    Raises
    ------
    InvalidOptionError
        An unknown tracker, a negative ``count``, ``start`` after ``last_frame``,
        a box smaller than :data:`MIN_BOX_SIDE` pixels on a side once clipped, or
        a frame that is not an 8-bit grey or BGR image of the start frame's size.
    CancelledError
        ``cancel`` was set.
    """
    began = time.perf_counter()
    if tracker not in _CREATE:
        raise InvalidOptionError(
            f"unknown tracker {tracker!r}; choose one of {', '.join(TRACKERS)}"
        )
    if count < 0:
        raise InvalidOptionError(f"cannot track {count} frames; give 0 or more")
    if start > last_frame:
        raise InvalidOptionError(f"start frame {start} is after the last frame, {last_frame}")
    stop = min(start + count, last_frame)
    if stop == start:
        return Propagation({}, None, tracker, time.perf_counter() - began)
    values = [float(v) for v in box]
    if len(values) != 4 or not all(math.isfinite(v) for v in values):
        raise InvalidOptionError(f"a box is four finite numbers (x, y, w, h), not {tuple(box)}")
    image = _bgr(read_frame(start), start, None)
    initial = _clipped(values, image.shape)
    if initial is None or min(initial[2:]) < MIN_BOX_SIDE:
        raise InvalidOptionError(
            f"the box {tuple(box)} on frame {start} is too small to track: it needs at least "
            f"{MIN_BOX_SIDE}×{MIN_BOX_SIDE} pixels inside the image"
        )
    following = _CREATE[tracker]()
    following.init(image, initial)
    boxes: dict[int, PixelBox] = {}
    for done, frame in enumerate(range(start + 1, stop + 1), start=1):
        check(cancel)
        found, found_box = following.update(_bgr(read_frame(frame), frame, image.shape))
        kept = _clipped(found_box, image.shape) if found else None
        if kept is None:
            return Propagation(boxes, frame, tracker, time.perf_counter() - began)
        boxes[frame] = kept
        report(progress, done, stop - start)
    return Propagation(boxes, None, tracker, time.perf_counter() - began)


def _bgr(image: np.ndarray, frame: int, shape: tuple[int, ...] | None) -> np.ndarray:
    """``image`` as BGR ``uint8``, checked against the start frame's ``shape``."""
    if image.dtype != np.uint8 or not (
        image.ndim == 2 or (image.ndim == 3 and image.shape[2] == 3)
    ):
        raise InvalidOptionError(
            f"frame {frame} is a {image.dtype} image of shape {image.shape}; the trackers "
            "need 8-bit grey (h, w) or BGR (h, w, 3) frames"
        )
    bgr = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR) if image.ndim == 2 else image
    if shape is not None and bgr.shape != shape:
        raise InvalidOptionError(
            f"frame {frame} is {bgr.shape[1]}×{bgr.shape[0]} pixels but the start frame is "
            f"{shape[1]}×{shape[0]}; every frame must have the same size"
        )
    return bgr


def _clipped(box: Sequence[float], shape: tuple[int, ...]) -> PixelBox | None:
    """``box`` in whole pixels (halves up), clipped to an image of ``shape``; ``None`` if empty."""
    x, y, w, h = (float(v) for v in box)
    height, width = shape[:2]
    left, right = (min(max(math.floor(v + 0.5), 0), width) for v in (x, x + w))
    top, bottom = (min(max(math.floor(v + 0.5), 0), height) for v in (y, y + h))
    if right <= left or bottom <= top:
        return None
    return (left, top, right - left, bottom - top)
