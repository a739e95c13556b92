"""Per-pixel evaluation rules of CDnet 2014 (docs/measures.md §1) and soft-score histograms (docs/measures.md §3).

Pure numpy/OpenCV over arrays already in memory; no file is read here.

Ground-truth grey levels: 0 static, 50 hard shadow, 85 outside the region of
interest, 170 unknown motion, 255 motion. A pixel is *evaluated* iff it is
inside the ROI and its ground truth is 0, 50 or 255; it is *positive* iff the
ground truth is 255. A detection is positive iff its value is exactly 255, or,
with the ``threshold=T`` option, iff its value is ``>= T``. A detected pixel on
ground truth 50 is a false positive and also a *shadow error*.

Counts are returned as ``int64`` arrays in the column order
:data:`COUNT_COLUMNS` ``(tp, fp, fn, tn, se)``.
"""

from __future__ import annotations

import cv2
import numpy as np

from referee.core.measures.choices import check_threshold

GT_STATIC = 0
GT_SHADOW = 50
GT_OUTSIDE = 85
GT_UNKNOWN = 170
GT_MOTION = 255

GT_LEVEL_NAMES: dict[int, str] = {
    GT_STATIC: "static",
    GT_SHADOW: "hard shadow",
    GT_OUTSIDE: "outside the ROI",
    GT_UNKNOWN: "unknown motion",
    GT_MOTION: "motion",
}
"""What each ground-truth grey level means (docs/measures.md §1)."""

COUNT_COLUMNS: tuple[str, ...] = ("tp", "fp", "fn", "tn", "se")
"""Column order of every count array of this module."""

HISTOGRAM_ROWS: tuple[str, ...] = ("static", "shadow", "motion")
"""Row order of score histograms: ground truth 0, 50 and 255 (evaluated pixels only)."""

N_LEVELS = 256

# calcHist counts in float32, exact below 2**24 per bin; larger frames use bincount.
_FLOAT32_EXACT = 1 << 24

# Class codes of the soft-score class image: 0 is "not evaluated".
_CLASS_LUT = np.zeros(N_LEVELS, dtype=np.uint8)
_CLASS_LUT[GT_STATIC] = 1
_CLASS_LUT[GT_SHADOW] = 2
_CLASS_LUT[GT_MOTION] = 3


def detection_mask(detection: np.ndarray, threshold: int | None = None) -> np.ndarray:
    """Binary detection mask: 255 where the pixel is detected, 0 elsewhere.

    Parameters
    ----------
    detection
        Grey-level mask or score map, ``uint8``, shape ``(h, w)``.
    threshold
        ``None``: detected iff value == 255; ``T``: detected iff value >= T.
    """
    _check_grey(detection, "detection")
    # cv2.THRESH_BINARY keeps value > cut; on integers "> T-1" is ">= T".
    checked = check_threshold(threshold)
    cut = 254 if checked is None else checked - 1
    _, mask = cv2.threshold(detection, cut, 255, cv2.THRESH_BINARY)
    return mask


