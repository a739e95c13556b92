"""Summarization over videos and the CDnet procedure side by side (docs/measures.md §2)."""

from __future__ import annotations

import csv
import io
import json
import math

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from referee.core.errors import RefereeError
from referee.core.exports.summary import csv_columns, format_results_csv, format_results_json
from referee.core.measures.indicators import INDICATORS, evaluate, evaluate_all
from referee.core.measures.summarize import (
    cdnet_procedure,
    compare_rankings,
    rank_methods,
    resolve_scheme,
    summarize,
    summarize_method,
    video_weights,
)
from referee.core.model.confusion import ConfusionMatrix, VideoConfusion, pooled

# The example also used for stats.txt:
#   baseline/a1           tp=3 fp=1 fn=1 tn=15   (20 pixels)  P=.75 R=.75 F=.75
#   baseline/a2           tp=1 fp=1 fn=3 tn=15   (20 pixels)  P=.5  R=.25 F=1/3
#   dynamicBackground/b1  tp=8 fp=2 fn=2 tn=88   (100 pixels) P=.8  R=.8  F=.8
A1 = VideoConfusion("baseline", "a1", ConfusionMatrix(3, 1, 1, 15), 0)
A2 = VideoConfusion("baseline", "a2", ConfusionMatrix(1, 1, 3, 15), 1)
B1 = VideoConfusion("dynamicBackground", "b1", ConfusionMatrix(8, 2, 2, 88), None)
VIDEOS = [A1, A2, B1]


# --- weights -------------------------------------------------------------------------


def test_weights_of_each_scheme_by_hand() -> None:
    assert video_weights(VIDEOS, "video") == pytest.approx([1 / 3, 1 / 3, 1 / 3])
    # 2 categories: 1/2 each, baseline split over its 2 videos
    assert video_weights(VIDEOS, "category") == pytest.approx([0.25, 0.25, 0.5])
    # 20, 20, 100 evaluated pixels out of 140
    assert video_weights(VIDEOS, "pixels") == pytest.approx([20 / 140, 20 / 140, 100 / 140])
    custom = {A1.key: 1.0, A2.key: 3.0, B1.key: 4.0, ("other", "x"): 9.0}
    assert video_weights(VIDEOS, "custom", custom) == pytest.approx([1 / 8, 3 / 8, 4 / 8])


def test_auto_is_category_with_categories_else_video() -> None:
    assert resolve_scheme(VIDEOS, "auto") == "category"
    plain = [
        VideoConfusion("", "x", ConfusionMatrix(1, 1, 1, 1)),
        VideoConfusion("", "y", ConfusionMatrix(1, 1, 1, 5)),
        VideoConfusion("", "z", ConfusionMatrix(1, 0, 1, 2)),
    ]
    assert resolve_scheme(plain, "auto") == "video"
    assert summarize(plain).scheme == "video"
    # a video without category is a category of its own: 3 categories of 1 video
    assert video_weights(plain, "category") == pytest.approx([1 / 3] * 3)
    mixed = [A1, A2, VideoConfusion("", "solo", ConfusionMatrix(1, 1, 1, 1))]
    assert resolve_scheme(mixed, "auto") == "category"
    assert video_weights(mixed, "auto") == pytest.approx([0.25, 0.25, 0.5])


def test_custom_weights_errors_name_the_video() -> None:
    with pytest.raises(RefereeError, match="baseline/a2"):
        video_weights(VIDEOS, "custom", {A1.key: 1.0, B1.key: 1.0})
    with pytest.raises(RefereeError, match="baseline/a1"):
        video_weights(VIDEOS, "custom", {A1.key: -1.0, A2.key: 1.0, B1.key: 1.0})
    with pytest.raises(RefereeError):
        video_weights(VIDEOS, "custom", {A1.key: 0.0, A2.key: 0.0, B1.key: 0.0})
    with pytest.raises(RefereeError):
        video_weights(VIDEOS, "custom")
    with pytest.raises(RefereeError):
        video_weights(VIDEOS, "by-size")


def test_video_without_pixels_is_an_error_naming_it() -> None:
    empty = VideoConfusion("night", "empty", ConfusionMatrix(0, 0, 0, 0))
    with pytest.raises(RefereeError, match="night/empty"):
        summarize([A1, empty])
    with pytest.raises(RefereeError, match="night/empty"):
        cdnet_procedure([A1, empty])
    with pytest.raises(RefereeError):
        summarize([])


