"""The model-based consensus (docs/measures.md §7): EM on vote patterns, its posterior,
and the pseudo sums, entropy and maps it gives, against independent computations."""

from __future__ import annotations

import math
from pathlib import Path

import cv2
import numpy as np
import pytest

from referee.core.errors import InvalidOptionError
from referee.core.formats.cdnet import discover_videos
from referee.core.frames.sources import CdnetResultSource
from referee.core.pseudo import engine
from referee.core.pseudo.committee_options import CommitteeOptions
from referee.core.pseudo.dataset import pseudo_evaluate
from referee.core.pseudo.staple import StapleFit, fit_staple
from referee.core.pseudo.video import consensus_map, pseudo_evaluate_arrays, pseudo_evaluate_video

STAPLE = CommitteeOptions(consensus="staple")


def simulate(
    rng: np.random.Generator,
    shape: tuple[int, ...],
    prior: float,
    sensitivity: list[float],
    specificity: list[float],
) -> tuple[np.ndarray, np.ndarray]:
    """Hidden truth of ``shape`` and independent detectors' votes ``(k, *shape)``."""
    truth = rng.random(shape) < prior
    votes = np.stack(
        [
            np.where(truth, rng.random(shape) < p, rng.random(shape) >= q)
            for p, q in zip(sensitivity, specificity)
        ]
    )
    return truth, votes


