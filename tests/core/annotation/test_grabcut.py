"""Drafting a mask from a box with GrabCut (docs/measures.md §1).

The scenes are synthetic: a textured background (8-pixel checks of two greens with
noise) and objects of distinct, slightly noisy colours whose pixels are known exactly: a
disc holds the pixels whose centre lies within its radius, a square its half-open block.
"""

from __future__ import annotations

import numpy as np
import pytest

from referee.core.annotation.grabcut import MAX_CUT_PIXELS, grabcut_draft
from referee.core.errors import InvalidOptionError

HEIGHT, WIDTH = 120, 160
RED, BLUE = (220, 40, 40), (40, 60, 230)


def textured(height: int = HEIGHT, width: int = WIDTH, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    rows, columns = np.mgrid[0:height, 0:width]
    checks = ((rows // 8 + columns // 8) % 2)[..., None] * np.array([30, 60, 20])
    base = np.array([50, 110, 40]) + checks + rng.integers(-20, 21, (height, width, 3))
    return np.clip(base, 0, 255).astype(np.uint8)


def disc(cx: float, cy: float, radius: float, shape: tuple[int, int] = (HEIGHT, WIDTH)):
    rows, columns = np.mgrid[0 : shape[0], 0 : shape[1]]
    return (columns + 0.5 - cx) ** 2 + (rows + 0.5 - cy) ** 2 <= radius**2


def paint(image: np.ndarray, where: np.ndarray, colour: tuple[int, int, int], seed: int = 1):
    noise = np.random.default_rng(seed).integers(-12, 13, (int(where.sum()), 3))
    image[where] = np.clip(np.array(colour) + noise, 0, 255)


def iou(a: np.ndarray, b: np.ndarray) -> float:
    return float((a & b).sum() / (a | b).sum())


def test_a_disc_in_a_box_is_painted_as_motion_and_the_rest_of_the_box_static() -> None:
    image, truth = textured(), disc(80, 60, 25)
    paint(image, truth, RED)
    label = np.full((HEIGHT, WIDTH), 170, np.uint8)  # unknown motion everywhere
    original = label.copy()
    patch = grabcut_draft(label, image, (50, 30, 110, 90))
    assert patch is not None
    # The box's pixels are those whose centre lies in it: columns 50–109, rows 30–89.
    assert patch.rect == (50, 30, 110, 90)
    inside = np.zeros_like(truth)
    inside[30:90, 50:110] = True
    assert np.array_equal(label[~inside], original[~inside])
    assert set(np.unique(label[inside])) == {0, 255}
    assert iou(label == 255, truth) >= 0.9
    painted = label.copy()
    patch.undo(label)
    assert np.array_equal(label, original)
    patch.redo(label)
    assert np.array_equal(label, painted)


def test_corners_in_any_order_a_grey_frame_and_the_same_draft_every_time() -> None:
    truth = disc(80, 60, 25)
    grey = textured().mean(axis=2).astype(np.uint8)
    grey[truth] = 230 + np.random.default_rng(3).integers(-12, 13, int(truth.sum()))
    first, second = np.zeros((HEIGHT, WIDTH), np.uint8), np.zeros((HEIGHT, WIDTH), np.uint8)
    grabcut_draft(first, grey, (110, 90, 50, 30))
    grabcut_draft(second, grey, (50, 30, 110, 90))
    assert np.array_equal(first, second)
    assert iou(first == 255, truth) >= 0.9


def test_outside_the_roi_stays_outside() -> None:
    image, truth = textured(), disc(80, 60, 25)
    paint(image, truth, RED)
    roi = np.ones((HEIGHT, WIDTH), np.uint8)
    roi[:, :70] = 0  # the disc's left part is outside the ROI
    label = np.zeros((HEIGHT, WIDTH), np.uint8)
    label[85:, 100:] = 85  # outside the ROI already, though the ROI says inside
    grabcut_draft(label, image, (50, 30, 110, 90), roi=roi)
    assert np.all(label[30:90, 50:70] == 85)
    assert np.all(label[85:90, 100:110] == 85)
    kept = truth.copy()
    kept[:, :70] = False
    kept[85:, 100:] = False
    assert iou(label == 255, kept) >= 0.9


def test_the_consensus_keeps_the_moving_object_and_drops_the_still_one() -> None:
    """A red disc (moving: every detector fires) and a blue square (still: none fires) in
    one box. From the box alone both are the object; seeded, only the disc is."""
    image = textured()
    moving, still = disc(60, 60, 18), np.zeros((HEIGHT, WIDTH), bool)
    still[45:75, 90:120] = True
    paint(image, moving, RED)
    paint(image, still, BLUE, seed=2)
    box = (35, 35, 128, 85)
    alone = np.zeros((HEIGHT, WIDTH), np.uint8)
    grabcut_draft(alone, image, box)
    assert (alone[still] == 255).mean() > 0.9  # the square is taken as the object too
    share = moving.astype(np.float64)
    seeded = np.zeros((HEIGHT, WIDTH), np.uint8)
    grabcut_draft(seeded, image, box, share=share)
    assert iou(seeded == 255, moving) >= 0.9
    assert not (seeded[still] == 255).any()
    # A consensus that sees nothing in the box, or is not known (NaN), leaves the box to say.
    for blind in (np.zeros((HEIGHT, WIDTH)), np.full((HEIGHT, WIDTH), np.nan)):
        again = np.zeros((HEIGHT, WIDTH), np.uint8)
        grabcut_draft(again, image, box, share=blind)
        assert np.array_equal(again, alone)


def test_a_large_box_is_cut_at_a_lower_resolution() -> None:
    height, width = 480, 640
    image, truth = textured(height, width), disc(320, 240, 190, (height, width))
    paint(image, truth, RED)
    box = (110, 30, 530, 450)  # 420 × 420 pixels: more than GrabCut is given at once
    assert MAX_CUT_PIXELS < 420 * 420
    label = np.zeros((height, width), np.uint8)
    grabcut_draft(label, image, box)
    assert iou(label == 255, truth) >= 0.9
    assert not label[:30].any() and not label[:, 530:].any()


def test_nothing_to_do_and_what_is_refused() -> None:
    image, label = textured(), np.zeros((HEIGHT, WIDTH), np.uint8)
    assert grabcut_draft(label, image, (-50, -50, -10, -10)) is None  # off the frame
    assert grabcut_draft(label, image, (10.6, 10.6, 11.4, 11.4)) is None  # no pixel centre
    with pytest.raises(InvalidOptionError, match="holds 4 pixels"):
        grabcut_draft(label, image, (10, 10, 12, 12))
    with pytest.raises(InvalidOptionError, match="too little of the frame"):
        grabcut_draft(label, image, (-5, -5, WIDTH + 5, HEIGHT + 5))
    with pytest.raises(InvalidOptionError, match="four finite numbers"):
        grabcut_draft(label, image, (0, 0, float("nan"), 10))
    with pytest.raises(InvalidOptionError, match="label map's size 160x120"):
        grabcut_draft(label, image[:60], (10, 10, 50, 50))
    with pytest.raises(InvalidOptionError, match="consensus share"):
        grabcut_draft(label, image, (10, 10, 50, 50), share=np.zeros((3, 3)))
    with pytest.raises(InvalidOptionError, match="iteration"):
        grabcut_draft(label, image, (10, 10, 50, 50), iterations=0)
    with pytest.raises(InvalidOptionError, match="2-D uint8"):
        grabcut_draft(label.astype(np.int32), image, (10, 10, 50, 50))
    assert not label.any()
