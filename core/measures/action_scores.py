"""LIRIS HARL scores of an action matching (docs/measures.md §4)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from referee.core.errors import InvalidOptionError
from referee.core.measures.action_matching import (
    CLASS_CRITERION,
    CLASSES,
    CRITERIA,
    ActionMatching,
    AssignedPairs,
    VideoMatching,
    match_actions,
)
from referee.core.measures.indicators import IndicatorValue, undefined
from referee.core.measures.liris_parameters import DEFAULT_EPSILON, THRESHOLD_KEYS, LirisParameters
from referee.core.model.annotations import AnnotationSet
from referee.core.progress import CancelToken, ProgressCallback, check

NO_GT = "undefined: no ground-truth action"
NO_DETECTION = "undefined: no detected action"
NO_ACTION = "undefined: no ground-truth and no detected action"


# --- stage 2: counting -------------------------------------------------------------------


def _per_video(mask: np.ndarray, video: np.ndarray, n_videos: int) -> np.ndarray:
    """``(m, n_videos)`` counts of True per video; ``video`` is sorted."""
    bounds = np.searchsorted(video, np.arange(n_videos + 1))
    cumulative = np.zeros((mask.shape[0], mask.shape[1] + 1), dtype=np.int64)
    np.cumsum(mask, axis=1, out=cumulative[:, 1:])
    return cumulative[:, bounds[1:]] - cumulative[:, bounds[:-1]]


def _rates(
    accepted: np.ndarray, det_accepted: np.ndarray, n_gt: int, n_det: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Recall, precision and F (NaN where undefined) of the ground-truth actions and the
    detections whose partner is accepted.

    ``F = 2PR / (P + R) = 2·a·b / (b·n_gt + a·n_det)`` with ``a``, ``b`` the two
    counts, 0 when either is 0; one-to-one (``a = b``) this is
    ``2·a / (n_gt + n_det)``, the same float (both are one rounding of the same ratio).
    """
    a = np.asarray(accepted, dtype=float)
    b = np.asarray(det_accepted, dtype=float)
    nan = np.full(a.shape, math.nan)
    recall = a / n_gt if n_gt else nan
    precision = b / n_det if n_det else nan
    if n_gt + n_det == 0:
        return recall, precision, nan
    denominator = b * n_gt + a * n_det
    f = np.divide(2 * a * b, denominator, out=np.zeros(a.shape), where=denominator > 0)
    return recall, precision, f


def _value(value: float, reason: str) -> IndicatorValue:
    return undefined(reason) if math.isnan(value) else IndicatorValue(float(value))


@dataclass(frozen=True)
class OperatingPoint:
    """Counts, recall, precision and F at one set of thresholds (docs/measures.md §4).

    ``thresholds`` maps ``THRESHOLD_KEYS`` to values. ``assigned`` counts the
    ground-truth actions with a partner, ``accepted`` those whose pair passes
    every test (recall's numerator); ``det_assigned`` and ``det_accepted`` the
    same for detections (precision's numerator). One-to-one, each side counts the
    pairs of the matching, so the two sides are equal.
    """

    thresholds: dict[str, float]
    n_gt: int
    n_det: int
    assigned: int
    accepted: int
    recall: IndicatorValue
    precision: IndicatorValue
    f: IndicatorValue
    det_assigned: int
    det_accepted: int

    @property
    def vetoed(self) -> int:
        """Ground-truth actions whose pair fails at least one test (one-to-one: vetoed pairs)."""
        return self.assigned - self.accepted

    @property
    def det_vetoed(self) -> int:
        """Detections whose pair fails at least one test (one-to-one: vetoed pairs)."""
        return self.det_assigned - self.det_accepted

    @property
    def missed(self) -> int:
        """Ground-truth actions without an accepted partner (none, or vetoed)."""
        return self.n_gt - self.accepted

    @property
    def false_alarms(self) -> int:
        """Detections without an accepted partner (none, or vetoed)."""
        return self.n_det - self.det_accepted


@dataclass(frozen=True, eq=False)
class _Side:
    """The ground truth's or the detections' counts: actions, those with a partner, and
    those whose pair is accepted at each operating point (the first is ε's)."""

    actions: int
    assigned: int
    accepted: np.ndarray


