"""Pseudo ground truth (docs/measures.md §7): seed table, streaming, committee options, maps, truth."""

from __future__ import annotations

import math
from pathlib import Path

import cv2
import numpy as np
import pytest
from scipy import stats

from referee.core.errors import (
    CancelledError,
    InputFileError,
    InvalidOptionError,
    MissingFrameError,
    RefereeError,
    SizeMismatchError,
)
from referee.core.evaluation.batch import evaluate_method
from referee.core.formats.cdnet import discover_videos, load_video
from referee.core.frames.sources import CdnetResultSource
from referee.core.measures.indicators import NO_DETECTED
from referee.core.model.confusion import ConfusionMatrix, VideoConfusion
from referee.core.progress import CancelToken
from referee.core.pseudo.committee_options import CommitteeOptions
from referee.core.pseudo.consensus import (
    CONSTANT_MASK,
    S_EQUALS_P,
    binary_entropy,
    consensus,
    pseudo_confusion,
)
from referee.core.pseudo.dataset import PseudoResult, pseudo_evaluate, summarize_pseudo
from referee.core.pseudo.truth import CORRELATED, compare_with_truth, correlation
from referee.core.pseudo.video import consensus_map, pseudo_evaluate_arrays


def committee(**options) -> CommitteeOptions:
    """The seed's committee consensus (mean vote), pinned: these tests check its arithmetic."""
    return CommitteeOptions(consensus="committee", **options)


# --- the seed's worked table (docs/measures.md §7) ----------------------------------------------------

S1 = [1, 1, 0, 1, 1, 0, 0]
S2 = [1, 1, 1, 0, 0, 0, 0]
S3 = [1, 1, 0, 0, 0, 1, 0]
TOP, BOTTOM = [1] * 7, [0] * 7


def entries(cm: ConfusionMatrix) -> tuple[float, float, float, float]:
    return (cm.tp, cm.fp, cm.fn, cm.tn)


def row(bits: list[int]) -> np.ndarray:
    return (np.array(bits, dtype=np.uint8) * 255).reshape(1, -1)


def test_seed_table_through_the_streaming_path() -> None:
    # The seed's committee: S_⊤, S_1, S_2, S_3, S_⊥, all evaluated. Giving the two
    # trivial classifiers as detectors without the built-in ones is the same committee.
    names = ["top", "s1", "s2", "s3", "bottom"]
    result = pseudo_evaluate_arrays(
        [(1, [row(b) for b in (TOP, S1, S2, S3, BOTTOM)])],
        names,
        committee(include_trivial=False),
    )
    precision = {m: result.values(m)["precision"] for m in names}
    recall = {m: result.values(m)["recall"].value for m in names}
    assert [round(precision[m].value, 3) for m in names[:4]] == [0.486, 0.600, 0.667, 0.667]
    assert math.isnan(precision["bottom"].value) and precision["bottom"].reason == NO_DETECTED
    assert [round(recall[m], 3) for m in names] == [1.0, 0.706, 0.588, 0.588, 0.0]
    # ΣP = 3.4 and Σ P·S_k = 3.4, 2.4, 2, 2, 0 as in the table.
    assert [result.totals[m].tp for m in names] == pytest.approx([3.4, 2.4, 2.0, 2.0, 0.0])
    assert result.totals["s1"].tp + result.totals["s1"].fn == pytest.approx(3.4)
    # Pseudo F1 = 2 Σ S·P / (Σ S + Σ P), the seed's slide upside down.
    assert result.values("s1")["f1"].value == pytest.approx(2 * 2.4 / (4 + 3.4))


