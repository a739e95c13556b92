"""Streaming evaluation, parallel chunks and soft-score curves (docs/measures.md §1, §3)."""

from __future__ import annotations

import itertools
from pathlib import Path

import cv2
import numpy as np
import pytest

from referee.core.errors import (
    CancelledError,
    InputFileError,
    InvalidOptionError,
    MissingFrameError,
    RefereeError,
    SizeMismatchError,
)
from referee.core.evaluation.batch import (
    evaluate_method,
    evaluate_methods,
    score_histograms_method,
)
from referee.core.evaluation.masks import (
    PER_FRAME_COLUMNS,
    VideoEvaluation,
    evaluate_video,
    score_histograms_video,
)
from referee.core.formats.cdnet import discover_videos
from referee.core.frames.sources import CdnetResultSource, MaskVideoSource, PatternFolderSource
from referee.core.measures.curves import (
    blend_confusions,
    curves_from_confusions,
    iso_f1_curve,
    roc_pr_curves,
    summarized_curves,
)
from referee.core.measures.pixel import threshold_confusions
from referee.core.model.confusion import ConfusionMatrix, VideoConfusion, blend
from referee.core.model.videos import VideoSpec
from referee.core.parallel import frame_chunks
from referee.core.progress import CancelToken
from tests.conftest import HIGHWAY

HIGHWAY_POSITIVES = 5457989  # docs/measures.md §1: frames 470-1700 inside the ROI
HIGHWAY_NEGATIVES = 86654469

SHAPE = (12, 16)
LEVELS = np.array([0, 50, 85, 170, 255], np.uint8)


def make_dataset(root: Path, seed: int = 0) -> dict[tuple[str, str], Path]:
    """Three small random videos: two in a category, one without a category level."""
    rng = np.random.default_rng(seed)
    layout = {
        ("baseline", "office"): (root / "baseline" / "office", 3, 40, 45),
        ("baseline", "pets"): (root / "baseline" / "pets", 1, 25, 25),
        ("loose", "loose"): (root / "loose", 5, 9, 10),
    }
    for folder, first, last, n in layout.values():
        (folder / "groundtruth").mkdir(parents=True)
        for i in range(1, n + 1):
            gt = rng.choice(LEVELS, size=SHAPE, p=[0.45, 0.1, 0.1, 0.1, 0.25])
            cv2.imwrite(str(folder / "groundtruth" / f"gt{i:06d}.png"), gt)
        roi = np.full(SHAPE, 255, np.uint8)
        roi[:, : int(rng.integers(1, 6))] = 0
        cv2.imwrite(str(folder / "ROI.bmp"), roi)
        (folder / "temporalROI.txt").write_text(f"{first} {last}")
    return {key: folder for key, (folder, *_) in layout.items()}


def make_results(
    results: Path,
    videos: list[VideoSpec],
    seed: int = 1,
    soft: bool = False,
    category_level: bool = True,
) -> None:
    rng = np.random.default_rng(seed)
    for video in videos:
        folder = results / video.category / video.name if category_level else results / video.name
        folder.mkdir(parents=True, exist_ok=True)
        for i in video.frames:
            if soft:
                mask = rng.integers(0, 256, size=SHAPE, dtype=np.uint8)
            else:
                mask = rng.choice(np.array([0, 255, 254, 128], np.uint8), size=SHAPE)
            cv2.imwrite(str(folder / f"bin{i:06d}.png"), mask)


def reference_rows(
    video: VideoSpec,
    result_folder: Path,
    threshold: int | None = None,
    pattern: str = "bin%06d.png",
) -> np.ndarray:
    """Per-frame counts by a plain numpy statement of docs/measures.md §1, straight from the files."""
    roi = cv2.imread(str(video.roi_path), cv2.IMREAD_GRAYSCALE) > 0
    rows = []
    for i in video.frames:
        gt = cv2.imread(str(video.gt_path(i)), cv2.IMREAD_GRAYSCALE)
        det = cv2.imread(str(result_folder / (pattern % i)), cv2.IMREAD_GRAYSCALE)
        evaluated = roi & np.isin(gt, [0, 50, 255])
        positive = gt == 255
        detected = det == 255 if threshold is None else det >= threshold
        rows.append(
            [
                i,
                np.sum(evaluated & positive & detected),
                np.sum(evaluated & ~positive & detected),
                np.sum(evaluated & positive & ~detected),
                np.sum(evaluated & ~positive & ~detected),
                np.sum(evaluated & (gt == 50) & detected),
            ]
        )
    return np.array(rows, dtype=np.int64)


