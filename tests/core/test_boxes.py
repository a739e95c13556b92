"""Per-frame box evaluation (docs/measures.md §5): IoU, mapping, FDA/SFDA, MODA, N-MODP, videos."""

from __future__ import annotations

import math

import numpy as np
import pytest

from referee.core.errors import CancelledError, InvalidOptionError
from referee.core.measures.boxes import (
    FrameBoxes,
    VideoBoxes,
    boxes_from_annotations,
    boxes_from_rows,
    evaluate_boxes,
    evaluate_frame,
    iou_matrix,
    map_boxes,
)
from referee.core.model.annotations import Action, AnnotationSet, VideoAnnotation
from referee.core.progress import CancelToken


def _frame(*boxes: tuple[float, float, float, float], labels=None) -> FrameBoxes:
    return FrameBoxes(np.array(boxes, dtype=float).reshape(-1, 4), labels)


# --- IoU -----------------------------------------------------------------------------------


def test_iou_half_open_touching_boxes_do_not_overlap() -> None:
    a = [[0, 0, 10, 10]]
    # [0,10) and [10,20) share no pixel: IoU 0 (side and corner contact alike).
    assert iou_matrix(a, [[10, 0, 10, 10]])[0, 0] == 0.0
    assert iou_matrix(a, [[10, 10, 5, 5]])[0, 0] == 0.0
    # One shared column: intersection 1·10 = 10, union 100 + 100 − 10 = 190.
    assert iou_matrix(a, [[9, 0, 10, 10]])[0, 0] == pytest.approx(10 / 190)
    assert iou_matrix(a, a)[0, 0] == 1.0
    # Zero-area boxes: IoU 0, not NaN.
    assert iou_matrix([[3, 3, 0, 0]], [[3, 3, 0, 0]])[0, 0] == 0.0
    assert iou_matrix(np.zeros((0, 4)), a).shape == (0, 1)


# --- mapping -------------------------------------------------------------------------------

# Boxes all y=0, h=10, so IoU is the IoU of the x-intervals:
# g0=[4,14) g1=[10,20) d0=[6,16) d1=[0,10)
#   IoU(g0,d0) = 8/12 = 2/3, IoU(g0,d1) = 6/14 = 3/7,
#   IoU(g1,d0) = 6/14 = 3/7, IoU(g1,d1) = 0 (touching at x=10).
DIFFER_GT = _frame((4, 0, 10, 10), (10, 0, 10, 10))
DIFFER_DET = _frame((6, 0, 10, 10), (0, 0, 10, 10))


def test_hungarian_and_greedy_differ() -> None:
    iou = iou_matrix(DIFFER_GT.boxes, DIFFER_DET.boxes)
    assert iou == pytest.approx(np.array([[2 / 3, 3 / 7], [3 / 7, 0.0]]))
    assert map_boxes(iou, "hungarian") == [(0, 1), (1, 0)]  # total 6/7 > 2/3
    assert map_boxes(iou, "greedy") == [(0, 0)]  # then g1–d1 has IoU 0

    hungarian = evaluate_frame(1, DIFFER_GT, DIFFER_DET, 0.5, "hungarian")
    # FDA = (3/7 + 3/7) / ((2 + 2)/2) = 3/7; both pairs are below 0.5: 2 misses, 2 FP.
    assert hungarian.fda == pytest.approx(3 / 7)
    assert hungarian.tp == () and hungarian.misses == (0, 1)
    assert hungarian.false_positives == (0, 1)

    greedy = evaluate_frame(1, DIFFER_GT, DIFFER_DET, 0.5, "greedy")
    # FDA = (2/3) / 2 = 1/3; g0–d0 is a TP, g1 a miss, d1 a FP.
    assert greedy.fda == pytest.approx(1 / 3)
    assert [(g, d) for g, d, _ in greedy.tp] == [(0, 0)]
    assert greedy.misses == (1,) and greedy.false_positives == (1,)


def test_greedy_ties_go_to_lowest_gt_then_lowest_detection() -> None:
    # One GT between two detections with IoU 1/3 each: the lower detection index wins.
    iou = iou_matrix([[0, 0, 10, 10]], [[5, 0, 10, 10], [-5, 0, 10, 10]])
    assert iou[0, 0] == iou[0, 1] == pytest.approx(1 / 3)
    assert map_boxes(iou, "greedy") == [(0, 0)]
    # Two GTs equally good for one detection: the lower GT index wins.
    assert map_boxes(iou.T, "greedy") == [(0, 0)]
    # A 2×2 tie everywhere: g0–d0 first, then g1–d1.
    assert map_boxes(np.full((2, 2), 0.5), "greedy") == [(0, 0), (1, 1)]