class FrameCounter:
    """Counts of one video's frames under the rules of docs/measures.md §1.

    The ROI and the threshold are fixed for a video, so they are prepared once
    and every frame then costs a handful of vectorized passes.

    Parameters
    ----------
    roi
        Region of interest, ``bool``, shape ``(h, w)``; ``True`` inside.
    threshold
        Detection threshold option, see :func:`check_threshold`.
    """

    __slots__ = ("_cut", "_fill", "_outside", "roi", "threshold")

    def __init__(self, roi: np.ndarray, threshold: int | None = None) -> None:
        roi = np.asarray(roi)
        if roi.ndim != 2:
            raise ValueError(f"the ROI must be a 2-D mask, got shape {roi.shape}")
        self.roi = roi.astype(bool, copy=False)
        self.threshold = check_threshold(threshold)
        self._cut = 254 if self.threshold is None else self.threshold - 1
        # 255 outside the ROI, or None when the ROI covers the whole frame.
        self._outside = None if self.roi.all() else np.where(self.roi, 0, 255).astype(np.uint8)
        self._fill = (
            None if self._outside is None else np.full(self.roi.shape, GT_OUTSIDE, dtype=np.uint8)
        )

    @property
    def shape(self) -> tuple[int, int]:
        """Frame shape ``(h, w)`` in pixels."""
        height, width = self.roi.shape
        return int(height), int(width)

    def _evaluated_gt(self, gt: np.ndarray) -> np.ndarray:
        """Ground truth with every pixel outside the ROI set to 85 (not evaluated)."""
        _check_grey(gt, "ground truth")
        if gt.shape != self.roi.shape:
            raise ValueError(
                f"ground truth shape {gt.shape} differs from ROI shape {self.roi.shape}"
            )
        if self._outside is None or self._fill is None:
            return np.ascontiguousarray(gt)
        masked = gt.copy()
        cv2.copyTo(self._fill, self._outside, masked)
        return masked

    def counts(self, gt: np.ndarray, detection: np.ndarray) -> np.ndarray:
        """Counts of one frame.

        Parameters
        ----------
        gt
            Ground truth grey levels, ``uint8``, shape ``(h, w)``.
        detection
            Result mask, ``uint8``, same shape.

        Returns
        -------
        ``int64`` array ``[tp, fp, fn, tn, se]`` in pixels.
        """
        g = self._evaluated_gt(gt)
        _check_grey(detection, "detection")
        if detection.shape != g.shape:
            raise ValueError(
                f"detection shape {detection.shape} differs from ground truth {g.shape}"
            )
        nonzero = cv2.countNonZero
        _, detected = cv2.threshold(
            np.ascontiguousarray(detection), self._cut, 255, cv2.THRESH_BINARY
        )
        _, motion = cv2.threshold(g, GT_MOTION - 1, 255, cv2.THRESH_BINARY)
        _, static = cv2.threshold(g, GT_STATIC, 255, cv2.THRESH_BINARY_INV)
        shadow = (g == GT_SHADOW).view(np.uint8)
        positives = nonzero(motion)
        n_static = nonzero(static)
        n_shadow = nonzero(shadow)
        # An empty class needs no intersection (saves passes on most frames).
        tp = nonzero(cv2.bitwise_and(motion, detected, dst=motion)) if positives else 0
        se = nonzero(cv2.bitwise_and(shadow, detected, dst=shadow)) if n_shadow else 0
        fp = (nonzero(cv2.bitwise_and(static, detected, dst=static)) if n_static else 0) + se
        negatives = n_static + n_shadow
        return np.array([tp, fp, positives - tp, negatives - fp, se], dtype=np.int64)

    def score_histograms(self, gt: np.ndarray, scores: np.ndarray) -> np.ndarray:
        """Histograms of the scores of one frame, split by ground-truth class (docs/measures.md §3).

        Parameters
        ----------
        gt
            Ground truth grey levels, ``uint8``, shape ``(h, w)``.
        scores
            Score map 0..255, ``uint8``, same shape.

        Returns
        -------
        ``int64`` array of shape ``(3, 256)``: rows :data:`HISTOGRAM_ROWS`
        (static, shadow, motion), column ``s`` = evaluated pixels with score ``s``.
        """
        g = self._evaluated_gt(gt)
        _check_grey(scores, "scores")
        if scores.shape != g.shape:
            raise ValueError(f"score map shape {scores.shape} differs from ground truth {g.shape}")
        scores = np.ascontiguousarray(scores)
        classes = cv2.LUT(g, _CLASS_LUT)
        if g.size < _FLOAT32_EXACT:
            joint = cv2.calcHist(
                [classes, scores], [0, 1], None, [4, N_LEVELS], [0, 4, 0, N_LEVELS]
            )
            table = joint.astype(np.int64)
        else:
            codes = classes.astype(np.intp) * N_LEVELS + scores
            table = np.bincount(codes.ravel(), minlength=4 * N_LEVELS).reshape(4, N_LEVELS)
        return np.ascontiguousarray(table[1:], dtype=np.int64)


COMPARISON_LABELS: tuple[str, ...] = (
    "true negative",
    "true positive",
    "false positive",
    "false negative",
    "shadow error",
    "not evaluated",
)
"""Names of the codes of :func:`comparison_labels`, in code order 0..5."""
LABEL_TN, LABEL_TP, LABEL_FP, LABEL_FN, LABEL_SHADOW_ERROR, LABEL_NOT_EVALUATED = range(6)