@pytest.fixture()
def dataset(tmp_path: Path) -> tuple[list[VideoSpec], Path]:
    make_dataset(tmp_path / "data")
    videos = discover_videos(tmp_path / "data")
    make_results(tmp_path / "res", videos)
    return videos, tmp_path / "res"


# --- one video -----------------------------------------------------------------


@pytest.mark.parametrize("threshold", [None, 128, 1])
def test_evaluate_video_matches_reference(
    dataset: tuple[list[VideoSpec], Path], threshold: int | None
) -> None:
    videos, results = dataset
    for video in videos:
        folder = results / video.category / video.name
        evaluation = evaluate_video(video, CdnetResultSource(folder, video.first), threshold)
        expected = reference_rows(video, folder, threshold)
        assert evaluation.per_frame.dtype == np.int64
        np.testing.assert_array_equal(evaluation.per_frame, expected)
        tp, fp, fn, tn, se = expected[:, 1:].sum(axis=0).tolist()
        assert evaluation.total == ConfusionMatrix(tp=tp, fp=fp, fn=fn, tn=tn)
        assert evaluation.shadow_errors == se
        assert evaluation.threshold == threshold
        assert evaluation.key == video.key


def test_video_evaluation_accessors(dataset: tuple[list[VideoSpec], Path]) -> None:
    videos, results = dataset
    video = videos[0]
    evaluation = evaluate_video(video, CdnetResultSource.for_video(results, video))
    assert PER_FRAME_COLUMNS == ("frame", "tp", "fp", "fn", "tn", "se")
    assert evaluation.frames.tolist() == list(video.frames)
    assert evaluation.confusion == VideoConfusion(
        video.category, video.name, evaluation.total, evaluation.shadow_errors
    )
    row = evaluation.per_frame[2]
    assert evaluation.frame_confusion(int(row[0])) == ConfusionMatrix(*map(int, row[1:5]))
    with pytest.raises(InvalidOptionError):
        evaluation.frame_confusion(10_000)


def test_evaluate_video_frame_subset_and_progress(dataset: tuple[list[VideoSpec], Path]) -> None:
    videos, results = dataset
    video = videos[0]  # frames 3..40
    source = CdnetResultSource.for_video(results, video)
    calls: list[tuple[int, int]] = []
    part = evaluate_video(
        video, source, frames=[5, 6, 20], progress=lambda d, t: calls.append((d, t))
    )
    assert part.frames.tolist() == [5, 6, 20]
    assert calls == [(1, 3), (2, 3), (3, 3)]
    whole = evaluate_video(video, source)
    np.testing.assert_array_equal(part.per_frame, whole.per_frame[[2, 3, 17]])
    with pytest.raises(InvalidOptionError):
        evaluate_video(video, source, frames=[6, 5])


def test_evaluate_video_can_be_cancelled(dataset: tuple[list[VideoSpec], Path]) -> None:
    videos, results = dataset
    video = videos[0]
    token = CancelToken()

    def progress(done: int, total: int) -> None:
        if done == 4:
            token.cancel()

    with pytest.raises(CancelledError):
        evaluate_video(
            video, CdnetResultSource.for_video(results, video), progress=progress, cancel=token
        )


def test_missing_result_frame(dataset: tuple[list[VideoSpec], Path]) -> None:
    videos, results = dataset
    video = videos[0]
    (results / video.category / video.name / "bin000007.png").unlink()
    with pytest.raises(MissingFrameError, match=r"bin000007\.png.*frame 7"):
        evaluate_method(videos, results)


