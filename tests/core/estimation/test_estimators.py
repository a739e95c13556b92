"""Samplers and estimators on synthetic counts with a known answer (docs/measures.md §12).

The truth is the sum of the synthetic true counts, computed here with NumPy; the
code under test only sees the draws. Two synthetic populations reproduce the
failure modes seen on real detector sets: a committee of weak detectors that share
their errors (so that their consensus misjudges a much better detector), and a
consensus that says nothing about the truth.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from referee.core.errors import InvalidOptionError
from referee.core.estimation.choices import ESTIMATORS, SAMPLERS
from referee.core.estimation.design import SampleDesign
from referee.core.estimation.estimators import (
    beats,
    difference,
    interval,
    labelled_sample,
    ratio,
    totals,
)
from referee.core.estimation.result import estimate_detectors
from referee.core.estimation.sampler import (
    acquisition_scores,
    detector_shares,
    draw,
    labelled_sequence,
    probabilities,
)


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


def committee(n: int = 400, pixels: int = 300, seed: int = 11) -> tuple[np.ndarray, np.ndarray]:
    """Pixel-level masks of four detectors on ``n`` frames: three weak ones that share
    their errors (the same false alarms and misses, with a little noise of their own) and
    one much better; the consensus is the share of detectors that fire (§7's committee).
    Returns the true counts ``s`` and the consensus's expected counts ``ŝ``, ``(n, 4, 3)``."""
    rng = np.random.default_rng(seed)
    truth = rng.random((n, pixels)) < rng.beta(1.2, 6.0, (n, 1))
    shared_alarm = rng.random((n, pixels)) < rng.gamma(1.0, 0.05, (n, 1))
    shared_miss = rng.random((n, pixels)) < 0.3
    weak = [
        (truth & ~(shared_miss ^ (rng.random((n, pixels)) < 0.05)))
        | (shared_alarm ^ (rng.random((n, pixels)) < 0.01))
        for _ in range(3)
    ]
    good = (truth & (rng.random((n, pixels)) > 0.04)) | (rng.random((n, pixels)) < 0.003)
    masks = np.stack([*weak, good], axis=1)  # (n, 4, pixels)
    share = masks.mean(axis=1)  # (n, pixels)

    def counts(reference: np.ndarray) -> np.ndarray:
        tp = (masks * reference[:, None, :]).sum(axis=2)
        fp = (masks * (1 - reference[:, None, :])).sum(axis=2)
        fn = ((1 - masks) * reference[:, None, :]).sum(axis=2)
        return np.stack([tp, fp, fn], axis=2).astype(np.float64)

    return counts(truth.astype(np.float64)), counts(share)


def true_f1(s: np.ndarray) -> np.ndarray:
    t = s.sum(axis=0)
    return 2 * t[:, 0] / (2 * t[:, 0] + t[:, 1] + t[:, 2])


def sample_of(s: np.ndarray, s_hat: np.ndarray, q: np.ndarray, k: int, seed: int):  # type: ignore[no-untyped-def]
    d = draw(q, k, np.random.default_rng(seed))
    return labelled_sample(s_hat, SampleDesign.with_replacement(d), s[d.indices])


@pytest.mark.parametrize("sampler", SAMPLERS)
@pytest.mark.parametrize("estimator", ESTIMATORS)
def test_the_totals_are_unbiased(sampler: str, estimator: str) -> None:
    s, s_hat = population(heavy=True)
    q = probabilities(sampler, s_hat)
    estimates = np.array(
        [totals(sample_of(s, s_hat, q, 15, r), "f1", estimator) for r in range(2000)]
    )
    truth = s.sum(axis=0)
    standard_error = estimates.std(axis=0, ddof=1) / math.sqrt(len(estimates))
    assert np.all(np.abs(estimates.mean(axis=0) - truth) < 4 * standard_error)


@pytest.mark.parametrize("sampler", SAMPLERS)
def test_each_detectors_f1_is_unbiased_and_covered_with_correlated_detectors(
    sampler: str,
) -> None:
    """The shared errors make the consensus misjudge the good detector: its F1 estimate is
    still unbiased (to the order 1/K of a ratio), and 95% intervals cover every detector's
    F1 about 95% of the time."""
    s, s_hat = committee()
    target = true_f1(s)
    assert abs(true_f1(s_hat)[3] - target[3]) > 0.1  # the consensus misjudges it
    q = probabilities(sampler, s_hat)
    runs, k = 500, 40
    values = np.zeros((runs, 4))
    covered = np.zeros(4)
    for r in range(runs):
        f1 = ratio(sample_of(s, s_hat, q, k, r), "f1")
        for j in range(4):
            values[r, j], low, high = interval(f1, j)
            covered[j] += low <= target[j] <= high
    error = values - target
    relative_bias = np.abs(error.mean(axis=0)) / error.std(axis=0)
    assert np.all(relative_bias < 0.2), relative_bias
    assert np.all((covered / runs >= 0.92) & (covered / runs <= 0.99)), covered / runs


def test_tuning_is_never_worse_than_the_labels_alone_when_the_consensus_is_useless() -> None:
    """A consensus unrelated to the truth (another frame's counts): the tuned estimator
    gives it little weight and is as good as ``plain``; ``surrogate`` pays for it."""
    s, _ = population(heavy=False, n=400, seed=5)
    useless = s[np.random.default_rng(8).permutation(len(s))]
    q = probabilities("random", useless)
    target = true_f1(s)
    errors = {e: [] for e in ESTIMATORS}
    for r in range(600):
        sample = sample_of(s, useless, q, 50, r)
        for e in ESTIMATORS:
            errors[e].append(ratio(sample, "f1", e).values - target)
    mse = {e: np.mean(np.square(errors[e]), axis=0) for e in ESTIMATORS}
    assert np.all(mse["tuned"] <= 1.1 * mse["plain"]), (mse["tuned"], mse["plain"])
    assert np.all(mse["surrogate"] > 1.5 * mse["plain"])


def test_the_paired_difference_and_its_interval_by_hand() -> None:
    """Three random draws, the plain estimator: the difference of the two F1 and the larger
    of the delta method's and the jackknife's standard errors, computed here directly."""
    s = np.array(
        [
            [[50.0, 10.0, 5.0], [40.0, 2.0, 15.0]],
            [[20.0, 30.0, 0.0], [18.0, 1.0, 2.0]],
            [[0.0, 4.0, 0.0], [0.0, 9.0, 0.0]],
            [[70.0, 5.0, 10.0], [60.0, 20.0, 20.0]],
        ]
    )
    drawn = np.array([0, 1, 3])
    q = np.full(3, 0.25)
    sample = labelled_sample(np.zeros_like(s), SampleDesign(drawn, q), s[drawn])
    f1 = ratio(sample, "f1", "plain")
    d, low, high = difference(f1, 0, 1)

    def f1_of(rows: np.ndarray) -> np.ndarray:
        t = rows.sum(axis=0)
        return 2 * t[:, 0] / (2 * t[:, 0] + t[:, 1] + t[:, 2])

    full = f1_of(s[drawn])
    assert d == pytest.approx(full[0] - full[1])
    # Delta method: each draw's term 4·s_k against the gradient of F1 at the totals.
    t = 4 * s[drawn].mean(axis=0)
    below = 2 * t[:, 0] + t[:, 1] + t[:, 2]
    gradient = (np.array([2.0, 0, 0]) - full[:, None] * np.array([2.0, 1, 1])) / below[:, None]
    e = np.einsum("kdc,dc->kd", 4 * s[drawn], gradient)
    se_delta = np.std(e[:, 0] - e[:, 1], ddof=1) / math.sqrt(3)
    leave = np.array([f1_of(s[np.delete(drawn, k)]) for k in range(3)])
    gaps = leave[:, 0] - leave[:, 1]
    se_jackknife = math.sqrt(2 / 3 * np.sum((gaps - gaps.mean()) ** 2))
    half = stats.t.ppf(0.975, 2) * max(se_delta, se_jackknife)
    assert (low, high) == pytest.approx((d - half, d + half))


def test_the_balanced_sampler_mixes_disagreement_each_detectors_stake_and_a_uniform_share() -> None:
    # Two frames, two detectors. Disagreement a: min(5, 1 + 2) + min(0, 3 + 4) = 3 and
    # min(1, 2) + min(6, 4) = 5. Each detector's stake b: the F1 gradient at its consensus
    # totals (detector 0: 6, 1.5, 3.5 → F 12/17; detector 1: 6, 7, 4 → F 12/23) times the
    # frame's counts, in absolute value, as shares of the detector's sum.
    s_hat = np.array([[[5.0, 1.0, 2.0], [0.0, 3.0, 4.0]], [[1.0, 0.5, 1.5], [6.0, 4.0, 0.0]]])
    assert acquisition_scores(s_hat) == pytest.approx([3.0, 5.0])
    f0, f1 = 12 / 17, 12 / 23
    w0 = [abs(2 * (1 - f0) * 5 - f0 * 3), abs(2 * (1 - f0) * 1 - f0 * 2)]
    w1 = [abs(2 * (1 - f1) * 0 - f1 * 7), abs(2 * (1 - f1) * 6 - f1 * 4)]
    b = np.array(w0) / sum(w0) + np.array(w1) / sum(w1)
    assert detector_shares(s_hat) == pytest.approx(b)
    a = np.array([3.0, 5.0])
    expected = 0.7 * (a / a.sum() + b / b.sum()) / 2 + 0.3 / 2
    assert probabilities("balanced", s_hat, 0.3) == pytest.approx(expected)
    assert probabilities("active", s_hat, 0.2) == pytest.approx(0.8 * a / 8 + 0.1)
    assert probabilities("random", s_hat) == pytest.approx([0.5, 0.5])
    assert probabilities("balanced", np.zeros((3, 2, 3))) == pytest.approx([1 / 3] * 3)
    with pytest.raises(InvalidOptionError, match="uniform share"):
        probabilities("balanced", s_hat, 0.0)


def test_draws_are_seeded_and_carry_their_probabilities() -> None:
    q = np.array([0.1, 0.2, 0.7])
    first, again = (draw(q, 50, np.random.default_rng(9)) for _ in range(2))
    assert np.array_equal(first.indices, again.indices)
    assert np.array_equal(first.q, q[first.indices])


def test_without_labels_the_estimate_is_the_consensus_without_interval() -> None:
    _, s_hat = population(heavy=False, n=50)
    empty = np.zeros(0, dtype=np.int64)
    sample = labelled_sample(s_hat, SampleDesign(empty, np.zeros(0)), np.zeros((0, 2, 3)))
    for estimator in ESTIMATORS:
        f1 = ratio(sample, "f1", estimator)
        for j, expected in enumerate(true_f1(s_hat)):
            value, low, high = interval(f1, j)
            assert value == pytest.approx(expected) and math.isnan(low) and math.isnan(high)
        assert math.isnan(beats(f1, 0, 1))


def test_every_frame_labelled_without_replacement_gives_the_truth_exactly() -> None:
    s, s_hat = population(heavy=True, n=40)
    every = np.arange(40)
    sample = labelled_sample(s_hat, SampleDesign(every, np.full(40, 1 / 40), factors=[0.0]), s)
    for estimator in ESTIMATORS:
        assert totals(sample, "precision", estimator) == pytest.approx(s.sum(axis=0))
        value, low, high = interval(ratio(sample, "precision", estimator), 1)
        t = s.sum(axis=0)[1]
        assert value == low == high == pytest.approx(t[0] / (t[0] + t[1]))


def test_p_beats_is_complementary_and_follows_the_difference() -> None:
    s, s_hat = population(heavy=False, n=300)
    f1 = ratio(sample_of(s, s_hat, probabilities("balanced", s_hat), 80, 1), "f1")
    assert beats(f1, 0, 1) + beats(f1, 1, 0) == pytest.approx(1.0)
    assert beats(f1, 0, 1) > 0.99  # true F1 0.83 against 0.69
    d, low, high = difference(f1, 0, 1)
    assert 0 < low < d < high and difference(f1, 1, 0)[0] == pytest.approx(-d)


def test_estimate_detectors_reports_truth_pairs_the_labelled_test_and_the_consensus() -> None:
    s, s_hat = population(heavy=False, n=100)
    keys = [("v", i + 1) for i in range(100)]
    d = draw(probabilities("random", s_hat), 30, np.random.default_rng(4))
    sample = labelled_sample(s_hat, SampleDesign.with_replacement(d), s[d.indices])
    found = estimate_detectors(
        ("a", "b"),
        keys,
        sample,
        drawn=d.indices,
        truth=s[d.indices],
        estimator="plain",
        true_totals=s.sum(axis=0),
    )
    assert found.estimates["a"]["f1"].true == pytest.approx(true_f1(s)[0])
    assert found.beats["a"]["b"] + found.beats["b"]["a"] == pytest.approx(1.0)
    (pair,) = found.pairs
    assert pair.test is not None and len(pair.test.cases) == len(set(d.indices.tolist()))
    assert pair.test.better == "a" and pair.difference.estimate > 0
    # The consensus's F1 of each detector, and its bias against the estimate.
    for j, method in enumerate(("a", "b")):
        check = found.consensus[method]
        assert check.consensus == pytest.approx(true_f1(s_hat)[j])
        estimate = found.estimates[method]["f1"]
        assert check.bias.estimate == pytest.approx(check.consensus - estimate.estimate)
        assert check.bias.low == pytest.approx(check.consensus - estimate.high)


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


def test_a_design_holds_its_draws_as_arrays_and_names_the_sampled_ones() -> None:
    """A video labelled whole (factor 0) and a sampled one: the sampled draws are those of
    the strata with a factor above 0; the sampler's draws are one stratum."""
    design = SampleDesign(
        [3, 1, 2, 1], [0.5, 0.25, 0.25, 0.25], strata=[0, 1, 1, 1], factors=[0, 1]
    )
    assert design.drawn.dtype == np.int64 and design.q.dtype == np.float64
    assert design.factors == (0.0, 1.0) and design.sampled().tolist() == [1, 2, 1]
    assert design.draw_strata.tolist() == [0, 1, 1, 1]
    d = draw(np.array([0.2, 0.8]), 5, np.random.default_rng(1))
    alone = SampleDesign.with_replacement(d)
    assert alone.sampled().tolist() == d.indices.tolist() and alone.q.tolist() == d.q.tolist()
    assert alone.strata is None and alone.draw_strata.tolist() == [0] * 5
