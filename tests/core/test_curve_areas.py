"""ROC AUC, average precision and the end points of soft-output curves (docs/measures.md §3).

The reference numbers come from scikit-learn run on the pixels themselves, read
straight from the files, not from Referee's histograms.
"""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import average_precision_score, f1_score, roc_auc_score

from referee.core.cli.main import main
from referee.core.evaluation.batch import score_histograms_method
from referee.core.evaluation.masks import summarized_histogram_curves
from referee.core.exports.text_table import format_best_threshold_table
from referee.core.formats.cdnet import discover_videos
from referee.core.measures.curve_areas import average_precision, roc_auc
from referee.core.measures.curves import curves_from_confusions, roc_pr_curves
from referee.core.measures.indicators import NO_NEGATIVE, NO_POSITIVE
from referee.core.measures.pixel import threshold_confusions
from referee.core.model.videos import VideoSpec
from tests.core.test_evaluate import make_dataset

#: Mean score of each ground-truth grey level; scores are rounded to multiples of 8 (ties), 256
#: becoming 255.
MEAN_SCORE = {0: 70.0, 50: 110.0, 85: 128.0, 170: 128.0, 255: 160.0}


def write_scores(root: Path, videos: list[VideoSpec], seed: int) -> None:
    """Score maps that lean towards the ground truth, with many tied scores."""
    rng = np.random.default_rng(seed)
    for video in videos:
        folder = root / video.category / video.name
        folder.mkdir(parents=True)
        for i in video.frames:
            gt = cv2.imread(str(video.gt_path(i)), cv2.IMREAD_GRAYSCALE)
            mean = np.vectorize(MEAN_SCORE.__getitem__)(gt)
            score = np.clip(np.round(rng.normal(mean, 60.0) / 8) * 8, 0, 255)
            cv2.imwrite(str(folder / f"bin{i:06d}.png"), score.astype(np.uint8))


def pixel_labels_and_scores(video: VideoSpec, results: Path) -> tuple[np.ndarray, np.ndarray]:
    """One entry per evaluated pixel (§1): label 1 for motion, 0 for static and shadow; its score."""
    roi = cv2.imread(str(video.roi_path), cv2.IMREAD_GRAYSCALE) > 0
    labels, scores = [], []
    for i in video.frames:
        gt = cv2.imread(str(video.gt_path(i)), cv2.IMREAD_GRAYSCALE)
        score = cv2.imread(
            str(results / video.category / video.name / f"bin{i:06d}.png"), cv2.IMREAD_GRAYSCALE
        )
        evaluated = roi & np.isin(gt, (0, 50, 255))
        labels.append((gt[evaluated] == 255).astype(int))
        scores.append(score[evaluated].astype(int))
    return np.concatenate(labels), np.concatenate(scores)


def weighted_scikit_areas(
    videos: list[VideoSpec], results: Path, weights: dict[str, float]
) -> tuple[float, float]:
    """scikit-learn's ROC AUC and AP of all the videos' pixels, each pixel of video ``v``
    weighing ``weights[v.name] / n_v`` (docs/measures.md §3, summarized curve)."""
    pooled = [(v, *pixel_labels_and_scores(v, results)) for v in videos]
    labels = np.concatenate([y for _, y, _ in pooled])
    scores = np.concatenate([s for _, _, s in pooled])
    weight = np.concatenate([np.full(y.size, weights[v.name] / y.size) for v, y, _ in pooled])
    return (
        float(roc_auc_score(labels, scores, sample_weight=weight)),
        float(average_precision_score(labels, scores, sample_weight=weight)),
    )


@pytest.fixture()
def scored(tmp_path: Path) -> tuple[list[VideoSpec], Path, Path]:
    """Three small CDnet videos and a soft method ``soft`` scoring them."""
    make_dataset(tmp_path / "data", seed=11)
    videos = discover_videos(tmp_path / "data")
    write_scores(tmp_path / "soft", videos, seed=12)
    return videos, tmp_path / "data", tmp_path / "soft"


# --- the formulas, by hand and against scikit-learn ----------------------------------------------


def histograms_of(classes: list[int], scores: list[int]) -> np.ndarray:
    """Score histograms ``(3, 256)``; class 0 static, 1 shadow, 2 motion."""
    h = np.zeros((3, 256), np.int64)
    np.add.at(h, (np.array(classes), np.array(scores)), 1)
    return h


