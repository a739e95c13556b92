"""COCO-style detection AP and AR for per-frame boxes with scores (docs/measures.md §5).

The rules are those of the COCO ``bbox`` evaluation: boxes are matched greedily
in descending score order, per frame and category, at ten IoU thresholds
0.50:0.05:0.95; precision is read at 101 recall points from its monotone
envelope; AP and AR are means of the defined values. The twelve summary numbers
are COCO's, in its order. The numbers equal pycocotools' ``COCOeval`` on the
same boxes (the tests compare them); nothing here imports it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from referee.core.errors import InvalidOptionError
from referee.core.measures.boxes import FrameBoxes, VideoBoxes

FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]

#: The ten IoU thresholds 0.50, 0.55, …, 0.95, built by ``linspace`` (not by steps that
#: accumulate rounding) so that 0.5 and 0.75 are exact.
IOU_THRESHOLDS: FloatArray = np.linspace(0.5, 0.95, 10)
#: The 101 recall points 0, 0.01, …, 1 where precision is read.
RECALL_POINTS: FloatArray = np.linspace(0.0, 1.0, 101)
#: Area ranges on the ground-truth area, both ends included: all, small, medium, large.
AREA_RANGES: tuple[tuple[str, float, float], ...] = (
    ("all", 0.0, 1e10),
    ("small", 0.0, 32.0**2),
    ("medium", 32.0**2, 96.0**2),
    ("large", 96.0**2, 1e10),
)
#: The value of an AP or AR that has no ground-truth box to be computed on (COCO's −1).
UNDEFINED = -1.0
#: Index of the threshold 0.75 in :data:`IOU_THRESHOLDS`.
_AT_75 = 5


@dataclass(frozen=True)
class GroundTruthBox:
    """A ground-truth box ``x, y, w, h`` on a frame (COCO's image id), of a category.

    A crowd box (``iscrowd``) is never a target: a detection on it is neither a
    true nor a false positive. ``area`` decides the size range; default ``w · h``.
    """

    frame: int
    category: int
    x: float
    y: float
    width: float
    height: float
    iscrowd: bool = False
    area: float | None = None


@dataclass(frozen=True)
class DetectedBox:
    """A detected box ``x, y, w, h`` on a frame, of a category, with its confidence score."""

    frame: int
    category: int
    x: float
    y: float
    width: float
    height: float
    score: float


@dataclass(frozen=True)
class APSummary:
    """COCO's twelve numbers (−1 where undefined); the AR names follow the default max_dets.

    ``ar1``, ``ar10``, ``ar100`` are the AR at ``max_dets[0]``, ``[1]``, ``[2]``;
    every other number uses ``max_dets[2]``.
    """

    ap: float
    ap50: float
    ap75: float
    ap_small: float
    ap_medium: float
    ap_large: float
    ar1: float
    ar10: float
    ar100: float
    ar_small: float
    ar_medium: float
    ar_large: float

    def as_tuple(self) -> tuple[float, ...]:
        """The twelve numbers in COCO's order (its ``stats``)."""
        return (
            self.ap,
            self.ap50,
            self.ap75,
            self.ap_small,
            self.ap_medium,
            self.ap_large,
            self.ar1,
            self.ar10,
            self.ar100,
            self.ar_small,
            self.ar_medium,
            self.ar_large,
        )


@dataclass(frozen=True)
class DetectionAP:
    """The result of :func:`coco_ap` (docs/measures.md §5).

    ``precision[k, a, m, t, r]`` is the interpolated precision of category
    ``categories[k]``, area range ``AREA_RANGES[a]``, at most ``max_dets[m]``
    detections a frame, IoU threshold ``IOU_THRESHOLDS[t]`` and recall point
    ``RECALL_POINTS[r]``; ``recall[k, a, m, t]`` is the recall reached. Both are
    −1 where the category has no ground-truth box that counts in that range.
    """

    categories: tuple[int, ...]
    max_dets: tuple[int, int, int]
    overall: APSummary
    per_category: Mapping[int, APSummary]
    precision: FloatArray
    recall: FloatArray


def box_iou(detected: FloatArray, truth: FloatArray, crowd: BoolArray) -> FloatArray:
    """COCO's IoU of every detected box (rows) with every ground-truth box (columns).

    Boxes are ``x, y, w, h`` rows; the intersection has no +1. For a crowd
    ground-truth box the denominator is the detection's area, not the union.
    """
    if len(detected) == 0 or len(truth) == 0:
        return np.zeros((len(detected), len(truth)))
    d = detected[:, None, :]
    g = truth[None, :, :]
    width = np.minimum(d[..., 2] + d[..., 0], g[..., 2] + g[..., 0]) - np.maximum(
        d[..., 0], g[..., 0]
    )
    height = np.minimum(d[..., 3] + d[..., 1], g[..., 3] + g[..., 1]) - np.maximum(
        d[..., 1], g[..., 1]
    )
    overlap = (width > 0) & (height > 0)
    inter = np.where(overlap, width * height, 0.0)
    det_area = d[..., 2] * d[..., 3]
    union = np.where(crowd[None, :], det_area, det_area + g[..., 2] * g[..., 3] - inter)
    return np.divide(inter, union, out=np.zeros_like(inter), where=overlap)


@dataclass(frozen=True)
class _FrameCategory:
    """The boxes of one frame and category; detections by descending score, cut at the limit."""

    truth_area: FloatArray
    crowd: BoolArray
    scores: FloatArray
    det_area: FloatArray
    iou: FloatArray  # detections × ground truth


@dataclass(frozen=True)
class _Outcome:
    """Per detection and threshold: matched to a box, and left out of the counts."""

    scores: FloatArray
    matched: BoolArray  # thresholds × detections
    ignored: BoolArray
    targets: int  # ground-truth boxes that count


def _last_best(iou_row: FloatArray, allowed: BoolArray) -> npt.NDArray[np.intp]:
    """Per threshold (rows of ``allowed``), the allowed box of largest IoU, the last on ties; −1 if none."""
    masked = np.where(allowed, iou_row[None, :], -np.inf)
    best = masked.max(axis=1, initial=-np.inf)
    hits = allowed & (iou_row[None, :] == best[:, None])
    last = hits.shape[1] - 1 - np.argmax(hits[:, ::-1], axis=1)
    return np.where(hits.any(axis=1), last, -1)


def _match(group: _FrameCategory, low: float, high: float) -> _Outcome:
    """Greedy matching of one frame and category for one area range, at every threshold."""
    n_thr, n_det, n_gt = len(IOU_THRESHOLDS), len(group.scores), len(group.crowd)
    set_aside = group.crowd | (group.truth_area < low) | (group.truth_area > high)
    matched = np.zeros((n_thr, n_det), dtype=bool)
    ignored = np.zeros((n_thr, n_det), dtype=bool)
    taken = np.zeros((n_thr, n_gt), dtype=bool)
    thr_rows = np.arange(n_thr)
    for d in range(n_det if n_gt else 0):
        row = group.iou[d]
        # A crowd box may take any number of detections; another box takes one.
        free = (~taken | group.crowd[None, :]) & (row[None, :] >= IOU_THRESHOLDS[:, None])
        # Boxes that count come first; a box set aside is taken only when none of them fits.
        choice = _last_best(row, free & ~set_aside[None, :])
        fallback = _last_best(row, free & set_aside[None, :])
        choice = np.where(choice >= 0, choice, fallback)
        hit = choice >= 0
        matched[hit, d] = True
        ignored[hit, d] = set_aside[choice[hit]]
        taken[thr_rows[hit], choice[hit]] = True
    outside = (group.det_area < low) | (group.det_area > high)
    ignored |= ~matched & outside[None, :]
    return _Outcome(group.scores, matched, ignored, int(np.count_nonzero(~set_aside)))


def _curve(outcomes: Sequence[_Outcome], limit: int) -> tuple[FloatArray, FloatArray]:
    """Interpolated precision at the recall points and recall reached, per threshold; −1 without targets."""
    n_thr = len(IOU_THRESHOLDS)
    targets = sum(o.targets for o in outcomes)
    if targets == 0:
        return np.full((n_thr, len(RECALL_POINTS)), UNDEFINED), np.full(n_thr, UNDEFINED)
    scores = np.concatenate([o.scores[:limit] for o in outcomes])
    matched = np.concatenate([o.matched[:, :limit] for o in outcomes], axis=1)
    ignored = np.concatenate([o.ignored[:, :limit] for o in outcomes], axis=1)
    # Frames in increasing order, each by descending score, then a stable sort on score.
    order = np.argsort(-scores, kind="stable")
    matched, ignored = matched[:, order], ignored[:, order]
    tp = np.cumsum(matched & ~ignored, axis=1).astype(np.float64)
    fp = np.cumsum(~matched & ~ignored, axis=1).astype(np.float64)
    precision = np.zeros((n_thr, len(RECALL_POINTS)))
    reached = np.zeros(n_thr)
    n = tp.shape[1]
    for t in range(n_thr if n else 0):
        rec = tp[t] / targets
        prec = tp[t] / (fp[t] + tp[t] + np.spacing(1))
        envelope = np.maximum.accumulate(prec[::-1])[::-1]
        reached[t] = rec[-1]
        at = np.searchsorted(rec, RECALL_POINTS, side="left")
        inside = at < n
        precision[t, inside] = envelope[at[inside]]
    return precision, reached


def _mean_defined(values: FloatArray) -> float:
    """Mean of the values other than −1; −1 when there is none."""
    defined = values[values > UNDEFINED]
    return float(np.mean(defined)) if defined.size else UNDEFINED


def _summary(precision: FloatArray, recall: FloatArray) -> APSummary:
    """The twelve numbers from ``precision[k, a, m, t, r]`` and ``recall[k, a, m, t]``."""
    p, r = precision[:, :, 2], recall[:, :, 2]
    return APSummary(
        ap=_mean_defined(p[:, 0]),
        ap50=_mean_defined(p[:, 0, 0]),
        ap75=_mean_defined(p[:, 0, _AT_75]),
        ap_small=_mean_defined(p[:, 1]),
        ap_medium=_mean_defined(p[:, 2]),
        ap_large=_mean_defined(p[:, 3]),
        ar1=_mean_defined(recall[:, 0, 0]),
        ar10=_mean_defined(recall[:, 0, 1]),
        ar100=_mean_defined(r[:, 0]),
        ar_small=_mean_defined(r[:, 1]),
        ar_medium=_mean_defined(r[:, 2]),
        ar_large=_mean_defined(r[:, 3]),
    )


def _check_finite(what: str, values: Iterable[float]) -> None:
    if not all(math.isfinite(v) for v in values):
        raise InvalidOptionError(f"{what}: coordinates, areas and scores must be finite numbers")


def _groups(
    groundtruth: Sequence[GroundTruthBox], detections: Sequence[DetectedBox], limit: int
) -> dict[tuple[int, int], _FrameCategory]:
    """The boxes of every (frame, category) pair with at least one box, in input order."""
    truths: dict[tuple[int, int], list[GroundTruthBox]] = {}
    dets: dict[tuple[int, int], list[DetectedBox]] = {}
    for g in groundtruth:
        _check_finite("ground-truth box", (g.x, g.y, g.width, g.height, g.area or 0.0))
        truths.setdefault((g.frame, g.category), []).append(g)
    for d in detections:
        _check_finite("detected box", (d.x, d.y, d.width, d.height, d.score))
        dets.setdefault((d.frame, d.category), []).append(d)
    groups: dict[tuple[int, int], _FrameCategory] = {}
    for key in truths.keys() | dets.keys():
        gts, ds = truths.get(key, []), dets.get(key, [])
        order = np.argsort([-d.score for d in ds], kind="stable")[:limit]
        ds = [ds[i] for i in order]
        truth = np.array([[g.x, g.y, g.width, g.height] for g in gts], dtype=np.float64)
        detected = np.array([[d.x, d.y, d.width, d.height] for d in ds], dtype=np.float64)
        crowd = np.array([g.iscrowd for g in gts], dtype=bool)
        groups[key] = _FrameCategory(
            truth_area=np.array(
                [g.width * g.height if g.area is None else g.area for g in gts], dtype=np.float64
            ),
            crowd=crowd,
            scores=np.array([d.score for d in ds], dtype=np.float64),
            det_area=np.array([d.width * d.height for d in ds], dtype=np.float64),
            iou=box_iou(detected.reshape(-1, 4), truth.reshape(-1, 4), crowd),
        )
    return groups


def coco_ap(
    groundtruth: Sequence[GroundTruthBox],
    detections: Sequence[DetectedBox],
    max_dets: tuple[int, int, int] = (1, 10, 100),
) -> DetectionAP:
    """COCO bbox AP and AR, per category and overall (docs/measures.md §5).

    The categories are those of either side, in increasing order; the overall
    numbers average the defined values of every category alike. Equals
    pycocotools' ``COCOeval(..., "bbox")`` ``stats`` on the same boxes, listed in
    the same order, with ground-truth ids from 1 and the default ``max_dets`` (its
    AP always reads the limit 100).
    """
    if len(max_dets) != 3 or not 0 < max_dets[0] < max_dets[1] < max_dets[2]:
        raise InvalidOptionError(f"max_dets must be three increasing positive numbers: {max_dets}")
    groups = _groups(groundtruth, detections, max_dets[2])
    categories = tuple(sorted({category for _, category in groups}))
    frames = sorted({frame for frame, _ in groups})
    shape = (len(categories), len(AREA_RANGES), len(max_dets), len(IOU_THRESHOLDS))
    precision = np.full((*shape, len(RECALL_POINTS)), UNDEFINED)
    recall = np.full(shape, UNDEFINED)
    for k, category in enumerate(categories):
        keys = [(f, category) for f in frames if (f, category) in groups]
        for a, (_, low, high) in enumerate(AREA_RANGES):
            outcomes = [_match(groups[key], low, high) for key in keys]
            for m, limit in enumerate(max_dets):
                precision[k, a, m], recall[k, a, m] = _curve(outcomes, limit)
    per_category = {
        c: _summary(precision[k : k + 1], recall[k : k + 1]) for k, c in enumerate(categories)
    }
    return DetectionAP(
        categories=categories,
        max_dets=max_dets,
        overall=_summary(precision, recall),
        per_category=per_category,
        precision=precision,
        recall=recall,
    )


#: Frame numbers of different sequences become distinct image ids: sequence k's frame f
#: is image ``k · SEQUENCE_STRIDE + f``.
SEQUENCE_STRIDE = 10**9


def sequences_ap(
    groundtruth: Sequence[VideoBoxes], detections: Sequence[VideoBoxes]
) -> DetectionAP:
    """COCO AP of per-frame boxes with scores over several sequences (docs/measures.md §5):
    each sequence's frames are distinct images, and a detection sequence faces the
    ground-truth sequence of its name. When every box on both sides has a label (a COCO
    category, a YOLO class), the labels are the categories, each with its AP and
    overall their mean; otherwise every box is of one category.

    Raises
    ------
    InvalidOptionError
        If a detection carries no score (the MOTChallenge ``conf`` column).
    """
    truth: list[GroundTruthBox] = []
    found: list[DetectedBox] = []
    by_name = {video.name: video for video in detections}
    labelled = all(
        boxes.labels is not None or not len(boxes)
        for video in (*groundtruth, *detections)
        for boxes in video.frames.values()
    )

    def categories(boxes: FrameBoxes) -> list[int]:
        if labelled and boxes.labels is not None:
            return [int(c) for c in boxes.labels]
        return [1] * len(boxes)

    for k, video in enumerate(groundtruth):
        for frame, boxes in video.frames.items():
            image = k * SEQUENCE_STRIDE + frame
            truth += [
                GroundTruthBox(image, c, x, y, w, h)
                for c, (x, y, w, h) in zip(categories(boxes), boxes.boxes.tolist())
            ]
        detected = by_name.get(video.name)
        for frame, boxes in ({} if detected is None else detected.frames).items():
            if len(boxes) and boxes.confidences is None:
                raise InvalidOptionError(
                    f"{video.name}: detection AP needs a score for every detection"
                )
            image = k * SEQUENCE_STRIDE + frame
            scores = () if boxes.confidences is None else boxes.confidences.tolist()
            found += [
                DetectedBox(image, c, x, y, w, h, score)
                for c, (x, y, w, h), score in zip(categories(boxes), boxes.boxes.tolist(), scores)
            ]
    return coco_ap(truth, found)