def test_seed_table_with_the_committee_consensus() -> None:
    # The committee consensus with its default trivial pair: three detectors + 2 (K' = 5).
    p = consensus([row(b) for b in (S1, S2, S3)])
    assert p.ravel() == pytest.approx([0.8, 0.8, 0.4, 0.4, 0.4, 0.4, 0.2])
    result = pseudo_evaluate_arrays(
        [(1, [row(b) for b in (S1, S2, S3)])], ["s1", "s2", "s3"], committee()
    )
    assert [round(result.values(m)["precision"].value, 3) for m in ("s1", "s2", "s3")] == [
        0.600,
        0.667,
        0.667,
    ]
    for m, mask in zip(("s1", "s2", "s3"), (S1, S2, S3)):
        expected = pseudo_confusion(row(mask), p)
        assert entries(result.totals[m]) == pytest.approx(entries(expected))
    assert round(pseudo_confusion(row(TOP), p).tp / 7, 3) == 0.486


# --- a small synthetic video on disk --------------------------------------------------------


def write_video(
    root: Path,
    masks: np.ndarray,
    roi: np.ndarray | None = None,
    temporal: tuple[int, int] | None = None,
    names: list[str] | None = None,
    category: str = "cat",
    video: str = "vid",
    truth: np.ndarray | None = None,
) -> tuple[Path, dict[str, Path]]:
    """``masks`` (frames, K, h, w) bool, frame f is number f+1. Returns dataset, results."""
    folder = root / "dataset" / category / video
    (folder / "input").mkdir(parents=True)
    if roi is not None:
        cv2.imwrite(str(folder / "ROI.bmp"), roi.astype(np.uint8) * 255)
    if temporal is not None:
        (folder / "temporalROI.txt").write_text(f"{temporal[0]} {temporal[1]}\n")
    if truth is not None:
        (folder / "groundtruth").mkdir()
        for f, gt in enumerate(truth, start=1):
            cv2.imwrite(str(folder / "groundtruth" / f"gt{f:06d}.png"), gt)
    names = names or [f"m{k}" for k in range(masks.shape[1])]
    results = {}
    for k, name in enumerate(names):
        out = root / "results" / name / category / video
        out.mkdir(parents=True)
        for f in range(masks.shape[0]):
            cv2.imwrite(str(out / f"bin{f + 1:06d}.png"), masks[f, k].astype(np.uint8) * 255)
        results[name] = root / "results" / name
    return root / "dataset", results


def direct_reference(
    masks: np.ndarray, roi: np.ndarray, weights=None, trivial: bool = True, loo: bool = False
) -> list[dict]:
    """Per detector tp, fp, fn, tn and the flat S, P over every evaluated pixel, written
    from the definitions on the whole stacked array."""
    _frames, k = masks.shape[:2]
    w = np.ones(k) if weights is None else np.asarray(weights, dtype=float)
    t = 1.0 if trivial else 0.0
    s_all = masks[:, :, roi].astype(float)  # (frames, k, n)
    votes = np.einsum("k,fkn->fn", w, s_all)
    out = []
    for j in range(k):
        s = s_all[:, j]
        others = votes - w[j] * s if loo else votes
        p = (others + t) / (w.sum() - (w[j] if loo else 0.0) + 2 * t)
        out.append(
            {
                "tp": (s * p).sum(),
                "fp": (s * (1 - p)).sum(),
                "fn": ((1 - s) * p).sum(),
                "tn": ((1 - s) * (1 - p)).sum(),
                "s": s.ravel(),
                "p": p.ravel(),
            }
        )
    return out


def random_masks(rng: np.random.Generator, frames: int, k: int, shape=(12, 16)) -> np.ndarray:
    base = rng.random((frames, 1, *shape)) < 0.3
    noise = rng.random((frames, k, *shape)) < 0.15
    return base ^ noise


