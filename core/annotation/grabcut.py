"""A mask drafted from a box by GrabCut (docs/measures.md §1).

The annotator draws a box around an object; :func:`grabcut_draft` separates the object
from its surroundings with OpenCV's GrabCut (Rother, Kolmogorov and Blake, 2004) and
paints the box of the label map: motion where GrabCut finds the object, static elsewhere
in the box; pixels outside the ROI stay outside. Like the edits of
:mod:`~referee.core.annotation.label_maps`, it changes the label map in place and
returns the :class:`~referee.core.annotation.label_maps.MaskPatch` of the box, for undo.

GrabCut learns two colour models, the object's from the box and the background's from a
margin around it, and cuts the box where they meet. Where the detectors' consensus is
known it starts the object's model from the pixels most detectors call moving and the
background's from the others, so that a box holding a moving object beside a still one
keeps only the moving one. Without a consensus, the centre of the box is the object for
sure (:data:`CORE_SHARE`): from the box alone, GrabCut loses small low-contrast objects
altogether, such as the dark cars of CDnet's 320×240 highway, whose colours the road's
margin also holds (``benchmarks/grabcut_boxes.py`` measures both).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import cv2
import numpy as np

from referee.core.annotation.label_maps import MaskPatch, Rect
from referee.core.errors import InvalidOptionError
from referee.core.formats.polygons import centres_rect
from referee.core.measures.pixel import GT_MOTION, GT_OUTSIDE, GT_STATIC

#: Rounds of GrabCut (colour models learnt again, then the cut again).
GRABCUT_ITERATIONS = 5
#: Share of detectors at and above which a pixel starts as the object (a strict majority
#: of votes, as the consensus draft reads it; docs/measures.md §7).
SEED_SHARE = 0.5
#: The background is learnt from a margin around the box: this share of its longer side,
#: and at least :data:`MIN_MARGIN` pixels.
MARGIN_SHARE, MIN_MARGIN = 0.25, 8
#: Pixels each colour model needs at least (one per Gaussian of GrabCut's mixtures).
MIN_SAMPLES = 5
#: GrabCut works on at most this many pixels (the box and its margin): a larger box is cut
#: at a lower resolution, in about half a second, and the cut scaled back.
MAX_CUT_PIXELS = 120_000
#: Without a consensus, the rectangle at the centre of the box with this share of its
#: width and height is the object for sure.
CORE_SHARE = 0.2


def grabcut_draft(
    label: np.ndarray,
    image: np.ndarray,
    box: Sequence[float],
    share: np.ndarray | None = None,
    roi: np.ndarray | None = None,
    iterations: int = GRABCUT_ITERATIONS,
    core: float = CORE_SHARE,
) -> MaskPatch | None:
    """Paint the object in ``box`` as motion and the rest of the box as static, in place.

    Parameters
    ----------
    label
        The label map, ``uint8`` ``(h, w)``, changed in place.
    image
        The frame, ``uint8`` ``(h, w, 3)`` (RGB or BGR) or ``(h, w)``.
    box
        ``(x0, y0, x1, y1)`` in continuous image coordinates (either corner first); the
        pixels whose centre lies in it are cut, those outside the frame ignored.
    share
        Share of detectors firing on each pixel, in [0, 1] (the consensus); inside the
        box, a pixel at :data:`SEED_SHARE` or above starts as probably the object and one
        below as probably background, and one where it is NaN as probably the object.
        Ignored (as ``None``) when it puts fewer than :data:`MIN_SAMPLES` pixels of the
        box at or above :data:`SEED_SHARE`.
    roi
        The region of interest: wherever it is 0 (or ``False``) the label map becomes
        outside the ROI (85); pixels already outside the ROI are kept as they are.
    iterations
        Rounds of GrabCut, at least 1.
    core
        Share of the box's width and height, centred, that is the object for sure when no
        consensus is used, in [0, 1) (0: none).

    Returns
    -------
    The patch of the box's pixels, or ``None`` if the box covers no pixel or no pixel changed.

    Raises
    ------
    InvalidOptionError
        If an array has the wrong shape or type, the box is not four finite numbers or
        holds fewer than :data:`MIN_SAMPLES` pixels, or no pixel is left for the
        background (a box over the whole frame without a consensus).
    """
    _check_inputs(label, image, share, roi, iterations, core)
    height, width = label.shape
    rect = centres_rect(_box(box), (0, 0, width, height))
    if rect is None:
        return None
    x0, y0, x1, y1 = rect
    if (x1 - x0) * (y1 - y0) < MIN_SAMPLES:
        raise InvalidOptionError(
            f"the box holds {(x1 - x0) * (y1 - y0)} pixels; draw one around at least "
            f"{MIN_SAMPLES} pixels for GrabCut"
        )
    crop = _crop(rect, (width, height))
    inside = (slice(y0 - crop[1], y1 - crop[1]), slice(x0 - crop[0], x1 - crop[0]))
    seeds = np.full((crop[3] - crop[1], crop[2] - crop[0]), cv2.GC_BGD, np.uint8)
    box_share = None if share is None else _region(share, rect)
    seeds[inside] = _box_seeds((y1 - y0, x1 - x0), box_share, core)
    cut = _cut(_bgr(_region(image, crop)), seeds, iterations)
    found = (cut[inside] == cv2.GC_FGD) | (cut[inside] == cv2.GC_PR_FGD)
    region = _region(label, rect)
    after = np.where(found, np.uint8(GT_MOTION), np.uint8(GT_STATIC))
    outside = region == GT_OUTSIDE
    if roi is not None:
        outside |= _region(np.asarray(roi), rect) == 0
    after[outside] = GT_OUTSIDE
    if np.array_equal(after, region):
        return None
    before = region.copy()
    region[...] = after
    return MaskPatch(rect, before, after)


def _check_inputs(
    label: np.ndarray,
    image: np.ndarray,
    share: np.ndarray | None,
    roi: np.ndarray | None,
    iterations: int,
    core: float,
) -> None:
    if not isinstance(label, np.ndarray) or label.ndim != 2 or label.dtype != np.uint8:
        raise InvalidOptionError("a label map is a 2-D uint8 array")
    frame = np.asarray(image)
    if frame.dtype != np.uint8 or frame.ndim not in (2, 3) or frame.shape[:2] != label.shape:
        raise InvalidOptionError(
            f"the frame must be a uint8 image of the label map's size {_size(label.shape)}, "
            f"not a {frame.dtype} array of shape {frame.shape}"
        )
    if frame.ndim == 3 and frame.shape[2] not in (3, 4):
        raise InvalidOptionError(f"the frame has {frame.shape[2]} channels; give 1, 3 or 4")
    for name, plane in (("consensus share", share), ("region of interest", roi)):
        if plane is not None and np.shape(plane) != label.shape:
            raise InvalidOptionError(
                f"the {name} has shape {np.shape(plane)} but the label map is "
                f"{_size(label.shape)}; both must have the same width and height"
            )
    if isinstance(iterations, bool) or not isinstance(iterations, int) or iterations < 1:
        raise InvalidOptionError(f"GrabCut needs at least 1 iteration, not {iterations!r}")
    if not 0 <= core < 1:
        raise InvalidOptionError(f"the box's sure core is a share in [0, 1), not {core!r}")


def _box(box: Sequence[float]) -> tuple[float, float, float, float]:
    """``box`` as ``(left, top, right, bottom)``, whichever corners were given."""
    values = tuple(float(v) for v in box)
    if len(values) != 4 or not all(math.isfinite(v) for v in values):
        raise InvalidOptionError(f"a box is four finite numbers (x0, y0, x1, y1), not {box!r}")
    ax, ay, bx, by = values
    return min(ax, bx), min(ay, by), max(ax, bx), max(ay, by)


def _crop(rect: Rect, size: tuple[int, int]) -> Rect:
    """``rect`` and the margin around it that the background is learnt from, in the frame."""
    x0, y0, x1, y1 = rect
    margin = max(MIN_MARGIN, math.ceil(MARGIN_SHARE * max(x1 - x0, y1 - y0)))
    return (
        max(0, x0 - margin),
        max(0, y0 - margin),
        min(size[0], x1 + margin),
        min(size[1], y1 + margin),
    )


def _box_seeds(shape: tuple[int, int], share: np.ndarray | None, core: float) -> np.ndarray:
    """GrabCut's start inside a box of ``shape``: the consensus where it sees the object,
    else probably the object around a sure ``core``."""
    if share is not None:
        values = np.asarray(share, np.float64)
        known = np.isfinite(values)
        moving = known & (values >= SEED_SHARE)
        if np.count_nonzero(moving) >= MIN_SAMPLES:
            still = known & ~moving
            return np.where(still, cv2.GC_PR_BGD, cv2.GC_PR_FGD).astype(np.uint8)
    height, width = shape
    seeds = np.full(shape, cv2.GC_PR_FGD, np.uint8)
    if core > 0:
        left, top = math.floor(width * (1 - core) / 2), math.floor(height * (1 - core) / 2)
        seeds[top : height - top, left : width - left] = cv2.GC_FGD
    return seeds


def _cut(colours: np.ndarray, seeds: np.ndarray, iterations: int) -> np.ndarray:
    """GrabCut's labels of ``colours`` started from ``seeds``, at a resolution of at most
    :data:`MAX_CUT_PIXELS` pixels, scaled back to ``seeds``' size."""
    height, width = seeds.shape
    scale = min(1.0, math.sqrt(MAX_CUT_PIXELS / (height * width)))
    if scale < 1:
        size = (max(1, round(width * scale)), max(1, round(height * scale)))
        colours = cv2.resize(colours, size, interpolation=cv2.INTER_AREA)
        seeds = cv2.resize(seeds, size, interpolation=cv2.INTER_NEAREST)
    if not _samples(seeds):
        raise InvalidOptionError(
            "the box leaves too little of the frame around it to learn the background "
            "from; draw it around the object only"
        )
    background, foreground = np.zeros((1, 65), np.float64), np.zeros((1, 65), np.float64)
    cv2.setRNGSeed(0)  # GrabCut's k-means starts at random: the same box, the same draft
    mode = cv2.GC_INIT_WITH_MASK  # the rect (0, 0, 0, 0) is unused
    cv2.grabCut(colours, seeds, (0, 0, 0, 0), background, foreground, iterations, mode)
    if scale < 1:
        seeds = cv2.resize(seeds, (width, height), interpolation=cv2.INTER_NEAREST)
    return seeds


def _samples(seeds: np.ndarray) -> bool:
    """Whether ``seeds`` give each colour model at least :data:`MIN_SAMPLES` pixels."""
    background = int(np.count_nonzero((seeds == cv2.GC_BGD) | (seeds == cv2.GC_PR_BGD)))
    return background >= MIN_SAMPLES and int(seeds.size) - background >= MIN_SAMPLES


def _region(values: np.ndarray, rect: Rect) -> np.ndarray:
    x0, y0, x1, y1 = rect
    return values[y0:y1, x0:x1]


def _bgr(image: np.ndarray) -> np.ndarray:
    """Three contiguous ``uint8`` channels, as ``cv2.grabCut`` takes them."""
    if image.ndim == 2:
        return cv2.cvtColor(np.ascontiguousarray(image), cv2.COLOR_GRAY2BGR)
    return np.ascontiguousarray(image[:, :, :3])


def _size(shape: tuple[int, ...]) -> str:
    return f"{shape[1]}x{shape[0]}"
