"""Samplers and estimators on synthetic counts with a known answer (docs/measures.md §12).

The truth is the sum of the synthetic true counts, computed here with NumPy; the
code under test only sees the draws.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from referee.core.errors import InvalidOptionError
from referee.core.estimation.estimators import ESTIMATORS, beats, estimate_totals, interval, ratio
from referee.core.estimation.result import estimate_detectors
from referee.core.estimation.sampler import (
    SAMPLERS,
    acquisition_scores,
    draw,
    labelled_sequence,
    probabilities,
)

COMBINATIONS = [(s, e) for s in SAMPLERS for e in ESTIMATORS]


def population(heavy: bool, n: int = 300, seed: int = 3) -> tuple[np.ndarray, np.ndarray]:
    """True counts ``s`` and an imperfect, biased surrogate ``ŝ``, ``(n, 2, 3)``: tp, fp, fn.

    ``heavy``: long-tailed frame sizes and a sixth of frames without positives.
    """
    rng = np.random.default_rng(seed)
    positives = (
        rng.gamma(1.5, 400.0, n) * (rng.random(n) < 0.83) if heavy else rng.gamma(4.0, 150.0, n)
    )
    recall = np.clip(np.array([0.85, 0.6]) + rng.normal(0, 0.08, (n, 2)), 0, 1)
    tp = positives[:, None] * recall
    fn = positives[:, None] - tp
    fp = rng.gamma(4.0, 0.25, (n, 2)) * (50 + positives[:, None] * np.array([0.3, 0.1]))
    s = np.stack([tp, fp, fn], axis=2)
    s_hat = s * rng.lognormal(0.0, 0.3, s.shape) + rng.gamma(2.0, 20.0, s.shape)
    return s, s_hat


def true_f1(s: np.ndarray) -> np.ndarray:
    t = s.sum(axis=0)
    return 2 * t[:, 0] / (2 * t[:, 0] + t[:, 1] + t[:, 2])


@pytest.mark.parametrize(("sampler", "estimator"), COMBINATIONS)
def test_the_totals_are_unbiased(sampler: str, estimator: str) -> None:
    s, s_hat = population(heavy=True)
    q = probabilities(sampler, acquisition_scores(s_hat))
    estimates = np.array(
        [
            estimate_totals(s_hat, d.indices, s[d.indices], d.q, estimator).totals
            for d in (draw(q, 15, np.random.default_rng(r)) for r in range(3000))
        ]
    )
    truth = s.sum(axis=0)
    standard_error = estimates.std(axis=0, ddof=1) / math.sqrt(len(estimates))
    assert np.all(np.abs(estimates.mean(axis=0) - truth) < 4 * standard_error)


@pytest.mark.parametrize(("sampler", "estimator"), COMBINATIONS)
def test_95_percent_intervals_cover_the_true_f1(sampler: str, estimator: str) -> None:
    s, s_hat = population(heavy=False, n=400)
    target = true_f1(s)
    q = probabilities(sampler, acquisition_scores(s_hat))
    runs = 600
    covered = np.zeros(2)
    for r in range(runs):
        d = draw(q, 60, np.random.default_rng(r))
        f1 = ratio(estimate_totals(s_hat, d.indices, s[d.indices], d.q, estimator), "f1")
        for j in range(2):
            _, low, high = interval(f1, j)
            covered[j] += low <= target[j] <= high
    tolerance = 3 * math.sqrt(0.95 * 0.05 / runs)
    assert np.all(np.abs(covered / runs - 0.95) <= tolerance), covered / runs


def test_the_active_sampler_mixes_disagreement_with_a_uniform_share() -> None:
    a = np.array([0.0, 1.0, 3.0, 0.0])
    q = probabilities("active", a, 0.2)
    assert q == pytest.approx([0.05, 0.25, 0.65, 0.05])  # 0.8·a/4 + 0.2/4
    assert probabilities("random", a) == pytest.approx([0.25] * 4)
    assert probabilities("active", np.zeros(3)) == pytest.approx([1 / 3] * 3)
    with pytest.raises(InvalidOptionError, match="uniform share"):
        probabilities("active", a, 0.0)


def test_the_acquisition_score_is_the_expected_errors_up_to_the_true_detections() -> None:
    # Two frames, two detectors: min(5, 1 + 2) + min(0, 3 + 4) = 3; min(1, 2) + min(6, 4) = 5.
    s_hat = np.array([[[5.0, 1.0, 2.0], [0.0, 3.0, 4.0]], [[1.0, 0.5, 1.5], [6.0, 4.0, 0.0]]])
    assert acquisition_scores(s_hat) == pytest.approx([3.0, 5.0])


def test_draws_are_seeded_and_carry_their_probabilities() -> None:
    q = np.array([0.1, 0.2, 0.7])
    first, again = (draw(q, 50, np.random.default_rng(9)) for _ in range(2))
    assert np.array_equal(first.indices, again.indices)
    assert np.array_equal(first.q, q[first.indices])


def test_without_labels_the_estimate_is_the_consensus_without_interval() -> None:
    _, s_hat = population(heavy=False, n=50)
    empty = np.zeros(0, dtype=np.int64)
    for estimator in ESTIMATORS:
        totals = estimate_totals(s_hat, empty, np.zeros((0, 2, 3)), np.zeros(0), estimator)
        f1 = ratio(totals, "f1")
        for j, expected in enumerate(true_f1(s_hat)):
            value, low, high = interval(f1, j)
            assert value == pytest.approx(expected) and math.isnan(low) and math.isnan(high)
        assert math.isnan(beats(f1, 0, 1))


def test_every_frame_labelled_without_replacement_gives_the_truth_exactly() -> None:
    s, s_hat = population(heavy=True, n=40)
    every = np.arange(40)
    totals = estimate_totals(s_hat, every, s, np.full(40, 1 / 40), "surrogate", factors=[0.0])
    assert totals.totals == pytest.approx(s.sum(axis=0))
    value, low, high = interval(ratio(totals, "precision"), 1)
    t = s.sum(axis=0)[1]
    assert value == low == high == pytest.approx(t[0] / (t[0] + t[1]))


def test_p_beats_is_complementary_and_follows_the_difference() -> None:
    s, s_hat = population(heavy=False, n=300)
    d = draw(probabilities("active", acquisition_scores(s_hat)), 80, np.random.default_rng(1))
    f1 = ratio(estimate_totals(s_hat, d.indices, s[d.indices], d.q), "f1")
    assert beats(f1, 0, 1) + beats(f1, 1, 0) == pytest.approx(1.0)
    assert beats(f1, 0, 1) > 0.99  # true F1 0.83 against 0.69


def test_estimate_detectors_reports_truth_pairs_and_the_labelled_test() -> None:
    s, s_hat = population(heavy=False, n=100)
    keys = [("v", i + 1) for i in range(100)]
    d = draw(probabilities("random", acquisition_scores(s_hat)), 30, np.random.default_rng(4))
    estimates, table, pairs = estimate_detectors(
        ("a", "b"), keys, s_hat, d.indices, s[d.indices], d.q, "plain", true_totals=s.sum(axis=0)
    )
    assert estimates["a"]["f1"].true == pytest.approx(true_f1(s)[0])
    assert table["a"]["b"] + table["b"]["a"] == pytest.approx(1.0)
    (pair,) = pairs
    assert pair.test is not None and len(pair.test.cases) == len(set(d.indices.tolist()))
    assert pair.test.better == "a"


def test_the_labelled_sequence_stops_at_the_first_frame_without_ground_truth() -> None:
    q = np.array([0.1, 0.2, 0.3, 0.4])
    every = draw(q, 400, np.random.default_rng(3)).indices
    labelled = np.array([True, True, False, True])
    start = labelled_sequence(q, labelled, np.random.default_rng(3))
    stop = int(np.flatnonzero(every == 2)[0])  # the first draw of the frame without labels
    assert start.next == 2 and start.draws.indices.tolist() == every[:stop].tolist()
    assert start.draws.q.tolist() == q[every[:stop]].tolist()
    whole = labelled_sequence(q, np.ones(4, bool), np.random.default_rng(3), 5)
    assert whole.next is None and whole.draws.indices.size == 20