def test_missing_ground_truth_frame(dataset: tuple[list[VideoSpec], Path]) -> None:
    videos, results = dataset
    video = videos[0]
    video.gt_path(8).unlink()
    with pytest.raises(MissingFrameError, match=r"gt000008\.png.*frame 8"):
        evaluate_video(video, CdnetResultSource.for_video(results, video))


def test_size_mismatch_names_both_files(dataset: tuple[list[VideoSpec], Path]) -> None:
    videos, results = dataset
    video = videos[0]
    result = results / video.category / video.name / "bin000009.png"
    cv2.imwrite(str(result), np.zeros((5, 7), np.uint8))
    with pytest.raises(SizeMismatchError) as info:
        evaluate_video(video, CdnetResultSource.for_video(results, video))
    message = str(info.value)
    assert "bin000009.png is 7x5" in message and "gt000009.png is 16x12" in message

    cv2.imwrite(str(video.gt_path(4)), np.zeros((5, 7), np.uint8))
    with pytest.raises(SizeMismatchError, match=r"gt000004\.png is 7x5.*ROI\.bmp is 16x12"):
        evaluate_video(video, CdnetResultSource.for_video(results, video))


def test_unreadable_result_frame(dataset: tuple[list[VideoSpec], Path]) -> None:
    videos, results = dataset
    video = videos[1]
    (results / video.category / video.name / "bin000002.png").write_bytes(b"garbage")
    with pytest.raises(InputFileError, match=r"bin000002\.png.*cannot decode"):
        evaluate_method(videos, results)


def test_result_folder_with_no_frames(dataset: tuple[list[VideoSpec], Path]) -> None:
    videos, results = dataset
    folder = results / "baseline" / "pets"
    for f in folder.iterdir():
        f.unlink()
    with pytest.raises(InputFileError, match=r"pets.*no frame at all.*bin%06d\.png"):
        evaluate_method(videos, results)


def test_results_without_category_level(tmp_path: Path) -> None:
    make_dataset(tmp_path / "data")
    videos = discover_videos(tmp_path / "data")
    make_results(tmp_path / "res", videos, category_level=False)
    evaluations = evaluate_method(videos, tmp_path / "res", threshold=128)
    for video, evaluation in zip(videos, evaluations):
        expected = reference_rows(video, tmp_path / "res" / video.name, 128)
        np.testing.assert_array_equal(evaluation.per_frame, expected)


def test_single_video_results_root_is_the_video_folder(
    dataset: tuple[list[VideoSpec], Path],
) -> None:
    videos, results = dataset
    video = next(v for v in videos if v.name == "pets")
    [evaluation] = evaluate_method([video], results / "baseline" / "pets")
    np.testing.assert_array_equal(
        evaluation.per_frame, reference_rows(video, results / "baseline" / "pets")
    )


# --- many videos, worker processes -----------------------------------------------


def test_frame_chunks() -> None:
    assert frame_chunks(3, 10, 3) == [(3, 5), (6, 8), (9, 10)]
    assert frame_chunks(5, 5, 4) == [(5, 5)]


def test_two_workers_give_the_same_counts(dataset: tuple[list[VideoSpec], Path]) -> None:
    videos, results = dataset
    calls: list[tuple[int, int]] = []
    serial = evaluate_method(videos, results, threshold=128)
    parallel = evaluate_method(
        videos, results, threshold=128, workers=2, progress=lambda d, t: calls.append((d, t))
    )
    assert [e.key for e in parallel] == [v.key for v in videos]
    for a, b in zip(serial, parallel):
        assert a.total == b.total and a.shadow_errors == b.shadow_errors
        np.testing.assert_array_equal(a.per_frame, b.per_frame)
    total = sum(v.n_frames for v in videos)
    assert calls[-1] == (total, total) and len(calls) > 2
    assert all(d1 < d2 for (d1, _), (d2, _) in itertools.pairwise(calls))


def test_worker_errors_keep_their_type_and_file(dataset: tuple[list[VideoSpec], Path]) -> None:
    videos, results = dataset
    missing = results / "baseline" / "office" / "bin000030.png"
    missing.unlink()
    with pytest.raises(MissingFrameError, match=r"bin000030\.png.*frame 30") as info:
        evaluate_method(videos, results, workers=2)
    assert info.value.path == missing