def test_pixels_weights_equal_pooled_raw_counts() -> None:
    # pooled: tp=12 fp=4 fn=6 tn=118 (140 pixels); recall 12/18, precision 12/16
    summary = summarize(VIDEOS, "pixels")
    raw = pooled(v.cm for v in VIDEOS)
    assert (raw.tp, raw.fp, raw.fn, raw.tn) == (12, 4, 6, 118)
    assert summary.cm.as_array() == pytest.approx(raw.normalized().as_array(), rel=1e-12)
    assert summary.values["recall"].value == pytest.approx(12 / 18, rel=1e-12)
    assert summary.values["precision"].value == pytest.approx(12 / 16, rel=1e-12)
    for key, value in evaluate_all(raw).items():
        assert summary.values[key].value == pytest.approx(value.value, rel=1e-9), key


def test_category_summary_by_hand() -> None:
    # normalized: a1 (.15 .05 .05 .75), a2 (.05 .05 .15 .75), b1 (.08 .02 .02 .88)
    # weights .25 .25 .5 → tp .09, fp .035, fn .06, tn .815
    summary = summarize(VIDEOS)
    assert summary.scheme == "category"
    assert summary.weights == pytest.approx({A1.key: 0.25, A2.key: 0.25, B1.key: 0.5})
    assert [summary.cm.tp, summary.cm.fp, summary.cm.fn, summary.cm.tn] == pytest.approx(
        [0.09, 0.035, 0.06, 0.815]
    )
    assert summary.values["recall"].value == pytest.approx(0.6)  # .09/.15
    assert summary.values["precision"].value == pytest.approx(0.72)  # .09/.125
    assert summary.values["f1"].value == pytest.approx(0.18 / 0.275)  # 0.6545…
    assert summary.values["pwc"].value == pytest.approx(9.5)  # 100·.095


# --- the CDnet procedure ---------------------------------------------------------------


def test_cdnet_procedure_by_hand() -> None:
    cdnet = cdnet_procedure(VIDEOS)
    assert cdnet.categories == {"baseline": (A1.key, A2.key), "dynamicBackground": (B1.key,)}
    baseline = cdnet.statistics_per_category["baseline"]
    assert baseline["recall"].value == pytest.approx(0.5)  # (.75 + .25)/2
    assert baseline["precision"].value == pytest.approx(0.625)  # (.75 + .5)/2
    assert baseline["fmeasure"].value == pytest.approx((0.75 + 1 / 3) / 2)
    overall = cdnet.statistics_overall
    assert overall["recall"].value == pytest.approx(0.65)  # (.5 + .8)/2
    assert overall["specificity"].value == pytest.approx((0.9375 + 88 / 90) / 2)
    assert overall["pwc"].value == pytest.approx(9.5)  # (15 + 4)/2
    assert overall["precision"].value == pytest.approx(0.7125)  # (.625 + .8)/2
    assert overall["fmeasure"].value == pytest.approx(0.6708333333, abs=1e-10)
    # registry indicators averaged the same way
    assert cdnet.indicators_overall["recall"] == overall["recall"]
    assert cdnet.indicators_overall["f1"].value == pytest.approx(overall["fmeasure"].value)


def test_two_procedures_differ_on_recall_precision_f_but_not_pwc() -> None:
    # Hand values above: CDnet R .65, P .7125, F .67083; FPR (.0625 + 2/90)/2 = .042361
    # blend (category): R .6, P .72, F .65455, FPR .035/.85 = .041176; PWC 9.5 for both.
    summary, cdnet = summarize(VIDEOS, "category"), cdnet_procedure(VIDEOS)
    for key, blended, averaged in [
        ("recall", 0.6, 0.65),
        ("precision", 0.72, 0.7125),
        ("fpr", 0.035 / 0.85, (0.0625 + 2 / 90) / 2),
    ]:
        assert summary.values[key].value == pytest.approx(blended)
        assert cdnet.statistics_overall[key].value == pytest.approx(averaged)
    assert summary.values["f1"].value == pytest.approx(0.18 / 0.275)
    assert cdnet.statistics_overall["fmeasure"].value == pytest.approx(0.6708333333)
    assert summary.values["pwc"].value == pytest.approx(cdnet.statistics_overall["pwc"].value)


