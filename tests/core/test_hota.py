"""HOTA (docs/measures.md §5, "Tracking: HOTA") against TrackEval 1.3.0, the reference:
synthetic tracks with noise, misses, fragments, identity swaps and false positives,
arbitrary IoU matrices (ties, values on the thresholds), the empty cases, and
sequences combined."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import trackeval
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.core.measures.boxes import FrameBoxes, VideoBoxes
from referee.core.measures.hota import ALPHAS, HotaScores, combine_hota, hota
from referee.core.measures.tracked import TrackedSequence, tracked_sequence

#: TrackEval's field → Referee's value, per α.
PER_ALPHA: dict[str, Callable[[HotaScores], np.ndarray]] = {
    "HOTA_TP": lambda s: s.true_positives,
    "HOTA_FN": lambda s: s.false_negatives,
    "HOTA_FP": lambda s: s.false_positives,
    "HOTA": lambda s: s.hota,
    "DetA": lambda s: s.det_a,
    "AssA": lambda s: s.ass_a,
    "DetRe": lambda s: s.det_re,
    "DetPr": lambda s: s.det_pr,
    "AssRe": lambda s: s.ass_re,
    "AssPr": lambda s: s.ass_pr,
    "LocA": lambda s: s.loc_a,
    "OWTA": lambda s: s.owta,
}
#: TrackEval's field → Referee's value averaged over α (TrackEval reports the mean).
AVERAGED: dict[str, Callable[[HotaScores], float]] = {
    "HOTA": lambda s: s.mean_hota,
    "DetA": lambda s: s.mean_det_a,
    "AssA": lambda s: s.mean_ass_a,
    "DetRe": lambda s: s.mean_det_re,
    "DetPr": lambda s: s.mean_det_pr,
    "AssRe": lambda s: s.mean_ass_re,
    "AssPr": lambda s: s.mean_ass_pr,
    "LocA": lambda s: s.mean_loc_a,
    "OWTA": lambda s: s.mean_owta,
}
SINGLE: dict[str, Callable[[HotaScores], float]] = {
    "HOTA(0)": lambda s: s.hota_0,
    "LocA(0)": lambda s: s.loc_a_0,
    "HOTALocA(0)": lambda s: s.hota_loc_a_0,
}
TOLERANCE = 1e-12


def _trackeval_data(sequence: TrackedSequence) -> dict[str, object]:
    return {
        "gt_ids": [np.asarray(g, dtype=int) for g in sequence.gt_ids],
        "tracker_ids": [np.asarray(k, dtype=int) for k in sequence.tracker_ids],
        "similarity_scores": [np.asarray(s, dtype=float) for s in sequence.similarity],
        "num_gt_ids": sequence.num_gt_ids,
        "num_tracker_ids": sequence.num_tracker_ids,
        "num_gt_dets": sequence.num_gt_dets,
        "num_tracker_dets": sequence.num_tracker_dets,
        "num_timesteps": sequence.num_frames,
        "seq": sequence.name,
    }


def _reference(sequence: TrackedSequence) -> dict[str, Any]:
    with warnings.catch_warnings():
        # TrackEval divides 0 by 0 for identities on no frame (then never uses the NaN).
        warnings.simplefilter("ignore", RuntimeWarning)
        result: dict[str, Any] = trackeval.metrics.HOTA().eval_sequence(_trackeval_data(sequence))
    return result


def _assert_same(ours: HotaScores, theirs: dict[str, Any]) -> None:
    for field, value in PER_ALPHA.items():
        np.testing.assert_allclose(
            value(ours), np.asarray(theirs[field]), rtol=0, atol=TOLERANCE, err_msg=field
        )
    for field, mean in AVERAGED.items():
        assert mean(ours) == pytest.approx(float(np.mean(theirs[field])), rel=0, abs=TOLERANCE), (
            field
        )
    for field, single in SINGLE.items():
        assert single(ours) == pytest.approx(float(theirs[field]), rel=0, abs=TOLERANCE), field


def _check(sequence: TrackedSequence) -> HotaScores:
    ours = hota(sequence)
    _assert_same(ours, _reference(sequence))
    return ours


# --- synthetic tracks --------------------------------------------------------------------


def _synthetic(rng: np.random.Generator, name: str = "seq") -> TrackedSequence:
    """Ground-truth objects moving across the frames, each on a span of them, and a
    tracker that follows them with noise, misses frames, breaks tracks into fragments,
    swaps identities and adds boxes of its own."""
    frames = int(rng.integers(1, 30))
    objects = int(rng.integers(1, 9))
    noise = float(rng.choice([0.5, 3.0, 10.0]))
    p_miss, p_fragment, p_false = rng.uniform(0, 0.3), rng.uniform(0, 0.1), rng.uniform(0, 1.5)
    gt: dict[int, list[tuple[list[float], int]]] = {t: [] for t in range(frames)}
    det: dict[int, list[tuple[list[float], int]]] = {t: [] for t in range(frames)}
    label = {o: 100 + o for o in range(objects)}
    next_label = 1000
    swap_at = int(rng.integers(0, frames)) if objects > 1 and rng.random() < 0.5 else -1
    for o in range(objects):
        start = int(rng.integers(0, frames))
        end = int(rng.integers(start, frames)) + 1
        x, y = rng.uniform(0, 200, size=2)
        vx, vy = rng.uniform(-4, 4, size=2)
        w, h = rng.uniform(10, 60, size=2)
        for t in range(start, end):
            box = [x + vx * t, y + vy * t, w, h]
            # Quantized boxes give exactly equal IoUs now and then.
            if rng.random() < 0.3:
                box = [float(round(v)) for v in box]
            gt[t].append((box, o))
    for t in range(frames):
        if t == swap_at:
            label[0], label[1] = label[1], label[0]
        for box, o in gt[t]:
            if rng.random() < p_fragment:
                label[o], next_label = next_label, next_label + 1
            if rng.random() < p_miss:
                continue
            jitter = rng.normal(0, noise, size=4)
            noisy = [box[0] + jitter[0], box[1] + jitter[1], max(1.0, box[2] + jitter[2])]
            det[t].append(([*noisy, max(1.0, box[3] + jitter[3])], label[o]))
        for _ in range(int(rng.poisson(p_false))):
            x, y = rng.uniform(0, 200, size=2)
            det[t].append(([x, y, *rng.uniform(10, 60, size=2)], int(rng.integers(5000, 5004))))
        # A false positive's identity is used at most once a frame: keep its first box.
        firsts = {i: b for b, i in reversed(det[t])}
        det[t] = [(b, i) for i, b in firsts.items()]

    def video(rows: dict[int, list[tuple[list[float], int]]]) -> VideoBoxes:
        return VideoBoxes(
            name,
            {
                t: FrameBoxes(np.array([b for b, _ in r]), ids=np.array([i for _, i in r]))
                for t, r in rows.items()
                if r
            },
        )

    return tracked_sequence(video(gt), video(det), range(frames))


@pytest.mark.parametrize("seed", range(40))
def test_synthetic_tracks_match_trackeval(seed: int) -> None:
    _check(_synthetic(np.random.default_rng(seed)))


def test_combined_sequences_match_trackeval() -> None:
    metric = trackeval.metrics.HOTA()
    rng = np.random.default_rng(2024)
    for size in (3, 4, 6):
        sequences = [_synthetic(rng, f"seq{i}") for i in range(size)]
        sequences.append(_sequence([[0, 1]], [[]], [np.zeros((2, 0))], 2, 0, "no-tracker"))
        ours = combine_hota([hota(s) for s in sequences])
        theirs = metric.combine_sequences({s.name: _reference(s) for s in sequences})
        _assert_same(ours, theirs)


def test_combining_empty_sequences_only_matches_trackeval() -> None:
    sequences = [
        _sequence([[0]], [[]], [np.zeros((1, 0))], 1, 0, "a"),
        _sequence([[]], [[0, 1]], [np.zeros((0, 2))], 0, 2, "b"),
        _sequence([], [], [], 0, 0, "c"),
    ]
    theirs = trackeval.metrics.HOTA().combine_sequences({s.name: _reference(s) for s in sequences})
    _assert_same(combine_hota([hota(s) for s in sequences]), theirs)


# --- arbitrary IoU matrices --------------------------------------------------------------

#: IoUs that fall on thresholds, just beside them, at 0, tiny, and repeated (ties).
_IOUS = st.sampled_from([0.0, 1e-9, 0.05, float(ALPHAS[2]), 0.15, 0.3, 0.5, 0.5, 0.7, 0.95, 1.0])


@st.composite
def _sequences(draw: st.DrawFn) -> TrackedSequence:
    num_gt_ids = draw(st.integers(0, 5))
    num_tracker_ids = draw(st.integers(0, 5))
    gt_ids, tracker_ids, similarity = [], [], []
    for _ in range(draw(st.integers(0, 6))):
        g = draw(st.lists(st.integers(0, max(0, num_gt_ids - 1)), unique=True, max_size=4))
        k = draw(st.lists(st.integers(0, max(0, num_tracker_ids - 1)), unique=True, max_size=4))
        g = g if num_gt_ids else []
        k = k if num_tracker_ids else []
        values = draw(st.lists(_IOUS | st.floats(0, 1), min_size=len(g) * len(k)))
        gt_ids.append(g)
        tracker_ids.append(k)
        similarity.append(np.array(values[: len(g) * len(k)], dtype=float).reshape(len(g), len(k)))
    return _sequence(gt_ids, tracker_ids, similarity, num_gt_ids, num_tracker_ids)


def _sequence(
    gt_ids: list[list[int]],
    tracker_ids: list[list[int]],
    similarity: list[np.ndarray],
    num_gt_ids: int,
    num_tracker_ids: int,
    name: str = "seq",
) -> TrackedSequence:
    return TrackedSequence(
        name,
        tuple(np.array(g, dtype=np.int64) for g in gt_ids),
        tuple(np.array(k, dtype=np.int64) for k in tracker_ids),
        tuple(np.asarray(s, dtype=np.float64) for s in similarity),
        num_gt_ids,
        num_tracker_ids,
    )


@settings(max_examples=150, deadline=None)
@given(_sequences())
def test_arbitrary_iou_matrices_match_trackeval(sequence: TrackedSequence) -> None:
    _check(sequence)


@settings(max_examples=25, deadline=None)
@given(st.lists(_sequences(), min_size=1, max_size=5))
def test_arbitrary_combinations_match_trackeval(sequences: list[TrackedSequence]) -> None:
    named = {f"s{i}": _reference(s) for i, s in enumerate(sequences)}
    theirs = trackeval.metrics.HOTA().combine_sequences(named)
    _assert_same(combine_hota([hota(s) for s in sequences]), theirs)


# --- edge cases ----------------------------------------------------------------------------


def test_alphas_are_trackevals() -> None:
    np.testing.assert_array_equal(ALPHAS, trackeval.metrics.HOTA().array_labels)
    assert len(ALPHAS) == 19


def test_no_tracker_box_misses_every_ground_truth_box() -> None:
    sequence = _sequence(
        [[0, 1], [], [1]],
        [[], [], []],
        [np.zeros((2, 0)), np.zeros((0, 0)), np.zeros((1, 0))],
        2,
        0,
    )
    scores = _check(sequence)
    assert (scores.false_negatives == 3).all() and (scores.true_positives == 0).all()
    assert (scores.loc_a == 1).all() and scores.loc_a_0 == 1 and scores.mean_hota == 0


def test_no_ground_truth_box_makes_every_tracker_box_a_false_positive() -> None:
    sequence = _sequence([[], []], [[0], [0, 1]], [np.zeros((0, 1)), np.zeros((0, 2))], 0, 2)
    scores = _check(sequence)
    assert (scores.false_positives == 3).all() and scores.mean_loc_a == 1


def test_nothing_at_all() -> None:
    scores = _check(_sequence([[], []], [[], []], [np.zeros((0, 0))] * 2, 0, 0))
    assert (scores.false_negatives == 0).all() and scores.hota_loc_a_0 == 0
    _check(_sequence([], [], [], 0, 0))


def test_single_frame() -> None:
    iou = np.array([[0.9, 0.2], [0.1, 0.6], [0.0, 0.0]])
    scores = _check(_sequence([[0, 1, 2]], [[1, 0]], [iou], 3, 2))
    # Both pairs pass every α up to their IoU; each pair's association is perfect.
    assert scores.true_positives[0] == 2 and scores.ass_a[0] == 1


def test_all_ious_tiny() -> None:
    rng = np.random.default_rng(7)
    similarity = [rng.uniform(0, 1e-6, size=(3, 4)) for _ in range(5)]
    scores = _check(_sequence([[0, 1, 2]] * 5, [[0, 1, 2, 3]] * 5, similarity, 3, 4))
    assert (scores.true_positives == 0).all() and (scores.loc_a == 1).all()


def test_identities_on_no_frame() -> None:
    # The numbering allows identities that never appear; they change nothing.
    iou = np.array([[0.8]])
    _check(_sequence([[2], [2]], [[0], [0]], [iou, iou], 4, 3))


def test_perfect_tracker_scores_one() -> None:
    iou = np.eye(3)
    scores = _check(_sequence([[0, 1, 2]] * 4, [[2, 0, 1]] * 4, [iou] * 4, 3, 3))
    assert scores.mean_hota == 1 and scores.mean_loc_a == 1 and scores.mean_owta == 1


def test_a_swap_halves_association() -> None:
    # One object, tracked by id 0 on two frames and by id 1 on the next two: DetA 1,
    # each true positive's pair agrees on 2 of 4 frames, AssA 1/2.
    iou = np.ones((1, 1))
    scores = _check(_sequence([[0]] * 4, [[0], [0], [1], [1]], [iou] * 4, 1, 2))
    np.testing.assert_allclose(scores.ass_a, 0.5)
    np.testing.assert_allclose(scores.hota, np.sqrt(0.5))
    np.testing.assert_allclose(scores.ass_pr, 1.0)
    np.testing.assert_allclose(scores.ass_re, 0.5)
