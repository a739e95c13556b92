"""Whether the consensus agrees with the ground truth (docs/measures.md §7): the mean
absolute error of pseudo F1 and the thresholds that say it disagrees."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from referee.core.evaluation.batch import evaluate_method
from referee.core.measures.indicators import IndicatorValue, undefined
from referee.core.pseudo.truth import (
    MAX_TRUTH_ERROR,
    MIN_TRUTH_CORRELATION,
    TruthAgreement,
    compare_with_truth,
    truth_agreement,
)
from tests.core.test_pseudo import two_video_result


def test_agreement_takes_the_summary_correlation_and_the_mean_absolute_error(
    tmp_path: Path,
) -> None:
    videos, results, result = two_video_result(tmp_path)
    evaluations = {m: evaluate_method(videos, root) for m, root in results.items()}
    comparison = compare_with_truth(result, evaluations)
    agreement = truth_agreement(result, comparison)
    # True F1 of each detector from its two videos' normalized matrices, blended 'video'-wise.
    errors = []
    for m in result.methods:
        a, b = (e.total.normalized() for e in evaluations[m])
        tp, fp, fn = (a.tp + b.tp) / 2, (a.fp + b.fp) / 2, (a.fn + b.fn) / 2
        true_f1 = 2 * tp / (2 * tp + fp + fn)
        errors.append(abs(result.summaries[m].values["f1"].value - true_f1))
    assert agreement.key == "f1" and agreement.n_detectors == len(result.methods) == 4
    assert agreement.mean_absolute_error.value == pytest.approx(sum(errors) / 4)
    assert agreement.correlation == comparison.summary["f1"].pearson


def _agreement(correlation: float, error: float) -> TruthAgreement:
    def value(v: float) -> IndicatorValue:
        return undefined("undefined: test") if math.isnan(v) else IndicatorValue(v)

    return TruthAgreement("f1", value(correlation), value(error), 5)


@pytest.mark.parametrize(
    "correlation, error, disagrees",
    [
        (0.96, 0.05, False),
        (0.5, 0.1, False),  # at the thresholds: still agrees
        (0.49, 0.05, True),  # weak correlation
        (-0.999, 0.02, True),  # ranks the detectors backwards
        (0.96, 0.11, True),  # ranks them well but is far off
        (math.nan, 0.05, False),  # fewer than 3 detectors: the error alone decides
        (math.nan, 0.2, True),
        (math.nan, math.nan, False),  # nothing to judge by
    ],
)
def test_the_consensus_disagrees_below_the_correlation_or_above_the_error(
    correlation: float, error: float, disagrees: bool
) -> None:
    assert (MIN_TRUTH_CORRELATION, MAX_TRUTH_ERROR) == (0.5, 0.1)
    assert _agreement(correlation, error).disagrees is disagrees