@pytest.mark.parametrize(
    "options",
    [
        committee(),
        committee(include_trivial=False, leave_one_out=True, weights=(2.0, 0.5, 1.0)),
    ],
)
def test_streaming_totals_equal_a_whole_array_computation(
    tmp_path: Path, options: CommitteeOptions
) -> None:
    rng = np.random.default_rng(4)
    masks = random_masks(rng, 6, 3)
    roi = np.ones((12, 16), bool)
    roi[:3] = False
    dataset, results = write_video(tmp_path, masks, roi, temporal=(2, 5))
    videos = discover_videos(dataset, require_groundtruth=False)
    result = pseudo_evaluate(videos, results, options)
    (video,) = result.videos
    assert list(video.frames) == [2, 3, 4, 5]
    expected = direct_reference(
        masks[1:5], roi, options.weights, options.include_trivial, options.leave_one_out
    )
    for method, ref in zip(results, expected):
        cm = video.totals[method]
        assert (cm.tp, cm.fp, cm.fn, cm.tn) == pytest.approx(
            (ref["tp"], ref["fp"], ref["fn"], ref["tn"]), rel=1e-12
        )
        assert video.sum_p_squared[method] == pytest.approx((ref["p"] ** 2).sum(), rel=1e-12)
        # NCC and PSNR against numpy on the flattened maps.
        assert video.ncc(method).value == pytest.approx(
            np.corrcoef(ref["s"], ref["p"])[0, 1], rel=1e-9
        )
        mse = np.mean((ref["s"] - ref["p"]) ** 2)
        assert video.psnr(method).value == pytest.approx(-10 * np.log10(mse), rel=1e-9)
    # Per-frame rows add up to the totals; frame 3 alone matches a direct computation.
    per_frame = video.per_frame["m1"]
    assert per_frame.shape == (4, 5) and list(per_frame[:, 0]) == [2, 3, 4, 5]
    total = video.totals["m1"]
    assert per_frame[:, 1:].sum(axis=0) == pytest.approx([total.tp, total.fp, total.fn, total.tn])
    one = direct_reference(
        masks[2:3], roi, options.weights, options.include_trivial, options.leave_one_out
    )[1]
    assert entries(video.frame_confusion("m1", 3)) == pytest.approx(
        (one["tp"], one["fp"], one["fn"], one["tn"])
    )


def test_more_than_eight_detectors_and_two_workers_give_the_same_sums(tmp_path: Path) -> None:
    rng = np.random.default_rng(9)
    masks = random_masks(rng, 40, 9, shape=(6, 8))
    roi = np.ones((6, 8), bool)
    roi[:, 0] = False
    dataset, results = write_video(tmp_path, masks, roi, temporal=(1, 40))
    videos = discover_videos(dataset, require_groundtruth=False)
    options = committee(weights=tuple(float(x) for x in range(1, 10)))
    single = pseudo_evaluate(videos, results, options)
    expected = direct_reference(masks, roi, options.weights)
    for method, ref in zip(results, expected):
        cm = single.videos[0].totals[method]
        assert (cm.tp, cm.fp, cm.fn, cm.tn) == pytest.approx(
            (ref["tp"], ref["fp"], ref["fn"], ref["tn"]), rel=1e-12
        )
    # Entropy map of the whole committee, per pixel, against numpy.
    w = np.arange(1, 10, dtype=float)
    p = (np.einsum("k,fkyx->fyx", w, masks.astype(float)) + 1) / (w.sum() + 2)
    mean_h = binary_entropy(p).mean(axis=0)
    got = single.videos[0].entropy
    assert np.isnan(got[:, 0]).all()
    assert got[:, 1:] == pytest.approx(mean_h[:, 1:], abs=1e-6)

    parallel = pseudo_evaluate(videos, results, options, workers=2)
    for method in results:
        assert entries(parallel.videos[0].totals[method]) == pytest.approx(
            entries(single.videos[0].totals[method])
        )
        np.testing.assert_allclose(
            parallel.videos[0].per_frame[method], single.videos[0].per_frame[method]
        )
    np.testing.assert_allclose(parallel.videos[0].entropy, got, atol=1e-6)


# --- committee options on hand examples ----------------------------------------------------

A = [1, 1, 0, 0]
B = [1, 0, 1, 0]


def totals(options: CommitteeOptions) -> dict[str, tuple[float, float, float, float]]:
    result = pseudo_evaluate_arrays([(1, [row(A), row(B)])], ["a", "b"], options)
    return {m: (cm.tp, cm.fp, cm.fn, cm.tn) for m, cm in result.totals.items()}