def test_parallel_evaluation_can_be_cancelled(dataset: tuple[list[VideoSpec], Path]) -> None:
    videos, results = dataset
    token = CancelToken()
    token.cancel()
    with pytest.raises(CancelledError):
        evaluate_method(videos, results, workers=2, cancel=token)


def test_mask_video_source_evaluates_like_image_files(
    dataset: tuple[list[VideoSpec], Path], tmp_path: Path
) -> None:
    videos, results = dataset
    video = next(v for v in videos if v.name == "pets")  # temporal ROI 1..25
    folder = results / "baseline" / "pets"
    path = tmp_path / "pets_masks.mkv"
    writer = cv2.VideoWriter(
        str(path), cv2.VideoWriter_fourcc(*"FFV1"), 25.0, (SHAPE[1], SHAPE[0]), True
    )
    assert writer.isOpened(), "OpenCV cannot write FFV1 here"
    for i in video.frames:
        mask = cv2.imread(str(folder / f"bin{i:06d}.png"), cv2.IMREAD_GRAYSCALE)
        writer.write(cv2.cvtColor(mask, cv2.COLOR_GRAY2BGR))
    writer.release()
    expected = reference_rows(video, folder, 128)
    got = evaluate_video(video, MaskVideoSource(path), threshold=128)
    np.testing.assert_array_equal(got.per_frame, expected)
    parallel = evaluate_methods(
        [video], {"m": [MaskVideoSource(path)]}, threshold=128, workers=2
    ).results["m"][0]
    np.testing.assert_array_equal(parallel.per_frame, expected)


def test_options_are_validated(dataset: tuple[list[VideoSpec], Path]) -> None:
    videos, results = dataset
    with pytest.raises(InvalidOptionError):
        evaluate_method(videos, results, workers=0)
    with pytest.raises(InvalidOptionError):
        evaluate_method(videos, results, threshold=300)


def test_sequential_progress_spans_all_videos(dataset: tuple[list[VideoSpec], Path]) -> None:
    videos, results = dataset
    calls: list[tuple[int, int]] = []
    evaluate_methods(
        videos,
        {"m": [CdnetResultSource.for_video(results, v) for v in videos]},
        progress=lambda d, t: calls.append((d, t)),
    )
    total = sum(v.n_frames for v in videos)
    assert [d for d, _ in calls] == list(range(1, total + 1))
    assert {t for _, t in calls} == {total}


# --- soft scores and curves (docs/measures.md §3) -----------------------------------------------


@pytest.fixture()
def soft_dataset(tmp_path: Path) -> tuple[list[VideoSpec], Path]:
    make_dataset(tmp_path / "data", seed=5)
    videos = discover_videos(tmp_path / "data")
    make_results(tmp_path / "res", videos, seed=6, soft=True)
    return videos, tmp_path / "res"


def test_histograms_give_the_counts_of_every_threshold(
    soft_dataset: tuple[list[VideoSpec], Path],
) -> None:
    videos, results = soft_dataset
    video = videos[0]
    source = CdnetResultSource.for_video(results, video)
    hist = score_histograms_video(video, source)
    assert hist.histograms.shape == (3, 256) and hist.n_frames == video.n_frames
    table = hist.confusions()
    for t in (0, 1, 77, 128, 254, 255):
        direct = evaluate_video(video, source, threshold=t)
        tp, fp, fn, tn, se = table[t].tolist()
        assert direct.total == ConfusionMatrix(tp=tp, fp=fp, fn=fn, tn=tn), t
        assert direct.shadow_errors == se


def test_roc_curve_equals_thresholding_each_t(soft_dataset: tuple[list[VideoSpec], Path]) -> None:
    videos, results = soft_dataset
    video = videos[2]
    folder = results / video.category / video.name
    curves = roc_pr_curves(score_histograms_video(video, CdnetResultSource(folder, 1)).histograms)
    for t in range(0, 256, 17):
        rows = reference_rows(video, folder, t)
        tp, fp, fn, tn, _ = rows[:, 1:].sum(axis=0)
        assert curves.tpr[t] == pytest.approx(tp / (tp + fn))
        assert curves.fpr[t] == pytest.approx(fp / (fp + tn))
        assert curves.precision[t] == pytest.approx(tp / (tp + fp))
    assert curves.tpr[0] == 1 and curves.fpr[0] == 1
    np.testing.assert_array_equal(curves.recall, curves.tpr)
    assert curves.roc_points().shape == curves.pr_points().shape == (256, 2)


