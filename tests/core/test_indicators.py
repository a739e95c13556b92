"""The indicator registry (docs/measures.md §2): hand-computed values, undefined cases, scale invariance."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.core.errors import RefereeError
from referee.core.measures.indicators import (
    INDICATORS,
    Indicator,
    IndicatorValue,
    evaluate,
    evaluate_all,
    f_beta,
)
from referee.core.model.confusion import ConfusionMatrix

# tp=20, fp=5, fn=10, tn=65; n=100. Positives 30, negatives 70, detected 25,
# detected as negative 75.
HAND = ConfusionMatrix(tp=20, fp=5, fn=10, tn=65)

HAND_VALUES = {
    "prevalence": 30 / 100,
    "recall": 20 / 30,
    "specificity": 65 / 70,
    "fpr": 5 / 70,
    "fnr": 10 / 30,
    "precision": 20 / 25,
    "npv": 65 / 75,
    "accuracy": 85 / 100,
    "error_rate": 15 / 100,
    "pwc": 15.0,
    "predicted_positive_rate": 25 / 100,
    "f1": 40 / 55,  # 2·20 / (40 + 5 + 10)
    "f2": 100 / 145,  # 5·20 / (5·20 + 4·10 + 5)
    "f0.5": 25 / 32.5,  # 1.25·20 / (1.25·20 + 0.25·10 + 5)
    "jaccard": 20 / 35,
    # (20·65 − 5·10) / sqrt(25 · 30 · 70 · 75) = 1250 / sqrt(3937500) ≈ 0.62994
    "mcc": 1250 / math.sqrt(3_937_500),
    "balanced_accuracy": (20 / 30 + 65 / 70) / 2,
    "nrm": (10 / 30 + 5 / 70) / 2,
    # p_o = 0.85; p_e = 0.25·0.30 + 0.75·0.70 = 0.6; κ = 0.25 / 0.4
    "kappa": 0.625,
}


def test_registry_holds_every_indicator_of_spec_section_2_in_order() -> None:
    assert list(INDICATORS) == list(HAND_VALUES)
    for key, indicator in INDICATORS.items():
        assert isinstance(indicator, Indicator)
        assert indicator.key == key
        assert indicator.name and indicator.symbol and indicator.formula
        low, high = indicator.range
        assert low < high


def test_probabilistic_flags_follow_spec() -> None:
    probabilistic = {k for k, ind in INDICATORS.items() if ind.probabilistic}
    assert probabilistic == {
        "prevalence",
        "recall",
        "specificity",
        "fpr",
        "fnr",
        "precision",
        "npv",
        "accuracy",
        "error_rate",
        "pwc",
        "predicted_positive_rate",
    }
    assert INDICATORS["recall"].higher_is_better
    assert not INDICATORS["fpr"].higher_is_better
    assert not INDICATORS["pwc"].higher_is_better
    assert INDICATORS["mcc"].range == (-1.0, 1.0)


@pytest.mark.parametrize("key", list(HAND_VALUES))
def test_values_on_a_hand_computed_matrix(key: str) -> None:
    result = evaluate(key, HAND)
    assert result.reason is None
    assert result.value == pytest.approx(HAND_VALUES[key], rel=1e-12)


def test_kappa_and_mcc_on_a_second_hand_example() -> None:
    # tp=45, fp=15, fn=5, tn=35; n=100.
    # κ: p_o = 0.80; p_e = 0.60·0.50 + 0.40·0.50 = 0.50; κ = 0.30/0.50 = 0.6
    # MCC: (45·35 − 15·5) / sqrt(60·50·50·40) = 1500 / sqrt(6e6) = 0.6123724357
    cm = ConfusionMatrix(tp=45, fp=15, fn=5, tn=35)
    assert evaluate("kappa", cm).value == pytest.approx(0.6, rel=1e-12)
    assert evaluate("mcc", cm).value == pytest.approx(0.6123724357, abs=1e-10)


def test_perfect_and_inverted_detections() -> None:
    perfect = ConfusionMatrix(tp=3, fp=0, fn=0, tn=7)
    inverted = ConfusionMatrix(tp=0, fp=7, fn=3, tn=0)
    assert evaluate("mcc", perfect).value == 1.0
    assert evaluate("kappa", perfect).value == 1.0
    assert evaluate("mcc", inverted).value == -1.0
    # p_o = 0; p_e = 0.7·0.3 + 0.3·0.7 = 0.42; κ = −0.42/0.58
    assert evaluate("kappa", inverted).value == pytest.approx(-0.42 / 0.58, rel=1e-12)


def test_f_beta_generalizes_f1_and_matches_the_registry() -> None:
    assert f_beta(HAND, 1.0).value == pytest.approx(evaluate("f1", HAND).value, rel=1e-15)
    assert f_beta(HAND, 2.0) == evaluate("f2", HAND)
    assert f_beta(HAND, 0.5) == evaluate("f0.5", HAND)
    # β = 3: 10·20 / (10·20 + 9·10 + 5) = 200/295
    assert f_beta(HAND, 3.0).value == pytest.approx(200 / 295, rel=1e-12)
    with pytest.raises(RefereeError):
        f_beta(HAND, 0.0)


@pytest.mark.parametrize(
    ("key", "cm", "reason"),
    [
        ("precision", ConfusionMatrix(tp=0, fp=0, fn=5, tn=95), "undefined: no detected pixels"),
        ("recall", ConfusionMatrix(tp=0, fp=3, fn=0, tn=97), "undefined: no positive pixels"),
        ("fnr", ConfusionMatrix(tp=0, fp=3, fn=0, tn=97), "undefined: no positive pixels"),
        ("specificity", ConfusionMatrix(tp=4, fp=0, fn=1, tn=0), "undefined: no negative pixels"),
        (
            "npv",
            ConfusionMatrix(tp=4, fp=6, fn=0, tn=0),
            "undefined: no pixels detected as negative",
        ),
        (
            "f1",
            ConfusionMatrix(tp=0, fp=0, fn=0, tn=10),
            "undefined: no positive and no detected pixels",
        ),
        (
            "jaccard",
            ConfusionMatrix(tp=0, fp=0, fn=0, tn=10),
            "undefined: no positive and no detected pixels",
        ),
        ("mcc", ConfusionMatrix(tp=0, fp=2, fn=0, tn=8), "undefined: no positive pixels"),
        ("mcc", ConfusionMatrix(tp=0, fp=0, fn=2, tn=8), "undefined: no detected pixels"),
        (
            "balanced_accuracy",
            ConfusionMatrix(tp=0, fp=2, fn=0, tn=8),
            "undefined: no positive pixels",
        ),
        ("accuracy", ConfusionMatrix(tp=0, fp=0, fn=0, tn=0), "undefined: no evaluated pixels"),
    ],
)
def test_undefined_values_are_nan_with_a_reason(key: str, cm: ConfusionMatrix, reason: str) -> None:
    result = evaluate(key, cm)
    assert math.isnan(result.value)
    assert not result.defined
    assert result.reason == reason


def test_kappa_undefined_only_when_both_are_one_constant_class() -> None:
    all_negative = ConfusionMatrix(tp=0, fp=0, fn=0, tn=10)
    assert not evaluate("kappa", all_negative).defined
    assert "both all one class" in (evaluate("kappa", all_negative).reason or "")
    # ground truth all negative, detection all positive: p_o = 0 = p_e, so κ = 0
    opposite = ConfusionMatrix(tp=0, fp=10, fn=0, tn=0)
    assert evaluate("kappa", opposite) == IndicatorValue(0.0)


def test_unknown_key_is_a_referee_error_listing_the_keys() -> None:
    with pytest.raises(RefereeError, match="recall"):
        evaluate("f-measure", HAND)


def test_evaluate_all_selects_keys() -> None:
    assert list(evaluate_all(HAND, ["f1", "recall"])) == ["f1", "recall"]
    assert list(evaluate_all(HAND)) == list(INDICATORS)


counts = st.integers(min_value=0, max_value=10**6)


@settings(max_examples=200, deadline=None)
@given(counts, counts, counts, counts)
def test_scale_invariance_counts_versus_normalized(tp: int, fp: int, fn: int, tn: int) -> None:
    cm = ConfusionMatrix(tp, fp, fn, tn)
    if cm.total == 0:
        return
    raw, normalized = evaluate_all(cm), evaluate_all(cm.normalized())
    for key in INDICATORS:
        if raw[key].defined:
            assert normalized[key].value == pytest.approx(raw[key].value, rel=1e-9, abs=1e-12)
        else:
            assert not normalized[key].defined
            assert normalized[key].reason == raw[key].reason


@settings(max_examples=200, deadline=None)
@given(counts, counts, counts, counts)
def test_defined_values_lie_in_their_range(tp: int, fp: int, fn: int, tn: int) -> None:
    for key, result in evaluate_all(ConfusionMatrix(tp, fp, fn, tn)).items():
        if result.defined:
            low, high = INDICATORS[key].range
            assert low - 1e-12 <= result.value <= high + 1e-12, key
        else:
            assert result.reason and result.reason.startswith("undefined: ")


def test_scale_invariance_on_the_hand_example() -> None:
    halved = HAND.scaled(0.5)
    for key, value in HAND_VALUES.items():
        assert evaluate(key, HAND.normalized()).value == pytest.approx(value, rel=1e-12)
        assert evaluate(key, halved).value == pytest.approx(value, rel=1e-12)