def test_small_example_by_hand() -> None:
    # static 3 x score 10, shadow 1 x 50, motion 2 x 50 and 2 x 200.
    curves = roc_pr_curves(
        histograms_of([0, 0, 0, 1, 2, 2, 2, 2], [10, 10, 10, 50, 50, 50, 200, 200])
    )
    # Pairs (motion, negative): the two at 200 beat all 4 negatives (8); each at 50 beats the 3
    # static and ties the shadow pixel (3.5 each): 15 of 16 pairs.
    assert roc_auc(curves).value == 15 / 16
    # T=200: recall 1/2 at precision 2/2; T=50: recall 1 at precision 4/5.
    assert average_precision(curves).value == 0.5 * 1 + 0.5 * 0.8
    # Motion at 255 and 3, negatives at 255 and 1: the strictest threshold already detects.
    curves = roc_pr_curves(histograms_of([2, 0, 2, 0], [255, 255, 3, 1]))
    assert roc_auc(curves).value == (0.5 + 1 + 0 + 1) / 4  # one tie counts one half
    assert average_precision(curves).value == 7 / 12  # 1/2 * 1/2 + 1/2 * 2/3


@settings(max_examples=150, deadline=None)
@given(
    pixels=st.lists(
        st.tuples(st.integers(0, 2), st.integers(0, 255) | st.sampled_from([0, 7, 128, 255])),
        max_size=60,
    )
)
def test_areas_equal_scikit_learn_on_random_pixels(pixels: list[tuple[int, int]]) -> None:
    pixels = [*pixels, (2, 3), (0, 3)]  # at least one positive and one negative pixel
    classes, scores = [c for c, _ in pixels], [s for _, s in pixels]
    labels = [int(c == 2) for c in classes]
    curves = roc_pr_curves(histograms_of(classes, scores))
    assert roc_auc(curves).value == pytest.approx(roc_auc_score(labels, scores), rel=1e-12)
    assert average_precision(curves).value == pytest.approx(
        average_precision_score(labels, scores), rel=1e-12
    )


def test_each_video_equals_scikit_learn(scored: tuple[list[VideoSpec], Path, Path]) -> None:
    videos, _, results = scored
    for video, histograms in zip(videos, score_histograms_method(videos, results)):
        labels, scores = pixel_labels_and_scores(video, results)
        assert 0 < labels.sum() < labels.size, "each video must hold both classes"
        curves = roc_pr_curves(histograms.histograms)
        assert roc_auc(curves).value == pytest.approx(roc_auc_score(labels, scores), rel=1e-12)
        assert average_precision(curves).value == pytest.approx(
            average_precision_score(labels, scores), rel=1e-12
        )


def test_pixel_weighted_summary_equals_scikit_learn_on_pooled_pixels(
    scored: tuple[list[VideoSpec], Path, Path],
) -> None:
    videos, _, results = scored
    scheme, summary = summarized_histogram_curves(
        score_histograms_method(videos, results), "pixels"
    )
    pooled = [pixel_labels_and_scores(v, results) for v in videos]
    labels = np.concatenate([y for y, _ in pooled])
    scores = np.concatenate([s for _, s in pooled])
    assert scheme == "pixels"
    assert roc_auc(summary).value == pytest.approx(roc_auc_score(labels, scores), rel=1e-12)
    assert average_precision(summary).value == pytest.approx(
        average_precision_score(labels, scores), rel=1e-12
    )


def test_summary_weighs_each_pixel_by_its_video_weight_over_its_pixels(
    scored: tuple[list[VideoSpec], Path, Path],
) -> None:
    videos, _, results = scored
    scheme, summary = summarized_histogram_curves(score_histograms_method(videos, results), "video")
    pooled = [pixel_labels_and_scores(v, results) for v in videos]
    labels = np.concatenate([y for y, _ in pooled])
    scores = np.concatenate([s for _, s in pooled])
    # Weights 1/3 per video: each pixel of video v counts 1 / (3 n_v).
    weight = np.concatenate([np.full(y.size, 1 / (3 * y.size)) for y, _ in pooled])
    assert scheme == "video"
    assert roc_auc(summary).value == pytest.approx(
        roc_auc_score(labels, scores, sample_weight=weight), rel=1e-9
    )
    assert average_precision(summary).value == pytest.approx(
        average_precision_score(labels, scores, sample_weight=weight), rel=1e-9
    )
    unweighted = roc_auc_score(labels, scores)
    assert abs(roc_auc(summary).value - unweighted) > 1e-6, "the weights must matter here"


# --- undefined areas -----------------------------------------------------------------------------


def test_without_negative_pixels_auc_is_undefined_and_ap_is_one() -> None:
    curves = roc_pr_curves(histograms_of([2, 2, 2], [0, 90, 90]))
    auc = roc_auc(curves)
    assert math.isnan(auc.value) and auc.reason == NO_NEGATIVE
    assert average_precision(curves).value == 1.0 == average_precision_score([1, 1, 1], [0, 90, 90])


