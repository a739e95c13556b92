"""Per-pixel rules of docs/measures.md §1 and soft-score histograms of docs/measures.md §3, on hand-made images."""

from __future__ import annotations

import numpy as np
import pytest

from referee.core.errors import InvalidOptionError
from referee.core.measures import pixel
from referee.core.measures.choices import check_threshold
from referee.core.measures.pixel import (
    FrameCounter,
    comparison_labels,
    detection_mask,
    frame_counts,
    score_histograms,
    threshold_confusions,
)

# Row 0: every grey level, detected / not detected, ROI in.
# Row 1: the same, ROI out (must count for nothing even when detected).
# Row 2: non-255 detection values, ROI in.
GT = np.array(
    [
        [0, 0, 50, 50, 85, 85, 170, 170, 255, 255],
        [0, 0, 50, 50, 85, 85, 170, 170, 255, 255],
        [255, 255, 255, 0, 0, 0, 50, 50, 170, 85],
    ],
    dtype=np.uint8,
)
DET = np.array(
    [
        [255, 0, 255, 0, 255, 0, 255, 0, 255, 0],
        [255, 255, 255, 255, 255, 255, 255, 255, 255, 255],
        [254, 128, 1, 254, 128, 1, 254, 128, 255, 255],
    ],
    dtype=np.uint8,
)
ROI = np.array([[True] * 10, [False] * 10, [True] * 10])


def reference_counts(
    gt: np.ndarray, roi: np.ndarray, det: np.ndarray, threshold: int | None = None
) -> list[int]:
    """Straightforward statement of docs/measures.md §1, independent of the module's method."""
    evaluated = roi & ((gt == 0) | (gt == 50) | (gt == 255))
    positive = gt == 255
    detected = det == 255 if threshold is None else det >= threshold
    tp = evaluated & positive & detected
    fp = evaluated & ~positive & detected
    fn = evaluated & positive & ~detected
    tn = evaluated & ~positive & ~detected
    se = evaluated & (gt == 50) & detected
    return [int(m.sum()) for m in (tp, fp, fn, tn, se)]


@pytest.mark.parametrize(
    "threshold, expected",
    [
        # row 0: tp col 8, fn col 9, fp cols 0 and 2 (2 is also a shadow error), tn cols 1 and 3;
        # row 2 with "== 255": nothing detected on evaluated pixels: fn 3 (cols 0-2), tn 5 (cols 3-7)
        (None, [1, 2, 4, 7, 1]),
        (255, [1, 2, 4, 7, 1]),
        # >= 128: row 2 detects cols 0,1 (tp 2, fn 1), 3,4 (fp), 6,7 (fp + shadow); tn col 5
        (128, [1 + 2, 2 + 4, 1 + 1, 2 + 1, 1 + 2]),
        # >= 1: row 2 detects all its evaluated pixels
        (1, [1 + 3, 2 + 5, 1 + 0, 2 + 0, 1 + 2]),
        # >= 0: every evaluated pixel is detected, including value 0 in row 0
        (0, [2 + 3, 4 + 5, 0, 0, 2 + 2]),
    ],
)
def test_hand_computed_counts(threshold: int | None, expected: list[int]) -> None:
    got = frame_counts(GT, ROI, DET, threshold)
    assert got.dtype == np.int64
    assert got.tolist() == expected
    assert reference_counts(GT, ROI, DET, threshold) == expected


def test_levels_85_and_170_are_never_counted() -> None:
    gt = np.array([[85, 170, 85, 170]], dtype=np.uint8)
    det = np.array([[255, 255, 0, 0]], dtype=np.uint8)
    assert frame_counts(gt, np.ones_like(gt, bool), det).tolist() == [0, 0, 0, 0, 0]


def test_other_grey_levels_are_not_evaluated() -> None:
    gt = np.array([[1, 49, 51, 254, 128]], dtype=np.uint8)
    det = np.full_like(gt, 255)
    assert frame_counts(gt, np.ones_like(gt, bool), det).tolist() == [0, 0, 0, 0, 0]