def test_leave_one_out_by_hand() -> None:
    # Whole committee with trivial: P = (A + B + 1) / 4 = 3/4, 1/2, 1/2, 1/4.
    assert totals(committee())["a"] == pytest.approx((1.25, 0.75, 0.75, 1.25))
    # Leave-one-out: A is judged by P = (B + 1) / 3 = 2/3, 1/3, 2/3, 1/3.
    assert totals(committee(leave_one_out=True))["a"] == pytest.approx((1, 1, 1, 1))
    # Without trivial classifiers, leave-one-out makes each detector's P the other one.
    plain = totals(committee(include_trivial=False, leave_one_out=True))
    assert plain["a"] == pytest.approx((1, 1, 1, 1)) and plain["b"] == pytest.approx((1, 1, 1, 1))


def test_weights_by_hand() -> None:
    # Weights 3 and 1, no trivial: P = (3A + B) / 4 = 1, 3/4, 1/4, 0.
    got = totals(committee(include_trivial=False, weights=(3.0, 1.0)))
    assert got["a"] == pytest.approx((1.75, 0.25, 0.25, 1.75))
    assert got["b"] == pytest.approx((1.25, 0.75, 0.75, 1.25))
    # Weight 0 removes a detector from the committee but it is still evaluated.
    got = totals(committee(include_trivial=False, weights=(1.0, 0.0)))
    assert got["a"] == pytest.approx((2, 0, 0, 2)) and got["b"] == pytest.approx((1, 1, 1, 1))


@pytest.mark.parametrize(
    "options, message",
    [
        (committee(weights=(1.0,)), "one weight per detector"),
        (committee(weights=(1.0, -1.0)), "non-negative"),
        (committee(include_trivial=False, weights=(0.0, 0.0)), "sum to 0"),
        (
            committee(include_trivial=False, leave_one_out=True, weights=(1.0, 0.0)),
            "leave-one-out leaves no committee to evaluate a",
        ),
        (committee(threshold=300), "threshold"),
    ],
)
def test_bad_committee_options_are_refused(options: CommitteeOptions, message: str) -> None:
    with pytest.raises(InvalidOptionError, match=message):
        totals(options)


def test_threshold_option_counts_soft_values() -> None:
    soft = np.array([[200, 200, 10, 0]], np.uint8)
    strict = pseudo_evaluate_arrays([(1, [soft, row(B)])], ["a", "b"], committee())
    loose = pseudo_evaluate_arrays([(1, [soft, row(B)])], ["a", "b"], committee(threshold=128))
    assert strict.totals["a"].tp + strict.totals["a"].fp == 0
    assert entries(loose.totals["a"]) == pytest.approx(totals(committee())["a"])


# --- NCC, PSNR, entropy --------------------------------------------------------------------


def test_psnr_and_ncc_undefined_cases_carry_reasons() -> None:
    same = pseudo_evaluate_arrays(
        [(1, [row(A), row(A)])], ["a", "b"], committee(include_trivial=False)
    )
    assert math.isnan(same.psnr("a").value) and same.psnr("a").reason == S_EQUALS_P
    assert same.ncc("a").value == pytest.approx(1.0)
    flat = pseudo_evaluate_arrays([(1, [row([1, 1, 1, 1]), row(A)])], ["top", "a"], committee())
    assert math.isnan(flat.ncc("top").value) and flat.ncc("top").reason == CONSTANT_MASK
    assert math.isfinite(flat.psnr("top").value)


def test_binary_entropy_hand_values() -> None:
    assert binary_entropy(np.array([0.0, 0.5, 1.0, 0.25])) == pytest.approx(
        [0.0, 1.0, 0.0, -(0.25 * math.log2(0.25) + 0.75 * math.log2(0.75))]
    )
    assert binary_entropy(0.8) == pytest.approx(binary_entropy(0.2))


