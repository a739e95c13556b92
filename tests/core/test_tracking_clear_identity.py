"""CLEAR MOT and identity measures against TrackEval 1.3.0, field by field (docs/measures.md §5).

Synthetic sequences: moving ground-truth objects that appear and disappear,
trackers that miss frames, swap identities, fragment tracks and add false
positives; and sequences with IoU drawn from a few values so that the
assignments have ties. Each is scored by Referee and by TrackEval's
``CLEAR`` and ``Identity`` ``eval_sequence``, then combined by both.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest
import trackeval
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.core.measures.boxes import boxes_from_rows
from referee.core.measures.clear_mot import ClearMot, clear_mot, combine_clear_mot
from referee.core.measures.identity import IdentityScores, combine_identity, identity_scores
from referee.core.measures.tracked import TrackedSequence, tracked_sequence

#: TrackEval's CLEAR field name → :class:`ClearMot` attribute.
TRACKEVAL_NAMES: dict[str, str] = {
    "CLR_TP": "tp",
    "CLR_FN": "fn",
    "CLR_FP": "fp",
    "IDSW": "idsw",
    "MT": "mt",
    "PT": "pt",
    "ML": "ml",
    "Frag": "frag",
    "CLR_Frames": "frames",
    "MOTP_sum": "motp_sum",
    "MOTA": "mota",
    "MOTP": "motp",
    "MODA": "moda",
    "CLR_Re": "recall",
    "CLR_Pr": "precision",
    "CLR_F1": "f1",
    "MTR": "mtr",
    "PTR": "ptr",
    "MLR": "mlr",
    "sMOTA": "smota",
    "FP_per_frame": "fp_per_frame",
    "MOTAL": "motal",
}


def _clear_fields(scores: ClearMot) -> dict[str, float]:
    """Every CLEAR value under the name TrackEval gives it."""
    return {name: getattr(scores, attribute) for name, attribute in TRACKEVAL_NAMES.items()}


def _identity_fields(scores: IdentityScores) -> dict[str, float]:
    """Every identity value under the name TrackEval gives it."""
    return {
        "IDTP": scores.idtp,
        "IDFN": scores.idfn,
        "IDFP": scores.idfp,
        "IDR": scores.idr,
        "IDP": scores.idp,
        "IDF1": scores.idf1,
    }


TOLERANCE = 1e-12


def _clear(threshold: float = 0.5) -> Any:
    return trackeval.metrics.CLEAR({"THRESHOLD": threshold, "PRINT_CONFIG": False})


def _identity(threshold: float = 0.5) -> Any:
    return trackeval.metrics.Identity({"THRESHOLD": threshold, "PRINT_CONFIG": False})


def _trackeval_data(sequence: TrackedSequence) -> dict[str, Any]:
    return {
        "gt_ids": [np.asarray(g) for g in sequence.gt_ids],
        "tracker_ids": [np.asarray(k) for k in sequence.tracker_ids],
        "similarity_scores": [np.array(s, dtype=np.float64) for s in sequence.similarity],
        "num_gt_ids": sequence.num_gt_ids,
        "num_tracker_ids": sequence.num_tracker_ids,
        "num_gt_dets": sequence.num_gt_dets,
        "num_tracker_dets": sequence.num_tracker_dets,
        "num_timesteps": sequence.num_frames,
    }


def _assert_same(ours: dict[str, float], theirs: dict[str, Any], fields: Sequence[str]) -> None:
    assert set(ours) == set(fields)  # every field TrackEval reports, and no other
    for name in fields:
        assert abs(float(ours[name]) - float(theirs[name])) <= TOLERANCE, (
            name,
            ours[name],
            theirs[name],
        )


def _check(sequences: Sequence[TrackedSequence], threshold: float = 0.5) -> None:
    """Every sequence and their combination give TrackEval's numbers."""
    clear, identity = _clear(threshold), _identity(threshold)
    clear_results: list[ClearMot] = []
    identity_results: list[IdentityScores] = []
    theirs_clear: dict[str, dict[str, Any]] = {}
    theirs_identity: dict[str, dict[str, Any]] = {}
    for index, sequence in enumerate(sequences):
        data = _trackeval_data(sequence)
        ours_c, ours_i = clear_mot(sequence, threshold), identity_scores(sequence, threshold)
        theirs_clear[str(index)] = clear.eval_sequence(data)
        theirs_identity[str(index)] = identity.eval_sequence(data)
        _assert_same(_clear_fields(ours_c), theirs_clear[str(index)], clear.fields)
        _assert_same(_identity_fields(ours_i), theirs_identity[str(index)], identity.fields)
        clear_results.append(ours_c)
        identity_results.append(ours_i)
    _assert_same(
        _clear_fields(combine_clear_mot(clear_results)),
        clear.combine_sequences(theirs_clear),
        clear.fields,
    )
    _assert_same(
        _identity_fields(combine_identity(identity_results)),
        identity.combine_sequences(theirs_identity),
        identity.fields,
    )


