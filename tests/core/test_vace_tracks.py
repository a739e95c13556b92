"""VACE's track measures ATA and STDA (docs/measures.md §5) against TrackEval 1.3.0's
``VACE`` metric, per sequence and combined, on the synthetic sequences of the CLEAR and
identity tests, and on a case worked by hand."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest
import trackeval
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.core.measures.tracked import TrackedSequence, tracked_sequence
from referee.core.measures.vace_tracks import (
    VaceTrackScores,
    combine_vace_tracks,
    temporal_ious,
    vace_tracks,
)
from tests.core.test_tracking_clear_identity import (
    _dense,
    _moving_boxes,
    _random_sequence,
    _tied_sequence,
    _trackeval_data,
    _video,
)

TOLERANCE = 1e-9


def _same(ours: VaceTrackScores, theirs: dict[str, Any]) -> None:
    assert abs(ours.stda - float(theirs["STDA"])) <= TOLERANCE, (ours.stda, theirs["STDA"])
    assert (ours.gt_ids, ours.tracker_ids) == (theirs["VACE_GT_IDs"], theirs["VACE_IDs"])
    if math.isnan(theirs["ATA"]):
        assert math.isnan(ours.ata)
    else:
        assert abs(ours.ata - float(theirs["ATA"])) <= TOLERANCE, (ours.ata, theirs["ATA"])


def _check(sequences: Sequence[TrackedSequence]) -> None:
    """Every sequence and their combination give TrackEval's STDA and ATA.

    TrackEval's ``VACE`` divides by zero (its SFDA) on a sequence without any box; such
    a sequence has STDA 0 and no identity, so it changes no sum of the combination.
    """
    vace = trackeval.metrics.VACE()
    ours, theirs = [], {}
    for index, sequence in enumerate(sequences):
        ours.append(vace_tracks(sequence))
        if sequence.num_gt_dets + sequence.num_tracker_dets == 0:
            assert ours[-1] == VaceTrackScores(0.0, 0, 0) and math.isnan(ours[-1].ata)
            continue
        theirs[str(index)] = vace.eval_sequence(_trackeval_data(sequence))
        _same(ours[-1], theirs[str(index)])
    combined = combine_vace_tracks(ours)
    if theirs:
        _same(combined, vace.combine_sequences(theirs))
    else:
        assert combined == VaceTrackScores(0.0, 0, 0) and math.isnan(combined.ata)


@pytest.mark.parametrize("first", range(0, 120, 4))
def test_random_tracks_give_trackeval_numbers(first: int) -> None:
    _check([_random_sequence(seed) for seed in range(first, first + 4)])


@settings(max_examples=100, deadline=None)
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


def test_empty_sides() -> None:
    rng = np.random.default_rng(11)
    empty_tracker = tracked_sequence(
        _video("a", _moving_boxes(rng, 10, 3)), _video("a", []), range(10)
    )
    empty_gt = tracked_sequence(
        _video("b", []), _video("b", [(f, 1, 10.0, 10.0, 5.0, 5.0) for f in range(6)]), range(6)
    )
    both_empty = tracked_sequence(_video("c", []), _video("c", []), range(5))
    no_frames = tracked_sequence(_video("d", []), _video("d", []), [])
    for sequence in (empty_tracker, empty_gt, both_empty, no_frames):
        _check([sequence])
    _check([empty_tracker, empty_gt, both_empty, _random_sequence(5)])
    _check([both_empty, no_frames])  # no identity anywhere: ATA undefined
    assert vace_tracks(empty_gt) == VaceTrackScores(0.0, 0, 1) and vace_tracks(empty_gt).ata == 0
    assert math.isnan(vace_tracks(both_empty).ata)


def test_a_case_worked_by_hand() -> None:
    """Ground truth g1 on frames 1–4, g2 on 3–6; tracker k1 on 1–5, k2 on 4–6, k3 on 6.

    IoU ≥ 0.5: g1–k1 on frames 1, 2, 3 (0.4 on frame 4); g2–k2 on 4, 5, 6; g2–k1 on 5
    (0.5 exactly counts); g1–k2 on 4 (0.7). Temporal IoU:
    g1–k1 3/5 (union 1–5), g1–k2 1/6 (union 1–6), g1–k3 0,
    g2–k1 1/6 (union 1–6), g2–k2 3/4 (union 3–6), g2–k3 0.
    Best pairing g1–k1, g2–k2: STDA = 3/5 + 3/4 = 1.35 (the other, 1/6 + 1/6, is less);
    ATA = 1.35 / ((2 + 3) / 2) = 0.54.
    """
    g1, g2, k1, k2, k3 = 1, 2, 11, 12, 13
    frames = [  # (gt ids, tracker ids, IoU)
        ([g1], [k1], [[0.9]]),
        ([g1], [k1], [[0.8]]),
        ([g1, g2], [k1], [[0.6], [0.1]]),
        ([g1, g2], [k1, k2], [[0.4, 0.7], [0.2, 0.9]]),
        ([g2], [k1, k2], [[0.5, 0.6]]),
        ([g2], [k2, k3], [[0.99, 0.3]]),
    ]
    sequence = _dense(
        [np.array(g) for g, _, _ in frames],
        [np.array(k) for _, k, _ in frames],
        [np.array(s) for _, _, s in frames],
    )
    expected = np.array([[3 / 5, 1 / 6, 0.0], [1 / 6, 3 / 4, 0.0]])
    np.testing.assert_allclose(temporal_ious(sequence), expected, rtol=0, atol=1e-15)
    scores = vace_tracks(sequence)
    assert (scores.gt_ids, scores.tracker_ids) == (2, 3)
    assert scores.stda == pytest.approx(1.35, abs=1e-12)
    assert scores.ata == pytest.approx(0.54, abs=1e-12)
    # Twice the same sequence: STDA 2.7 over (4 + 6) / 2 identities, the same ATA.
    both = combine_vace_tracks([scores, scores])
    assert (both.stda, both.ata) == (pytest.approx(2.7), pytest.approx(0.54))
    _check([sequence, sequence])