def test_entropy_map_is_the_per_pixel_mean_over_frames() -> None:
    # No trivial classifiers, K = 2. Frame 1: P = 1, 1/2, 0 -> H = 0, 1, 0;
    # frame 2: P = 0, 1, 1/2 -> H = 0, 0, 1. Mean 0, 1/2, 1/2.
    frames = [(1, [row([1, 1, 0]), row([1, 0, 0])]), (2, [row([0, 1, 0]), row([0, 1, 1])])]
    result = pseudo_evaluate_arrays(frames, ["a", "b"], committee(include_trivial=False))
    assert result.entropy == pytest.approx(np.array([[0.0, 0.5, 0.5]]))
    roi = np.array([[True, True, False]])
    masked = pseudo_evaluate_arrays(frames, ["a", "b"], committee(include_trivial=False), roi=roi)
    assert masked.entropy[0, :2] == pytest.approx([0.0, 0.5]) and np.isnan(masked.entropy[0, 2])
    # Only ROI pixels are counted: n = 2 per frame.
    assert masked.totals["a"].total == pytest.approx(4)
    # With the trivial pair, unanimity is no longer certainty: P = 1/4 or 3/4.
    trivial = pseudo_evaluate_arrays(frames[:1], ["a", "b"], committee())
    assert trivial.entropy[0, 0] == pytest.approx(float(binary_entropy(0.75)))
    assert pseudo_evaluate_arrays(frames, ["a", "b"], entropy=False).entropy is None


def test_consensus_map_of_one_frame(tmp_path: Path) -> None:
    rng = np.random.default_rng(1)
    masks = random_masks(rng, 3, 3)
    roi = np.ones((12, 16), bool)
    roi[5, :] = False
    dataset, results = write_video(tmp_path, masks, roi, temporal=(1, 3))
    (video,) = discover_videos(dataset, require_groundtruth=False)
    sources = {m: CdnetResultSource.for_video(root, video) for m, root in results.items()}
    p = consensus_map(video, 2, sources, committee(weights=(1.0, 2.0, 3.0)))
    expected = (masks[1, 0] * 1.0 + masks[1, 1] * 2.0 + masks[1, 2] * 3.0 + 1) / 8
    assert np.isnan(p[5]).all()
    assert p[~np.isnan(p)] == pytest.approx(expected[roi])
    with pytest.raises(MissingFrameError):
        consensus_map(video, 9, sources, committee())


# --- frames, ROI, errors, progress ------------------------------------------------------------


def test_without_roi_nor_temporal_roi_every_pixel_of_common_frames_counts(tmp_path: Path) -> None:
    masks = random_masks(np.random.default_rng(2), 4, 2)
    dataset, results = write_video(tmp_path, masks)
    (results["m1"] / "cat" / "vid" / "bin000004.png").unlink()  # m1 lacks frame 4
    videos = discover_videos(dataset, require_groundtruth=False)
    with pytest.raises(InputFileError):
        discover_videos(dataset)  # the strict discovery still wants ground truth
    result = pseudo_evaluate(videos, results)
    assert list(result.videos[0].frames) == [1, 2, 3]
    assert result.videos[0].roi is None
    assert result.videos[0].totals["m0"].total == pytest.approx(3 * 12 * 16)


def test_video_folder_without_ground_truth_is_described(tmp_path: Path) -> None:
    folder = tmp_path / "v"
    (folder / "input").mkdir(parents=True)
    for i in (1, 2, 5):
        cv2.imwrite(str(folder / "input" / f"in{i:06d}.jpg"), np.zeros((4, 4), np.uint8))
    spec = load_video(folder, require_groundtruth=False)
    assert (spec.first, spec.last) == (1, 5)
    (folder / "temporalROI.txt").write_text("2 3")
    assert load_video(folder, require_groundtruth=False).frames == range(2, 4)


