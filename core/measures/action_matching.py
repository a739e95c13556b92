"""LIRIS HARL action matching (docs/measures.md §4)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from referee.core.errors import InvalidOptionError
from referee.core.limits import MAX_ACTION_PAIRS
from referee.core.measures.liris_parameters import BEST_PARTNER, ONE_TO_ONE, check_matching
from referee.core.model.annotations import ACTION_CLASSES, Action, AnnotationSet
from referee.core.progress import CancelToken, ProgressCallback, check, report

#: What each threshold constrains (docs/measures.md §4), also the veto reasons of the pair table.
CRITERIA: dict[str, str] = {
    "sr": "spatial recall",
    "sp": "spatial precision",
    "tr": "temporal recall",
    "tp": "temporal precision",
}
#: Veto reason when the classes differ.
CLASS_CRITERION = "class"
#: Classes, in the row and column order of the class confusion matrix.
CLASSES: tuple[int, ...] = tuple(sorted(ACTION_CLASSES))

# Upper bound on the (pair, common frame) elements gathered at once for intersections.
_BLOCK_ELEMENTS = 2_000_000
# Largest total box area of one side of a video: sums of areas, their doubles and the sum
# of both sides stay exact in int64 below 2**63.
_MAX_TOTAL_AREA = 2**61


# --- stage 1: pair statistics and matching ---------------------------------------------------


@dataclass(frozen=True, eq=False)
class VideoPairs:
    """Areas and frame counts of the (ground truth, detection) pairs of one video.

    Ground-truth action ``i`` is the video's ``i``-th, detection ``j`` its
    ``j``-th (positions in the action lists). Only the pairs that share a
    frame are listed (any other pair has no overlap), as parallel arrays
    sorted by ``(gt, det)``, so memory follows the pairs that meet, not
    ``n_gt × n_det``. Areas in pixels summed over frames, all ``int64``.

    Attributes
    ----------
    area_gt, area_det
        ``Area(g)``, ``Area(d)``: ``(n_gt,)``, ``(n_det,)``.
    frames_gt, frames_det
        Number of frames of each action.
    classes_gt, classes_det
        Action classes.
    gt, det
        ``(p,)`` the two actions of each listed pair.
    intersection
        ``Area(g∩d)``: framewise intersections summed over common frames.
    area_gt_on_common, area_det_on_common
        ``Area(g|d)`` and ``Area(d|g)``: each action's area on the frames
        the other one also has.
    common_frames
        ``frames(g∩d)``, at least 1.
    """

    area_gt: np.ndarray
    area_det: np.ndarray
    frames_gt: np.ndarray
    frames_det: np.ndarray
    classes_gt: np.ndarray
    classes_det: np.ndarray
    gt: np.ndarray
    det: np.ndarray
    intersection: np.ndarray
    area_gt_on_common: np.ndarray
    area_det_on_common: np.ndarray
    common_frames: np.ndarray

    def overlap(self, class_aware: bool = True) -> np.ndarray:
        """Dice overlap ``O`` of every listed pair, ``(p,)`` float.

        ``2·Area(g∩d) / (Area(g)+Area(d))``; 0 when both areas are 0 and, if
        ``class_aware``, 0 when the classes differ (docs/measures.md §4).
        """
        total = self.area_gt[self.gt] + self.area_det[self.det]
        dice: np.ndarray = np.divide(
            2 * self.intersection, total, out=np.zeros(len(total)), where=total > 0
        )
        if class_aware:
            dice[self.classes_gt[self.gt] != self.classes_det[self.det]] = 0.0
        return dice

    def index(self, gt: np.ndarray, det: np.ndarray) -> np.ndarray:
        """Positions in the pair arrays of the listed pairs ``(gt[m], det[m])``.

        Raises
        ------
        InvalidOptionError
            If a pair is not listed (its actions share no frame).
        """
        width = max(len(self.area_det), 1)
        keys = self.gt * width + self.det
        wanted = np.asarray(gt, dtype=np.int64) * width + np.asarray(det, dtype=np.int64)
        at = np.searchsorted(keys, wanted)
        found = at < len(keys)
        found[found] = keys[at[found]] == wanted[found]
        if not found.all():
            raise InvalidOptionError("these actions share no frame; they are not a listed pair")
        return at

    def ratios(self, gt: np.ndarray, det: np.ndarray) -> np.ndarray:
        """``(k, 4)`` ratios of the listed pairs ``(gt[m], det[m])`` in ``THRESHOLD_KEYS`` order.

        ``Area(g∩d)/Area(g|d)``, ``Area(g∩d)/Area(d|g)``, ``frames(g∩d)/frames(g)``,
        ``frames(g∩d)/frames(d)``; a zero denominator gives 0.
        """
        at = self.index(gt, det)
        inter = self.intersection[at]
        common = self.common_frames[at]
        pairs = (
            (inter, self.area_gt_on_common[at]),
            (inter, self.area_det_on_common[at]),
            (common, self.frames_gt[gt]),
            (common, self.frames_det[det]),
        )
        out = np.zeros((len(at), 4))
        for k, (num, den) in enumerate(pairs):
            np.divide(num, den, out=out[:, k], where=den > 0)
        return out


@dataclass(frozen=True, eq=False)
class _Boxes:
    """The boxes of several actions, concatenated in action order."""

    first: np.ndarray  # (n,) first frame of each action
    last: np.ndarray  # (n,) last frame
    offset: np.ndarray  # (n,) row of each action's first box in the flat arrays
    corners: np.ndarray  # (4, N) x1, y1, x2, y2 (half-open) of every box
    cumulative: np.ndarray  # (N + 1,) running sum of box areas, starting at 0
    bounds: np.ndarray  # (4, n) x1, y1, x2, y2 of the union of each action's boxes


def _boxes(actions: Sequence[Action]) -> _Boxes:
    lengths = np.array([len(a) for a in actions], dtype=np.int64)
    boxes = (
        np.concatenate([a.boxes for a in actions]) if actions else np.zeros((0, 4), dtype=np.int64)
    )
    corners = np.concatenate([boxes[:, :2], boxes[:, :2] + boxes[:, 2:]], axis=1).T
    areas = boxes[:, 2] * boxes[:, 3]  # each at most MAX_COORDINATE² = 10¹², exact
    if np.sum(areas, dtype=np.float64) >= _MAX_TOTAL_AREA:
        raise InvalidOptionError(
            "the boxes of this video's actions add up to an area too large to sum exactly; "
            "split the video"
        )
    cumulative = np.zeros(len(boxes) + 1, dtype=np.int64)
    np.cumsum(areas, out=cumulative[1:])
    offset = np.cumsum(lengths) - lengths
    if actions:
        bounds = np.concatenate(
            [
                np.minimum.reduceat(corners[:2], offset, axis=1),
                np.maximum.reduceat(corners[2:], offset, axis=1),
            ]
        )
    else:
        bounds = np.zeros((4, 0), dtype=np.int64)
    return _Boxes(
        np.array([a.first for a in actions], dtype=np.int64),
        np.array([a.last for a in actions], dtype=np.int64),
        offset,
        corners,
        cumulative,
        bounds,
    )


def _framewise_intersections(
    g: _Boxes, d: _Boxes, g_rows: np.ndarray, d_rows: np.ndarray, lengths: np.ndarray
) -> np.ndarray:
    """Sum over ``lengths[m]`` frames of the intersection of the boxes starting at flat
    rows ``g_rows[m]`` and ``d_rows[m]``; one value per pair (every length > 0)."""
    sums = np.zeros(len(lengths), dtype=np.int64)
    # Pairs are processed in blocks so that at most about _BLOCK_ELEMENTS frames are gathered.
    ends = np.cumsum(lengths)
    lo = 0
    while lo < len(lengths):
        base = ends[lo - 1] if lo else 0
        hi = max(lo + 1, int(np.searchsorted(ends, base + _BLOCK_ELEMENTS, side="right")))
        n = lengths[lo:hi]
        starts = np.cumsum(n) - n
        step = np.arange(int(n.sum()), dtype=np.int64) - np.repeat(starts, n)
        gi = np.repeat(g_rows[lo:hi], n) + step
        di = np.repeat(d_rows[lo:hi], n) + step
        gc, dc = g.corners, d.corners
        width = np.minimum(gc[2, gi], dc[2, di]) - np.maximum(gc[0, gi], dc[0, di])
        height = np.minimum(gc[3, gi], dc[3, di]) - np.maximum(gc[1, gi], dc[1, di])
        area = np.maximum(width, 0) * np.maximum(height, 0)
        sums[lo:hi] = np.add.reduceat(area, starts)
        lo = hi
    return sums


def _meeting(g: _Boxes, d: _Boxes) -> tuple[np.ndarray, np.ndarray]:
    """The ``(gt, det)`` pairs whose frame ranges share a frame, sorted by ``(gt, det)``.

    A pair meets iff the later of the two first frames lies within the other
    action; the pairs where ``d`` starts within ``g`` and those where ``g``
    starts strictly within ``d`` are each a run of the other side sorted by
    first frame, so the work is proportional to the pairs found.
    """
    runs = []
    for a, b, strict in ((g, d, False), (d, g, True)):
        order = np.argsort(b.first, kind="stable")
        starts = b.first[order]
        lo = np.searchsorted(starts, a.first, side="right" if strict else "left")
        hi = np.searchsorted(starts, a.last, side="right")
        runs.append((a, order, lo, np.maximum(hi - lo, 0)))
    total = sum(int(n.sum()) for *_, n in runs)
    if total > MAX_ACTION_PAIRS:
        raise InvalidOptionError(
            f"{total:,} pairs of ground-truth and detected actions share frames, "
            f"more than the {MAX_ACTION_PAIRS:,} Referee compares (MAX_ACTION_PAIRS); "
            "split the video into shorter ones"
        )
    parts = []
    for side, (a, order, lo, n) in enumerate(runs):
        rows = np.repeat(np.arange(len(a.first), dtype=np.int64), n)
        cols = order[np.repeat(lo, n) + np.arange(int(n.sum())) - np.repeat(np.cumsum(n) - n, n)]
        parts.append((rows, cols) if side == 0 else (cols, rows))
    gt = np.concatenate([parts[0][0], parts[1][0]])
    det = np.concatenate([parts[0][1], parts[1][1]])
    order = np.lexsort((det, gt))
    return gt[order], det[order]


def pair_statistics(gt: Sequence[Action], det: Sequence[Action]) -> VideoPairs:
    """Areas, intersections and common frames of the pairs of one video that meet
    (docs/measures.md §4).

    Frames of an action are consecutive, so common frames and the areas
    ``Area(g|d)``, ``Area(d|g)`` follow in closed form from each pair's common
    frame range and running sums of box areas. Framewise intersections are
    gathered, frame by common frame, only for pairs whose union boxes overlap
    (any other pair has none).
    """
    g, d = _boxes(gt), _boxes(det)
    pi, pj = _meeting(g, d)
    lo = np.maximum(g.first[pi], d.first[pj])
    common = np.minimum(g.last[pi], d.last[pj]) + 1 - lo
    # Flat rows of each action's box on the pair's first common frame.
    g_rows = g.offset[pi] + lo - g.first[pi]
    d_rows = d.offset[pj] + lo - d.first[pj]
    gb, db = g.bounds[:, pi], d.bounds[:, pj]
    candidate = np.flatnonzero(
        (gb[0] < db[2]) & (db[0] < gb[2]) & (gb[1] < db[3]) & (db[1] < gb[3])
    )
    inter = np.zeros(len(pi), dtype=np.int64)
    if len(candidate):
        inter[candidate] = _framewise_intersections(
            g, d, g_rows[candidate], d_rows[candidate], common[candidate]
        )
    return VideoPairs(
        area_gt=g.cumulative[g.offset + (g.last - g.first + 1)] - g.cumulative[g.offset],
        area_det=d.cumulative[d.offset + (d.last - d.first + 1)] - d.cumulative[d.offset],
        frames_gt=g.last - g.first + 1,
        frames_det=d.last - d.first + 1,
        classes_gt=np.array([a.action_class for a in gt], dtype=np.int64),
        classes_det=np.array([a.action_class for a in det], dtype=np.int64),
        gt=pi,
        det=pj,
        intersection=inter,
        area_gt_on_common=g.cumulative[g_rows + common] - g.cumulative[g_rows],
        area_det_on_common=d.cumulative[d_rows + common] - d.cumulative[d_rows],
        common_frames=common,
    )


def greedy_match(overlap: np.ndarray) -> tuple[tuple[int, int], ...]:
    """One-to-one greedy matching on an overlap matrix (docs/measures.md §4).

    Repeatedly take the largest overlap, assign that (row, column) pair and
    remove both, while the largest overlap is > 0. Ties go to the lowest row
    (ground-truth index), then the lowest column (detection index).

    Returns
    -------
    tuple of (row, column)
        Assigned pairs in the order they were chosen.
    """
    values = np.asarray(overlap, dtype=float)
    rows, cols = np.nonzero(values > 0)
    return greedy_pairs(rows, cols, values[rows, cols])


def greedy_pairs(
    rows: np.ndarray, cols: np.ndarray, overlap: np.ndarray
) -> tuple[tuple[int, int], ...]:
    """:func:`greedy_match` on the listed ``(rows[k], cols[k])`` with ``overlap[k]``; pairs
    not listed have overlap 0.

    Taking pairs by decreasing overlap (ties: lower row, then lower column) and
    keeping each whose row and column are both still free picks, at every
    step, the largest overlap left: the same matching in ``O(p log p)``.
    """
    keep = overlap > 0
    rows, cols, values = rows[keep], cols[keep], overlap[keep]
    used_rows: set[int] = set()
    used_cols: set[int] = set()
    chosen = []
    for k in np.lexsort((cols, rows, -values)):
        i, j = int(rows[k]), int(cols[k])
        if i not in used_rows and j not in used_cols:
            used_rows.add(i)
            used_cols.add(j)
            chosen.append((i, j))
    return tuple(chosen)


def best_partners(
    rows: np.ndarray, cols: np.ndarray, overlap: np.ndarray
) -> tuple[tuple[int, int], ...]:
    """Each row's best partner among the listed ``(rows[k], cols[k])`` with ``overlap[k]``
    (docs/measures.md §4, best-partner reading).

    A row's partner is its column of largest overlap > 0, the lowest column on a
    tie; a column may be the partner of several rows. Rows without a listed
    overlap > 0 have none. Returns ``(row, column)`` in row order.
    """
    keep = overlap > 0
    rows, cols, values = rows[keep], cols[keep], overlap[keep]
    order = np.lexsort((cols, -values, rows))
    rows, cols = rows[order], cols[order]
    first = np.ones(len(rows), dtype=bool)
    first[1:] = rows[1:] != rows[:-1]
    return tuple(zip(rows[first].tolist(), cols[first].tolist()))


@dataclass(frozen=True, eq=False)
class VideoMatching:
    """The actions, pair statistics and matchings of one video.

    Every matching lists ``(gt index, detection index)`` pairs. ``assigned``
    gives ground-truth actions their partner (recall), ``det_assigned``
    detections theirs (precision): one-to-one, both are the greedy pairs in the
    order chosen; best-partner, ``assigned`` holds each ground-truth action's best
    partner in ground-truth order and ``det_assigned`` each detection's in
    detection order. ``assigned_any_class`` is ``assigned`` with the class
    condition removed, used only by the class confusion matrix.
    """

    video: str
    gt: tuple[Action, ...]
    det: tuple[Action, ...]
    pairs: VideoPairs
    assigned: tuple[tuple[int, int], ...]
    assigned_any_class: tuple[tuple[int, int], ...]
    det_assigned: tuple[tuple[int, int], ...]


@dataclass(frozen=True, eq=False)
class AssignedPairs:
    """Assigned pairs of all videos as flat arrays, grouped by video (in video order).

    Attributes
    ----------
    video, gt, det
        Video index (into :attr:`ActionMatching.videos`) and action indices.
    gt_class, det_class
        Classes of the two actions.
    dice
        Dice overlap of the pair, computed ignoring class.
    ratios
        ``(k, 4)`` spatial recall, spatial precision, temporal recall,
        temporal precision (``THRESHOLD_KEYS`` order).
    """

    video: np.ndarray
    gt: np.ndarray
    det: np.ndarray
    gt_class: np.ndarray
    det_class: np.ndarray
    dice: np.ndarray
    ratios: np.ndarray

    def __len__(self) -> int:
        return len(self.video)

    def accepted(self, thresholds: np.ndarray, class_test: bool = True) -> np.ndarray:
        """``(m, k)`` bool: pair accepted at each row of ``thresholds`` ``(m, 4)``.

        Every ratio must be strictly greater than its threshold and, with
        ``class_test``, the classes equal (docs/measures.md §4).
        """
        limits = np.asarray(thresholds, dtype=float).reshape(-1, 4)
        ok: np.ndarray = np.all(self.ratios[None, :, :] > limits[:, None, :], axis=2)
        if class_test:
            ok &= (self.gt_class == self.det_class)[None, :]
        return ok

    def failed(self, thresholds: Sequence[float]) -> np.ndarray:
        """``(k, 5)`` bool: which test each pair fails (four ratios, then class)."""
        ratios_fail = ~(self.ratios > np.asarray(thresholds, dtype=float)[None, :])
        return np.column_stack([ratios_fail, self.gt_class != self.det_class])


def _flatten(videos: Sequence[VideoMatching], field: str) -> AssignedPairs:
    """The pairs of every video's matching ``field`` (``assigned``, ``det_assigned`` or
    ``assigned_any_class``)."""
    parts = []
    for v, video in enumerate(videos):
        assigned: tuple[tuple[int, int], ...] = getattr(video, field)
        gt = np.array([i for i, _ in assigned], dtype=np.int64)
        det = np.array([j for _, j in assigned], dtype=np.int64)
        p = video.pairs
        total = p.area_gt[gt] + p.area_det[det]
        inter = p.intersection[p.index(gt, det)]
        dice = np.divide(2 * inter, total, out=np.zeros(len(gt)), where=total > 0)
        parts.append(
            (
                np.full(len(gt), v, dtype=np.int64),
                gt,
                det,
                p.classes_gt[gt],
                p.classes_det[det],
                dice,
                p.ratios(gt, det),
            )
        )
    if not parts:
        empty = np.zeros(0, dtype=np.int64)
        return AssignedPairs(empty, empty, empty, empty, empty, np.zeros(0), np.zeros((0, 4)))
    return AssignedPairs(*(np.concatenate(column) for column in zip(*parts)))


@dataclass(frozen=True, eq=False)
class ActionMatching:
    """The threshold-independent part of the evaluation: every video's matching.

    Videos are the ground truth's in file order, then those only in the
    detections. ``n_gt`` and ``n_det`` count actions per video. ``reading`` is
    one of :data:`MATCHINGS`; ``pairs`` holds the ground-truth actions' partners
    (:attr:`VideoMatching.assigned`), ``det_pairs`` the detections'
    (the same object one-to-one).
    """

    videos: tuple[VideoMatching, ...]
    n_gt: np.ndarray
    n_det: np.ndarray
    pairs: AssignedPairs
    pairs_any_class: AssignedPairs
    reading: str
    det_pairs: AssignedPairs

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(v.video for v in self.videos)


def match_video(
    name: str, gt: Sequence[Action], det: Sequence[Action], reading: str = ONE_TO_ONE
) -> VideoMatching:
    """Pair statistics and the matchings of one video under ``reading`` (docs/measures.md §4)."""
    check_matching(reading)
    try:
        pairs = pair_statistics(gt, det)
    except InvalidOptionError as error:
        raise InvalidOptionError(f"video {name!r}: {error}") from None
    same_class = pairs.overlap(class_aware=True)
    any_class = pairs.overlap(class_aware=False)
    if reading == BEST_PARTNER:
        assigned = best_partners(pairs.gt, pairs.det, same_class)
        by_detection = best_partners(pairs.det, pairs.gt, same_class)
        return VideoMatching(
            name,
            tuple(gt),
            tuple(det),
            pairs,
            assigned,
            best_partners(pairs.gt, pairs.det, any_class),
            tuple((i, j) for j, i in by_detection),
        )
    assigned = greedy_pairs(pairs.gt, pairs.det, same_class)
    any_class_pairs = greedy_pairs(pairs.gt, pairs.det, any_class)
    return VideoMatching(name, tuple(gt), tuple(det), pairs, assigned, any_class_pairs, assigned)


def match_actions(
    gt: AnnotationSet,
    det: AnnotationSet,
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
    reading: str = ONE_TO_ONE,
) -> ActionMatching:
    """Match detections to ground truth in every video, once for all thresholds (docs/measures.md §4).

    Videos are paired by name; a video only in ``det`` contributes false
    alarms, one only in ``gt`` misses. ``reading`` is :data:`ONE_TO_ONE` or
    :data:`BEST_PARTNER`. ``progress`` is called with ``(videos done, videos)``.
    """
    check_matching(reading)
    names = list(gt.videos) + [n for n in det.videos if n not in gt.videos]
    videos = []
    for k, name in enumerate(names):
        check(cancel)
        g = gt.videos[name].actions if name in gt.videos else ()
        d = det.videos[name].actions if name in det.videos else ()
        videos.append(match_video(name, g, d, reading))
        report(progress, k + 1, len(names))
    pairs = _flatten(videos, "assigned")
    return ActionMatching(
        videos=tuple(videos),
        n_gt=np.array([len(v.gt) for v in videos], dtype=np.int64),
        n_det=np.array([len(v.det) for v in videos], dtype=np.int64),
        pairs=pairs,
        pairs_any_class=_flatten(videos, "assigned_any_class"),
        reading=reading,
        det_pairs=pairs if reading == ONE_TO_ONE else _flatten(videos, "det_assigned"),
    )
