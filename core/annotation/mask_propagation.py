"""Propagating an accepted label map over the next or previous frames (docs/measures.md §1).

From one frame's CDnet label map and the video's frames, each of the next
``count`` frames (or the previous ones, going backward) gets a *draft* label
map, which the annotator corrects and accepts (§8); a draft is never saved.

* **Flow.** Dense optical flow between each pair of consecutive frames in the
  direction of travel: Farnebäck's (``cv2.calcOpticalFlowFarneback``) or DIS
  (``cv2.DISOpticalFlow``, OpenCV's medium preset).
* **Warp** ``objects`` (default). An *object* is an 8-connected region of the
  start map's pixels that are neither static (0) nor outside the ROI (85): a
  car with its shadow and its rim of unknown motion. On each frame the flow
  at the object's pixels is fitted by one similarity (translation, rotation,
  uniform scale; least median of squares) on its core, the pixels whose 5×5
  neighbourhood is all object (the flow is blurred across the object's edge);
  on all its pixels when the core has fewer than :data:`MIN_FIT_PIXELS`. With
  fewer than that, the object moves by the median of its pixels' flow. The
  fits are composed from the start frame and the object's levels drawn
  through the composition (nearest neighbour) on a static frame; where
  objects overlap the higher level wins (motion over unknown over shadow).
* **Warp** ``pixels``. Every pixel is followed through the flows chained back
  to the start frame (bilinear, so that sub-pixel motion adds up instead of
  being rounded away on each frame) and takes the start map's level there
  (nearest neighbour).
* **Region of interest.** Pixels at 85 on the start map stay at 85 on every
  draft: the ROI is the camera's, not the scene's. A pixel inside it that the
  warp brings from outside it is static.
* **Snapping** (optional). Where the detectors agree, the draft follows
  them: a static pixel becomes motion where the share of detectors firing is
  at least ``snap_motion``, a motion pixel static where it is at most
  ``snap_static``; shadow, unknown and outside-ROI pixels are left alone.

``benchmarks/mask_propagation.py`` chose the defaults on CDnet's highway
(README, "Performance"): Farnebäck, objects, no snapping.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import cast

import cv2
import numpy as np

from referee.core.annotation.label_maps import LEVELS, check_label
from referee.core.errors import InvalidOptionError
from referee.core.measures.pixel import (
    GT_LEVEL_NAMES,
    GT_MOTION,
    GT_OUTSIDE,
    GT_STATIC,
)
from referee.core.progress import CancelToken, ProgressCallback, check, report

#: The optical flows :func:`propagate_mask` can use, by name.
METHODS: tuple[str, ...] = ("farneback", "dis")
#: How :func:`propagate_mask` moves the label map, by name.
WARPS: tuple[str, ...] = ("objects", "pixels")
#: The directions :func:`propagate_mask` can go in, by name.
DIRECTIONS: tuple[str, ...] = ("forward", "backward")

#: The fewest pixels a similarity is fitted on; a smaller object moves by their median flow.
MIN_FIT_PIXELS = 8

# Farnebäck's parameters: pyramid scale 0.5, 3 levels, a 9-pixel window (15 blurs the flow
# over ~7 pixels across an object's edge; 9 is as good on highway and exact on a moving
# square), 3 iterations, polynomials over 5 pixels with OpenCV's recommended σ 1.1.
_FARNEBACK = (0.5, 3, 9, 3, 5, 1.1, 0)
# An object's core: its pixels whose 5×5 neighbourhood is all of it. Its flow is fitted there,
# away from the edge across which the flow is blurred (fitting on every pixel lags 1 pixel in
# 5 frames on the tests' moving square; highway is the same or better).
_CORE = np.ones((5, 5), np.uint8)
# OpenCV's stubs want an array for the flow computed; None asks OpenCV for a new one (DIS
# would take an array of the right size as its first guess).
_NEW_FLOW = cast(np.ndarray, None)
_VALID_LEVELS = np.isin(np.arange(256), LEVELS)

Flow = Callable[[np.ndarray, np.ndarray], np.ndarray]
"""``flow(a, b)``: per pixel of frame ``a``, its offset ``(dx, dy)`` to where it is on ``b``."""


@dataclass(frozen=True)
class MaskPropagationOptions:
    """How a label map is propagated (docs/measures.md §1; the module docstring).

    Attributes
    ----------
    method
        The optical flow, one of :data:`METHODS`: ``farneback`` or ``dis``
        (faster, less accurate over several frames).
    warp
        How the label map follows the flow, one of :data:`WARPS`: ``objects``
        (each region of non-static levels moved as a whole) or ``pixels``.
    snap
        Snap each draft to the detectors' consensus where they agree (needs a
        consensus, see :func:`propagate_mask`).
    snap_motion
        A static pixel becomes motion where the share of detectors firing is at
        least this, in (0, 1] (0.8: all of four detectors, four of five).
    snap_static
        A motion pixel becomes static where that share is at most this, in
        [0, ``snap_motion``) (0.2: none of four detectors, one of five).
    """

    method: str = "farneback"
    warp: str = "objects"
    snap: bool = False
    snap_motion: float = 0.8
    snap_static: float = 0.2

    def __post_init__(self) -> None:
        if self.method not in METHODS:
            raise InvalidOptionError(
                f"unknown optical flow {self.method!r}; choose one of {', '.join(METHODS)}"
            )
        if self.warp not in WARPS:
            raise InvalidOptionError(
                f"unknown warp {self.warp!r}; choose one of {', '.join(WARPS)}"
            )
        if not (0 < self.snap_motion <= 1 and 0 <= self.snap_static < self.snap_motion):
            raise InvalidOptionError(
                f"the snapping shares must satisfy 0 <= static < motion <= 1, not static "
                f"{self.snap_static!r} and motion {self.snap_motion!r}"
            )


@dataclass(frozen=True)
class MaskPropagation:
    """The draft label maps a propagation proposed.

    Attributes
    ----------
    drafts
        Frame → label map (``uint8``, CDnet levels), in the order drafted (the
        start frame excluded).
    options
        The options used.
    seconds
        Wall-clock time taken, frame reading included.
    """

    drafts: dict[int, np.ndarray]
    options: MaskPropagationOptions
    seconds: float


def propagate_mask(
    label: np.ndarray,
    read_frame: Callable[[int], np.ndarray],
    start: int,
    direction: str,
    count: int,
    frames: range,
    options: MaskPropagationOptions | None = None,
    consensus: Callable[[int], np.ndarray] | None = None,
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> MaskPropagation:
    """Draft the label maps of the ``count`` frames after (or before) ``start`` from ``label``.

    Parameters
    ----------
    label
        Frame ``start``'s label map: ``uint8`` ``(h, w)`` holding only CDnet's levels.
    read_frame
        Frame number → image, grey ``uint8 (h, w)`` or BGR ``uint8 (h, w, 3)``.
    start
        The frame ``label`` belongs to, one of ``frames``.
    direction
        ``forward`` (frames ``start + 1, start + 2 …``) or ``backward``
        (``start − 1, start − 2 …``).
    count
        How many frames to draft at most (0: none); propagation stops at the
        end of ``frames``.
    frames
        The video's frames (``VideoSpec.frames``).
    options
        Method and snapping (default :class:`MaskPropagationOptions`).
    consensus
        Frame number → share of detectors firing on each pixel, in [0, 1] (the
        consensus of §7); needed only when ``options.snap``.
    progress, cancel
        ``progress(done, total)`` after each frame; ``cancel`` is checked before
        each frame.

    Raises
    ------
    InvalidOptionError
        An unknown direction, a negative ``count``, ``start`` outside ``frames``,
        a label map that is not 2-D ``uint8`` with CDnet's levels only, a frame
        or consensus of another size than the label map, or snapping without a
        consensus.
    CancelledError
        ``cancel`` was set.
    """
    began = time.perf_counter()
    options = options or MaskPropagationOptions()
    if direction not in DIRECTIONS:
        raise InvalidOptionError(
            f"unknown direction {direction!r}; choose one of {', '.join(DIRECTIONS)}"
        )
    if count < 0:
        raise InvalidOptionError(f"cannot propagate over {count} frames; give 0 or more")
    if start not in frames:
        raise InvalidOptionError(
            f"frame {start} is not a frame of the video ({frames.start}–{frames.stop - 1})"
        )
    if options.snap and consensus is None:
        raise InvalidOptionError(
            "snapping to the consensus needs the detectors' consensus: give it, or turn "
            "snapping off"
        )
    _check_label_map(label)
    step = 1 if direction == "forward" else -1
    last = min(start + count, frames[-1]) if step == 1 else max(start - count, frames[0])
    targets = range(start + step, last + step, step)
    drafts: dict[int, np.ndarray] = {}
    chain = _CHAINS[options.warp](_flow_function(options.method), label)
    outside = label == GT_OUTSIDE
    previous = _grey(read_frame(start), start, label.shape)
    for done, frame in enumerate(targets, start=1):
        check(cancel)
        current = _grey(read_frame(frame), frame, label.shape)
        draft = chain.advance(previous, current)
        draft[draft == GT_OUTSIDE] = GT_STATIC
        draft[outside] = GT_OUTSIDE
        if options.snap and consensus is not None:
            _snap(draft, _share(consensus(frame), frame, label.shape), options)
        drafts[frame] = draft
        previous = current
        report(progress, done, len(targets))
    return MaskPropagation(drafts, options, time.perf_counter() - began)


class _PixelChain:
    """The start label map read through the chained flows, pixel by pixel."""

    def __init__(self, flow: Flow, label: np.ndarray) -> None:
        self._flow, self._label = flow, label
        height, width = label.shape
        self._x, self._y = np.meshgrid(
            np.arange(width, dtype=np.float32), np.arange(height, dtype=np.float32)
        )
        self._source_x, self._source_y = self._x, self._y

    def advance(self, previous: np.ndarray, current: np.ndarray) -> np.ndarray:
        """The draft of ``current``, the frame after ``previous`` in the direction of travel."""
        back = self._flow(current, previous)
        there_x, there_y = self._x + back[..., 0], self._y + back[..., 1]
        self._source_x, self._source_y = (
            _remap(source, there_x, there_y, cv2.INTER_LINEAR)
            for source in (self._source_x, self._source_y)
        )
        return _remap(self._label, self._source_x, self._source_y, cv2.INTER_NEAREST)


def _remap(image: np.ndarray, x: np.ndarray, y: np.ndarray, interpolation: int) -> np.ndarray:
    """``image`` read at ``(x, y)``, positions outside it clamped to its edge."""
    return np.asarray(cv2.remap(image, x, y, interpolation, borderMode=cv2.BORDER_REPLICATE))


@dataclass
class _Object:
    """One object of the start map: its levels in its bounding box, where that box's corner
    is, its pixels ``(x, y)`` on the start frame, and the similarity (3×3) moving them since."""

    levels: np.ndarray
    corner: tuple[int, int]
    pixels: np.ndarray
    move: np.ndarray


class _ObjectChain:
    """The start map's objects, each moved by the similarity its pixels' flow fits best."""

    def __init__(self, flow: Flow, label: np.ndarray) -> None:
        self._flow, self._shape = flow, label.shape
        found = ((label != GT_STATIC) & (label != GT_OUTSIDE)).astype(np.uint8)
        count, objects, boxes, _ = cv2.connectedComponentsWithStats(found, connectivity=8)
        self._objects: list[_Object] = []
        for index in range(1, count):
            x, y, w, h = (int(v) for v in boxes[index, :4])
            inside = objects[y : y + h, x : x + w] == index
            levels = np.where(inside, label[y : y + h, x : x + w], np.uint8(GT_STATIC))
            core = cv2.erode(np.pad(inside.astype(np.uint8), 1), _CORE)[1:-1, 1:-1] > 0
            fitted = core if np.count_nonzero(core) >= MIN_FIT_PIXELS else inside
            pixels = (np.argwhere(fitted)[:, ::-1] + (x, y)).astype(np.float64)
            self._objects.append(_Object(levels, (x, y), pixels, np.eye(3)))

    def advance(self, previous: np.ndarray, current: np.ndarray) -> np.ndarray:
        """The draft of ``current``, the frame after ``previous`` in the direction of travel."""
        flow = self._flow(previous, current)
        draft = np.zeros(self._shape, np.uint8)
        for found in self._objects:
            here = found.pixels @ found.move[:2, :2].T + found.move[:2, 2]
            found.move = _fitted_step(flow, here) @ found.move
            _draw(draft, found)
        return draft


def _fitted_step(flow: np.ndarray, here: np.ndarray) -> np.ndarray:
    """The similarity (3×3) that ``flow`` fits best at the points ``here`` (``(x, y)`` rows)."""
    height, width = flow.shape[:2]
    x, y = np.rint(here[:, 0]).astype(np.intp), np.rint(here[:, 1]).astype(np.intp)
    seen = (x >= 0) & (x < width) & (y >= 0) & (y < height)
    step = np.eye(3)
    if not seen.any():
        return step
    points = np.column_stack([x[seen], y[seen]]).astype(np.float32)
    offsets = flow[y[seen], x[seen]]
    fitted = None
    if len(points) >= MIN_FIT_PIXELS:
        fitted, _ = cv2.estimateAffinePartial2D(points, points + offsets, method=cv2.LMEDS)
    if fitted is None:
        step[:2, 2] = np.median(offsets, axis=0)
    else:
        step[:2] = fitted
    return step


def _draw(draft: np.ndarray, found: _Object) -> None:
    """Draw ``found``'s levels moved by its similarity on ``draft``, the higher level winning."""
    height, width = found.levels.shape
    to_image = found.move @ _translation(*found.corner)
    corners = np.array([[0, 0, 1], [width, 0, 1], [0, height, 1], [width, height, 1]]).T
    xs, ys = (to_image @ corners)[:2]
    x0, y0 = max(int(np.floor(xs.min())), 0), max(int(np.floor(ys.min())), 0)
    x1, y1 = (
        min(int(np.ceil(xs.max())) + 1, draft.shape[1]),
        min(int(np.ceil(ys.max())) + 1, draft.shape[0]),
    )
    if x1 <= x0 or y1 <= y0:
        return
    to_window = (_translation(-x0, -y0) @ to_image)[:2]
    placed = cv2.warpAffine(found.levels, to_window, (x1 - x0, y1 - y0), flags=cv2.INTER_NEAREST)
    window = draft[y0:y1, x0:x1]
    np.maximum(window, placed, out=window)