def test_shadow_detection_is_false_positive_and_shadow_error() -> None:
    gt = np.array([[50, 50, 50]], dtype=np.uint8)
    det = np.array([[255, 255, 0]], dtype=np.uint8)
    assert frame_counts(gt, np.ones_like(gt, bool), det).tolist() == [0, 2, 0, 1, 2]


def test_roi_outside_pixels_do_not_count_and_inputs_are_not_modified() -> None:
    gt = GT.copy()
    det = DET.copy()
    counter = FrameCounter(ROI)
    first = counter.counts(gt, det)
    np.testing.assert_array_equal(gt, GT)
    np.testing.assert_array_equal(det, DET)
    # Same as counting rows 0 and 2 only.
    rows = [0, 2]
    assert first.tolist() == frame_counts(GT[rows], ROI[rows], DET[rows]).tolist()
    assert counter.counts(gt, det).tolist() == first.tolist()


@pytest.mark.parametrize("seed", range(6))
def test_random_frames_match_reference(seed: int) -> None:
    rng = np.random.default_rng(seed)
    shape = (37, 53)
    gt = rng.choice(np.array([0, 50, 85, 170, 255, 7], dtype=np.uint8), size=shape)
    det = rng.integers(0, 256, size=shape, dtype=np.uint8)
    det[rng.random(shape) < 0.3] = 255
    roi = rng.random(shape) < 0.7 if seed % 2 else np.ones(shape, bool)
    for threshold in (None, 0, 1, 100, 254, 255):
        counter = FrameCounter(roi, threshold)
        assert counter.counts(gt, det).tolist() == reference_counts(gt, roi, det, threshold)


@pytest.mark.parametrize("bad", [-1, 256, 1.5, "128", True])
def test_threshold_option_is_validated(bad: object) -> None:
    with pytest.raises(InvalidOptionError, match="threshold"):
        check_threshold(bad)  # type: ignore[arg-type]
    with pytest.raises(InvalidOptionError):
        FrameCounter(np.ones((2, 2), bool), bad)  # type: ignore[arg-type]


def test_check_threshold_accepts_numpy_integers() -> None:
    assert check_threshold(np.uint8(200)) == 200
    assert check_threshold(None) is None


def test_non_uint8_or_mismatched_arrays_are_rejected() -> None:
    counter = FrameCounter(np.ones((2, 3), bool))
    good = np.zeros((2, 3), np.uint8)
    with pytest.raises(ValueError, match="uint8"):
        counter.counts(good.astype(np.int32), good)
    with pytest.raises(ValueError, match="uint8"):
        counter.counts(good, good.astype(bool))
    with pytest.raises(ValueError, match="shape"):
        counter.counts(np.zeros((3, 2), np.uint8), np.zeros((3, 2), np.uint8))
    with pytest.raises(ValueError, match="shape"):
        counter.counts(good, np.zeros((3, 2), np.uint8))


def test_detection_mask() -> None:
    values = np.arange(256, dtype=np.uint8).reshape(16, 16)
    assert np.count_nonzero(detection_mask(values)) == 1
    assert np.count_nonzero(detection_mask(values, 200)) == 56
    assert set(np.unique(detection_mask(values, 0)).tolist()) == {255}


# --- soft scores (docs/measures.md §3) -------------------------------------------------


def test_score_histograms_hand_computed() -> None:
    gt = np.array([[0, 0, 50, 255, 255, 85, 170, 255]], dtype=np.uint8)
    scores = np.array([[3, 3, 200, 200, 7, 9, 9, 0]], dtype=np.uint8)
    roi = np.array([[True] * 7 + [False]])
    h = score_histograms(gt, roi, scores)
    assert h.shape == (3, 256) and h.dtype == np.int64
    expected = np.zeros((3, 256), np.int64)
    expected[0, 3] = 2  # static pixels with score 3
    expected[1, 200] = 1  # shadow pixel with score 200
    expected[2, 200] = 1  # motion pixels with score 200 and 7 (the last one is outside the ROI)
    expected[2, 7] = 1
    np.testing.assert_array_equal(h, expected)