def histogram(votes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct vote codes (bit k: detector k) over all pixels and their counts."""
    k = votes.shape[0]
    codes = np.zeros(votes.shape[1:], dtype=np.int64)
    for j in range(k):
        codes |= votes[j].astype(np.int64) << j
    return np.unique(codes.ravel(), return_counts=True)


# --- a plain per-pixel implementation, written from the model's definition ---------------------


def plain_posterior(votes: np.ndarray, prior: float, p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """P(T = 1 | votes) per pixel: the two joint probabilities multiplied out, then normalized."""
    positive = np.full(votes.shape[1:], prior)
    negative = np.full(votes.shape[1:], 1.0 - prior)
    for j in range(votes.shape[0]):
        s = votes[j]
        positive = positive * np.where(s, p[j], 1.0 - p[j])
        negative = negative * np.where(s, 1.0 - q[j], q[j])
    return positive / (positive + negative)


def plain_em(votes: np.ndarray, iterations: int = 3000) -> tuple[float, np.ndarray, np.ndarray]:
    """EM over every pixel (no histogram), from prior = mean vote and rates 0.9."""
    k = votes.shape[0]
    s = votes.reshape(k, -1).astype(float)
    prior, p, q = s.mean(), np.full(k, 0.9), np.full(k, 0.9)
    for _ in range(iterations):
        w = plain_posterior(votes.reshape(k, -1), prior, p, q)
        prior = w.mean()
        p = (s * w).sum(axis=1) / w.sum()
        q = ((1 - s) * (1 - w)).sum(axis=1) / (1 - w).sum()
    return float(prior), p, q


# --- EM --------------------------------------------------------------------------------------


def test_em_recovers_simulated_sensitivities_and_specificities() -> None:
    rng = np.random.default_rng(2024)
    prior, sens, spec = 0.3, [0.9, 0.8, 0.7, 0.95, 0.6], [0.95, 0.9, 0.97, 0.85, 0.99]
    n = 200_000
    _truth, votes = simulate(rng, (n,), prior, sens, spec)
    fit = fit_staple(*histogram(votes), 5)
    assert fit.converged and fit.iterations > 1
    # Binomial standard errors of each rate over the positives / negatives; 5 of them.
    assert fit.prior == pytest.approx(prior, abs=5 * math.sqrt(prior * (1 - prior) / n))
    for k in range(5):
        se_p = math.sqrt(sens[k] * (1 - sens[k]) / (n * prior))
        se_q = math.sqrt(spec[k] * (1 - spec[k]) / (n * (1 - prior)))
        assert fit.sensitivity[k] == pytest.approx(sens[k], abs=5 * se_p)
        assert fit.specificity[k] == pytest.approx(spec[k], abs=5 * se_q)


def test_em_on_the_histogram_equals_em_on_every_pixel() -> None:
    rng = np.random.default_rng(7)
    _truth, votes = simulate(rng, (400,), 0.35, [0.85, 0.75, 0.9], [0.9, 0.8, 0.95])
    fit = fit_staple(*histogram(votes), 3)
    prior, p, q = plain_em(votes)
    assert fit.prior == pytest.approx(prior, abs=1e-6)
    assert fit.sensitivity == pytest.approx(p, abs=1e-6)
    assert fit.specificity == pytest.approx(q, abs=1e-6)


def test_posterior_of_a_hand_worked_model() -> None:
    # Prior 1/4; sensitivities 0.9, 0.8; specificities 0.7, 0.6. Joint probabilities:
    # (0,0): T=1 .25·.1·.2 = .005, T=0 .75·.7·.6 = .315 -> W = .005/.32 = 1/64
    # (1,0): .25·.9·.2 = .045, .75·.3·.6 = .135 -> 1/4
    # (0,1): .25·.1·.8 = .02, .75·.7·.4 = .21 -> 2/23
    # (1,1): .25·.9·.8 = .18, .75·.3·.4 = .09 -> 2/3
    fit = StapleFit(0.25, (0.9, 0.8), (0.7, 0.6), 0, True)
    votes = np.array([[0, 0], [1, 0], [0, 1], [1, 1]], dtype=float)
    assert fit.posterior(votes) == pytest.approx([1 / 64, 1 / 4, 2 / 23, 2 / 3])
    masks = [np.array([[False, True, False, True]]), np.array([[False, False, True, True]])]
    assert fit.posterior_map(masks) == pytest.approx(np.array([[1 / 64, 1 / 4, 2 / 23, 2 / 3]]))


def test_degenerate_histograms_stay_finite() -> None:
    nothing = fit_staple(np.array([0]), np.array([50.0]), 3)  # nobody detects anything
    assert 0 < nothing.prior < 1e-3
    assert np.all(np.isfinite(nothing.posterior(np.eye(3))))
    empty = fit_staple(np.zeros(0, dtype=np.int64), np.zeros(0), 2)
    assert empty.iterations == 0


# --- pseudo sums, per frame and per video ---------------------------------------------------


def write_video(root: Path, votes: np.ndarray, roi: np.ndarray) -> tuple[Path, dict[str, Path]]:
    """``votes`` (frames, k, h, w) bool as a CDnet video with ROI and temporal ROI."""
    folder = root / "dataset" / "cat" / "vid"
    (folder / "input").mkdir(parents=True)
    cv2.imwrite(str(folder / "ROI.bmp"), roi.astype(np.uint8) * 255)
    (folder / "temporalROI.txt").write_text(f"1 {votes.shape[0]}\n")
    results = {}
    for k in range(votes.shape[1]):
        out = root / "results" / f"m{k}" / "cat" / "vid"
        out.mkdir(parents=True)
        for f in range(votes.shape[0]):
            cv2.imwrite(str(out / f"bin{f + 1:06d}.png"), votes[f, k].astype(np.uint8) * 255)
        results[f"m{k}"] = root / "results" / f"m{k}"
    return root / "dataset", results


def per_pixel(s: np.ndarray, w: np.ndarray) -> tuple[float, float, float, float, float]:
    """tp, fp, fn, tn and Σ P² of one detector's votes ``s`` against consensus ``w``."""
    return (
        float((s * w).sum()),
        float((s * (1 - w)).sum()),
        float(((1 - s) * w).sum()),
        float(((1 - s) * (1 - w)).sum()),
        float((w * w).sum()),
    )


def video_votes(seed: int, k: int, frames: int = 5) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    rates = rng.uniform(0.6, 0.95, size=(2, k))
    _truth, votes = simulate(rng, (frames, 10, 14), 0.3, list(rates[0]), list(rates[1]))
    roi = np.ones((10, 14), bool)
    roi[:2] = False
    return np.moveaxis(votes, 0, 1), roi  # (frames, k, h, w)


@pytest.mark.parametrize("leave_one_out", [False, True])
def test_histogram_sums_equal_a_per_pixel_computation(tmp_path: Path, leave_one_out: bool) -> None:
    votes, roi = video_votes(11, 4)
    dataset, results = write_video(tmp_path, votes, roi)
    videos = discover_videos(dataset, require_groundtruth=False)
    options = CommitteeOptions(consensus="staple", leave_one_out=leave_one_out)
    (video,) = pseudo_evaluate(videos, results, options).videos
    inside = np.moveaxis(votes[:, :, roi], 1, 0).astype(float)  # (k, frames, pixels)
    fit = video.model
    assert fit is not None
    prior, p, q = plain_em(inside)
    assert (fit.prior, *fit.sensitivity, *fit.specificity) == pytest.approx(
        (prior, *p, *q), abs=1e-6
    )
    # The histogram's sums against per-pixel sums under the same parameters (with
    # leave-one-out, those fitted to the other detectors' votes alone).
    for j, method in enumerate(video.methods):
        votes_of = np.delete(inside, j, axis=0) if leave_one_out else inside
        model = fit_staple(*histogram(votes_of), len(votes_of)) if leave_one_out else fit
        w = plain_posterior(
            votes_of, model.prior, np.array(model.sensitivity), np.array(model.specificity)
        )
        s = inside[j]
        tp, fp, fn, tn, p2 = per_pixel(s, w)
        cm = video.totals[method]
        assert (cm.tp, cm.fp, cm.fn, cm.tn) == pytest.approx((tp, fp, fn, tn), abs=1e-9)
        assert video.sum_p_squared[method] == pytest.approx(p2, abs=1e-9)
        ncc = np.corrcoef(s.ravel(), w.ravel())[0, 1]
        assert video.ncc(method).value == pytest.approx(ncc, abs=1e-9)
        # Per-frame rows: frame 3 alone.
        assert video.per_frame[method][2, 1:] == pytest.approx(per_pixel(s[2], w[2])[:4], abs=1e-9)


def test_workers_per_frame_rows_and_entropy_agree(tmp_path: Path) -> None:
    votes, roi = video_votes(5, 3, frames=40)
    dataset, results = write_video(tmp_path, votes, roi)
    videos = discover_videos(dataset, require_groundtruth=False)
    single = pseudo_evaluate(videos, results, STAPLE).videos[0]
    parallel = pseudo_evaluate(videos, results, STAPLE, workers=2).videos[0]
    for method in single.methods:
        np.testing.assert_allclose(parallel.per_frame[method], single.per_frame[method])
        assert single.per_frame[method][:, 1:].sum(axis=0) == pytest.approx(
            [
                single.totals[method].tp,
                single.totals[method].fp,
                single.totals[method].fn,
                single.totals[method].tn,
            ]
        )
    # Entropy: the per-pixel mean over frames of H(W), W from the fitted model.
    assert single.model is not None
    w = single.model.posterior_map(list(np.moveaxis(votes, 1, 0)))  # (frames, h, w)
    with np.errstate(divide="ignore", invalid="ignore"):
        h = -(w * np.log2(w) + (1 - w) * np.log2(1 - w))
    expected = np.nan_to_num(h).mean(axis=0)
    assert np.isnan(single.entropy[~roi]).all()
    assert single.entropy[roi] == pytest.approx(expected[roi], abs=1e-6)
    np.testing.assert_allclose(parallel.entropy, single.entropy, atol=1e-6)


def test_entropy_map_over_many_frames() -> None:
    # Pixels with the same vote pattern on far more frames than the 8-bit per-pixel
    # counters hold before they are added up (about 870 of 2000 frames are unanimous).
    rng = np.random.default_rng(12)
    _truth, votes = simulate(rng, (2000, 3, 4), 0.6, [0.95, 0.9, 0.85], [0.9, 0.85, 0.95])
    frames = [(f + 1, [v[f].astype(np.uint8) * 255 for v in votes]) for f in range(2000)]
    result = pseudo_evaluate_arrays(frames, ["a", "b", "c"], STAPLE)
    fit = result.model
    assert fit is not None
    w = plain_posterior(votes, fit.prior, np.array(fit.sensitivity), np.array(fit.specificity))
    with np.errstate(divide="ignore", invalid="ignore"):
        h = np.nan_to_num(-(w * np.log2(w) + (1 - w) * np.log2(1 - w)))
    assert result.entropy == pytest.approx(h.mean(axis=0), abs=1e-9)


def test_large_frames_take_a_second_pass_for_the_entropy_map(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    votes, roi = video_votes(3, 9, frames=6)  # 9 detectors: 16-bit vote codes
    dataset, results = write_video(tmp_path, votes, roi)
    videos = discover_videos(dataset, require_groundtruth=False)
    kept = pseudo_evaluate(videos, results, STAPLE).videos[0]
    monkeypatch.setattr(engine, "PIXEL_PATTERN_BUDGET", 0)
    calls: list[tuple[int, int]] = []
    again = pseudo_evaluate(
        videos, results, STAPLE, progress=lambda d, t: calls.append((d, t))
    ).videos[0]
    assert calls[-1] == (12, 12)  # both passes counted
    np.testing.assert_allclose(again.entropy, kept.entropy, atol=1e-6, equal_nan=True)
    again_two = pseudo_evaluate(videos, results, STAPLE, workers=2).videos[0]
    np.testing.assert_allclose(again_two.entropy, kept.entropy, atol=1e-6, equal_nan=True)
    (video,) = videos
    sources = {m: CdnetResultSource.for_video(root, video) for m, root in results.items()}
    one = pseudo_evaluate_video(video, sources, STAPLE)
    np.testing.assert_allclose(one.entropy, kept.entropy, atol=1e-6, equal_nan=True)
    frames = [(f + 1, [m.astype(np.uint8) * 255 for m in votes[f]]) for f in range(6)]
    listed = pseudo_evaluate_arrays(frames, list(results), STAPLE, roi=roi)
    np.testing.assert_allclose(listed.entropy, kept.entropy, atol=1e-6, equal_nan=True)
    with pytest.raises(InvalidOptionError, match="second pass"):
        pseudo_evaluate_arrays(iter(frames), list(results), STAPLE, roi=roi)


def test_consensus_map_is_the_posterior_of_the_fitted_model(tmp_path: Path) -> None:
    votes, roi = video_votes(8, 3)
    dataset, results = write_video(tmp_path, votes, roi)
    (video,) = discover_videos(dataset, require_groundtruth=False)
    fit = pseudo_evaluate([video], results).videos[0].model
    assert fit is not None
    sources = {m: CdnetResultSource.for_video(root, video) for m, root in results.items()}
    p = consensus_map(video, 2, sources, STAPLE, fit)
    inside = votes[1][:, roi].astype(float)
    expected = plain_posterior(
        inside, fit.prior, np.array(fit.sensitivity), np.array(fit.specificity)
    )
    assert np.isnan(p[~roi]).all() and p[roi] == pytest.approx(expected)
    with pytest.raises(InvalidOptionError, match="evaluate the video first"):
        consensus_map(video, 2, sources, STAPLE)


@pytest.mark.parametrize(
    "options, methods, message",
    [
        (CommitteeOptions(weights=(1.0, 2.0)), ["a", "b"], "committee consensus only"),
        (CommitteeOptions(leave_one_out=True), ["a"], "leave-one-out leaves no committee"),
        (CommitteeOptions(), [f"d{j}" for j in range(17)], "at most 16"),
    ],
)
def test_what_the_model_refuses(
    options: CommitteeOptions, methods: list[str], message: str
) -> None:
    frame = [np.zeros((2, 2), np.uint8)] * len(methods)
    with pytest.raises(InvalidOptionError, match=message):
        pseudo_evaluate_arrays([(1, frame)], methods, options)
    with pytest.raises(InvalidOptionError, match="unknown consensus"):
        CommitteeOptions(consensus="mean")
