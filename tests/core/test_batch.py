"""Several methods in one pass (docs/measures.md §1, §3): each ground-truth frame is decoded
once, the counts are those of a plain reference, and the default uses every core."""

from __future__ import annotations

import threading
from collections import Counter
from pathlib import Path

import cv2
import numpy as np
import pytest

from referee.core import parallel
from referee.core.cli import main as cli
from referee.core.evaluation import masks
from referee.core.evaluation.batch import evaluate_methods, histograms_methods
from referee.core.formats.cdnet import discover_videos
from referee.core.frames.results import result_sources
from referee.core.model.videos import VideoSpec
from referee.core.workflow.options import CurveOptions, PixelOptions, PseudoOptions
from tests.core.test_evaluate import make_dataset, make_results, reference_rows

METHODS = ("a", "b", "c")


@pytest.fixture()
def three_methods(tmp_path: Path) -> tuple[list[VideoSpec], dict[str, Path]]:
    make_dataset(tmp_path / "data")
    videos = discover_videos(tmp_path / "data")
    roots = {}
    for seed, name in enumerate(METHODS, start=1):
        make_results(tmp_path / name, videos, seed=seed)
        roots[name] = tmp_path / name
    return videos, roots


@pytest.fixture()
def gt_reads(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """Every ground-truth file the evaluation decodes, counted (from any thread)."""
    reads: Counter[str] = Counter()
    lock = threading.Lock()
    real = masks.read_truth

    def counting(video: VideoSpec, frame: int) -> np.ndarray:
        with lock:
            reads[video.gt_name(frame)] += 1
        return real(video, frame)

    monkeypatch.setattr(masks, "read_truth", counting)
    return reads


@pytest.mark.parametrize("workers", [1, 3])
def test_three_methods_in_one_pass_decode_each_ground_truth_frame_once(
    three_methods: tuple[list[VideoSpec], dict[str, Path]], gt_reads: Counter[str], workers: int
) -> None:
    videos, roots = three_methods
    sources = {name: result_sources(videos, root) for name, root in roots.items()}
    found = evaluate_methods(videos, sources, threshold=128, workers=workers)
    assert not found.missing
    for name, root in roots.items():
        for video, evaluation in zip(videos, found.results[name], strict=True):
            folder = root / video.category / video.name
            expected = reference_rows(video, folder, 128)
            np.testing.assert_array_equal(evaluation.per_frame, expected)
    expected_reads = {str(v.gt_path(i)) for v in videos for i in v.frames}
    assert set(gt_reads) == expected_reads
    assert set(gt_reads.values()) == {1}


def test_histograms_of_several_methods_in_one_pass(tmp_path: Path, gt_reads: Counter[str]) -> None:
    make_dataset(tmp_path / "data", seed=3)
    videos = discover_videos(tmp_path / "data")
    roots = {}
    for seed, name in enumerate(("s", "t"), start=7):
        make_results(tmp_path / name, videos, seed=seed, soft=True)
        roots[name] = tmp_path / name
    sources = {name: result_sources(videos, root) for name, root in roots.items()}
    found = histograms_methods(videos, sources, workers=2)
    for name, root in roots.items():
        for video, histograms in zip(videos, found.results[name], strict=True):
            roi = cv2.imread(str(video.roi_path), cv2.IMREAD_GRAYSCALE) > 0
            expected = np.zeros((3, 256), np.int64)
            for i in video.frames:
                gt = cv2.imread(str(video.gt_path(i)), cv2.IMREAD_GRAYSCALE)
                path = root / video.category / video.name / f"bin{i:06d}.png"
                scores = cv2.imread(str(path), cv2.IMREAD_GRAYSCALE)
                for row, level in enumerate((0, 50, 255)):
                    expected[row] += np.bincount(scores[roi & (gt == level)], minlength=256)
            np.testing.assert_array_equal(histograms.histograms, expected)
    assert set(gt_reads.values()) == {1}
    assert len(gt_reads) == sum(v.n_frames for v in videos)


def test_one_unreadable_result_is_named_or_left_out(
    three_methods: tuple[list[VideoSpec], dict[str, Path]],
) -> None:
    videos, roots = three_methods
    video = videos[0]
    broken = roots["b"] / video.category / video.name / f"bin{video.first + 2:06d}.png"
    broken.write_bytes(b"not a png")
    sources = [result_sources([video], roots[name])[0] for name in METHODS]
    with pytest.raises(Exception, match=broken.name):
        masks.count_video(video, sources, None, None)
    kept = masks.count_video(video, sources, None, None, keep_going=True)
    assert kept.failures[0] is None and kept.failures[2] is None
    assert kept.failures[1] is not None and broken.name in kept.failures[1]
    for k in (0, 2):
        folder = roots[METHODS[k]] / video.category / video.name
        np.testing.assert_array_equal(kept.values[k], reference_rows(video, folder))


def test_workers_default_to_every_available_core(capsys: pytest.CaptureFixture[str]) -> None:
    cores = parallel.available_cores()
    assert PixelOptions().workers is None and CurveOptions().workers is None
    assert PseudoOptions().workers is None
    assert parallel.resolve_workers(None) == cores and parallel.resolve_workers(3) == 3
    with pytest.raises(SystemExit):
        cli.main(["evaluate", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert f"default: every available core, {cores} here" in help_text


def test_chunks_stay_between_their_limits() -> None:
    assert parallel.chunk_size(100_000, 2) == parallel.MAX_CHUNK_FRAMES
    assert parallel.chunk_size(10, 8) == parallel.MIN_CHUNK_FRAMES
    assert parallel.chunk_size(1231, 2) == 154  # ceil(1231 / (4 chunks x 2 workers))
