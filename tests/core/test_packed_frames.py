"""A tracker's frame-by-frame matching pickles as a few flat arrays and unpickles to the
same outcomes, events and errors, rebuilt when first read."""

from __future__ import annotations

import io
import pickle

import numpy as np

from referee.core.measures.boxes import boxes_from_rows
from referee.core.measures.packed_frames import pack_arrays, unpack_arrays
from referee.core.measures.tracking import evaluate_tracking
from referee.core.measures.tracking_frames import TrackedFrames

FRAMES = 300


def _tracked() -> TrackedFrames:
    """Two objects over 300 frames; the tracker misses some frames, swaps identities
    halfway, and adds a false positive every seventh frame."""
    rng = np.random.default_rng(7)
    gt_rows, tracker_rows = [], []
    for frame in range(1, FRAMES + 1):
        for object_id, x in ((1, 10.0), (2, 200.0)):
            box = [x + frame * 0.5, 50.0, 40.0, 80.0]
            gt_rows.append((frame, box, object_id))
            if frame % 11 != object_id:  # a miss now and then
                jitter = rng.normal(0, 1.0, 4) * [1, 1, 0, 0]
                tracker_id = object_id if frame < FRAMES // 2 else 3 - object_id
                tracker_rows.append((frame, list(np.add(box, jitter)), tracker_id))
        if frame % 7 == 0:
            tracker_rows.append((frame, [500.0, 300.0, 20.0, 20.0], 9))

    def boxes(name, rows):
        frames, coords, ids = zip(*rows)
        return boxes_from_rows(name, frames, coords, ids)

    evaluation = evaluate_tracking([boxes("s", gt_rows)], [boxes("s", tracker_rows)])
    return evaluation.frames["s"]


def _arrays_pickled(value: object) -> int:
    """How many NumPy arrays pickling ``value`` writes."""
    count = 0

    class Counting(pickle.Pickler):
        def persistent_id(self, obj: object) -> None:
            nonlocal count
            count += isinstance(obj, np.ndarray)

    Counting(io.BytesIO(), protocol=pickle.HIGHEST_PROTOCOL).dump(value)
    return count


def _same(a: TrackedFrames, b: TrackedFrames) -> None:
    assert a.numbers == b.numbers and a.switched_from == b.switched_from
    for frame in a.numbers:
        assert a.outcomes(frame) == b.outcomes(frame), frame
    for x, y in zip(a.errors(), b.errors()):
        assert np.array_equal(x, y)
    assert a.switch_frames() == b.switch_frames() and a.fragment_frames() == b.fragment_frames()


def test_a_pickled_matching_is_a_few_arrays_and_unpickles_to_the_same_events() -> None:
    tracked = _tracked()
    assert tracked.switch_frames() and tracked.fragment_frames()  # events to compare
    # Unpacked, the boxes and matches pickle as arrays per frame; packed, as three arrays
    # (values, lengths, which are present) per field of the boxes of each side and of
    # the matches.
    assert _arrays_pickled((tracked.groundtruth, tracked.tracker, tracked.matches)) > 1000
    assert _arrays_pickled(tracked) <= 3 * (4 + 4 + 4)
    restored = pickle.loads(pickle.dumps(tracked))
    again = pickle.loads(pickle.dumps(restored))  # pickled again before it was read
    _same(tracked, restored)
    _same(tracked, again)
    frame = tracked.numbers[FRAMES // 2]
    for side in ("groundtruth", "tracker"):
        original, rebuilt = getattr(tracked, side).at(frame), getattr(restored, side).at(frame)
        assert np.array_equal(original.boxes, rebuilt.boxes)
        assert np.array_equal(original.ids, rebuilt.ids)
        assert original.labels is None and rebuilt.labels is None


def test_packed_arrays_keep_absent_ones_empty_ones_and_mixed_dtypes() -> None:
    arrays = [np.arange(3), None, np.zeros(0, dtype=np.int64), np.array([7, 8])]
    unpacked = unpack_arrays(pack_arrays(arrays))
    assert unpacked[1] is None
    for original, rebuilt in zip(arrays, unpacked):
        if original is not None:
            assert rebuilt is not None and rebuilt.dtype == original.dtype
            assert np.array_equal(original, rebuilt)
    mixed = [np.arange(2), np.array([0.5])]  # two dtypes: kept as they are
    assert [a.dtype for a in unpack_arrays(pack_arrays(mixed))] == [a.dtype for a in mixed]
    assert unpack_arrays(pack_arrays([None, None])) == [None, None]
    assert unpack_arrays(pack_arrays([])) == []
