"""Propagating a label map by optical flow on a synthetic sequence (docs/measures.md §1).

Frames are 160×120 of smooth noise (white noise blurred with σ = 2 pixels, so
that the optical flows see texture at every scale); a 30×30 square of another
such texture starts at (40, 30) and moves by (+3, +2) pixels per frame, so on
frame k it covers columns ``40 + 3k … 69 + 3k`` and rows ``30 + 2k … 59 + 2k``.
The true label map of frame k is that square at motion (255) on static (0).
"""

from __future__ import annotations

from collections.abc import Callable

import cv2
import numpy as np
import pytest

from referee.core.annotation.mask_propagation import (
    MaskPropagationOptions,
    propagate_mask,
)
from referee.core.errors import CancelledError, InvalidOptionError
from referee.core.measures.pixel import GT_MOTION, GT_OUTSIDE, GT_SHADOW, GT_STATIC, GT_UNKNOWN
from referee.core.progress import CancelToken

HEIGHT, WIDTH, SIDE, DX, DY = 120, 160, 30, 3, 2
FRAMES = range(0, 11)
_RNG = np.random.default_rng(0)


def _texture(shape: tuple[int, int]) -> np.ndarray:
    noise = cv2.GaussianBlur(_RNG.integers(0, 256, shape).astype(np.float32), (0, 0), 2)
    return cv2.normalize(noise, None, 0, 255, cv2.NORM_MINMAX).astype(np.uint8)


BACKGROUND, SQUARE = _texture((HEIGHT, WIDTH)), _texture((SIDE, SIDE))


def corner(k: int) -> tuple[int, int]:
    return 40 + DX * k, 30 + DY * k


def frame(k: int) -> np.ndarray:
    image = BACKGROUND.copy()
    x, y = corner(k)
    image[y : y + SIDE, x : x + SIDE] = SQUARE
    return image


def bgr_frame(k: int) -> np.ndarray:
    return np.repeat(frame(k)[:, :, None], 3, axis=2)


def truth(k: int) -> np.ndarray:
    label = np.zeros((HEIGHT, WIDTH), np.uint8)
    x, y = corner(k)
    label[y : y + SIDE, x : x + SIDE] = GT_MOTION
    return label


def motion_iou(draft: np.ndarray, expected: np.ndarray) -> float:
    a, b = draft == GT_MOTION, expected == GT_MOTION
    return float(np.count_nonzero(a & b) / np.count_nonzero(a | b))


def still(k: int) -> np.ndarray:
    """Every frame the same: nothing moves."""
    return BACKGROUND


@pytest.mark.parametrize("read", [frame, bgr_frame], ids=["grey", "bgr"])
def test_the_square_is_followed_forward(read: Callable[[int], np.ndarray]) -> None:
    result = propagate_mask(truth(0), read, 0, "forward", 5, FRAMES)
    assert list(result.drafts) == [1, 2, 3, 4, 5]
    assert result.options == MaskPropagationOptions() and result.seconds > 0
    for k, draft in result.drafts.items():
        assert draft.dtype == np.uint8 and draft.shape == (HEIGHT, WIDTH)
        assert motion_iou(draft, truth(k)) >= 0.95, k
    # Copying frame 0 would score (30 − 15)·(30 − 10) / (2·900 − 300) = 0.2 on frame 5.
    assert motion_iou(truth(0), truth(5)) == pytest.approx(0.2)


def test_the_square_is_followed_backward() -> None:
    result = propagate_mask(truth(8), frame, 8, "backward", 5, FRAMES)
    assert list(result.drafts) == [7, 6, 5, 4, 3]
    assert motion_iou(result.drafts[3], truth(3)) >= 0.95


def test_dis_follows_the_square_less_closely() -> None:
    result = propagate_mask(truth(0), frame, 0, "forward", 5, FRAMES, MaskPropagationOptions("dis"))
    assert motion_iou(result.drafts[5], truth(5)) >= 0.8


