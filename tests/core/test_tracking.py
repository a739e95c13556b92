"""The mask tracker: components linked over frames, gaps bridged, noise and short tracks dropped."""

from __future__ import annotations

import numpy as np
import pytest

from referee.core.demo.tracking import TrackerParams, box_iou, classify_track, track_masks
from referee.core.errors import InvalidOptionError

H, W = 60, 100
PARAMS = TrackerParams(min_length=5)


def _mask(*boxes: tuple[int, int, int, int]) -> np.ndarray:
    mask = np.zeros((H, W), np.uint8)
    for x, y, w, h in boxes:
        mask[y : y + h, x : x + w] = 255
    return mask


def test_two_squares_moving_apart_are_two_tracks() -> None:
    frames = range(1, 13)
    left = {f: (40 - 2 * f, 20, 8, 8) for f in frames}
    right = {f: (56 + 2 * f, 24, 8, 8) for f in frames}
    actions = track_masks(((f, _mask(left[f], right[f])) for f in frames), PARAMS)
    assert len(actions) == 2
    by_x = sorted(actions, key=lambda a: a.boxes[0, 0])
    for action, truth in zip(by_x, (left, right)):
        assert action.frames.tolist() == list(frames)
        assert [tuple(b) for b in action.boxes.tolist()] == [truth[f] for f in frames]
        assert not action.interpolated.any()
    assert [a.number for a in actions] == [1, 2]


def test_a_one_frame_gap_is_bridged_and_flagged_interpolated() -> None:
    frames = range(1, 11)
    box = {f: (5 + 3 * f, 30, 8, 6) for f in frames}
    masks = [(f, _mask() if f == 5 else _mask(box[f])) for f in frames]
    (action,) = track_masks(masks, PARAMS)
    assert action.frames.tolist() == list(frames)
    assert action.interpolated.tolist() == [f == 5 for f in frames]
    assert action.box_at(5) == box[5]  # linear motion: the interpolated box is exact
    assert action.box_at(4) == box[4] and action.box_at(6) == box[6]


def test_a_long_gap_ends_the_track() -> None:
    frames = range(1, 25)
    box = {f: (2 + 3 * f, 30, 8, 6) for f in frames}
    masks = [(f, _mask() if 9 <= f <= 14 else _mask(box[f])) for f in frames]
    actions = track_masks(masks, PARAMS)
    assert [(a.first, a.last) for a in actions] == [(1, 8), (15, 24)]
    assert not any(a.interpolated.any() for a in actions)


def test_noise_and_short_tracks_are_dropped() -> None:
    frames = range(1, 13)
    square = {f: (10 + 2 * f, 10, 9, 9) for f in frames}
    masks = []
    for f in frames:
        mask = _mask(square[f], (80, 50, 2, 2))  # a speck on every frame: removed by the opening
        if f in (3, 4):
            mask |= _mask((70, 5, 10, 10))  # a blob that lasts two frames: too short a track
        if f % 2:
            mask[45, 5:30:3] = 255  # salt
        masks.append((f, mask))
    (action,) = track_masks(masks, PARAMS)
    assert [tuple(b) for b in action.boxes.tolist()] == [square[f] for f in frames]


def test_fragments_of_one_object_are_joined() -> None:
    frames = range(1, 9)
    masks = [(f, _mask((10 + f, 10, 12, 6), (10 + f, 18, 12, 6))) for f in frames]  # 2-pixel split
    (action,) = track_masks(masks, PARAMS)
    assert action.box_at(1) == (11, 10, 12, 14)


def test_classes_come_from_shape_and_motion() -> None:
    params = TrackerParams(
        min_length=5, still_frames=10, still_class=7, person_class=4, vehicle_class=5
    )
    frames = range(1, 21)
    person = {f: (5 + f, 5, 6, 14) for f in frames}
    car = {f: (80 - 3 * f, 40, 16, 7) for f in frames}
    parked = dict.fromkeys(frames, (40, 25, 14, 7))
    actions = track_masks(((f, _mask(person[f], car[f], parked[f])) for f in frames), params)
    classes = {tuple(a.boxes[0].tolist()): a.action_class for a in actions}
    assert classes == {person[1]: 4, car[1]: 5, parked[1]: 7}
    assert classify_track(np.array([[0, 0, 10, 20]] * 3), params) == 4  # too short to be still


def test_tracking_is_deterministic() -> None:
    rng = np.random.default_rng(3)
    masks = []
    for f in range(1, 30):
        mask = (rng.random((H, W)) < 0.02).astype(np.uint8) * 255
        mask |= _mask((f * 3 % W, 20, 10, 12), (50, (f * 2) % H, 7, 15))
        masks.append((f, mask))
    first = track_masks(masks, PARAMS)
    second = track_masks(iter(masks), PARAMS)
    assert len(first) == len(second) > 0
    assert all(a.same_as(b) for a, b in zip(first, second))


def test_frames_must_increase_and_masks_be_2d() -> None:
    with pytest.raises(InvalidOptionError, match="increase"):
        track_masks([(2, _mask()), (2, _mask())])
    with pytest.raises(InvalidOptionError, match="two-dimensional"):
        track_masks([(1, np.zeros((H, W, 3), np.uint8))])
    with pytest.raises(InvalidOptionError, match="LIRIS"):
        TrackerParams(person_class=11)
    assert track_masks([]) == []


def test_box_iou() -> None:
    assert box_iou((0, 0, 10, 10), (0, 0, 10, 10)) == 1.0
    assert box_iou((0, 0, 10, 10), (10, 0, 10, 10)) == 0.0  # half-open: touching is disjoint
    assert box_iou((0, 0, 10, 10), (5, 0, 10, 10)) == pytest.approx(50 / 150)