def test_without_positive_pixels_both_are_undefined() -> None:
    curves = roc_pr_curves(histograms_of([0, 1, 0], [0, 90, 255]))
    for area in (roc_auc(curves), average_precision(curves)):
        assert math.isnan(area.value) and area.reason == NO_POSITIVE


def test_table_prints_undef_with_its_reason() -> None:
    no_positive = curves_from_confusions(threshold_confusions(histograms_of([0, 1], [4, 9])))
    text = format_best_threshold_table([("m", "video", no_positive)])
    header, row = text.splitlines()[1:3]
    assert header.split()[-2:] == ["AUC", "AP"]
    assert row.split()[-2:] == ["undef.", "undef."]
    assert "m: AUC undefined: no positive pixels" in text
    assert "m: AP undefined: no positive pixels" in text


# --- referee curves, through the real entry point ------------------------------------------------


def read_csv(path: Path) -> list[dict[str, str]]:
    with path.open(newline="") as f:
        return list(csv.DictReader(f))


def run_curves(dataset: Path, results: Path, out: Path, *options: str) -> None:
    status = main(
        [
            "curves",
            str(dataset),
            str(results),
            "--quiet",
            "--csv",
            str(out / "curves.csv"),
            "--areas-csv",
            str(out / "areas.csv"),
            *options,
        ]
    )
    assert status == 0