@pytest.mark.parametrize("method", ["farneback", "dis"])
@pytest.mark.parametrize("warp", ["objects", "pixels"])
def test_a_pan_moves_every_level_with_the_scene(method: str, warp: str) -> None:
    # The camera pans: the whole scene moves by (+3, +2) per frame (each frame a view into a
    # larger texture), and with it a square of motion over a strip of shadow.
    scene = _texture((HEIGHT + 20, WIDTH + 20))

    def read(k: int) -> np.ndarray:
        return scene[20 - DY * k : 20 - DY * k + HEIGHT, 20 - DX * k : 20 - DX * k + WIDTH]

    start = np.zeros((HEIGHT, WIDTH), np.uint8)
    start[30:60, 40:70] = GT_MOTION
    start[60:64, 40:70] = GT_SHADOW
    expected = np.zeros_like(start)
    expected[40:70, 55:85] = GT_MOTION
    expected[70:74, 55:85] = GT_SHADOW
    options = MaskPropagationOptions(method, warp)
    draft = propagate_mask(start, read, 0, "forward", 5, FRAMES, options).drafts[5]
    for level in (GT_MOTION, GT_SHADOW):
        a, b = draft == level, expected == level
        assert np.count_nonzero(a & b) >= 0.95 * np.count_nonzero(a | b), level


def test_an_object_carries_its_levels() -> None:
    # A 4-row shadow under the square and a 1-pixel unknown rim around both move with it.
    start = np.zeros((HEIGHT, WIDTH), np.uint8)
    start[29:65, 39:71] = GT_UNKNOWN
    start[30:60, 40:70] = GT_MOTION
    start[60:64, 40:70] = GT_SHADOW
    expected = np.roll(start, (5 * DY, 5 * DX), axis=(0, 1))
    draft = propagate_mask(start, frame, 0, "forward", 5, FRAMES).drafts[5]
    for level in (GT_MOTION, GT_SHADOW, GT_UNKNOWN):
        a, b = draft == level, expected == level
        assert np.count_nonzero(a & b) >= 0.9 * np.count_nonzero(a | b), level


@pytest.mark.parametrize("warp", ["objects", "pixels"])
def test_outside_the_roi_stays_put_and_nothing_else_becomes_it(warp: str) -> None:
    # Columns 0–19 are outside the ROI; the square, coming from the left, starts partly in it.
    def read(k: int) -> np.ndarray:
        image = BACKGROUND.copy()
        image[40:70, 10 + 4 * k : 40 + 4 * k] = SQUARE
        return image

    start = np.zeros((HEIGHT, WIDTH), np.uint8)
    start[40:70, 10:40] = GT_MOTION
    start[:, :20] = GT_OUTSIDE
    options = MaskPropagationOptions(warp=warp)
    for draft in propagate_mask(start, read, 0, "forward", 5, FRAMES, options).drafts.values():
        assert (draft[:, :20] == GT_OUTSIDE).all()
        assert not (draft[:, 20:] == GT_OUTSIDE).any()


def test_snapping_follows_the_detectors_where_they_agree() -> None:
    # Nothing moves, so the draft before snapping is the start map itself.
    start = np.zeros((HEIGHT, WIDTH), np.uint8)
    start[10:20, 10:20] = GT_MOTION  # the detectors: none (0.0) → static
    start[10:20, 30:40] = GT_MOTION  # the detectors: half (0.5) → kept
    start[10:20, 50:60] = GT_SHADOW  # the detectors: all (1.0) → shadow kept
    start[10:20, 70:80] = GT_UNKNOWN  # the detectors: none → unknown kept
    start[:, 150:] = GT_OUTSIDE  # the detectors: all → outside kept
    share = np.full((HEIGHT, WIDTH), 0.5)
    share[10:20, 10:20] = 0.0
    share[10:20, 50:60] = 1.0
    share[10:20, 70:80] = 0.0
    share[50:60, 50:60] = 0.8  # static, four of five detectors → motion
    share[70:80, 50:60] = 0.75  # static, three of four → kept
    share[:, 150:] = 1.0
    expected = start.copy()
    expected[10:20, 10:20] = GT_STATIC
    expected[50:60, 50:60] = GT_MOTION
    options = MaskPropagationOptions(snap=True)
    result = propagate_mask(start, still, 0, "forward", 2, FRAMES, options, lambda k: share)
    for draft in result.drafts.values():
        np.testing.assert_array_equal(draft, expected)
    unsnapped = propagate_mask(start, still, 0, "forward", 2, FRAMES).drafts
    for draft in unsnapped.values():
        np.testing.assert_array_equal(draft, start)