# --- synthetic sequences ---------------------------------------------------------------


def _moving_boxes(rng: np.random.Generator, frames: int, objects: int) -> list[tuple]:
    """Ground-truth rows ``(frame, id, x, y, w, h)``: objects moving on a small field,
    each alive on a random span, sometimes occluded (absent) for a frame."""
    rows = []
    for obj in range(objects):
        start = int(rng.integers(0, frames))
        stop = int(rng.integers(start + 1, frames + 1))
        x, y = rng.uniform(0, 60, 2)
        vx, vy = rng.normal(0, 2, 2)
        w, h = rng.uniform(8, 20, 2)
        for frame in range(start, stop):
            if rng.random() < 0.05:
                continue
            t = frame - start
            rows.append((frame, 100 + obj, x + vx * t, y + vy * t, w, h))
    return rows


def _tracker_rows(rng: np.random.Generator, gt_rows: list[tuple], frames: int) -> list[tuple]:
    """A noisy tracker: misses, jitter, identity swaps, new identities after gaps
    (fragments), and false positives, some of them persistent."""
    p_miss, jitter = rng.uniform(0, 0.4), rng.uniform(0, 4)
    identity: dict[int, int] = {}
    next_id = 1
    rows = []
    by_frame: dict[int, list[tuple]] = {}
    for row in gt_rows:
        by_frame.setdefault(row[0], []).append(row)
    for frame in range(frames):
        present = by_frame.get(frame, [])
        if len(present) >= 2 and rng.random() < 0.1:  # two objects swap tracker identities
            a, b = rng.choice(len(present), 2, replace=False)
            ga, gb = present[a][1], present[b][1]
            identity[ga], identity[gb] = identity.get(gb, -1), identity.get(ga, -2)
        for _, gt_id, x, y, w, h in present:
            if rng.random() < p_miss:
                if rng.random() < 0.3:
                    identity.pop(gt_id, None)  # lost: a new identity on return
                continue
            if identity.get(gt_id, -1) < 0 or rng.random() < 0.03:
                identity[gt_id] = next_id
                next_id += 1
            dx, dy, dw, dh = rng.normal(0, jitter, 4)
            rows.append(
                (frame, identity[gt_id], x + dx, y + dy, max(1.0, w + dw), max(1.0, h + dh))
            )
        for _ in range(int(rng.poisson(0.4))):  # false positives, some reusing an identity
            fp_id = 1000 + int(rng.integers(0, 4))
            if any(r[0] == frame and r[1] == fp_id for r in rows):
                continue
            x, y = rng.uniform(0, 70, 2)
            rows.append((frame, fp_id, x, y, *rng.uniform(8, 20, 2)))
    return rows


def _video(name: str, rows: list[tuple]) -> Any:
    if not rows:
        return boxes_from_rows(name, [], np.zeros((0, 4)), ids=[])
    array = np.array(rows, dtype=np.float64)
    return boxes_from_rows(
        name, array[:, 0].astype(int), array[:, 2:6], ids=array[:, 1].astype(int)
    )


def _random_sequence(seed: int) -> TrackedSequence:
    rng = np.random.default_rng(seed)
    frames = int(rng.integers(1, 40))
    gt_rows = _moving_boxes(rng, frames, int(rng.integers(0, 7)))
    tracker_rows = _tracker_rows(rng, gt_rows, frames)
    return tracked_sequence(
        _video(f"seq{seed}", gt_rows), _video(f"seq{seed}", tracker_rows), range(frames)
    )


def _tied_sequence(
    rng: np.random.Generator, frames: int, gts: int, trackers: int
) -> TrackedSequence:
    """Identities present at random, IoU drawn from a few values (many equal scores,
    some exactly at 0.5 and just below it)."""
    values = np.array([0.0, 0.0, 0.3, 0.5 - 1e-17, 0.5, 0.5, 0.6, 0.6, 0.75, 1.0])
    values[3] = np.nextafter(0.5, 0.0)
    gt_ids, tracker_ids, similarity = [], [], []
    for _ in range(frames):
        g = np.flatnonzero(rng.random(gts) < 0.7).astype(np.int64)
        k = np.flatnonzero(rng.random(trackers) < 0.7).astype(np.int64)
        gt_ids.append(rng.permutation(g))
        tracker_ids.append(rng.permutation(k))
        similarity.append(rng.choice(values, (len(g), len(k))))
    return _dense(gt_ids, tracker_ids, similarity)