def _operating_point(
    thresholds: Sequence[float] | np.ndarray, gt: _Side, det: _Side
) -> OperatingPoint:
    """The counts and rates of the first operating point of ``gt`` and ``det``."""
    a, b = int(gt.accepted[0]), int(det.accepted[0])
    r, p, f = (float(x) for x in _rates(np.array(a), np.array(b), gt.actions, det.actions))
    return OperatingPoint(
        thresholds=dict(zip(THRESHOLD_KEYS, (float(t) for t in thresholds))),
        n_gt=gt.actions,
        n_det=det.actions,
        assigned=gt.assigned,
        accepted=a,
        recall=_value(r, NO_GT),
        precision=_value(p, NO_DETECTION),
        f=_value(f, NO_ACTION),
        det_assigned=det.assigned,
        det_accepted=b,
    )


def operating_point(matching: ActionMatching, thresholds: Sequence[float]) -> OperatingPoint:
    """Overall recall, precision and F at ``(t_sr, t_sp, t_tr, t_tp)`` (docs/measures.md §4)."""
    limits = np.asarray(thresholds, dtype=float)
    if limits.shape != (4,):
        raise InvalidOptionError(
            f"expected four thresholds (t_sr, t_sp, t_tr, t_tp), got {list(thresholds)}"
        )
    gt, det = matching.pairs, matching.det_pairs
    return _operating_point(
        limits,
        _Side(int(matching.n_gt.sum()), len(gt), gt.accepted(limits[None, :]).sum(axis=1)),
        _Side(int(matching.n_det.sum()), len(det), det.accepted(limits[None, :]).sum(axis=1)),
    )


@dataclass(frozen=True, eq=False)
class QualityCurves:
    """Performance against quality: P, R, F as one threshold varies (docs/measures.md §4).

    Row ``k`` varies threshold ``THRESHOLD_KEYS[k]`` over ``grid``; the other
    three stay at ε. Arrays are ``(4, len(grid))``; NaN where undefined.
    ``accepted`` and ``det_accepted`` count as :class:`OperatingPoint`'s fields.
    """

    grid: np.ndarray
    accepted: np.ndarray
    recall: np.ndarray
    precision: np.ndarray
    f: np.ndarray
    det_accepted: np.ndarray


@dataclass(frozen=True, eq=False)
class ActionScores:
    """Every score of one video, or of all videos pooled (docs/measures.md §4).

    Attributes
    ----------
    point
        Counts, recall, precision and F at the fixed point (all thresholds ε).
    curves
        Performance-vs-quality curves.
    integrals
        ``I_sr, I_sp, I_tr, I_tp`` by key ``sr, sp, tr, tp``: the mean of F
        over the grid of the varied threshold.
    final
        Mean of the four integrals: the ranking score.
    """

    point: OperatingPoint
    curves: QualityCurves
    integrals: dict[str, IndicatorValue]
    final: IndicatorValue


def _scores(params: LirisParameters, gt: _Side, det: _Side) -> ActionScores:
    """Scores from each side's accepted counts at the ``params.point_thresholds()`` rows."""
    g = len(params.grid)
    a, b = gt.accepted[1:].reshape(4, g), det.accepted[1:].reshape(4, g)
    recall, precision, f = _rates(a, b, gt.actions, det.actions)
    curves = QualityCurves(np.array(params.grid), a.copy(), recall, precision, f, b.copy())
    integrals = {
        key: _value(float(np.mean(f[k])), NO_ACTION) for k, key in enumerate(THRESHOLD_KEYS)
    }
    final = _value(float(np.mean([v.value for v in integrals.values()])), NO_ACTION)
    point = _operating_point((params.epsilon,) * 4, gt, det)
    return ActionScores(point, curves, integrals, final)


_DEFAULT_PARAMETERS = LirisParameters()
"""Default ε and grid; the parameters are frozen, so one instance serves every call."""


def _accepted_per_video(
    pairs: AssignedPairs, params: LirisParameters, n_videos: int
) -> tuple[np.ndarray, np.ndarray]:
    """``(1 + 4·G, n_videos)`` accepted pairs per operating point and video, and the
    pairs of each video."""
    accepted = _per_video(pairs.accepted(params.point_thresholds()), pairs.video, n_videos)
    return accepted, np.bincount(pairs.video, minlength=n_videos)


