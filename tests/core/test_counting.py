"""CCR_WCC and count MAEs (docs/measures.md §6), checked against hand-computed values."""

from __future__ import annotations

import math

import numpy as np
import pytest

from referee.core.errors import InvalidOptionError, RefereeError
from referee.core.measures import counting
from referee.core.measures.counting import (
    evaluate_counts,
    match_change,
    match_changes,
    window_offsets,
)


def _counts_from_changes(changes: dict[int, int], n_changes: int, start: int = 3) -> list[int]:
    """Counts y_0..y_N whose changes Δ_n are ``changes`` (0 elsewhere)."""
    counts = [start]
    for n in range(n_changes):
        counts.append(counts[-1] + changes.get(n, 0))
    return counts


# The seed's figure (docs/measures.md §6): N = 20, so 21 counts and changes n = 0..19.
SEED_GT = _counts_from_changes({2: +1, 6: +1, 10: -1, 14: +2}, 20)
SEED_EST = _counts_from_changes(dict.fromkeys((3, 6, 8, 12, 14, 16, 17, 18), +1), 20)


def test_seed_worked_example() -> None:
    result = evaluate_counts(SEED_GT, SEED_EST, window=1)
    assert len(SEED_GT) == 21
    # n=2: Δ=+1, Δ̂_3=+1 within ±1 → e=0; n=6: exact; n=10: −1 has no match (Δ̂ ∈ {0,+1});
    # n=14: +2 has no +2 nearby.
    assert result.numerator_instants == (2, 6)
    assert result.changed_instants == (2, 6, 10, 14)
    # n=17: Δ=0 but Δ̂_16, Δ̂_17, Δ̂_18 are all +1 → no zero change in the window.
    assert result.spurious_instants == (17,)
    # m=3 is taken by n=2, m=6 by n=6, m=14 by n=14 (δ=0), m=17 by n=17 (δ=0);
    # 8, 12, 16, 18 are paired with no n.
    assert result.unpaired_instants == (8, 12, 16, 18)
    assert result.numerator == 2
    assert result.denominator_terms == (4, 1, 4)
    assert result.denominator == 9
    assert result.ccr_wcc.value == pytest.approx(2 / 9)
    assert result.offsets[2] == 1 and result.offsets[6] == 0


def test_seed_example_maes() -> None:
    result = evaluate_counts(SEED_GT, SEED_EST, window=1)
    # Changes differ by 1 at n = 2, 3, 8, 10, 12, 14, 16, 17, 18 → 9/20.
    assert result.mae_changes == pytest.approx(9 / 20)
    # Running difference ŷ−y at k = 0..20:
    # 0 0 0 −1 0 0 0 0 0 1 1 2 2 3 3 2 2 3 4 5 5 → |·| sums to 34 over 21 counts.
    assert result.mae_counts == pytest.approx(34 / 21)


def test_offset_tie_rule_prefers_zero_then_most_negative() -> None:
    # GT Δ = 0 0 +1 0 0 0, estimate Δ̂ = 0 +1 0 +1 0 0, w = 1.
    gt = [0, 0, 0, 1, 1, 1, 1]
    est = [0, 0, 1, 1, 2, 2, 2]
    result = evaluate_counts(gt, est, window=1)
    # n=0: W={0,1}, δ=0 matches (Δ̂_0=0).
    # n=1: Δ=0; δ=−1 and δ=+1 both give 0, δ=0 gives 1 → most negative: −1.
    # n=2: Δ=+1; δ=−1 and δ=+1 both exact, δ=0 not → −1.
    # n=3: Δ=0; δ=−1 (Δ̂_2=0) and δ=+1 (Δ̂_4=0) exact → −1.
    # n=4: δ=0 exact. n=5: W={−1,0}, both exact → 0 preferred.
    assert result.offsets == (0, -1, -1, -1, 0, 0)
    assert result.numerator_instants == (2,)
    assert result.changed_instants == (2,)
    assert result.spurious_instants == ()
    # paired m: 0, 0, 1, 2, 4, 5 → the estimated change at m=3 is unpaired.
    assert result.unpaired_instants == (3,)
    assert result.ccr_wcc.value == pytest.approx(1 / 2)


def test_match_change_directly() -> None:
    gt = np.array([0.0, 1.0, 0.0])
    est = np.array([1.0, 0.0, 1.0])
    assert match_change(1, gt, est, 1) == (-1, 0.0)  # −1 and +1 tie: most negative
    assert match_change(1, gt, est, 0) == (0, 1.0)  # window 0: only δ = 0


