"""Discriminative evaluation (docs/measures.md §9): threshold sweep, tests, verdict, case builders."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from referee.core.errors import InvalidOptionError
from referee.core.evaluation.masks import VideoEvaluation
from referee.core.measures.action_matching import match_actions
from referee.core.measures.boxes import boxes_from_rows, evaluate_boxes
from referee.core.model.annotations import Action, AnnotationSet, VideoAnnotation
from referee.core.model.case_scores import CaseScores, scores_table
from referee.core.significance.cases import (
    action_dice_cases,
    box_fda_cases,
    frame_f1_cases,
    pseudo_f1_cases,
)
from referee.core.significance.hypothesis_tests import repeated_measures_anova
from referee.core.significance.sweep import (
    compare_cases,
    compare_pair,
    compare_several,
    normalized_thresholds,
    threshold_grid,
)
from referee.core.significance.wording import direction_text, verdict_text

# Hand example: 6 cases where A is clearly better (d 0.20–0.30), 6 cases of mixed sign
# with d 0.08–0.10 that drown the signal, 6 near-ties (d <= 0.02).
B = np.array(
    [
        0.40,
        0.50,
        0.45,
        0.55,
        0.35,
        0.60,
        0.70,
        0.65,
        0.50,
        0.60,
        0.55,
        0.45,
        0.80,
        0.75,
        0.90,
        0.85,
        0.70,
        0.95,
    ]
)
A = np.array(
    [
        0.60,
        0.72,
        0.68,
        0.80,
        0.63,
        0.90,
        0.615,
        0.555,
        0.58,
        0.50,
        0.45,
        0.355,
        0.79,
        0.76,
        0.88,
        0.85,
        0.72,
        0.94,
    ]
)


def _reduced(a: np.ndarray, b: np.ndarray, threshold: float) -> tuple[np.ndarray, np.ndarray]:
    keep = np.abs(a - b) >= threshold
    return a[keep], b[keep]


# --- thresholds --------------------------------------------------------------------------------


def test_default_grid_starts_at_zero_and_excludes_max_d() -> None:
    grid = threshold_grid(2.0)
    assert len(grid) == 20
    np.testing.assert_allclose(grid, [k / 10 for k in range(20)])  # 0, 0.1, ..., 1.9
    np.testing.assert_allclose(threshold_grid(1.0, 4), [0, 0.25, 0.5, 0.75])
    np.testing.assert_array_equal(threshold_grid(0.0), [0.0])
    # Normalized t_k = k / (0 + 1 + ... + 19) = k / 190, whatever max d.
    np.testing.assert_allclose(normalized_thresholds(threshold_grid(0.37)), np.arange(20) / 190)
    with pytest.raises(InvalidOptionError):
        threshold_grid(1.0, 0)


def test_sweep_reports_each_threshold_four_ways() -> None:
    result = compare_pair(A, B)
    max_d = float(np.max(np.abs(A - B)))
    assert max_d == pytest.approx(0.30)
    rows = result.rows
    assert [r.threshold for r in rows] == pytest.approx([k * max_d / 20 for k in range(20)])
    assert [r.normalized for r in rows] == pytest.approx([k / 190 for k in range(20)])
    assert [r.fraction_of_max for r in rows] == pytest.approx([k / 20 for k in range(20)])
    left = [int(np.sum(np.abs(A - B) >= r.threshold)) for r in rows]
    assert [r.cases_left for r in rows] == left
    assert [r.fraction_removed for r in rows] == pytest.approx([(18 - n) / 18 for n in left])


# --- the verdict -------------------------------------------------------------------------------


def test_hand_example_differs_once_the_mixed_cases_are_removed() -> None:
    result = compare_pair(A, B, names=("A", "B"))
    # t = 0: all 18 cases, p ≈ 0.10; from t_7 = 0.105 only the six clear cases remain.
    assert result.rows[0].p.value == pytest.approx(stats.ttest_rel(A, B).pvalue)
    assert result.rows[0].p.value > 0.05
    assert result.differ
    assert result.t0_index == 7 and result.t0 == pytest.approx(0.105)
    assert verdict_text(result).startswith("A and B differ: p < α = 0.05 from t = 0.105 on")
    assert "normalized threshold 0.0368 ≤ τ = 0.1" in verdict_text(result)
    assert result.removed == tuple(range(6, 18))
    assert result.remaining == tuple(range(6))
    assert result.means == pytest.approx((4.33 / 6, 2.85 / 6))
    assert result.better == "A"
    assert "A is better (higher is better)" in direction_text(result)


def test_p_values_equal_scipy_on_the_reduced_sets() -> None:
    for test, call in (
        ("t", stats.ttest_rel),
        ("wilcoxon", stats.wilcoxon),
        ("welch", lambda a, b: stats.ttest_ind(a, b, equal_var=False)),
    ):
        result = compare_pair(A, B, test=test)
        checked = 0
        for row in result.rows:
            a, b = _reduced(A, B, row.threshold)
            assert row.cases_left == len(a)
            if len(a) < 3:
                assert not row.p.defined
                continue
            expected = call(a, b)
            assert row.p.value == pytest.approx(expected.pvalue, rel=1e-12), (test, row)
            assert row.statistic == pytest.approx(expected.statistic, rel=1e-12)
            checked += 1
        assert checked == 17


def test_the_options_give_different_p_values() -> None:
    t, wilcoxon, welch = (
        compare_pair(A, B, test=name).rows[0].p.value for name in ("t", "wilcoxon", "welch")
    )
    assert len({round(t, 6), round(wilcoxon, 6), round(welch, 6)}) == 3
    # Welch ignores the pairing: on the six clear cases it is far weaker than the paired test.
    assert (
        compare_pair(A, B, test="welch").rows[7].p.value > 100 * compare_pair(A, B).rows[7].p.value
    )


def test_normalized_threshold_above_tau_means_no_difference() -> None:
    # Five thresholds: 0, 0.06, 0.12, 0.18, 0.24; normalized k/10. p < α only from 0.12 on.
    result = compare_pair(A, B, thresholds=5)
    assert [r.normalized for r in result.rows] == pytest.approx([0, 0.1, 0.2, 0.3, 0.4])
    assert not result.differ
    assert result.t0_index == 2
    assert verdict_text(result) == (
        "no significant difference: p < α = 0.05 from t = 0.12 on, but "
        "its normalized threshold 0.2 > τ = 0.1 (67% of the cases "
        "removed)"
    )
    # The cases that would have to go are still reported, with the means on the rest.
    assert result.removed == tuple(range(6, 18))
    # A looser τ accepts the same t_0.
    assert compare_pair(A, B, thresholds=5, tau=0.2).differ


def test_p_never_below_alpha() -> None:
    diff = np.array(
        [0.02, 0.03, 0.025, 0.035, 0.03, 0.02, 0.04, 0.03, 0.025, 0.03, 0.3, -0.25, 0.2, -0.3]
    )
    b = np.full(len(diff), 0.5)
    result = compare_pair(b + diff, b)
    assert not result.differ and result.t0_index is None
    assert verdict_text(result).startswith(
        "no significant difference: p never below α = 0.05 (smallest p = 0.6794 at t = 0)"
    )
    assert result.removed == () and result.means == pytest.approx((np.mean(b + diff), 0.5))


def test_p_rising_above_alpha_again() -> None:
    diff = np.array([0.02, 0.03, 0.025, 0.035, 0.03, 0.02, 0.04, 0.03, 0.1, -0.08, 0.09])
    b = np.full(len(diff), 0.5)
    result = compare_pair(b + diff, b, thresholds=[0.0, 0.05, 0.095])
    ps = [r.p for r in result.rows]
    assert ps[0].value < 0.05 <= ps[1].value and not ps[2].defined
    assert not result.differ
    assert verdict_text(result).startswith(
        "no significant difference: p < α = 0.05 first at t = 0 but rises above α again at t = 0.05"
    )


def test_fewer_than_three_cases_is_undefined() -> None:
    result = compare_pair([0.1, 0.9], [0.5, 0.2])
    assert all(not r.p.defined for r in result.rows)
    assert result.rows[0].p.reason == "undefined: fewer than 3 cases remain (2)"
    assert not result.differ
    assert "p is undefined at every threshold" in verdict_text(result)
    full = compare_pair(A, B)
    assert [r.p.defined for r in full.rows] == [r.cases_left >= 3 for r in full.rows]


def test_undefined_tests() -> None:
    a = np.array([0.2, 0.4, 0.6, 0.8])
    # Paired t: differences all equal → zero variance.
    row = compare_pair(a + 0.1, a, thresholds=[0.0]).rows[0]
    assert not row.p.defined and "zero variance" in row.p.reason
    # Wilcoxon: all differences 0 (the grid is then the single threshold 0).
    result = compare_pair(a, a, test="wilcoxon")
    assert len(result.rows) == 1 and not result.rows[0].p.defined
    assert "same on every remaining case" in result.rows[0].p.reason
    # Welch: both samples constant.
    row = compare_pair([1.0, 1, 1], [0.0, 0, 0], test="welch").rows[0]
    assert not row.p.defined and "constant" in row.p.reason


def test_lower_is_better_and_options_are_checked() -> None:
    assert compare_pair(A, B, higher_is_better=False).better == "B"
    with pytest.raises(InvalidOptionError):
        compare_pair(A, B, test="anova-ish")
    with pytest.raises(InvalidOptionError):
        compare_pair(A, B, alpha=1.5)
    with pytest.raises(InvalidOptionError):
        compare_pair(A, B[:-1])
    with pytest.raises(InvalidOptionError, match="not a finite number"):
        compare_pair([0.1, math.nan, 0.3], [0.2, 0.2, 0.2])
    with pytest.raises(InvalidOptionError):
        compare_pair(A, B, thresholds=[0.1, 0.05])


# --- more than two methods -----------------------------------------------------------------------

TABLE = np.array([[2.0, 4, 6], [3, 5, 7], [1, 4, 4], [2, 3, 7]])


def test_repeated_measures_anova_by_hand() -> None:
    # Grand mean 4; method means 2, 4, 6; case means 4, 5, 3, 4.
    # SS_methods = 4·(4 + 0 + 4) = 32, SS_cases = 3·(0 + 1 + 1 + 0) = 6, SS_total = 42,
    # SS_error = 4; F = (32/2) / (4/6) = 24 with df (2, 6).
    result = repeated_measures_anova(TABLE)
    assert (result.ss_methods, result.ss_cases, result.ss_error) == pytest.approx((32, 6, 4))
    assert (result.df_methods, result.df_error) == (2, 6)
    assert result.f == pytest.approx(24.0)
    assert result.p.value == pytest.approx(stats.f.sf(24.0, 2, 6))
    # Independent route: residuals of the additive model x_ij = μ + case_i + method_j + e_ij.
    x = TABLE
    residual = x - x.mean(axis=1, keepdims=True) - x.mean(axis=0, keepdims=True) + x.mean()
    ms_methods = x.shape[0] * np.sum((x.mean(axis=0) - x.mean()) ** 2) / 2
    assert result.f == pytest.approx(ms_methods / (np.sum(residual**2) / 6))


def test_anova_of_two_methods_is_the_squared_paired_t() -> None:
    result = repeated_measures_anova(np.column_stack([A, B]))
    paired = stats.ttest_rel(A, B)
    assert result.f == pytest.approx(paired.statistic**2)
    assert result.p.value == pytest.approx(paired.pvalue)


def test_several_methods_sweep_on_the_spread() -> None:
    result = compare_several(TABLE, ("x", "y", "z"))
    assert result.test == "anova"
    np.testing.assert_array_equal(result.differences, [4, 4, 3, 5])
    assert [r.threshold for r in result.rows] == pytest.approx([k * 5 / 20 for k in range(20)])
    for row in result.rows:
        keep = result.differences >= row.threshold
        if keep.sum() < 3:
            assert not row.p.defined
        else:
            assert row.p.value == pytest.approx(repeated_measures_anova(TABLE[keep]).p.value)
    assert result.rows[0].p.value == pytest.approx(stats.f.sf(24.0, 2, 6))
    assert result.differ and result.better == "z"
    assert verdict_text(result).startswith("the methods differ")


def test_friedman_equals_scipy_on_the_reduced_sets() -> None:
    rng = np.random.default_rng(3)
    scores = rng.uniform(0, 1, (15, 4)) + np.array([0, 0.1, 0.2, 0.3])
    result = compare_several(scores, ("a", "b", "c", "d"), test="friedman")
    checked = 0
    for row in result.rows:
        keep = result.differences >= row.threshold
        if keep.sum() < 3:
            assert not row.p.defined
            continue
        expected = stats.friedmanchisquare(*scores[keep].T)
        assert row.p.value == pytest.approx(expected.pvalue, rel=1e-12)
        assert row.statistic == pytest.approx(expected.statistic, rel=1e-12)
        checked += 1
    assert checked >= 10
    tied = compare_several(np.ones((5, 3)), ("a", "b", "c"), test="friedman")
    assert not tied.rows[0].p.defined
    with pytest.raises(InvalidOptionError, match="at least three methods"):
        compare_cases(CaseScores("s", ("a", "b"), ("1", "2", "3"), np.ones((3, 2))), "friedman")
    with pytest.raises(InvalidOptionError):
        compare_several(scores, ("a", "b", "c", "d"), test="t")


# --- case builders -------------------------------------------------------------------------------


def _evaluation(rows: list[tuple[int, int, int, int]], video: str = "vid") -> VideoEvaluation:
    per_frame = np.array([(frame, tp, fp, fn, 100, 0) for frame, tp, fp, fn in rows])
    return VideoEvaluation.from_per_frame("cat", video, per_frame)


def test_frame_f1_pairs_frames_and_drops_undefined_ones() -> None:
    a = [
        _evaluation([(1, 10, 0, 0), (2, 5, 5, 0), (3, 0, 0, 0), (4, 0, 4, 0)]),
        _evaluation([(1, 1, 1, 1)], video="only-in-a"),
    ]
    b = [_evaluation([(1, 8, 2, 2), (2, 0, 0, 10), (3, 0, 3, 0), (4, 6, 2, 2), (5, 1, 0, 0)])]
    cases = frame_f1_cases({"A": a, "B": b})
    assert cases.methods == ("A", "B")
    assert cases.labels == ("cat/vid:1", "cat/vid:2", "cat/vid:4")
    assert cases.dropped == 1 and "F1 is undefined" in cases.dropped_reason
    np.testing.assert_allclose(cases.column("A"), [1.0, 10 / 15, 0.0])
    np.testing.assert_allclose(cases.column("B"), [16 / 20, 0.0, 12 / 16])


def test_pseudo_f1_from_pseudo_counts() -> None:
    cases = pseudo_f1_cases(
        {
            "A": np.array([[2.0, 1, 1, 6], [0, 0, 0, 10], [1, 0, 1, 8]]),
            "B": np.array([[1.0, 0, 2, 7], [1, 0, 0, 9], [0, 2, 2, 6]]),
        },
        ["f1", "f2", "f3"],
    )
    assert cases.labels == ("f1", "f3") and cases.dropped == 1
    np.testing.assert_allclose(cases.scores, [[4 / 6, 2 / 4], [2 / 3, 0.0]])
    with pytest.raises(InvalidOptionError):
        pseudo_f1_cases({"A": np.zeros((2, 3))}, ["1", "2"])


def test_box_fda_per_frame() -> None:
    gt = boxes_from_rows("v", [1, 2], [[0, 0, 10, 10], [0, 0, 10, 10]])
    det_a = boxes_from_rows("v", [1, 2, 3], [[0, 0, 10, 10], [5, 0, 10, 10], [50, 50, 5, 5]])
    det_b = boxes_from_rows("v", [2], [[0, 0, 10, 10]])
    cases = box_fda_cases({"A": evaluate_boxes(gt, det_a), "B": evaluate_boxes(gt, det_b)})
    assert cases.labels == ("v:1", "v:2")
    # Frame 3: A has a false positive (FDA 0), B has no box at all there (0/0): dropped.
    assert cases.dropped == 1
    np.testing.assert_allclose(cases.scores, [[1.0, 0.0], [1 / 3, 1.0]])
    other_gt = boxes_from_rows("v", [1, 1], [[0, 0, 10, 10], [20, 20, 5, 5]])
    with pytest.raises(InvalidOptionError, match="same ground truth"):
        box_fda_cases({"A": evaluate_boxes(gt, det_a), "B": evaluate_boxes(other_gt, det_b)})


def _action(
    number: int, action_class: int, first: int, box: tuple[int, int, int, int], frames: int = 2
) -> Action:
    return Action.from_boxes(number, action_class, {first + k: box for k in range(frames)})


def _annotations(*actions: Action) -> AnnotationSet:
    return AnnotationSet.from_videos([VideoAnnotation("v", tuple(actions))])


def test_action_dice_per_ground_truth_action() -> None:
    gt = _annotations(_action(1, 4, 1, (0, 0, 10, 10)), _action(2, 4, 5, (20, 20, 10, 10)))
    det_a = _annotations(_action(7, 4, 1, (0, 0, 10, 10)))
    # B: half-overlapping boxes on action 1 (Dice 0.5); the right place but the wrong class
    # for action 2, so the class-aware matching does not assign it (Dice 0).
    det_b = _annotations(_action(1, 4, 1, (5, 0, 10, 10)), _action(2, 5, 5, (20, 20, 10, 10)))
    cases = action_dice_cases({"A": match_actions(gt, det_a), "B": match_actions(gt, det_b)})
    assert cases.labels == ("v:1", "v:2") and cases.dropped == 0
    np.testing.assert_allclose(cases.scores, [[1.0, 0.5], [0.0, 0.0]])
    with pytest.raises(InvalidOptionError, match="different ground truths"):
        action_dice_cases(
            {
                "A": match_actions(gt, det_a),
                "B": match_actions(_annotations(_action(1, 4, 1, (0, 0, 9, 9))), det_b),
            }
        )


def test_scores_table_drops_nan_rows_and_select_keeps_order() -> None:
    cases = scores_table(
        "s", ["a", "b", "c"], {"X": [1, math.nan, 3], "Y": [4, 5, 6], "Z": [7, 8, 9]}, "empty cell"
    )
    assert cases.labels == ("a", "c") and cases.dropped == 1
    picked = cases.select(["Z", "X"])
    np.testing.assert_array_equal(picked.scores, [[7, 1], [9, 3]])
    with pytest.raises(InvalidOptionError, match="no method named"):
        cases.select(["W"])