def score_matching(
    matching: ActionMatching, params: LirisParameters = _DEFAULT_PARAMETERS
) -> tuple[ActionScores, dict[str, ActionScores]]:
    """Scores at all ``1 + 4·G`` operating points, overall and per video (docs/measures.md §4).

    Overall counts pool all videos (ground-truth actions found / all GT actions,
    correct detections / all detections); each video's scores use only its own actions.
    """
    n = len(matching.videos)
    accepted, assigned = _accepted_per_video(matching.pairs, params, n)
    if matching.det_pairs is matching.pairs:
        det_accepted, det_assigned = accepted, assigned
    else:
        det_accepted, det_assigned = _accepted_per_video(matching.det_pairs, params, n)
    overall = _scores(
        params,
        _Side(int(matching.n_gt.sum()), int(assigned.sum()), accepted.sum(axis=1)),
        _Side(int(matching.n_det.sum()), int(det_assigned.sum()), det_accepted.sum(axis=1)),
    )
    videos = {
        v.video: _scores(
            params,
            _Side(int(matching.n_gt[k]), int(assigned[k]), accepted[:, k]),
            _Side(int(matching.n_det[k]), int(det_assigned[k]), det_accepted[:, k]),
        )
        for k, v in enumerate(matching.videos)
    }
    return overall, videos


# --- class confusion matrix ------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class ClassConfusion:
    """Class confusion matrix of the class-agnostic matching (docs/measures.md §4).

    Rows are ground-truth classes, columns detected classes, both in
    :data:`CLASSES` order. Only pairs matched ignoring class and accepted at ε
    (without the class test) are counted; unmatched and vetoed actions are not.
    ``percentages`` divides each row by its total (×100); an empty row is NaN.
    """

    classes: tuple[int, ...]
    counts: np.ndarray
    percentages: np.ndarray


def _confusion(counts: np.ndarray) -> ClassConfusion:
    totals = counts.sum(axis=1, keepdims=True)
    percentages = np.divide(
        100.0 * counts, totals, out=np.full(counts.shape, math.nan), where=totals > 0
    )
    return ClassConfusion(CLASSES, counts, percentages)


def class_confusion(
    matching: ActionMatching, epsilon: float = DEFAULT_EPSILON
) -> tuple[ClassConfusion, dict[str, ClassConfusion]]:
    """Class confusion matrix, overall and per video (docs/measures.md §4)."""
    pairs = matching.pairs_any_class
    keep = pairs.accepted(np.full((1, 4), float(epsilon)), class_test=False)[0]
    rows = np.searchsorted(CLASSES, pairs.gt_class[keep])
    cols = np.searchsorted(CLASSES, pairs.det_class[keep])
    counts = np.zeros((len(matching.videos), len(CLASSES), len(CLASSES)), dtype=np.int64)
    np.add.at(counts, (pairs.video[keep], rows, cols), 1)
    per_video = {v.video: _confusion(counts[k]) for k, v in enumerate(matching.videos)}
    return _confusion(counts.sum(axis=0)), per_video


# --- per-pair explanation --------------------------------------------------------------------

ACCEPTED = "accepted"
VETOED = "vetoed"
MISS = "miss"
FALSE_ALARM = "false alarm"


@dataclass(frozen=True)
class PairRow:
    """One line of the explanation table (docs/measures.md §4).

    ``outcome`` is ``"accepted"`` or ``"vetoed"`` for a pair (at ε), ``"miss"``
    for a ground-truth action without a partner, ``"false alarm"`` for a
    detection without one. ``failed`` lists every failing test of a vetoed
    pair (:data:`CRITERIA` names, then ``"class"``). Indices are positions in
    the video's action lists, numbers the files' ``nr``; absent values are
    ``None`` and absent ratios NaN.
    """

    video: str
    outcome: str
    gt_index: int | None
    gt_number: int | None
    gt_class: int | None
    det_index: int | None
    det_number: int | None
    det_class: int | None
    dice: float = math.nan
    spatial_recall: float = math.nan
    spatial_precision: float = math.nan
    temporal_recall: float = math.nan
    temporal_precision: float = math.nan
    failed: tuple[str, ...] = field(default=())