@pytest.mark.parametrize("scan", ["offset by offset", "dyadic blocks"])
def test_all_instants_at_once_match_the_definition_one_by_one(monkeypatch, scan: str) -> None:
    # match_changes must give, for every n, what match_change (the definition, a scan of
    # W(n)) gives: small integer changes make many ties, wide windows reach both ends.
    if scan == "dyadic blocks":
        monkeypatch.setattr(counting, "_DIRECT_WIDTH", 0)
    rng = np.random.default_rng(3)
    for trial in range(400):
        size, window = int(rng.integers(1, 50)), int(rng.integers(0, 60))
        spread = (1, 2, 40)[trial % 3]
        gt = rng.integers(-spread, spread + 1, size).astype(float)
        est = rng.integers(-spread, spread + 1, size).astype(float)
        offsets, errors = match_changes(gt, est, window)
        expected = [match_change(n, gt, est, window) for n in range(size)]
        assert list(zip(offsets.tolist(), errors.tolist())) == expected, (gt, est, window)


def test_window_is_truncated_at_both_ends() -> None:
    assert list(window_offsets(0, 5, 2)) == [0, 1, 2]
    assert list(window_offsets(1, 5, 2)) == [-1, 0, 1, 2]
    assert list(window_offsets(4, 5, 2)) == [-2, -1, 0]
    assert list(window_offsets(2, 5, 10)) == [-2, -1, 0, 1, 2]
    # GT Δ = +1 0 0 0, estimate Δ̂ = 0 0 0 +1, w = 1. Without truncation n=0 would
    # look at Δ̂_{−1} (wrapping to Δ̂_3 = +1) and wrongly match.
    result = evaluate_counts([0, 1, 1, 1, 1], [0, 0, 0, 0, 1], window=1)
    assert result.offsets == (0, 0, 0, -1)
    assert result.errors == (1, 0, 0, 0)
    assert result.numerator == 0
    # first term {0}; n=3 pairs m=2, so m=3 is unpaired.
    assert (result.changed_instants, result.spurious_instants, result.unpaired_instants) == (
        (0,),
        (),
        (3,),
    )
    assert result.ccr_wcc.value == 0.0
    # The last instant: GT Δ_3 = +1 cannot look at m = 4 (it does not exist).
    end = evaluate_counts([0, 0, 0, 0, 1], [0, 1, 1, 1, 1], window=1)
    assert end.errors[3] == 1 and end.offsets[3] == 0


def test_several_n_may_pair_with_the_same_m() -> None:
    # GT Δ = +1 +1 0, estimate Δ̂ = +1 0 0, w = 1: n=0 and n=1 both pair with m=0.
    result = evaluate_counts([0, 1, 2, 2], [0, 1, 1, 1], window=1)
    assert result.offsets == (0, -1, 0)
    assert result.numerator_instants == (0, 1)
    assert result.unpaired_instants == ()
    assert result.ccr_wcc.value == 1.0


def test_maes_on_a_small_series() -> None:
    # y = 1 2 2 3, ŷ = 1 1 2 4: |y−ŷ| = 0 1 0 1 → 0.5; Δ = 1 0 1, Δ̂ = 0 1 2 → 1 1 1 → 1.
    result = evaluate_counts([1, 2, 2, 3], [1, 1, 2, 4], window=0)
    assert result.mae_counts == pytest.approx(0.5)
    assert result.mae_changes == pytest.approx(1.0)


def test_undefined_without_any_change() -> None:
    result = evaluate_counts([2, 2, 2], [2, 2, 2], window=3)
    assert math.isnan(result.ccr_wcc.value)
    assert "undefined" in result.ccr_wcc.reason
    assert result.denominator == 0
    assert result.mae_counts == 0.0


@pytest.mark.parametrize(
    ("gt", "est", "window", "match"),
    [
        ([1, 2, 3], [1, 2], 1, "3 counts but the estimate has 2"),
        ([1], [1], 1, "at least 2 counts"),
        ([1, 2], [1, 2], -1, "window"),
        ([1, 2], [1, 2], 1.5, "window"),
    ],
)
def test_invalid_inputs(gt, est, window, match) -> None:
    with pytest.raises(RefereeError, match=match):
        evaluate_counts(gt, est, window)


def test_negative_window_is_an_option_error() -> None:
    with pytest.raises(InvalidOptionError):
        evaluate_counts([1, 2], [1, 2], -2)