def test_curves_from_small_example_by_hand() -> None:
    h = np.zeros((3, 256), np.int64)
    h[0, 10] = 3  # static, score 10
    h[1, 50] = 1  # shadow, score 50
    h[2, 50] = 2  # motion, score 50
    h[2, 200] = 2  # motion, score 200
    curves = roc_pr_curves(h)
    # T <= 10: all detected; 10 < T <= 50: static rejected; 50 < T <= 200: only motion at 200.
    assert (curves.tpr[0], curves.fpr[0], curves.precision[0]) == (1.0, 1.0, 4 / 8)
    assert (curves.tpr[11], curves.fpr[11], curves.precision[11]) == (1.0, 1 / 4, 4 / 5)
    assert (curves.tpr[51], curves.fpr[51], curves.precision[51]) == (0.5, 0.0, 1.0)
    assert curves.tpr[201] == 0 and curves.fpr[201] == 0
    assert np.isnan(curves.precision[201])  # nothing detected: undefined, not 0


def test_summarized_curve_is_the_blend_at_each_threshold(
    soft_dataset: tuple[list[VideoSpec], Path],
) -> None:
    videos, results = soft_dataset
    per_video = score_histograms_method(videos, results)
    weights = [0.25, 0.25, 0.5]
    summary = summarized_curves([h.histograms for h in per_video], weights)
    for t in (0, 64, 128, 200, 255):
        matrices = [ConfusionMatrix(*map(float, h.confusions()[t, :4])) for h in per_video]
        p = blend(matrices, weights)
        np.testing.assert_allclose(summary.confusions[t], [p.tp, p.fp, p.fn, p.tn], rtol=1e-12)
        assert summary.tpr[t] == pytest.approx(p.tp / (p.tp + p.fn))
        assert summary.fpr[t] == pytest.approx(p.fp / (p.fp + p.tn))
    np.testing.assert_allclose(summary.confusions.sum(axis=1), 1.0)


def test_parallel_histograms_equal_serial(soft_dataset: tuple[list[VideoSpec], Path]) -> None:
    videos, results = soft_dataset
    serial = score_histograms_method(videos, results)
    parallel = score_histograms_method(videos, results, workers=2)
    for a, b in zip(serial, parallel):
        assert a.key == b.key
        np.testing.assert_array_equal(a.histograms, b.histograms)


def test_blend_errors_and_iso_f1() -> None:
    empty = np.zeros((256, 4))
    full = curves_from_confusions(np.tile([1.0, 1.0, 1.0, 1.0], (256, 1))).confusions
    with pytest.raises(RefereeError, match="sum to 1"):
        blend_confusions([full], [0.5])
    with pytest.raises(RefereeError, match="no evaluated pixel"):
        blend_confusions([full, empty], [0.5, 0.5])
    np.testing.assert_allclose(blend_confusions([full, empty], [1.0, 0.0]), full / 4)
    recall, precision = iso_f1_curve(0.5, 50)
    np.testing.assert_allclose(2 * precision * recall / (precision + recall), 0.5)
    assert precision.max() == pytest.approx(1.0) and recall.max() == 1.0


# --- the real highway video (docs/measures.md §1 verified counts) -----------------------------


@pytest.fixture(scope="module")
def highway() -> VideoSpec:
    assert HIGHWAY.is_dir(), f"the real CDnet video must be beside the checkout: {HIGHWAY}"
    return VideoSpec("baseline", "highway", HIGHWAY, 470, 1700)