def test_seed_situation_mean_of_f_differs_from_f_of_mean_p_and_r() -> None:
    # v1: tp=1 fp=0 fn=1 tn=8 → P=1,  R=.5, F=2/3
    # v2: tp=2 fp=2 fn=0 tn=6 → P=.5, R=1,  F=2/3
    # CDnet: mean F = 2/3, mean P = mean R = .75, so F(mean P, mean R) = .75 ≠ 2/3.
    # The blend (.5 each): tp .15 fp .1 fn .05 → P .6, R .75, F1 = .3/.45 = 2/3, which
    # is the harmonic mean of the blended P and R, and not F(mean P, mean R).
    videos = [
        VideoConfusion("c", "v1", ConfusionMatrix(1, 0, 1, 8)),
        VideoConfusion("c", "v2", ConfusionMatrix(2, 2, 0, 6)),
    ]
    cdnet = cdnet_procedure(videos).statistics_overall
    mean_f = cdnet["fmeasure"].value
    p, r = cdnet["precision"].value, cdnet["recall"].value
    f_of_means = 2 * p * r / (p + r)
    assert mean_f == pytest.approx(2 / 3)
    assert f_of_means == pytest.approx(0.75)
    assert mean_f != pytest.approx(f_of_means)
    summary = summarize(videos).values
    assert summary["precision"].value == pytest.approx(0.6)
    assert summary["recall"].value == pytest.approx(0.75)
    assert summary["f1"].value == pytest.approx(2 / 3)
    assert summary["f1"].value != pytest.approx(f_of_means)


def test_undefined_on_one_video_is_defined_on_the_summary() -> None:
    # quiet video: no detection at all → precision undefined there
    quiet = VideoConfusion("c", "quiet", ConfusionMatrix(0, 0, 4, 96))
    busy = VideoConfusion("c", "busy", ConfusionMatrix(6, 2, 2, 90))
    assert evaluate("precision", quiet.cm).reason == "undefined: no detected pixels"
    # blend (.5 each): tp .03, fp .01 → precision .75
    summary = summarize([quiet, busy])
    assert summary.values["precision"].value == pytest.approx(0.75)
    # the CDnet procedure propagates the NaN, and says where it comes from
    cdnet = cdnet_procedure([quiet, busy])
    assert math.isnan(cdnet.statistics_overall["precision"].value)
    reason = cdnet.statistics_overall["precision"].reason or ""
    assert "c/quiet" in reason and "no detected pixels" in reason
    assert math.isnan(cdnet.statistics_overall["fmeasure"].value)


def test_cdnet_fmeasure_undefined_when_precision_and_recall_are_zero() -> None:
    wrong = VideoConfusion("c", "wrong", ConfusionMatrix(0, 5, 5, 90))
    stats = cdnet_procedure([wrong]).statistics_per_video[wrong.key]
    assert stats["fmeasure"].reason == "undefined: precision and recall are both 0"
    # the registry F1 = 2tp/(2tp+fp+fn) is 0 there
    assert cdnet_procedure([wrong]).indicators_per_video[wrong.key]["f1"].value == 0.0


# --- properties on random data ------------------------------------------------------------

count = st.integers(min_value=0, max_value=10_000)
video_matrix = st.tuples(count, count, count, count).filter(lambda m: sum(m) > 0)


@st.composite
def video_sets(draw: st.DrawFn) -> list[VideoConfusion]:
    n = draw(st.integers(min_value=1, max_value=6))
    matrices = draw(st.lists(video_matrix, min_size=n, max_size=n))
    categories = draw(st.lists(st.sampled_from(["a", "b", "c", ""]), min_size=n, max_size=n))
    return [
        VideoConfusion(c, f"v{i}", ConfusionMatrix(*m))
        for i, (c, m) in enumerate(zip(categories, matrices))
    ]


@settings(max_examples=60, deadline=None)
@given(video_sets(), st.lists(st.floats(0.1, 10.0), min_size=6, max_size=6))
def test_summarized_f1_is_harmonic_mean_of_summarized_p_and_r(
    videos: list[VideoConfusion], raw_weights: list[float]
) -> None:
    custom = {v.key: w for v, w in zip(videos, raw_weights)}
    for scheme in ("video", "category", "pixels", "custom"):
        summary = summarize(videos, scheme, custom if scheme == "custom" else None)
        if summary.cm.tp == 0:
            continue  # P and R are 0 or undefined; the harmonic mean is undefined
        p, r = summary.values["precision"].value, summary.values["recall"].value
        assert summary.values["f1"].value == pytest.approx(2 * p * r / (p + r), rel=1e-9)