def test_size_mismatch_and_missing_frames_name_the_files(tmp_path: Path) -> None:
    masks = random_masks(np.random.default_rng(3), 3, 2)
    dataset, results = write_video(tmp_path, masks, np.ones((12, 16), bool), temporal=(1, 3))
    videos = discover_videos(dataset, require_groundtruth=False)
    bad = results["m1"] / "cat" / "vid" / "bin000002.png"
    cv2.imwrite(str(bad), np.zeros((5, 5), np.uint8))
    with pytest.raises(SizeMismatchError, match=r"bin000002\.png"):
        pseudo_evaluate(videos, results)
    bad.unlink()
    with pytest.raises(MissingFrameError, match="bin000002"):
        pseudo_evaluate(videos, results)


def test_progress_and_cancellation(tmp_path: Path) -> None:
    masks = random_masks(np.random.default_rng(5), 5, 2)
    dataset, results = write_video(tmp_path, masks, temporal=(1, 5))
    videos = discover_videos(dataset, require_groundtruth=False)
    calls: list[tuple[int, int]] = []
    pseudo_evaluate(videos, results, progress=lambda done, total: calls.append((done, total)))
    assert calls[-1] == (5, 5) and len(calls) == 5
    token = CancelToken()

    def cancel_after_two(done: int, total: int) -> None:
        if done == 2:
            token.cancel()

    with pytest.raises(CancelledError):
        pseudo_evaluate(videos, results, progress=cancel_after_two, cancel=token)


# --- summaries and ground truth ----------------------------------------------------------------


def two_video_result(tmp_path: Path):
    rng = np.random.default_rng(6)
    masks = random_masks(rng, 3, 4)
    truth = np.where(masks[:, 0], 255, 0).astype(np.uint8)
    truth[:, 0, 0] = 170  # unknown motion: not evaluated against truth
    dataset, results = write_video(
        tmp_path,
        masks,
        np.ones((12, 16), bool),
        (1, 3),
        names=["a", "b", "c", "d"],
        category="c1",
        video="v1",
        truth=truth,
    )
    masks2 = random_masks(rng, 2, 4)
    write_video(
        tmp_path / "second",
        masks2,
        None,
        (1, 2),
        names=["a", "b", "c", "d"],
        category="c2",
        video="v2",
        truth=np.where(masks2[:, 1], 255, 0).astype(np.uint8),
    )
    for name in results:  # merge the second video into the same trees
        (tmp_path / "second" / "results" / name / "c2").rename(results[name] / "c2")
    (tmp_path / "second" / "dataset" / "c2").rename(dataset / "c2")
    cv2.imwrite(str(dataset / "c2" / "v2" / "ROI.bmp"), np.full((12, 16), 255, np.uint8))
    videos = discover_videos(dataset)
    return videos, results, pseudo_evaluate(videos, results, scheme="video")


def test_summary_blends_pseudo_matrices_and_map_sums(tmp_path: Path) -> None:
    _videos, _results, result = two_video_result(tmp_path)
    summary = result.summaries["b"]
    normalized = [v.totals["b"].normalized() for v in result.videos]
    assert summary.summary.cm.tp == pytest.approx((normalized[0].tp + normalized[1].tp) / 2)
    p_, r_ = summary.values["precision"].value, summary.values["recall"].value
    assert summary.values["f1"].value == pytest.approx(2 * p_ * r_ / (p_ + r_))
    # 'pixels' weights pool the sums, so NCC is the one of all pixels together.
    pooled = summarize_pseudo(result.videos, "pixels")["b"]
    n = sum(v.totals["b"].total for v in result.videos)
    s = sum(v.totals["b"].tp + v.totals["b"].fp for v in result.videos)
    p = sum(v.totals["b"].tp + v.totals["b"].fn for v in result.videos)
    p2 = sum(v.sum_p_squared["b"] for v in result.videos)
    sp = sum(v.totals["b"].tp for v in result.videos)
    ncc = (sp / n - s / n * p / n) / math.sqrt(s / n * (1 - s / n) * (p2 / n - (p / n) ** 2))
    assert pooled.ncc.value == pytest.approx(ncc)
    assert pooled.psnr.value == pytest.approx(-10 * math.log10((s - 2 * sp + p2) / n))