def _dense(
    gt_ids: list[np.ndarray], tracker_ids: list[np.ndarray], similarity: list[np.ndarray]
) -> TrackedSequence:
    """Renumber identities densely, as :func:`tracked_sequence` does."""
    maps: tuple[dict[int, int], dict[int, int]] = ({}, {})
    dense = [], []
    for frame in zip(gt_ids, tracker_ids):
        for side in (0, 1):
            numbers = [maps[side].setdefault(int(i), len(maps[side])) for i in frame[side]]
            dense[side].append(np.array(numbers, dtype=np.int64))
    return TrackedSequence(
        "tied",
        tuple(dense[0]),
        tuple(dense[1]),
        tuple(
            np.asarray(s, dtype=np.float64).reshape(len(g), len(k))
            for s, g, k in zip(similarity, gt_ids, tracker_ids)
        ),
        len(maps[0]),
        len(maps[1]),
    )


# --- tests -----------------------------------------------------------------------------


@pytest.mark.parametrize("first", range(0, 120, 4))
def test_random_tracks_give_trackeval_numbers(first: int) -> None:
    _check([_random_sequence(seed) for seed in range(first, first + 4)])


@pytest.mark.parametrize("threshold", [0.3, 0.75])
def test_other_thresholds(threshold: float) -> None:
    _check([_random_sequence(seed) for seed in range(500, 510)], threshold)


@settings(max_examples=150, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    frames=st.integers(1, 12),
    gts=st.integers(0, 5),
    trackers=st.integers(0, 5),
)
def test_ties_and_threshold_edges_give_trackeval_numbers(
    seed: int, frames: int, gts: int, trackers: int
) -> None:
    rng = np.random.default_rng(seed)
    _check([_tied_sequence(rng, frames, gts, trackers) for _ in range(3)])


def test_edge_cases() -> None:
    rng = np.random.default_rng(7)
    normal = _random_sequence(3)
    empty_tracker = tracked_sequence(
        _video("a", _moving_boxes(rng, 10, 3)), _video("a", []), range(10)
    )
    empty_gt = tracked_sequence(
        _video("b", []), _video("b", [(f, 1, 10.0, 10.0, 5.0, 5.0) for f in range(6)]), range(6)
    )
    both_empty = tracked_sequence(_video("c", []), _video("c", []), range(5))
    no_frames = tracked_sequence(_video("d", []), _video("d", []), [])
    one_frame = tracked_sequence(
        _video("e", [(0, 1, 0.0, 0.0, 10.0, 10.0), (0, 2, 20.0, 0.0, 10.0, 10.0)]),
        _video("e", [(0, 7, 1.0, 0.0, 10.0, 10.0)]),
        [0],
    )
    gt = [(f, 1, 2.0 * f, 0.0, 10.0, 10.0) for f in range(8)]
    below = tracked_sequence(  # every IoU below 0.5: nothing matches
        _video("f", gt),
        _video("f", [(f, 5, 2.0 * f + 6.0, 0.0, 10.0, 10.0) for f in range(8)]),
        range(8),
    )
    swap_back = _dense(  # a switch and a switch back, with an empty-tracker frame between
        [np.array([1, 2])] * 5,
        [
            np.array([10, 20]),
            np.array([20, 10]),
            np.array([], dtype=np.int64),
            np.array([20, 10]),
            np.array([10, 20]),
        ],
        [np.eye(2), np.eye(2), np.zeros((2, 0)), np.eye(2), np.eye(2)],
    )
    for sequence in (empty_tracker, empty_gt, both_empty, no_frames, one_frame, below, swap_back):
        _check([sequence])
    _check([normal, empty_tracker, empty_gt, both_empty, one_frame, below, swap_back])
    _check([])
    assert clear_mot(empty_gt).mlr == 1.0 and clear_mot(empty_gt).frames == 0
    assert clear_mot(below).tp == 0 and identity_scores(below).idtp == 0


def test_continuing_pairs_are_kept_over_better_iou() -> None:
    """Frame 1 matches A–X. On frame 2, A–Y and B–X would give more IoU (and one more
    match), but A–X still reaches 0.5, so it is kept: B is missed and Y is a false positive."""
    sequence = _dense(
        [np.array([1]), np.array([1, 2])],
        [np.array([10]), np.array([10, 20])],
        [np.array([[0.9]]), np.array([[0.55, 0.95], [0.6, 0.0]])],
    )
    result = clear_mot(sequence)
    assert (result.tp, result.idsw, result.fp, result.fn) == (2, 0, 1, 1)
    assert result.motp_sum == pytest.approx(0.9 + 0.55)
    _check([sequence])