@settings(max_examples=60, deadline=None)
@given(video_sets())
def test_roc_and_pr_points_of_a_summary_come_from_the_same_matrix(
    videos: list[VideoConfusion],
) -> None:
    summary = summarize(videos, "category")
    p = summary.cm
    assert p.total == pytest.approx(1.0)
    assume(p.tp > 0 and p.fp + p.tn > 0)
    fpr, tpr, ppv = (summary.values[k].value for k in ("fpr", "recall", "precision"))
    # each coordinate is the indicator of the one blended matrix ...
    assert fpr == evaluate("fpr", p).value
    assert tpr == evaluate("recall", p).value
    assert ppv == evaluate("precision", p).value
    # ... so the PR point follows from the ROC point and the blend's prevalence
    prior = summary.values["prevalence"].value
    assert ppv == pytest.approx(tpr * prior / (tpr * prior + fpr * (1 - prior)), rel=1e-9)


@settings(max_examples=100, deadline=None)
@given(video_sets())
def test_cdnet_average_pwc_equals_category_weighted_summary(videos: list[VideoConfusion]) -> None:
    summary = summarize(videos, "category")
    cdnet = cdnet_procedure(videos)
    assert cdnet.statistics_overall["pwc"].value == pytest.approx(
        summary.values["pwc"].value, rel=1e-12, abs=1e-12
    )
    assert cdnet.indicators_overall["accuracy"].value == pytest.approx(
        summary.values["accuracy"].value, rel=1e-12, abs=1e-12
    )


@settings(max_examples=60, deadline=None)
@given(video_sets())
def test_weights_sum_to_one(videos: list[VideoConfusion]) -> None:
    for scheme in ("auto", "video", "category", "pixels"):
        weights = video_weights(videos, scheme)
        assert weights.sum() == pytest.approx(1.0)
        assert np.all(weights > 0)


# --- rankings -------------------------------------------------------------------------


def test_rank_methods_puts_nan_last_and_breaks_ties_by_name() -> None:
    values = {"C": math.nan, "A": 0.5, "B": 0.7, "D": 0.5}
    assert rank_methods(values, higher_is_better=True) == ["B", "A", "D", "C"]
    assert rank_methods(values, higher_is_better=False) == ["A", "D", "B", "C"]


# GT of v1: 1 positive, 99 negatives; GT of v2: 50 positives, 50 negatives.
# X: v1 tp1 fp0 fn0 tn99 (F 1); v2 tp10 fp40 fn40 tn10 (F .2)   → CDnet F .6
#    blend tp .055 fp .2 fn .2                                  → F1 .11/.51 = .2157
# Y: v1 tp1 fp9 fn0 tn90 (F .1818); v2 tp40 fp10 fn10 tn40 (F .8) → CDnet F .4909
#    blend tp .205 fp .095 fn .05                               → F1 .41/.555 = .7387
# Z: perfect on both                                            → F 1 both ways
METHODS = {
    "X": [
        VideoConfusion("c", "v1", ConfusionMatrix(1, 0, 0, 99)),
        VideoConfusion("c", "v2", ConfusionMatrix(10, 40, 40, 10)),
    ],
    "Y": [
        VideoConfusion("c", "v1", ConfusionMatrix(1, 9, 0, 90)),
        VideoConfusion("c", "v2", ConfusionMatrix(40, 10, 10, 40)),
    ],
    "Z": [
        VideoConfusion("c", "v1", ConfusionMatrix(1, 0, 0, 99)),
        VideoConfusion("c", "v2", ConfusionMatrix(50, 0, 0, 50)),
    ],
}


@pytest.mark.parametrize("key", ["fmeasure", "f1"])
def test_compare_rankings_of_the_two_procedures(key: str) -> None:
    summaries = {m: summarize(v) for m, v in METHODS.items()}
    cdnets = {m: cdnet_procedure(v) for m, v in METHODS.items()}
    comparison = compare_rankings(summaries, cdnets, key)
    assert comparison.summary_values["X"] == pytest.approx(0.11 / 0.51)
    assert comparison.summary_values["Y"] == pytest.approx(0.41 / 0.555)
    assert comparison.cdnet_values["X"] == pytest.approx(0.6)
    assert comparison.cdnet_values["Y"] == pytest.approx((2 * 0.1 / 1.1 + 0.8) / 2)
    assert comparison.summary_ranking == ["Z", "Y", "X"]
    assert comparison.cdnet_ranking == ["Z", "X", "Y"]
    assert comparison.summary_rank == {"Z": 1, "Y": 2, "X": 3}
    assert comparison.cdnet_rank == {"Z": 1, "X": 2, "Y": 3}
    # pairs (Z,X), (Z,Y) concordant, (X,Y) discordant: τ = (2 − 1)/3
    assert comparison.kendall_tau.value == pytest.approx(1 / 3)


