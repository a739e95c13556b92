"""MOTChallenge tracks: the model, and rows ↔ tracks (docs/measures.md §5, §10)."""

from __future__ import annotations

import numpy as np
import pytest

from referee.core.errors import InvalidOptionError
from referee.core.formats.mot_csv import MotRows, parse_mot_csv
from referee.core.formats.own_formats import rows_of_tracks, tracks_from_rows
from referee.core.model.tracks import Track

# id 2 has a gap (frames 1–2, then 4); id 5 starts on frame 2; lines out of order.
TEXT = (
    "2,5,30,31,8,9,0.75,-1,-1,-1\n"
    "1,2,10.5,20,4,5,1,-1,-1,-1\n"
    "1,1,0,0,3,3,0.5,-1,-1,-1\n"
    "4,2,12.5,20,4,5,0.25,-1,-1,-1\n"
    "2,2,11.5,20,4,5,1,-1,-1,-1\n"
    "3,5,32,33,8,9,0.5,-1,-1,-1\n"
)


def test_one_track_per_id_and_run_of_consecutive_frames() -> None:
    tracks = tracks_from_rows(parse_mot_csv(TEXT))
    assert [(t.track_id, t.frames.tolist()) for t in tracks] == [
        (1, [1]),
        (2, [1, 2]),
        (2, [4]),
        (5, [2, 3]),
    ]
    assert tracks[1].boxes.tolist() == [[10.5, 20, 4, 5], [11.5, 20, 4, 5]]
    assert tracks[2].conf.tolist() == [0.25]
    assert tracks[3].conf.tolist() == [0.75, 0.5]
    assert all(not t.interpolated.any() for t in tracks)


def test_an_id_twice_on_a_frame_is_refused_naming_both() -> None:
    with pytest.warns(UserWarning):
        rows = parse_mot_csv(TEXT + "3,5,0,0,1,1,1,-1,-1,-1\n")
    with pytest.raises(
        InvalidOptionError, match=r"id 5 appears twice on frame 3 \(lines 6 and 7\)"
    ):
        tracks_from_rows(rows)


def test_tracks_back_to_rows_sorted_by_frame_then_id() -> None:
    rows = rows_of_tracks(tracks_from_rows(parse_mot_csv(TEXT)))
    assert rows.frames.tolist() == [1, 1, 2, 2, 3, 4]
    assert rows.ids.tolist() == [1, 2, 2, 5, 5, 2]
    assert rows.boxes[:, 0].tolist() == [0, 10.5, 11.5, 30, 32, 12.5]
    assert rows.conf.tolist() == [0.5, 1, 1, 0.75, 0.5, 0.25]
    assert rows.lines.tolist() == [0, 1, 2, 3, 4, 5]


def test_sorted_rows_make_the_round_trip_identical() -> None:
    rng = np.random.default_rng(3)
    frames = np.repeat(np.arange(1, 41), 3)
    ids = np.tile([1, 4, 9], 40)
    keep = rng.random(len(frames)) < 0.7  # gaps in every id
    frames, ids = frames[keep], ids[keep]
    boxes = np.column_stack(
        [rng.normal(0, 300, (len(frames), 2)), rng.uniform(0, 50, (len(frames), 2))]
    )
    rows = MotRows(frames, ids, boxes, rng.random(len(frames)), np.arange(len(frames)))
    tracks = tracks_from_rows(rows)
    assert len(tracks) > 3  # some id was split by a gap
    back = rows_of_tracks(tracks)
    for name in ("frames", "ids", "boxes", "conf", "lines"):
        assert np.array_equal(getattr(back, name), getattr(rows, name)), name
    assert back.boxes.tobytes() == rows.boxes.tobytes()


def test_no_rows_no_tracks() -> None:
    empty = MotRows(
        *(np.zeros(0, dtype=np.int64) for _ in range(2)),
        np.zeros((0, 4)),
        np.zeros(0),
        np.zeros(0, dtype=np.int64),
    )
    assert tracks_from_rows(empty) == ()
    rows = rows_of_tracks(())
    assert len(rows) == 0 and rows.boxes.shape == (0, 4)


def test_a_track_defaults_to_keyframes_of_full_confidence_and_is_read_only() -> None:
    track = Track(3, [5, 6], [[1, 2, 3, 4], [1.5, 2, 3, 4]])
    assert track.interpolated.tolist() == [False, False]
    assert track.conf.tolist() == [1.0, 1.0]
    assert (track.first, track.last, len(track)) == (5, 6, 2)
    assert track.boxes.dtype == np.float64 and track.frames.dtype == np.int64
    with pytest.raises(ValueError):
        track.boxes[0, 0] = 9
    assert track.same_as(Track(3, [5, 6], [[1, 2, 3, 4], [1.5, 2, 3, 4]], [False, False], [1, 1]))
    assert not track.same_as(Track(3, [5, 6], [[1, 2, 3, 4], [1.5, 2, 3, 4]], conf=[1, 0.5]))
    assert not track.same_as(Track(4, [5, 6], [[1, 2, 3, 4], [1.5, 2, 3, 4]]))


@pytest.mark.parametrize(
    ("frames", "boxes", "expected"),
    [
        ([], np.zeros((0, 4)), r"track 1 has no box"),
        ([1, 3], [[0, 0, 1, 1]] * 2, r"consecutive"),
        ([0, 1], [[0, 0, 1, 1]] * 2, r"frame numbers run from 1 to 10,000,000, not 0–1"),
        ([10_000_001], [[0, 0, 1, 1]], r"not 10000001–10000001"),
        ([1], [[0, 0, -1, 1]], r"width and height cannot be negative"),
        ([1], [[-1_000_001, 0, 1, 1]], r"at most 1,000,000 pixels"),
        ([1], [[float("inf"), 0, 1, 1]], r"finite"),
        ([1, 2], [[0, 0, 1, 1]], r"2 frames but 1 boxes"),
    ],
)
def test_bad_tracks_are_refused(frames: list[int], boxes: object, expected: str) -> None:
    with pytest.raises(InvalidOptionError, match=expected):
        Track(1, frames, boxes)  # type: ignore[arg-type]


def test_negative_coordinates_are_allowed_as_in_motchallenge() -> None:
    assert Track(1, [1], [[-5.5, -3, 2, 2]]).boxes[0, 0] == -5.5


def test_ids_beyond_two_to_the_53_are_refused() -> None:
    with pytest.raises(InvalidOptionError, match=r"2\*\*53"):
        Track(2**53 + 1, [1], [[0, 0, 1, 1]])