def _translation(dx: float, dy: float) -> np.ndarray:
    return np.array([[1.0, 0.0, dx], [0.0, 1.0, dy], [0.0, 0.0, 1.0]])


_CHAINS: dict[str, type[_PixelChain] | type[_ObjectChain]] = {
    "objects": _ObjectChain,
    "pixels": _PixelChain,
}


def _flow_function(method: str) -> Flow:
    """The dense optical flow called ``method`` (one of :data:`METHODS`)."""
    if method == "dis":
        dis = cv2.DISOpticalFlow.create(cv2.DISOpticalFlow_PRESET_MEDIUM)
        return lambda a, b: np.asarray(dis.calc(a, b, _NEW_FLOW))
    return lambda a, b: np.asarray(cv2.calcOpticalFlowFarneback(a, b, _NEW_FLOW, *_FARNEBACK))


def _snap(draft: np.ndarray, share: np.ndarray, options: MaskPropagationOptions) -> None:
    """Snap ``draft`` in place to the consensus where the detectors agree."""
    motion, static = draft == GT_MOTION, draft == GT_STATIC
    draft[motion & (share <= options.snap_static)] = GT_STATIC
    draft[static & (share >= options.snap_motion)] = GT_MOTION


def _check_label_map(label: np.ndarray) -> None:
    check_label(label)
    stray = np.unique(label[~_VALID_LEVELS[label]])
    if stray.size:
        names = ", ".join(f"{value} ({name})" for value, name in GT_LEVEL_NAMES.items())
        raise InvalidOptionError(
            f"the label map holds values that are not ground-truth levels "
            f"({', '.join(str(v) for v in stray[:5])}{', …' if stray.size > 5 else ''}); "
            f"a label map holds only {names} (docs/measures.md §1)"
        )