def comparison_labels(
    gt: np.ndarray, roi: np.ndarray, detection: np.ndarray, threshold: int | None = None
) -> np.ndarray:
    """What each pixel of one frame counts as under docs/measures.md §1, as a ``uint8`` code image.

    Codes are the indices of :data:`COMPARISON_LABELS`: 0 true negative,
    1 true positive, 2 false positive on static ground truth, 3 false
    negative, 4 shadow error (detected on hard shadow; docs/measures.md counts it as a
    false positive too), 5 not evaluated (outside the ROI or unknown motion).
    Counting the codes gives :func:`frame_counts`: ``fp`` is codes 2 and 4.
    """
    counter = FrameCounter(roi, threshold)
    g = counter._evaluated_gt(gt)
    _check_grey(detection, "detection")
    if detection.shape != g.shape:
        raise ValueError(f"detection shape {detection.shape} differs from ground truth {g.shape}")
    detected = detection_mask(detection, counter.threshold) > 0
    labels = np.full(g.shape, LABEL_NOT_EVALUATED, dtype=np.uint8)
    motion = g == GT_MOTION
    negative = (g == GT_STATIC) | (g == GT_SHADOW)
    labels[negative] = LABEL_TN
    labels[motion & detected] = LABEL_TP
    labels[motion & ~detected] = LABEL_FN
    labels[(g == GT_STATIC) & detected] = LABEL_FP
    labels[(g == GT_SHADOW) & detected] = LABEL_SHADOW_ERROR
    return labels


def frame_counts(
    gt: np.ndarray, roi: np.ndarray, detection: np.ndarray, threshold: int | None = None
) -> np.ndarray:
    """Counts ``[tp, fp, fn, tn, se]`` of one frame (docs/measures.md §1).

    Convenience form of :meth:`FrameCounter.counts`; prefer a
    :class:`FrameCounter` when counting many frames of one video.
    """
    return FrameCounter(roi, threshold).counts(gt, detection)


def score_histograms(gt: np.ndarray, roi: np.ndarray, scores: np.ndarray) -> np.ndarray:
    """Per-class histograms ``(3, 256)`` of one frame's scores (docs/measures.md §3).

    Convenience form of :meth:`FrameCounter.score_histograms`.
    """
    return FrameCounter(roi).score_histograms(gt, scores)


def threshold_confusions(histograms: np.ndarray) -> np.ndarray:
    """The 256 confusion matrices of a soft result, one per threshold (docs/measures.md §3).

    Parameters
    ----------
    histograms
        Score histograms of shape ``(3, 256)`` (rows static, shadow, motion),
        usually summed over the frames of a video.

    Returns
    -------
    ``int64`` array of shape ``(256, 5)``: row ``T`` holds
    ``[tp, fp, fn, tn, se]`` when a pixel is detected iff its score ``>= T``.
    Row ``T`` equals what :class:`FrameCounter` counts with ``threshold=T``.
    """
    h = np.asarray(histograms)
    if h.shape != (3, N_LEVELS):
        raise ValueError(f"score histograms must have shape (3, 256), got {h.shape}")
    h = h.astype(np.int64, copy=False)
    # at_least[:, T] = number of pixels with score >= T
    at_least = np.cumsum(h[:, ::-1], axis=1)[:, ::-1]
    static, shadow, motion = at_least
    totals = h.sum(axis=1)
    tp = motion
    se = shadow
    fp = static + shadow
    fn = totals[2] - tp
    tn = totals[0] + totals[1] - fp
    return np.stack([tp, fp, fn, tn, se], axis=1)


def _check_grey(image: np.ndarray, what: str) -> None:
    if not isinstance(image, np.ndarray) or image.dtype != np.uint8 or image.ndim != 2:
        got = (
            f"{image.dtype} array of shape {image.shape}"
            if isinstance(image, np.ndarray)
            else type(image).__name__
        )
        raise ValueError(f"{what} must be a 2-D uint8 grey image, got {got}")