def test_cli_prints_and_writes_the_scikit_learn_areas_and_every_end_point(
    scored: tuple[list[VideoSpec], Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    videos, dataset, results = scored
    run_curves(dataset, results, tmp_path, "--weights", "pixels")
    pooled = {v.name: pixel_labels_and_scores(v, results) for v in videos}
    labels = np.concatenate([y for y, _ in pooled.values()])
    scores = np.concatenate([s for _, s in pooled.values()])

    # The table: the summarized (here pooled) AUC and AP, to 4 decimals.
    lines = capsys.readouterr().out.splitlines()
    assert next(x for x in lines if x.startswith("method")).split()[-2:] == ["AUC", "AP"]
    auc, ap = map(float, next(x for x in lines if x.startswith("soft")).split()[-2:])
    assert auc == pytest.approx(roc_auc_score(labels, scores), abs=5e-5)
    assert ap == pytest.approx(average_precision_score(labels, scores), abs=5e-5)

    # The areas file: one row per video and one summary row.
    areas = {a["video"] or a["row"]: a for a in read_csv(tmp_path / "areas.csv")}
    assert set(areas) == {*pooled, "summary:pixels"}
    for name, (y, s) in [*pooled.items(), ("summary:pixels", (labels, scores))]:
        assert float(areas[name]["roc_auc"]) == pytest.approx(roc_auc_score(y, s), rel=1e-12)
        assert float(areas[name]["average_precision"]) == pytest.approx(
            average_precision_score(y, s), rel=1e-12
        )
        assert areas[name]["undefined"] == ""
    for name, (y, _) in pooled.items():
        assert (int(areas[name]["positives"]), int(areas[name]["negatives"])) == (
            int(y.sum()),
            int(y.size - y.sum()),
        )

    # The points: thresholds 0..256 per curve, both ends marked; their area is the same.
    points = read_csv(tmp_path / "curves.csv")
    assert len(points) == 257 * (len(videos) + 1)
    for name, area in areas.items():
        curve = [p for p in points if (p["video"] or p["row"]) == name]
        assert [int(p["threshold"]) for p in curve] == list(range(257))
        assert [p["end"] for p in curve if p["end"]] == ["all detected", "nothing detected"]
        first, last = curve[0], curve[-1]
        assert (first["end"], first["fpr"], first["tpr"]) == ("all detected", "1", "1")
        assert (last["end"], last["tp"], last["fp"]) == ("nothing detected", "0", "0")
        assert (last["fpr"], last["tpr"], last["precision"]) == ("0", "0", "")
        fpr = np.array([float(p["fpr"]) for p in curve])
        tpr = np.array([float(p["tpr"]) for p in curve])
        trapezoids = np.sum((fpr[:-1] - fpr[1:]) * (tpr[:-1] + tpr[1:]) / 2)
        assert trapezoids == pytest.approx(float(area["roc_auc"]), rel=1e-12)
        steps = sum(
            (tpr[t] - tpr[t + 1]) * float(curve[t]["precision"])
            for t in range(256)
            if tpr[t] > tpr[t + 1]
        )
        assert steps == pytest.approx(float(area["average_precision"]), rel=1e-12)


def test_cli_leaves_undefined_areas_empty_with_their_reason(
    scored: tuple[list[VideoSpec], Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    videos, dataset, results = scored
    by_name = {v.name: v for v in videos}
    for name, absent in (("pets", [255]), ("loose", [0, 50])):  # no positive / no negative pixel
        for i in by_name[name].frames:
            path = by_name[name].gt_path(i)
            gt = cv2.imread(str(path), cv2.IMREAD_GRAYSCALE)
            gt[np.isin(gt, absent)] = 170
            cv2.imwrite(str(path), gt)
    run_curves(dataset, results, tmp_path, "--weights", "video")
    out = capsys.readouterr().out
    assert "undef." not in out, "the summary still has both classes"

    areas = {a["video"] or a["row"]: a for a in read_csv(tmp_path / "areas.csv")}
    pets, loose = areas["pets"], areas["loose"]
    assert (pets["positives"], pets["roc_auc"], pets["average_precision"]) == ("0", "", "")
    assert pets["undefined"] == (
        "roc_auc: undefined: no positive pixels; average_precision: undefined: no positive pixels"
    )
    assert (loose["negatives"], loose["roc_auc"]) == ("0", "")
    assert float(loose["average_precision"]) == 1.0
    assert loose["undefined"] == "roc_auc: undefined: no negative pixels"
    assert areas["office"]["undefined"] == areas["summary:video"]["undefined"] == ""

    # Without negatives FPR is undefined at every threshold, ends included.
    points = [p for p in read_csv(tmp_path / "curves.csv") if p["video"] == "loose"]
    assert {p["fpr"] for p in points} == {""}
    assert (points[0]["tpr"], points[-1]["tpr"]) == ("1", "0")


def test_cli_json_holds_the_scikit_learn_areas_every_digit_and_the_best_threshold(
    scored: tuple[list[VideoSpec], Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    videos, dataset, results = scored
    out = tmp_path / "curves.json"
    argv = ["curves", str(dataset), str(results), "--quiet", "--weights", "pixels"]
    assert main([*argv, "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    document = json.loads(out.read_text(encoding="utf-8"))
    assert document["format"] == "referee-curves"
    (method,) = document["methods"]
    pooled = {v.name: pixel_labels_and_scores(v, results) for v in videos}
    for entry in method["videos"]:
        y, s = pooled[entry["video"]]
        assert entry["roc_auc"]["value"] == pytest.approx(roc_auc_score(y, s), rel=1e-12)
        assert entry["average_precision"]["value"] == pytest.approx(
            average_precision_score(y, s), rel=1e-12
        )
        assert (entry["positives"], entry["negatives"]) == (int(y.sum()), int(y.size - y.sum()))
    labels = np.concatenate([y for y, _ in pooled.values()])
    scores = np.concatenate([s for _, s in pooled.values()])
    summary = method["summary"]
    assert summary["weights"] == "pixels"
    assert summary["roc_auc"]["value"] == pytest.approx(roc_auc_score(labels, scores), rel=1e-12)
    # The best threshold: the highest F1 of "detected iff score >= T", by brute force.
    f1 = [f1_score(labels, scores >= t, zero_division=0) for t in range(256)]
    assert summary["best"]["threshold"] == int(np.argmax(f1))
    assert summary["best"]["f1"] == pytest.approx(max(f1), rel=1e-12)
    row = next(x for x in printed.splitlines() if x.startswith("soft"))
    assert row.split()[2] == str(summary["best"]["threshold"])


def test_areas_csv_rows_mean_the_same_in_every_row(
    scored: tuple[list[VideoSpec], Path, Path], tmp_path: Path
) -> None:
    """Video and summary rows alike: pixel counts, then the positives' share of the curve."""
    videos, dataset, results = scored
    run_curves(dataset, results, tmp_path, "--weights", "video")
    pooled = {v.name: pixel_labels_and_scores(v, results)[0] for v in videos}
    areas = {a["video"] or a["row"]: a for a in read_csv(tmp_path / "areas.csv")}
    summary = areas.pop("summary:video")
    for name, labels in pooled.items():
        row = areas[name]
        assert (int(row["positives"]), int(row["negatives"])) == (
            int(labels.sum()),
            int(labels.size - labels.sum()),
        )
        assert float(row["positive_share"]) == pytest.approx(labels.mean(), rel=1e-12)
    # The summary's pixels are its videos' together; its share, with each video weighing 1/3,
    # is the mean of their shares (each video's matrices divided by its pixels).
    everything = np.concatenate(list(pooled.values()))
    assert (int(summary["positives"]), int(summary["negatives"])) == (
        int(everything.sum()),
        int(everything.size - everything.sum()),
    )
    shares = [labels.mean() for labels in pooled.values()]
    assert float(summary["positive_share"]) == pytest.approx(np.mean(shares), rel=1e-12)
    assert abs(np.mean(shares) - everything.mean()) > 1e-4, "the weights must matter here"