def _grey(image: np.ndarray, frame: int, shape: tuple[int, ...]) -> np.ndarray:
    """Frame ``frame`` as grey ``uint8``, checked to be the label map's size."""
    if (
        not isinstance(image, np.ndarray)
        or image.dtype != np.uint8
        or not (image.ndim == 2 or (image.ndim == 3 and image.shape[2] == 3))
    ):
        found = (
            f"a {image.dtype} image of shape {image.shape}"
            if isinstance(image, np.ndarray)
            else type(image).__name__
        )
        raise InvalidOptionError(
            f"frame {frame} is {found}; optical flow needs 8-bit grey (h, w) or BGR "
            "(h, w, 3) frames"
        )
    if image.shape[:2] != shape:
        raise InvalidOptionError(
            f"frame {frame} is {image.shape[1]}×{image.shape[0]} pixels but the label map is "
            f"{shape[1]}×{shape[0]}; frames and label map must have the same size"
        )
    # cvtColor copies; DIS needs a contiguous image, which a view into a larger one is not.
    return (
        cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else np.ascontiguousarray(image)
    )


def _share(share: np.ndarray, frame: int, shape: tuple[int, ...]) -> np.ndarray:
    """The consensus of ``frame``, checked to be the label map's size."""
    values = np.asarray(share)
    if values.shape != shape:
        raise InvalidOptionError(
            f"the consensus of frame {frame} has shape {values.shape} but the label map is "
            f"{shape[1]}×{shape[0]}; they must have the same size"
        )
    return values