def test_compare_rankings_needs_two_methods_and_the_same_methods() -> None:
    one = compare_rankings(
        {"X": summarize(METHODS["X"])}, {"X": cdnet_procedure(METHODS["X"])}, "recall"
    )
    assert math.isnan(one.kendall_tau.value)
    assert one.kendall_tau.reason == "undefined: fewer than 2 methods to rank"
    with pytest.raises(RefereeError):
        compare_rankings({"X": summarize(METHODS["X"])}, {}, "recall")


# --- results export (summary_io) ----------------------------------------------------------


def test_results_json_is_strict_and_keeps_reasons() -> None:
    quiet = VideoConfusion("c", "quiet", ConfusionMatrix(0, 0, 4, 96))
    busy = VideoConfusion("c", "busy", ConfusionMatrix(6, 2, 2, 90), 1)
    results = [summarize_method("M", [quiet, busy]), summarize_method("N", VIDEOS)]
    ranking = compare_rankings(
        {r.method: r.summary for r in results}, {r.method: r.cdnet for r in results}, "precision"
    )
    text = format_results_json(results, [ranking], {"weights": "category"})
    assert "NaN" not in text
    data = json.loads(text)
    assert data["parameters"] == {"weights": "category"}
    assert data["indicators"]["pwc"]["range"] == [0, 100]
    m = data["methods"][0]
    assert m["videos"][0]["counts"] == {"tp": 0, "fp": 0, "fn": 4, "tn": 96, "se": None}
    assert m["videos"][0]["indicators"]["precision"] == {
        "value": None,
        "reason": "undefined: no detected pixels",
    }
    assert m["summary"]["scheme"] == "category"
    assert m["summary"]["indicators"]["precision"]["value"] == pytest.approx(0.75)
    assert m["summary"]["weights"] == [
        {"category": "c", "video": "quiet", "weight": 0.5},
        {"category": "c", "video": "busy", "weight": 0.5},
    ]
    overall = m["cdnet_procedure"]["overall"]["statistics"]["precision"]
    assert overall["value"] is None and "c/quiet" in overall["reason"]
    n = data["methods"][1]["cdnet_procedure"]["overall"]["statistics"]
    assert n["fmeasure"]["value"] == pytest.approx(0.6708333333)
    assert data["rankings"][0]["indicator"] == "precision"
    assert data["rankings"][0]["methods"]["M"]["summary_rank"] == 1  # .75 > .72


def test_results_csv_rows() -> None:
    results = [summarize_method("N", VIDEOS)]
    reader = csv.DictReader(io.StringIO(format_results_csv(results)))
    rows = list(reader)
    assert reader.fieldnames == csv_columns()
    assert len(rows) == 3 + 2
    assert [r["row"] for r in rows] == [
        "video",
        "video",
        "video",
        "summary:category",
        "cdnet-procedure",
    ]
    assert (rows[0]["TP"], rows[0]["FP"], rows[0]["FN"], rows[0]["TN"]) == ("3", "1", "1", "15")
    assert rows[0]["weight"] == "0.25" and rows[2]["SE"] == ""
    assert float(rows[3]["recall"]) == pytest.approx(0.6)
    assert float(rows[3]["TP"]) == pytest.approx(0.09)
    assert rows[3]["fmeasure"] == ""
    assert float(rows[4]["recall"]) == pytest.approx(0.65)
    assert float(rows[4]["fmeasure"]) == pytest.approx(0.6708333333)
    assert set(INDICATORS) <= set(rows[0])


def test_results_csv_marks_undefined_cells() -> None:
    quiet = VideoConfusion("c", "quiet", ConfusionMatrix(0, 0, 4, 96))
    busy = VideoConfusion("c", "busy", ConfusionMatrix(6, 2, 2, 90))
    text = format_results_csv([summarize_method("M", [quiet, busy])])
    rows = list(csv.DictReader(io.StringIO(text)))
    first = rows[0]
    assert first["precision"] == ""
    assert "precision: undefined: no detected pixels" in first["undefined"]