def test_threshold_confusions_hand_computed() -> None:
    h = np.zeros((3, 256), np.int64)
    h[0, 3] = 2
    h[1, 200] = 1
    h[2, 200] = 1
    h[2, 7] = 1
    c = threshold_confusions(h)
    assert c.shape == (256, 5)
    assert c[0].tolist() == [2, 3, 0, 0, 1]  # T=0: all detected
    assert c[4].tolist() == [2, 1, 0, 2, 1]  # static (3) no longer detected
    assert c[8].tolist() == [1, 1, 1, 2, 1]  # motion score 7 missed
    assert c[201].tolist() == [0, 0, 2, 3, 0]  # nothing detected


@pytest.mark.parametrize("seed", range(3))
def test_threshold_confusions_equal_counting_at_each_threshold(seed: int) -> None:
    rng = np.random.default_rng(100 + seed)
    shape = (24, 31)
    roi = rng.random(shape) < 0.8
    counter = FrameCounter(roi)
    frames = [
        (
            rng.choice(np.array([0, 50, 85, 170, 255], np.uint8), size=shape),
            rng.integers(0, 256, size=shape, dtype=np.uint8),
        )
        for _ in range(3)
    ]
    summed = sum(counter.score_histograms(gt, s) for gt, s in frames)
    table = threshold_confusions(summed)
    for t in range(256):
        direct = sum(FrameCounter(roi, t).counts(gt, s) for gt, s in frames)
        assert table[t].tolist() == direct.tolist(), t
    default = sum(FrameCounter(roi).counts(gt, s) for gt, s in frames)
    assert table[255].tolist() == default.tolist()


def test_large_frames_use_exact_integer_histograms(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(7)
    gt = rng.choice(np.array([0, 50, 255], np.uint8), size=(20, 20))
    scores = rng.integers(0, 256, size=(20, 20), dtype=np.uint8)
    roi = np.ones((20, 20), bool)
    expected = score_histograms(gt, roi, scores)
    monkeypatch.setattr(pixel, "_FLOAT32_EXACT", 10)  # force the bincount path
    np.testing.assert_array_equal(score_histograms(gt, roi, scores), expected)


def test_threshold_confusions_rejects_bad_shape() -> None:
    with pytest.raises(ValueError):
        threshold_confusions(np.zeros((2, 256)))


def test_strided_views_are_accepted() -> None:
    gt = np.zeros((4, 8), np.uint8)
    gt[:, ::2] = 255
    det = np.full((4, 8), 255, np.uint8)
    roi = np.eye(4, dtype=bool)
    assert frame_counts(gt[:, ::2], roi, det[:, 1::2]).tolist() == [4, 0, 0, 0, 0]
    scores = np.arange(32, dtype=np.uint8).reshape(4, 8)
    h = score_histograms(gt[:, ::2], roi, scores[:, 1::2])
    assert h[2].sum() == 4 and h[2, 1] == 1 and h[2, 11] == 1


def test_comparison_labels_on_a_hand_made_frame() -> None:
    gt = np.array([[0, 0, 50, 50, 255, 255, 170, 85]], dtype=np.uint8)
    det = np.array([[0, 255, 0, 255, 255, 0, 255, 255]], dtype=np.uint8)
    roi = np.ones(gt.shape, dtype=bool)
    roi[0, 1] = False  # the false positive there is outside the ROI
    labels = comparison_labels(gt, roi, det)
    assert labels.tolist() == [[0, 5, 0, 4, 1, 3, 5, 5]]


def test_comparison_labels_count_to_frame_counts() -> None:
    rng = np.random.default_rng(7)
    gt = rng.choice(np.array([0, 50, 85, 170, 255], dtype=np.uint8), size=(40, 50))
    det = rng.integers(0, 256, size=(40, 50), dtype=np.uint8)
    roi = rng.random((40, 50)) > 0.2
    labels = comparison_labels(gt, roi, det, threshold=128)
    n = np.bincount(labels.ravel(), minlength=6)
    tp, fp, fn, tn, se = frame_counts(gt, roi, det, threshold=128)
    assert (n[1], n[2] + n[4], n[3], n[0], n[4]) == (tp, fp, fn, tn, se)
