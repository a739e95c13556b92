"""Per-frame box evaluation: FDA, SFDA, MODA, N-MODP (docs/measures.md §5; VACE, Kasturi et al. 2009).

On every frame, ground-truth boxes are mapped one-to-one to detected boxes so
that the total IoU is largest (Hungarian, the default) or by taking the largest
IoU first (``greedy``). Only pairs with IoU > 0 are mapped. Then

* ``FDA(t) = Σ mapped IoU / ((N_G(t) + N_D(t)) / 2)``; frames with no box on
  either side are skipped; ``SFDA`` is the mean of ``FDA(t)`` over the others.
* A mapped pair is a true positive (TP) iff ``IoU >= iou_threshold`` (default
  0.5; a pair exactly at the threshold counts, as in CLEAR-MOT and
  MOTChallenge). An unmapped ground-truth box is a miss, an unmapped detection a
  false positive (FP); a mapped pair below the threshold is both. With the IoU
  rule ``threshold-then-map`` (CLEAR-MOT tools), the TPs are instead the mapping
  of the pairs at or above the threshold only; with ``keep-matches``, CLEAR MOT's
  matches, which follow identities from frame to frame (TrackEval).
* ``MODA = 1 − Σ_t (misses + FP) / Σ_t N_G``; ``N-MODP`` is the mean, over
  frames with at least one TP, of the mean IoU of that frame's TP pairs.

Several videos combine by pooling their frames: the overall SFDA, MODA and
N-MODP are computed over the frames of all videos exactly as for one video
(not as a mean of per-video values). Videos are paired by name; a video on one
side only counts all its boxes as misses (ground truth) or FPs (detections).

Boxes are ``x, y, w, h`` (top-left corner, size) with half-open extents
``[x, x+w) × [y, y+h)``: boxes that only touch have IoU 0. Coordinates are
kept as floats so MOTChallenge boxes stay exact; LIRIS boxes are whole pixels.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from referee.core.errors import InvalidOptionError
from referee.core.measures.box_rules import (
    IOU_RULES,
    KEEP_MATCHES,
    THRESHOLD_THEN_MAP,
    check_iou_rule,
)
from referee.core.measures.choices import DEFAULT_IOU_THRESHOLD, MAPPINGS
from referee.core.measures.indicators import IndicatorValue, undefined
from referee.core.model.annotations import AnnotationSet, VideoAnnotation
from referee.core.progress import CancelToken, ProgressCallback, check, report

# --- plain data --------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class FrameBoxes:
    """The boxes of one frame.

    Attributes
    ----------
    boxes
        ``float64`` array ``(n, 4)`` of ``x, y, w, h`` in pixels.
    labels
        ``int64`` array ``(n,)`` of class labels, or ``None`` when the source has none.
    ids
        ``int64`` array ``(n,)`` of identities (LIRIS action number, MOT track id),
        or ``None``.
    confidences
        ``float64`` array ``(n,)``: the MOTChallenge ``conf`` column (the consider
        flag of ground truth), or ``None``.
    """

    boxes: np.ndarray
    labels: np.ndarray | None = None
    ids: np.ndarray | None = None
    confidences: np.ndarray | None = None

    def __post_init__(self) -> None:
        boxes = np.asarray(self.boxes, dtype=np.float64).reshape(-1, 4)
        if np.any(boxes[:, 2:] < 0) or not np.all(np.isfinite(boxes)):
            raise InvalidOptionError(
                "box sizes cannot be negative and coordinates must be finite numbers"
            )
        boxes.setflags(write=False)
        object.__setattr__(self, "boxes", boxes)
        for name, dtype in (("labels", np.int64), ("ids", np.int64), ("confidences", np.float64)):
            value = getattr(self, name)
            if value is None:
                continue
            value = np.asarray(value, dtype=dtype).reshape(-1)
            if len(value) != len(boxes):
                raise InvalidOptionError(f"{len(boxes)} boxes but {len(value)} {name}")
            value.setflags(write=False)
            object.__setattr__(self, name, value)

    def __len__(self) -> int:
        return len(self.boxes)


@dataclass(frozen=True, eq=False)
class VideoBoxes:
    """The boxes of one video, frame by frame (frames without boxes may be absent)."""

    name: str
    frames: Mapping[int, FrameBoxes] = field(default_factory=dict)

    def at(self, frame: int) -> FrameBoxes:
        """The boxes of ``frame`` (an empty :class:`FrameBoxes` if it has none)."""
        return self.frames.get(frame, _EMPTY)

    @property
    def box_count(self) -> int:
        return sum(len(b) for b in self.frames.values())


_EMPTY = FrameBoxes(np.zeros((0, 4)))


# --- building per-frame boxes ------------------------------------------------------------


def boxes_from_rows(
    name: str,
    frames: Sequence[int] | np.ndarray,
    boxes: Sequence[Sequence[float]] | np.ndarray,
    ids: Sequence[int] | np.ndarray | None = None,
    labels: Sequence[int] | np.ndarray | None = None,
    confidences: Sequence[float] | np.ndarray | None = None,
) -> VideoBoxes:
    """Group box rows by frame (e.g. MOTChallenge rows; row order is kept within a frame).

    Parameters
    ----------
    name
        The video's name (used to pair ground truth with detections).
    frames
        Frame number of each row.
    boxes
        ``(n, 4)`` ``x, y, w, h`` in pixels.
    ids, labels, confidences
        Optional per-row identities, class labels and confidences.
    """
    frames = np.asarray(frames, dtype=np.int64).reshape(-1)
    boxes = np.asarray(boxes, dtype=np.float64).reshape(-1, 4)
    ids_array = None if ids is None else np.asarray(ids, dtype=np.int64).reshape(-1)
    labels_array = None if labels is None else np.asarray(labels, dtype=np.int64).reshape(-1)
    conf_array = None if confidences is None else np.asarray(confidences, float).reshape(-1)
    if len(boxes) != len(frames):
        raise InvalidOptionError(f"{len(frames)} frame numbers but {len(boxes)} boxes")
    if not len(frames):
        return VideoBoxes(name, {})
    order = np.argsort(frames, kind="stable")
    sorted_frames = frames[order]
    starts = np.flatnonzero(np.r_[True, sorted_frames[1:] != sorted_frames[:-1]])
    stops = np.r_[starts[1:], len(order)]
    per_frame: dict[int, FrameBoxes] = {}
    for start, stop in zip(starts, stops):
        rows = order[start:stop]
        per_frame[int(sorted_frames[start])] = FrameBoxes(
            boxes[rows],
            None if labels_array is None else labels_array[rows],
            None if ids_array is None else ids_array[rows],
            None if conf_array is None else conf_array[rows],
        )
    return VideoBoxes(name, per_frame)


def boxes_from_video(video: VideoAnnotation) -> VideoBoxes:
    """Per-frame boxes of a LIRIS video (docs/measures.md §5): every action's box on every frame.

    Each box keeps its action's class as label and the action number as id;
    within a frame, boxes follow the actions' order in the file. Whether classes
    matter is chosen at evaluation (``class_aware``).
    """
    frames, boxes, ids, labels = [], [], [], []
    for action in video.actions:
        frames.append(action.frames)
        boxes.append(action.boxes)
        ids.append(np.full(len(action), action.number, dtype=np.int64))
        labels.append(np.full(len(action), action.action_class, dtype=np.int64))
    if not frames:
        return VideoBoxes(video.name, {})
    return boxes_from_rows(
        video.name,
        np.concatenate(frames),
        np.concatenate(boxes),
        np.concatenate(ids),
        np.concatenate(labels),
    )


def boxes_from_annotations(annotations: AnnotationSet) -> list[VideoBoxes]:
    """Per-frame boxes of every video of a LIRIS annotation set, in file order."""
    return [boxes_from_video(video) for video in annotations]


# --- IoU and mapping ---------------------------------------------------------------------


def iou_matrix(gt: np.ndarray, det: np.ndarray) -> np.ndarray:
    """IoU of every (ground-truth, detection) pair of ``x, y, w, h`` boxes.

    Half-open extents ``[x, x+w) × [y, y+h)``: touching boxes have IoU 0; two
    boxes of zero area have IoU 0.

    Returns
    -------
    numpy.ndarray
        ``(len(gt), len(det))`` values in [0, 1].
    """
    gt = np.asarray(gt, dtype=np.float64).reshape(-1, 4)
    det = np.asarray(det, dtype=np.float64).reshape(-1, 4)
    gx0, gy0 = gt[:, 0:1], gt[:, 1:2]
    gx1, gy1 = gx0 + gt[:, 2:3], gy0 + gt[:, 3:4]
    dx0, dy0 = det[:, 0], det[:, 1]
    dx1, dy1 = dx0 + det[:, 2], dy0 + det[:, 3]
    width = np.clip(np.minimum(gx1, dx1) - np.maximum(gx0, dx0), 0, None)
    height = np.clip(np.minimum(gy1, dy1) - np.maximum(gy0, dy0), 0, None)
    intersection = width * height
    union = (gt[:, 2:3] * gt[:, 3:4]) + (det[:, 2] * det[:, 3]) - intersection
    with np.errstate(invalid="ignore", divide="ignore"):
        iou = np.where(union > 0, intersection / np.where(union > 0, union, 1), 0.0)
    return iou


def frame_ious(gt: FrameBoxes, det: FrameBoxes, class_aware: bool = False) -> np.ndarray:
    """IoU matrix of one frame; with ``class_aware``, pairs of different classes get 0."""
    iou = iou_matrix(gt.boxes, det.boxes)
    if class_aware and iou.size:
        if gt.labels is None or det.labels is None:  # evaluate_boxes checks this first
            raise InvalidOptionError(
                "class-aware evaluation needs class labels on both sides; "
                "these boxes have none (MOTChallenge files carry no "
                "classes)"
            )
        iou = np.where(gt.labels[:, None] == det.labels[None, :], iou, 0.0)
    return iou


def map_boxes(iou: np.ndarray, mapping: str = "hungarian") -> list[tuple[int, int]]:
    """One-to-one (gt index, det index) pairs with IoU > 0, sorted by gt index (docs/measures.md §5).

    ``hungarian`` maximizes the total IoU (``scipy.optimize.linear_sum_assignment``);
    ``greedy`` repeatedly takes the largest remaining IoU, ties to the lowest
    ground-truth index, then the lowest detection index.
    """
    if mapping not in MAPPINGS:
        raise InvalidOptionError(
            f"unknown mapping {mapping!r}; choose one of {', '.join(MAPPINGS)}"
        )
    if iou.size == 0 or not np.any(iou > 0):
        return []
    if mapping == "hungarian":
        from scipy.optimize import linear_sum_assignment  # here: slow to import, rarely used

        rows, cols = linear_sum_assignment(iou, maximize=True)
        pairs = [(int(g), int(d)) for g, d in zip(rows, cols) if iou[g, d] > 0]
    else:
        g_index, d_index = np.nonzero(iou > 0)
        order = np.lexsort((d_index, g_index, -iou[g_index, d_index]))
        used_g, used_d, pairs = set(), set(), []
        for k in order:
            g, d = int(g_index[k]), int(d_index[k])
            if g not in used_g and d not in used_d:
                used_g.add(g)
                used_d.add(d)
                pairs.append((g, d))
    return sorted(pairs)


# --- results -----------------------------------------------------------------------------


@dataclass(frozen=True)
class FrameBoxResult:
    """One frame's outcome: what was mapped and what each box counts as.

    Attributes
    ----------
    frame
        Frame number.
    n_gt, n_det
        Numbers of ground-truth and detected boxes.
    mapped
        ``(gt index, det index, IoU)`` of every mapped pair (IoU > 0).
    tp
        The true-positive pairs, same layout: the mapped pairs with ``IoU >=
        iou_threshold``, or, under ``threshold-then-map``, the pairs of the mapping of
        the pairs at or above the threshold only, or, under ``keep-matches``, CLEAR MOT's
        matches of the frame.
    misses
        Ground-truth indices that are not a TP (unmapped or mapped below threshold).
    false_positives
        Detection indices that are not a TP.
    fda
        ``Σ mapped IoU / ((n_gt + n_det) / 2)``.
    """

    frame: int
    n_gt: int
    n_det: int
    mapped: tuple[tuple[int, int, float], ...]
    tp: tuple[tuple[int, int, float], ...]
    misses: tuple[int, ...]
    false_positives: tuple[int, ...]
    fda: float

    @property
    def mean_tp_iou(self) -> float:
        """Mean IoU of the TP pairs (NaN if there is none)."""
        return math.fsum(p[2] for p in self.tp) / len(self.tp) if self.tp else math.nan


@dataclass(frozen=True)
class BoxTotals:
    """Counts and measures over a set of frames (one video, or all videos pooled)."""

    frames: int
    n_gt: int
    n_det: int
    tp: int
    misses: int
    false_positives: int
    sfda: IndicatorValue
    moda: IndicatorValue
    n_modp: IndicatorValue


@dataclass(frozen=True)
class VideoBoxResult:
    """One video: per-frame results (frames with boxes only, ascending) and totals."""

    name: str
    in_gt: bool
    in_det: bool
    frames: tuple[FrameBoxResult, ...]
    totals: BoxTotals

    def frame(self, number: int) -> FrameBoxResult | None:
        """The result of frame ``number``, or ``None`` if it has no box on either side."""
        for result in self.frames:
            if result.frame == number:
                return result
        return None


@dataclass(frozen=True)
class BoxEvaluation:
    """Per-video results and the pooled overall totals, with the parameters used.

    ``groundtruth_ignored`` and ``detections_removed`` count, by video name, the boxes
    the MOTChallenge ground-truth rules set aside before the evaluation (docs/measures.md
    §5); videos without any are absent.
    """

    videos: tuple[VideoBoxResult, ...]
    overall: BoxTotals
    iou_threshold: float
    mapping: str
    class_aware: bool
    iou_rule: str = IOU_RULES[0]
    groundtruth_ignored: Mapping[str, int] = field(default_factory=dict)
    detections_removed: Mapping[str, int] = field(default_factory=dict)


# --- evaluation --------------------------------------------------------------------------


def evaluate_frame(
    frame: int,
    gt: FrameBoxes,
    det: FrameBoxes,
    iou_threshold: float = DEFAULT_IOU_THRESHOLD,
    mapping: str = "hungarian",
    class_aware: bool = False,
    iou_rule: str = IOU_RULES[0],
    kept: Sequence[tuple[int, int]] | None = None,
) -> FrameBoxResult:
    """Map and classify the boxes of one frame (docs/measures.md §5).

    The FDA uses the mapping of every pair; the true positives are its pairs at or above
    the threshold, or, with ``iou_rule`` ``threshold-then-map``, the mapping of the pairs
    at or above the threshold only (the same pairs unless one mapped pair is below it),
    or, with ``keep-matches``, the ``(gt index, det index)`` pairs ``kept``: the frame's
    CLEAR MOT matches, which depend on the frames before (:func:`evaluate_video`).
    """
    iou = frame_ious(gt, det, class_aware)
    mapped = [(g, d, float(iou[g, d])) for g, d in map_boxes(iou, mapping)]
    tp = [p for p in mapped if p[2] >= iou_threshold]
    if iou_rule == KEEP_MATCHES:
        if kept is None:
            raise InvalidOptionError("the IoU rule keep-matches needs the frame's matches")
        tp = [(g, d, float(iou[g, d])) for g, d in kept]
    elif iou_rule == THRESHOLD_THEN_MAP and len(tp) < len(mapped):
        allowed = np.where(iou >= iou_threshold, iou, 0.0)
        tp = [(g, d, float(iou[g, d])) for g, d in map_boxes(allowed, mapping)]
    tp_gt, tp_det = {p[0] for p in tp}, {p[1] for p in tp}
    n_gt, n_det = len(gt), len(det)
    total = n_gt + n_det
    fda = math.fsum(p[2] for p in mapped) / (total / 2) if total else math.nan
    return FrameBoxResult(
        frame,
        n_gt,
        n_det,
        tuple(mapped),
        tuple(tp),
        tuple(g for g in range(n_gt) if g not in tp_gt),
        tuple(d for d in range(n_det) if d not in tp_det),
        fda,
    )


def totals(frames: Iterable[FrameBoxResult]) -> BoxTotals:
    """SFDA, MODA, N-MODP and counts over ``frames`` (frames with no box are skipped)."""
    frames = [f for f in frames if f.n_gt or f.n_det]
    n_gt = sum(f.n_gt for f in frames)
    n_det = sum(f.n_det for f in frames)
    tp = sum(len(f.tp) for f in frames)
    misses = sum(len(f.misses) for f in frames)
    fps = sum(len(f.false_positives) for f in frames)
    sfda = (
        IndicatorValue(math.fsum(f.fda for f in frames) / len(frames))
        if frames
        else undefined("undefined: no frame has a box")
    )
    moda = (
        IndicatorValue(1 - (misses + fps) / n_gt)
        if n_gt
        else undefined("undefined: no ground-truth box")
    )
    with_tp = [f.mean_tp_iou for f in frames if f.tp]
    n_modp = (
        IndicatorValue(math.fsum(with_tp) / len(with_tp))
        if with_tp
        else undefined("undefined: no true-positive pair")
    )
    return BoxTotals(len(frames), n_gt, n_det, tp, misses, fps, sfda, moda, n_modp)


def _frame_numbers(gt: VideoBoxes | None, det: VideoBoxes | None) -> list[int]:
    """Frames with at least one box on either side, ascending."""
    numbers = set(gt.frames if gt is not None else ()) | set(det.frames if det is not None else ())
    return sorted(
        f
        for f in numbers
        if (gt is not None and len(gt.at(f))) or (det is not None and len(det.at(f)))
    )


def evaluate_video(
    gt: VideoBoxes | None,
    det: VideoBoxes | None,
    iou_threshold: float = DEFAULT_IOU_THRESHOLD,
    mapping: str = "hungarian",
    class_aware: bool = False,
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
    iou_rule: str = IOU_RULES[0],
) -> VideoBoxResult:
    """Evaluate one video; either side may be ``None`` (the video is missing there).

    Same parameters as :func:`evaluate_boxes`; ``progress`` counts this video's frames.
    Under ``keep-matches`` the frames from the first to the last with a box are matched
    as one sequence.
    """
    if gt is not None:
        name = gt.name
    elif det is not None:
        name = det.name
    else:
        raise InvalidOptionError("a video needs ground truth or detections")
    numbers = _frame_numbers(gt, det)
    empty = VideoBoxes(name)
    gt_boxes, det_boxes = gt or empty, det or empty
    kept = None
    if iou_rule == KEEP_MATCHES:
        from referee.core.measures.kept_matches import kept_matches  # imports this module

        kept = kept_matches(gt_boxes, det_boxes, numbers, iou_threshold, class_aware)
    results = []
    for done, number in enumerate(numbers):
        if done % 64 == 0:
            check(cancel)
            report(progress, done, len(numbers))
        results.append(
            evaluate_frame(
                number,
                gt_boxes.at(number),
                det_boxes.at(number),
                iou_threshold,
                mapping,
                class_aware,
                iou_rule,
                None if kept is None else kept.get(number, []),
            )
        )
    report(progress, len(numbers), len(numbers))
    return VideoBoxResult(name, gt is not None, det is not None, tuple(results), totals(results))


def _as_videos(side: VideoBoxes | Iterable[VideoBoxes], what: str) -> dict[str, VideoBoxes]:
    videos = [side] if isinstance(side, VideoBoxes) else list(side)
    by_name: dict[str, VideoBoxes] = {}
    for video in videos:
        if video.name in by_name:
            raise InvalidOptionError(
                f"the {what} holds two videos named {video.name!r}; video names must be unique"
            )
        by_name[video.name] = video
    return by_name


def _require_labels(videos: Mapping[str, VideoBoxes], what: str) -> None:
    for video in videos.values():
        if any(len(b) and b.labels is None for b in video.frames.values()):
            raise InvalidOptionError(
                f"class-aware evaluation needs class labels, but the {what} of video "
                f"{video.name!r} have none (MOTChallenge files carry no classes); drop the "
                "class-aware option"
            )


def evaluate_boxes(
    gt: VideoBoxes | Iterable[VideoBoxes],
    det: VideoBoxes | Iterable[VideoBoxes],
    iou_threshold: float = DEFAULT_IOU_THRESHOLD,
    mapping: str = "hungarian",
    class_aware: bool = False,
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
    iou_rule: str = IOU_RULES[0],
) -> BoxEvaluation:
    """Evaluate detections against ground truth frame by frame (docs/measures.md §5).

    Parameters
    ----------
    gt, det
        One video or several, paired by name. A video present on one side only
        keeps all its boxes as misses (ground truth) or false positives.
    iou_threshold
        A mapped pair is a TP iff its IoU is ``>=`` this value (default 0.5).
    iou_rule
        ``"map-then-threshold"`` (default), ``"threshold-then-map"`` (pairs below the
        threshold are never assigned as true positives) or ``"keep-matches"`` (the true
        positives are CLEAR MOT's matches; every box needs an identity), see
        :func:`evaluate_frame`.
    mapping
        ``"hungarian"`` (maximum total IoU, default) or ``"greedy"`` (largest IoU first).
    class_aware
        If True, boxes of different classes never map (their IoU counts as 0).
    progress, cancel
        ``progress(done, total)`` in frames; ``cancel`` is polled between frames.

    Returns
    -------
    BoxEvaluation
        Per-video results in ground-truth order (then videos only in the
        detections), and overall totals pooling the frames of every video.
    """
    if mapping not in MAPPINGS:
        raise InvalidOptionError(
            f"unknown mapping {mapping!r}; choose one of {', '.join(MAPPINGS)}"
        )
    if math.isnan(iou_threshold) or not 0 <= iou_threshold <= 1:
        raise InvalidOptionError(f"the IoU threshold must be in [0, 1], got {iou_threshold}")
    check_iou_rule(iou_rule)
    gt_videos, det_videos = _as_videos(gt, "ground truth"), _as_videos(det, "detections")
    if class_aware:
        _require_labels(gt_videos, "ground truth")
        _require_labels(det_videos, "detections")
    names = list(gt_videos) + [n for n in det_videos if n not in gt_videos]
    sizes = [len(_frame_numbers(gt_videos.get(n), det_videos.get(n))) for n in names]
    total = sum(sizes)
    results = []
    for index, name in enumerate(names):
        offset = sum(sizes[:index])

        def video_progress(done: int, _total: int, offset: int = offset) -> None:
            report(progress, offset + done, total)

        results.append(
            evaluate_video(
                gt_videos.get(name),
                det_videos.get(name),
                iou_threshold,
                mapping,
                class_aware,
                video_progress if progress is not None else None,
                cancel,
                iou_rule,
            )
        )
    report(progress, total, total)
    overall = totals(f for r in results for f in r.frames)
    return BoxEvaluation(
        tuple(results), overall, float(iou_threshold), mapping, class_aware, iou_rule
    )