def test_hungarian_total_is_never_below_greedy() -> None:
    rng = np.random.default_rng(7)
    for _ in range(50):
        gt = np.c_[rng.integers(0, 40, (5, 2)), rng.integers(1, 20, (5, 2))]
        det = np.c_[rng.integers(0, 40, (6, 2)), rng.integers(1, 20, (6, 2))]
        iou = iou_matrix(gt, det)
        total = {m: sum(iou[g, d] for g, d in map_boxes(iou, m)) for m in ("hungarian", "greedy")}
        assert total["hungarian"] >= total["greedy"] - 1e-12
        assert all(iou[g, d] > 0 for g, d in map_boxes(iou, "hungarian"))


def test_unknown_mapping_is_refused() -> None:
    with pytest.raises(InvalidOptionError, match="unknown mapping"):
        evaluate_boxes(VideoBoxes("v"), VideoBoxes("v"), mapping="best")


# --- threshold -----------------------------------------------------------------------------


def test_threshold_boundary_counts_as_tp() -> None:
    gt, det = _frame((0, 0, 2, 1)), _frame((0, 0, 1, 1))  # IoU = 1/2 exactly
    at = evaluate_frame(1, gt, det, iou_threshold=0.5)
    assert len(at.tp) == 1 and at.misses == () and at.false_positives == ()
    above = evaluate_frame(1, gt, det, iou_threshold=0.51)
    assert above.tp == () and above.misses == (0,) and above.false_positives == (0,)
    assert above.fda == at.fda == pytest.approx(0.5 / 1)  # FDA does not use the threshold
    six = evaluate_frame(1, _frame((0, 0, 10, 10)), _frame((0, 0, 6, 10)), iou_threshold=0.6)
    assert len(six.tp) == 1  # IoU 60/100 == 0.6


# --- a three-frame hand example ------------------------------------------------------------


def _three_frames() -> tuple[VideoBoxes, VideoBoxes]:
    gt = VideoBoxes(
        "v",
        {
            # A, B matched; G unmatched
            1: _frame((0, 0, 10, 10), (20, 0, 10, 10), (60, 0, 10, 10)),
            2: _frame(),  # listed but empty: skipped
            3: _frame((0, 0, 10, 10), (100, 0, 10, 10)),
        },
    )
    det = VideoBoxes(
        "v",
        {
            1: _frame((0, 0, 10, 10), (20, 0, 10, 8)),  # IoU 1 and 80/100 = 0.8
            2: _frame(),
            # IoU 50/100 = 0.5 (TP), 40/100 = 0.4 (mapped, below 0.5), one far away
            3: _frame((0, 0, 5, 10), (100, 0, 4, 10), (50, 50, 5, 5)),
        },
    )
    return gt, det


def test_three_frame_example() -> None:
    gt, det = _three_frames()
    result = evaluate_boxes(gt, det)
    video = result.videos[0]
    assert [f.frame for f in video.frames] == [1, 3]  # frame 2 skipped
    f1, f3 = video.frames
    # Frame 1: N_G=3, N_D=2, Σ IoU = 1.8 → FDA = 1.8/2.5 = 0.72; TP 2, miss 1 (G), FP 0.
    assert f1.fda == pytest.approx(0.72)
    assert [(g, d) for g, d, _ in f1.tp] == [(0, 0), (1, 1)]
    assert f1.misses == (2,) and f1.false_positives == ()
    # Frame 3: N_G=2, N_D=3, Σ IoU = 0.9 → FDA = 0.36; TP 1; misses {1}; FP {1, 2}.
    assert f3.fda == pytest.approx(0.36)
    assert [(g, d) for g, d, _ in f3.mapped] == [(0, 0), (1, 1)]
    assert f3.misses == (1,) and f3.false_positives == (1, 2)
    totals = video.totals
    assert (totals.frames, totals.n_gt, totals.n_det) == (2, 5, 5)
    assert (totals.tp, totals.misses, totals.false_positives) == (3, 2, 2)
    # SFDA = (0.72 + 0.36) / 2 frames (not 3) = 0.54.
    assert totals.sfda.value == pytest.approx(0.54)
    # MODA = 1 − (2 misses + 2 FP) / 5 GT boxes = 0.2.
    assert totals.moda.value == pytest.approx(0.2)
    # N-MODP = mean(frame 1: (1 + 0.8)/2 = 0.9, frame 3: 0.5) = 0.7.
    assert totals.n_modp.value == pytest.approx(0.7)
    assert result.overall == totals
    assert (result.iou_threshold, result.mapping, result.class_aware) == (0.5, "hungarian", False)


def test_undefined_measures_carry_a_reason() -> None:
    only_det = evaluate_boxes(VideoBoxes("v"), VideoBoxes("v", {4: _frame((0, 0, 3, 3))}))
    totals = only_det.overall
    assert totals.sfda.value == 0.0  # FDA = 0 / ((0+1)/2)
    assert math.isnan(totals.moda.value) and "no ground-truth box" in totals.moda.reason
    assert math.isnan(totals.n_modp.value) and "no true-positive" in totals.n_modp.reason
    nothing = evaluate_boxes(VideoBoxes("v"), VideoBoxes("v")).overall
    assert math.isnan(nothing.sfda.value) and "no frame has a box" in nothing.sfda.reason