def test_correlation_matches_scipy_and_says_why_when_undefined() -> None:
    x, y = [0.1, 0.5, 0.2, 0.9, 0.4], [0.3, 0.6, 0.1, 0.8, 0.8]
    c = correlation(x, y)
    assert c.pearson.value == pytest.approx(stats.pearsonr(x, y).statistic)
    assert c.spearman.value == pytest.approx(stats.spearmanr(x, y).statistic)
    assert c.n_detectors == 5
    assert "fewer than 3" in correlation([1, 2], [2, 1]).pearson.reason
    assert "fewer than 3" in correlation([1, 2, float("nan")], [2, 1, 3]).spearman.reason
    assert "pseudo values are the same" in correlation([1, 1, 1], [1, 2, 3]).pearson.reason
    assert "true values are the same" in correlation([1, 2, 3], [4, 4, 4]).spearman.reason


def test_compare_with_truth_on_a_constructed_case(tmp_path: Path) -> None:
    videos, results, result = two_video_result(tmp_path)
    evaluations = {m: evaluate_method(videos, root) for m, root in results.items()}
    comparison = compare_with_truth(result, evaluations)
    assert set(comparison.summary) == set(CORRELATED)
    key = videos[0].key
    pseudo_f1 = [result.video(key).values(m)["f1"].value for m in result.methods]
    true_f1 = []
    for m in result.methods:
        cm = evaluations[m][0].total
        true_f1.append(2 * cm.tp / (2 * cm.tp + cm.fp + cm.fn))
    per_video = comparison.per_video[key]["f1"]
    assert per_video.pearson.value == pytest.approx(stats.pearsonr(pseudo_f1, true_f1).statistic)
    assert per_video.spearman.value == pytest.approx(stats.spearmanr(pseudo_f1, true_f1).statistic)
    # Summarized: the true matrices blended with the same 'video' weights.
    true_summary = []
    for m in result.methods:
        a, b = (e.total.normalized() for e in evaluations[m])
        tp, fp, fn = (a.tp + b.tp) / 2, (a.fp + b.fp) / 2, (a.fn + b.fn) / 2
        true_summary.append(2 * tp / (2 * tp + fp + fn))
    assert [comparison.true_summary[m]["f1"].value for m in result.methods] == pytest.approx(
        true_summary
    )
    summary_f1 = [result.summaries[m].values["f1"].value for m in result.methods]
    assert comparison.summary["f1"].pearson.value == pytest.approx(
        stats.pearsonr(summary_f1, true_summary).statistic
    )
    # True NCC is the correlation of the detection and the binary truth: MCC.
    assert comparison.true_summary["a"]["ncc"].value == pytest.approx(
        comparison.true_summary["a"]["mcc"].value
    )
    # Detector "a" is the truth on video 1, except one pixel per frame not evaluated.
    assert comparison.true_per_video[key]["a"]["f1"].value == 1.0
    assert math.isnan(comparison.true_per_video[key]["a"]["psnr"].value)
    with pytest.raises(RefereeError, match="no true results for"):
        compare_with_truth(result, {"a": evaluations["a"]})


def test_compare_with_truth_needs_three_detectors(tmp_path: Path) -> None:
    masks = random_masks(np.random.default_rng(8), 2, 2)
    result = pseudo_evaluate_arrays(
        [(1, list(masks[0])), (2, list(masks[1]))], ["a", "b"], category="c", video="v"
    )
    full = PseudoResult(("a", "b"), result.options, (result,), summarize_pseudo([result], "video"))
    truth = {m: [VideoConfusion("c", "v", ConfusionMatrix(3, 1, 1, 5))] for m in ("a", "b")}
    comparison = compare_with_truth(full, truth)
    assert "fewer than 3" in comparison.summary["f1"].pearson.reason