@pytest.fixture(scope="module")
def zero_results(highway: VideoSpec, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An all-zero result tree for highway, frames 470-1700."""
    root = tmp_path_factory.mktemp("zero_results")
    folder = root / "baseline" / "highway"
    folder.mkdir(parents=True)
    encoded = cv2.imencode(".png", np.zeros((240, 320), np.uint8))[1].tobytes()
    for i in highway.frames:
        (folder / f"bin{i:06d}.png").write_bytes(encoded)
    return root


def test_highway_all_zero_result(highway: VideoSpec, zero_results: Path) -> None:
    [evaluation] = evaluate_method(discover_videos(HIGHWAY.parents[1]), zero_results)
    assert evaluation.key == ("baseline", "highway")
    assert evaluation.total == ConfusionMatrix(
        tp=0, fp=0, fn=HIGHWAY_POSITIVES, tn=HIGHWAY_NEGATIVES
    )
    assert evaluation.shadow_errors == 0
    assert evaluation.per_frame.shape == (1231, 6)
    # threshold 0 turns the same files into "everything detected"
    [everything] = evaluate_method([highway], zero_results, threshold=0)
    assert everything.total == ConfusionMatrix(
        tp=HIGHWAY_POSITIVES, fp=HIGHWAY_NEGATIVES, fn=0, tn=0
    )


@pytest.fixture(scope="module")
def grey_inputs(highway: VideoSpec, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Highway's input frames 470-1700 as grey PNGs (colour images are not read as masks)."""
    folder = tmp_path_factory.mktemp("grey_inputs")
    for i in highway.frames:
        grey = cv2.imread(str(highway.input_path(i)), cv2.IMREAD_GRAYSCALE)
        cv2.imwrite(str(folder / f"in{i:06d}.png"), grey, [cv2.IMWRITE_PNG_COMPRESSION, 1])
    return folder


def test_highway_input_grey_as_result_matches_numpy(highway: VideoSpec, grey_inputs: Path) -> None:
    """A non-trivial result: the input frames themselves, detected iff grey >= 128."""
    source = PatternFolderSource(grey_inputs, "in%06d.png")
    evaluation = evaluate_video(highway, source, threshold=128)
    tp, fp, fn, tn = (
        int(v)
        for v in (
            evaluation.total.tp,
            evaluation.total.fp,
            evaluation.total.fn,
            evaluation.total.tn,
        )
    )
    assert tp + fn == HIGHWAY_POSITIVES and fp + tn == HIGHWAY_NEGATIVES
    assert 0 < tp < HIGHWAY_POSITIVES and 0 < fp < HIGHWAY_NEGATIVES
    expected = reference_rows(highway, grey_inputs, 128, pattern="in%06d.png")
    np.testing.assert_array_equal(evaluation.per_frame, expected)


def test_highway_two_workers_and_histograms(highway: VideoSpec, grey_inputs: Path) -> None:
    source = PatternFolderSource(grey_inputs, "in%06d.png")
    serial = evaluate_video(highway, source, threshold=100)
    [parallel] = evaluate_methods([highway], {"m": [source]}, threshold=100, workers=2).results["m"]
    np.testing.assert_array_equal(serial.per_frame, parallel.per_frame)
    hist = score_histograms_video(highway, source)
    assert hist.histograms[2].sum() == HIGHWAY_POSITIVES
    assert hist.histograms[:2].sum() == HIGHWAY_NEGATIVES
    row = threshold_confusions(hist.histograms)[100]
    assert row[:4].tolist() == [serial.total.tp, serial.total.fp, serial.total.fn, serial.total.tn]


def test_heavy_frames_are_the_top_tenth_by_false_positives() -> None:
    per_frame = np.array(
        [[f, 0, fp, 0, 0, 0] for f, fp in zip(range(1, 21), [0] * 10 + list(range(1, 11)))]
    )
    evaluation = VideoEvaluation.from_per_frame("c", "v", per_frame)
    # Values 1..10 on frames 11..20: the top tenth of 20 frames are the two largest.
    assert evaluation.heavy_frames("fp", 0.1) == [19, 20]
    assert (
        VideoEvaluation.from_per_frame("c", "v", per_frame * [1, 1, 0, 1, 1, 1]).heavy_frames()
        == []
    )
