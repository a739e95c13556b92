"""Propagating a box with OpenCV's trackers on a synthetic sequence (docs/measures.md §5).

Frames are 160×120 of fixed noise; a textured 20×20 square starts at (30, 40)
and moves by (+2, +1) pixels per frame, so on frame k its box is
``(30 + 2k, 40 + k, 20, 20)``.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from referee.core.annotation.propagation import TRACKERS, propagate_box
from referee.core.errors import CancelledError, InvalidOptionError
from referee.core.progress import CancelToken

HEIGHT, WIDTH, SIDE = 120, 160, 20
_RNG = np.random.default_rng(0)
BACKGROUND = _RNG.integers(0, 256, (HEIGHT, WIDTH), dtype=np.uint8)
TEXTURE = _RNG.integers(0, 256, (SIDE, SIDE), dtype=np.uint8)


def true_box(k: int) -> tuple[int, int, int, int]:
    return (30 + 2 * k, 40 + k, SIDE, SIDE)


def frames(black_from: int | None = None, bgr: bool = False) -> Callable[[int], np.ndarray]:
    """Frame k of the sequence; uniform black from ``black_from`` on."""

    def read(k: int) -> np.ndarray:
        if black_from is not None and k >= black_from:
            image = np.zeros((HEIGHT, WIDTH), dtype=np.uint8)
        else:
            image = BACKGROUND.copy()
            x, y, _, _ = true_box(k)
            image[y : y + SIDE, x : x + SIDE] = TEXTURE
        return np.repeat(image[:, :, None], 3, axis=2) if bgr else image

    return read


@pytest.mark.parametrize("tracker", ["csrt", "kcf"])
@pytest.mark.parametrize("bgr", [False, True])
def test_the_tracker_follows_the_square_for_ten_frames(tracker: str, bgr: bool) -> None:
    result = propagate_box(frames(bgr=bgr), 0, true_box(0), 10, 100, tracker)
    assert sorted(result.boxes) == list(range(1, 11))
    assert result.lost_at is None and result.tracker == tracker and result.seconds > 0
    x, y, w, h = result.boxes[10]
    tx, ty, _, _ = true_box(10)
    assert abs(x - tx) <= 3 and abs(y - ty) <= 3
    assert (w, h) == (SIDE, SIDE)
    assert all(isinstance(v, int) for box in result.boxes.values() for v in box)


def test_mil_runs_and_gives_whole_pixel_boxes_inside_the_image() -> None:
    result = propagate_box(frames(), 0, true_box(0), 5, 100, "mil")
    assert sorted(result.boxes) == [1, 2, 3, 4, 5]
    for x, y, w, h in result.boxes.values():
        assert x >= 0 and y >= 0 and x + w <= WIDTH and y + h <= HEIGHT and w > 0 and h > 0


@pytest.mark.parametrize("tracker", ["csrt", "kcf"])
def test_tracking_stops_where_the_object_is_lost(tracker: str) -> None:
    # On uniform black frames both trackers report a failure.
    result = propagate_box(frames(black_from=5), 0, true_box(0), 10, 100, tracker)
    assert result.lost_at == 5
    assert sorted(result.boxes) == [1, 2, 3, 4]


def test_boxes_are_clipped_to_the_image_and_lost_once_outside() -> None:
    # The square leaves through the right edge: from frame 65 on it is wholly outside.
    def read(k: int) -> np.ndarray:
        image = BACKGROUND.copy()
        x = 100 + k
        if x < WIDTH:
            image[40:60, x : min(x + SIDE, WIDTH)] = TEXTURE[:, : min(SIDE, WIDTH - x)]
        return image

    result = propagate_box(read, 0, (100, 40, SIDE, SIDE), 80, 200, "csrt")
    assert result.lost_at is not None and result.lost_at <= 70
    assert sorted(result.boxes) == list(range(1, result.lost_at))
    assert all(x + w <= WIDTH and w > 0 for x, _, w, _ in result.boxes.values())


def test_tracking_ends_at_the_last_frame_and_reports_progress() -> None:
    seen: list[tuple[int, int]] = []
    result = propagate_box(frames(), 3, true_box(3), 50, 7, "kcf", lambda d, t: seen.append((d, t)))
    assert sorted(result.boxes) == [4, 5, 6, 7]
    assert seen == [(1, 4), (2, 4), (3, 4), (4, 4)]


def test_nothing_to_track() -> None:
    read_frames: list[int] = []

    def read(k: int) -> np.ndarray:
        read_frames.append(k)
        return frames()(k)

    assert propagate_box(read, 5, true_box(5), 0, 100).boxes == {}
    assert propagate_box(read, 5, true_box(5), 10, 5).boxes == {}
    assert read_frames == []


def test_cancel_stops_between_frames() -> None:
    token = CancelToken()
    read_frames: list[int] = []

    def read(k: int) -> np.ndarray:
        read_frames.append(k)
        return frames()(k)

    def progress(done: int, _total: int) -> None:
        if done == 3:
            token.cancel()

    with pytest.raises(CancelledError):
        propagate_box(read, 0, true_box(0), 10, 100, "kcf", progress, token)
    assert read_frames == [0, 1, 2, 3]


def test_unknown_tracker_is_refused() -> None:
    with pytest.raises(
        InvalidOptionError, match=r"unknown tracker 'boosting'; choose one of csrt, kcf, mil"
    ):
        propagate_box(frames(), 0, true_box(0), 5, 100, "boosting")
    assert TRACKERS == ("csrt", "kcf", "mil")


@pytest.mark.parametrize(
    "box", [(30, 40, 0, 20), (30, 40, 20, 0), (30, 40, 5, 20), (200, 40, 20, 20), (-25, 40, 20, 20)]
)
def test_boxes_too_small_or_outside_the_image_are_refused(box: tuple[int, ...]) -> None:
    with pytest.raises(InvalidOptionError, match=r"too small to track"):
        propagate_box(frames(), 0, box, 5, 100)


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ({"box": (1, 2, 3)}, r"four finite numbers"),
        ({"box": (1, float("nan"), 3, 4)}, r"four finite numbers"),
        ({"count": -1}, r"cannot track -1 frames"),
        ({"start": 101}, r"start frame 101 is after the last frame, 100"),
    ],
)
def test_bad_requests_are_refused(arguments: dict[str, object], expected: str) -> None:
    request: dict[str, object] = {"start": 0, "box": true_box(0), "count": 5, "last_frame": 100}
    with pytest.raises(InvalidOptionError, match=expected):
        propagate_box(frames(), **(request | arguments))  # type: ignore[arg-type]


def test_frames_must_be_8_bit_and_of_one_size() -> None:
    def wrong_size(k: int) -> np.ndarray:
        return frames()(k) if k == 0 else np.zeros((60, 80), dtype=np.uint8)

    with pytest.raises(
        InvalidOptionError, match=r"frame 1 is 80×60 pixels but the start frame is 160×120"
    ):
        propagate_box(wrong_size, 0, true_box(0), 5, 100)
    with pytest.raises(InvalidOptionError, match=r"frame 0 is a float64 image"):
        propagate_box(lambda k: frames()(k).astype(np.float64), 0, true_box(0), 5, 100)