# --- class-aware, LIRIS annotations ----------------------------------------------------------


def _liris(name: str, actions: list[Action]) -> AnnotationSet:
    return AnnotationSet({name: VideoAnnotation(name, tuple(actions))})


def test_class_aware_changes_the_mapping() -> None:
    gt = _liris("room", [Action.from_boxes(1, 1, {5: (0, 0, 10, 10)})])
    det = _liris(
        "room",
        [
            Action.from_boxes(1, 2, {5: (0, 0, 10, 10)}),  # IoU 1, class 2
            Action.from_boxes(2, 1, {5: (0, 0, 6, 10)}),
        ],
    )  # IoU 0.6, class 1
    gt_boxes, det_boxes = boxes_from_annotations(gt), boxes_from_annotations(det)
    assert det_boxes[0].at(5).labels.tolist() == [2, 1]
    assert det_boxes[0].at(5).ids.tolist() == [1, 2]
    blind = evaluate_boxes(gt_boxes, det_boxes).videos[0].frames[0]
    # Classes ignored: g0–d0 (IoU 1); d1 FP. FDA = 1 / 1.5.
    assert [(g, d) for g, d, _ in blind.tp] == [(0, 0)] and blind.false_positives == (1,)
    assert blind.fda == pytest.approx(2 / 3)
    aware = evaluate_boxes(gt_boxes, det_boxes, class_aware=True).videos[0].frames[0]
    # Class-aware: IoU(g0, d0) counts as 0, so g0–d1 (0.6) is the TP; d0 FP. FDA = 0.6/1.5.
    assert [(g, d) for g, d, _ in aware.tp] == [(0, 1)] and aware.false_positives == (0,)
    assert aware.fda == pytest.approx(0.4)


def test_class_aware_needs_labels() -> None:
    gt = boxes_from_rows("v", [1], [[0, 0, 5, 5]], labels=[1])
    det = boxes_from_rows("v", [1], [[0, 0, 5, 5]])  # no labels, like a MOT file
    with pytest.raises(InvalidOptionError, match="class labels"):
        evaluate_boxes(gt, det, class_aware=True)


def test_boxes_from_rows_groups_by_frame_keeping_row_order() -> None:
    video = boxes_from_rows(
        "v", [3, 1, 3], [[0, 0, 1, 1], [1, 1, 1, 1], [2, 2, 1, 1]], ids=[7, 8, 9]
    )
    assert sorted(video.frames) == [1, 3]
    assert video.at(3).ids.tolist() == [7, 9]
    assert video.at(3).boxes[:, 0].tolist() == [0.0, 2.0]


# --- several videos ------------------------------------------------------------------------


def test_videos_pair_by_name_and_pool_frames() -> None:
    gt, det = _three_frames()
    extra_gt = VideoBoxes("only-gt", {1: _frame((0, 0, 4, 4), (10, 10, 4, 4))})
    extra_det = VideoBoxes("only-det", {2: _frame((0, 0, 4, 4))})
    result = evaluate_boxes([gt, extra_gt], [extra_det, det])
    assert [v.name for v in result.videos] == ["v", "only-gt", "only-det"]
    only_gt, only_det = result.videos[1], result.videos[2]
    assert (only_gt.in_gt, only_gt.in_det) == (True, False)
    assert only_gt.totals.misses == 2 and only_gt.totals.sfda.value == 0.0
    assert only_det.totals.false_positives == 1 and math.isnan(only_det.totals.moda.value)
    overall = result.overall
    # Pooled: 4 frames; misses 2+2, FP 2+1, N_G 5+2 → MODA = 1 − 7/7 = 0;
    # SFDA = (0.72 + 0.36 + 0 + 0) / 4 = 0.27; N-MODP unchanged (0.7).
    assert overall.frames == 4
    assert overall.moda.value == pytest.approx(0.0)
    assert overall.sfda.value == pytest.approx(0.27)
    assert overall.n_modp.value == pytest.approx(0.7)


def test_progress_and_cancel() -> None:
    gt, det = _three_frames()
    calls: list[tuple[int, int]] = []
    evaluate_boxes(gt, det, progress=lambda d, t: calls.append((d, t)))
    assert calls[-1] == (2, 2)
    token = CancelToken()
    token.cancel()
    with pytest.raises(CancelledError):
        evaluate_boxes(gt, det, cancel=token)


def test_duplicate_video_names_are_refused() -> None:
    with pytest.raises(InvalidOptionError, match="two videos named"):
        evaluate_boxes([VideoBoxes("v"), VideoBoxes("v")], [])