def test_progress_is_reported_after_each_frame() -> None:
    seen: list[tuple[int, int]] = []
    propagate_mask(truth(0), frame, 0, "forward", 4, FRAMES, progress=lambda *p: seen.append(p))
    assert seen == [(1, 4), (2, 4), (3, 4), (4, 4)]


def test_cancel_stops_before_the_next_frame() -> None:
    token, read = CancelToken(), []

    def reading(k: int) -> np.ndarray:
        read.append(k)
        return frame(k)

    def progress(done: int, total: int) -> None:
        if done == 2:
            token.cancel()

    with pytest.raises(CancelledError):
        propagate_mask(truth(0), reading, 0, "forward", 5, FRAMES, None, None, progress, token)
    assert read == [0, 1, 2]


@pytest.mark.parametrize(
    ("start", "direction", "count", "frames"),
    [(8, "forward", 5, [9, 10]), (2, "backward", 5, [1, 0]), (0, "forward", 0, [])],
)
def test_propagation_stops_at_the_ends_of_the_video(
    start: int, direction: str, count: int, frames: list[int]
) -> None:
    result = propagate_mask(truth(start), frame, start, direction, count, FRAMES)
    assert list(result.drafts) == frames


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (
            lambda: propagate_mask(np.zeros((60, 80), np.uint8), frame, 0, "forward", 3, FRAMES),
            "frame 0 is 160×120 pixels but the label map is 80×60",
        ),
        (
            lambda: propagate_mask(truth(0) // 2, frame, 0, "forward", 3, FRAMES),
            r"not ground-truth levels \(127\)",
        ),
        (
            lambda: propagate_mask(truth(0).astype(float), frame, 0, "forward", 3, FRAMES),
            "2-D uint8",
        ),
        (
            lambda: propagate_mask(truth(0), lambda k: frame(k)[:60], 0, "forward", 3, FRAMES),
            "160×60 pixels but the label map is 160×120",
        ),
        (lambda: propagate_mask(truth(0), frame, 0, "sideways", 3, FRAMES), "direction"),
        (lambda: propagate_mask(truth(0), frame, 0, "forward", -1, FRAMES), "0 or more"),
        (lambda: propagate_mask(truth(0), frame, 11, "forward", 3, FRAMES), "not a frame"),
        (
            lambda: propagate_mask(
                truth(0), frame, 0, "forward", 3, FRAMES, MaskPropagationOptions(snap=True)
            ),
            "needs the detectors' consensus",
        ),
        (
            lambda: propagate_mask(
                truth(0),
                frame,
                0,
                "forward",
                3,
                FRAMES,
                MaskPropagationOptions(snap=True),
                lambda k: np.zeros((10, 10)),
            ),
            "consensus of frame 1",
        ),
        (lambda: MaskPropagationOptions(method="lucas-kanade"), "unknown optical flow"),
        (lambda: MaskPropagationOptions(warp="mesh"), "unknown warp"),
        (lambda: MaskPropagationOptions(snap_motion=0.2, snap_static=0.2), "snapping shares"),
    ],
)
def test_bad_input_is_one_clear_error(call: Callable[[], object], message: str) -> None:
    with pytest.raises(InvalidOptionError, match=message):
        call()