def _pair_row(video: VideoMatching, pairs: AssignedPairs, m: int, failed: np.ndarray) -> PairRow:
    """Row of pair ``m`` of ``pairs``: accepted, or vetoed with its failing tests."""
    names = (*(CRITERIA[k] for k in THRESHOLD_KEYS), CLASS_CRITERION)
    i, j = int(pairs.gt[m]), int(pairs.det[m])
    g, d = video.gt[i], video.det[j]
    reasons = tuple(n for n, bad in zip(names, failed[m]) if bad)
    # Columns of the ratios: THRESHOLD_KEYS order, as PairRow's fields.
    sr, sp, tr, tp = (float(r) for r in pairs.ratios[m])
    return PairRow(
        video.video,
        VETOED if reasons else ACCEPTED,
        i,
        g.number,
        g.action_class,
        j,
        d.number,
        d.action_class,
        float(pairs.dice[m]),
        spatial_recall=sr,
        spatial_precision=sp,
        temporal_recall=tr,
        temporal_precision=tp,
        failed=reasons,
    )


def pair_table(matching: ActionMatching, epsilon: float = DEFAULT_EPSILON) -> tuple[PairRow, ...]:
    """Every pair, miss and false alarm, with why each pair was vetoed (docs/measures.md §4).

    Per video: ground-truth actions in order (the pair with their partner, or a
    miss), then detections in order: the pair with their partner when not listed
    yet (best-partner only), or a false alarm when they have none.
    """
    gt_pairs, det_pairs = matching.pairs, matching.det_pairs
    gt_failed = gt_pairs.failed((epsilon,) * 4)
    det_failed = gt_failed if det_pairs is gt_pairs else det_pairs.failed((epsilon,) * 4)
    by_gt = {(int(v), int(i)): m for m, (v, i) in enumerate(zip(gt_pairs.video, gt_pairs.gt))}
    by_det = {(int(v), int(j)): m for m, (v, j) in enumerate(zip(det_pairs.video, det_pairs.det))}
    rows: list[PairRow] = []
    for v, video in enumerate(matching.videos):
        for i, g in enumerate(video.gt):
            m = by_gt.get((v, i))
            if m is None:
                rows.append(
                    PairRow(video.video, MISS, i, g.number, g.action_class, None, None, None)
                )
            else:
                rows.append(_pair_row(video, gt_pairs, m, gt_failed))
        listed = set(video.assigned)
        for j, d in enumerate(video.det):
            m = by_det.get((v, j))
            if m is None:
                rows.append(
                    PairRow(video.video, FALSE_ALARM, None, None, None, j, d.number, d.action_class)
                )
            elif (int(det_pairs.gt[m]), j) not in listed:
                rows.append(_pair_row(video, det_pairs, m, det_failed))
    return tuple(rows)


# --- everything ------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class ActionEvaluation:
    """The complete LIRIS evaluation of one method (docs/measures.md §4).

    Attributes
    ----------
    parameters
        ε, the grid and the matching's reading used.
    matching
        Pair statistics and matchings of every video.
    overall, per_video
        Scores pooled over all videos, and of each video by name.
    confusion, confusion_per_video
        Class confusion matrices (class-agnostic matching, accepted at ε).
    pairs
        The explanation table at ε.
    """

    parameters: LirisParameters
    matching: ActionMatching
    overall: ActionScores
    per_video: dict[str, ActionScores]
    confusion: ClassConfusion
    confusion_per_video: dict[str, ClassConfusion]
    pairs: tuple[PairRow, ...]


def evaluate_actions(
    gt: AnnotationSet,
    det: AnnotationSet,
    params: LirisParameters = _DEFAULT_PARAMETERS,
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> ActionEvaluation:
    """Evaluate detected actions against ground truth with the LIRIS metric (docs/measures.md §4).

    Parameters
    ----------
    gt, det
        Ground truth and one method's detections; videos paired by name.
    params
        ε, the grid of the integrated measures and the matching's reading.
    progress
        Called with ``(videos done, videos)`` during matching.
    cancel
        Checked between videos.
    """
    matching = match_actions(gt, det, progress, cancel, params.matching)
    check(cancel)
    overall, per_video = score_matching(matching, params)
    confusion, confusion_per_video = class_confusion(matching, params.epsilon)
    return ActionEvaluation(
        params,
        matching,
        overall,
        per_video,
        confusion,
        confusion_per_video,
        pair_table(matching, params.epsilon),
    )
