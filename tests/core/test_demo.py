"""The demo dataset: CDnet layout, ground-truth conventions, determinism, real mistakes."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import cv2
import numpy as np
import pytest
from referee.core.demo import (
    BINARY_METHODS,
    MARKER_NAME,
    SOFT_METHODS,
    DemoLayout,
    write_demo,
)
from referee.core.errors import CancelledError, RefereeError
from referee.core.progress import CancelToken

CDNET_LEVELS = {0, 50, 85, 170, 255}


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> tuple[DemoLayout, list[tuple[int, int]]]:
    calls: list[tuple[int, int]] = []
    layout = write_demo(tmp_path_factory.mktemp("demo") / "first",
                        progress=lambda done, total: calls.append((done, total)))
    return layout, calls


@pytest.fixture(scope="module")
def demo(run: tuple[DemoLayout, list[tuple[int, int]]]) -> DemoLayout:
    return run[0]


@pytest.fixture(scope="module")
def rerun(tmp_path_factory: pytest.TempPathFactory) -> DemoLayout:
    """A second run with the same seed, over a stale previous demo holding a user note."""
    root = tmp_path_factory.mktemp("demo") / "second"
    (root / "dataset" / "stale").mkdir(parents=True)
    (root / "dataset" / "stale" / "old.txt").write_text("from an older demo")
    (root / "notes.txt").write_text("the user's own notes")
    (root / MARKER_NAME).write_text(json.dumps(
        {"generator": "referee.core.demo", "format": 1, "seed": 7, "complete": True}))
    return write_demo(root, seed=0)


def _grey(path: Path) -> np.ndarray:
    image = cv2.imread(str(path), cv2.IMREAD_GRAYSCALE)
    assert image is not None, path
    return image


def _stack(folder: Path, prefix: str, frames: range) -> np.ndarray:
    return np.stack([_grey(folder / f"{prefix}{i:06d}.png") for i in frames])


def _temporal_roi(video_path: Path) -> tuple[int, int]:
    first, last = (int(v) for v in (video_path / "temporalROI.txt").read_text().split())
    return first, last


def test_layout_is_cdnet(demo: DemoLayout) -> None:
    assert len(demo.categories) >= 2
    assert len(demo.videos) >= 3
    assert json.loads(demo.marker.read_text())["seed"] == 0
    for video in demo.videos:
        assert video.path == demo.dataset / video.category / video.name
        assert (video.path / "ROI.bmp").is_file()
        assert _temporal_roi(video.path) == video.temporal_roi
        n = video.frame_count
        assert 120 <= n <= 200
        assert sorted(p.name for p in (video.path / "input").iterdir()) == [
            f"in{i:06d}.jpg" for i in range(1, n + 1)]
        assert sorted(p.name for p in (video.path / "groundtruth").iterdir()) == [
            f"gt{i:06d}.png" for i in range(1, n + 1)]
        frame = cv2.imread(str(video.path / "input" / f"in{n:06d}.jpg"))
        assert frame.shape == (120, 160, 3)
        expected_results = [f"bin{i:06d}.png" for i in range(1, n + 1)]
        for method in BINARY_METHODS:
            folder = demo.results[method] / video.category / video.name
            assert demo.results[method] == demo.root / "results" / method
            assert sorted(p.name for p in folder.iterdir()) == expected_results
        for method in SOFT_METHODS:
            folder = demo.soft_results[method] / video.category / video.name
            assert demo.soft_results[method] == demo.root / "results-soft" / method
            assert sorted(p.name for p in folder.iterdir()) == expected_results
    assert len(demo.results) >= 4


def test_temporal_roi_leaves_frames_for_learning(demo: DemoLayout) -> None:
    for video in demo.videos:
        first, last = _temporal_roi(video.path)
        assert first > 1
        assert first - 1 >= 0.15 * video.frame_count
        assert last == video.frame_count


def test_ground_truth_uses_all_five_levels(demo: DemoLayout) -> None:
    seen: set[int] = set()
    for video in demo.videos:
        gt = _stack(video.path / "groundtruth", "gt", range(1, video.frame_count + 1))
        levels = set(np.unique(gt).tolist())
        assert levels <= CDNET_LEVELS, (video.name, levels)
        seen |= levels
    assert seen == CDNET_LEVELS


def test_roi_excludes_a_region_and_ground_truth_marks_it_85(demo: DemoLayout) -> None:
    for video in demo.videos:
        roi = _grey(video.path / "ROI.bmp")
        assert set(np.unique(roi).tolist()) == {0, 255}
        assert 0.02 < (roi == 0).mean() < 0.5
        gt = _stack(video.path / "groundtruth", "gt", range(1, video.frame_count + 1))
        outside = np.broadcast_to(roi == 0, gt.shape)
        np.testing.assert_array_equal(gt == 85, outside)


def test_roi_is_a_palette_bmp_whose_index_0_is_white(demo: DemoLayout) -> None:
    data = (demo.videos[0].path / "ROI.bmp").read_bytes()
    assert data[:2] == b"BM"
    offset = struct.unpack_from("<I", data, 10)[0]
    bits_per_pixel = struct.unpack_from("<H", data, 28)[0]
    assert bits_per_pixel == 8
    assert data[54:57] == b"\xff\xff\xff"  # palette entry 0
    raw_indices = np.frombuffer(data, np.uint8, count=160, offset=offset)  # bottom row
    decoded_bottom_row = _grey(demo.videos[0].path / "ROI.bmp")[-1]
    assert np.all((raw_indices == 0) == (decoded_bottom_row == 255))


def test_same_seed_gives_identical_files(demo: DemoLayout, rerun: DemoLayout) -> None:
    for video, again in zip(demo.videos, rerun.videos):
        for sub, prefix, ext in (("groundtruth", "gt", "png"), ("input", "in", "jpg")):
            for i in range(1, video.frame_count + 1):
                name = f"{prefix}{i:06d}.{ext}"
                assert (video.path / sub / name).read_bytes() == (again.path / sub / name).read_bytes()
        for roots, roots_again in ((demo.results, rerun.results),
                                   (demo.soft_results, rerun.soft_results)):
            for method in roots:
                folder = roots[method] / video.category / video.name
                folder_again = roots_again[method] / video.category / video.name
                for i in range(1, video.frame_count + 1):
                    name = f"bin{i:06d}.png"
                    assert (folder / name).read_bytes() == (folder_again / name).read_bytes()


def test_rerun_replaces_a_previous_demo_but_keeps_other_files(rerun: DemoLayout) -> None:
    assert not (rerun.dataset / "stale").exists()
    assert (rerun.root / "notes.txt").read_text() == "the user's own notes"
    marker = json.loads(rerun.marker.read_text())
    assert marker["seed"] == 0 and marker["complete"] is True


def test_methods_make_different_real_mistakes(demo: DemoLayout) -> None:
    masks: dict[str, list[np.ndarray]] = {method: [] for method in demo.results}
    gts, evaluated = [], []
    for video in demo.videos:
        first, last = video.temporal_roi
        frames = range(first, last + 1)
        gt = _stack(video.path / "groundtruth", "gt", frames)
        roi = _grey(video.path / "ROI.bmp")
        gts.append(gt)
        evaluated.append((roi > 0) & np.isin(gt, (0, 50, 255)))
        for method, root in demo.results.items():
            masks[method].append(_stack(root / video.category / video.name, "bin", frames))
    gt = np.concatenate([g.ravel() for g in gts])
    keep = np.concatenate([e.ravel() for e in evaluated])
    positive = gt[keep] == 255
    flat = {m: np.concatenate([a.ravel() for a in arrays]) for m, arrays in masks.items()}
    for method, detected_all in flat.items():
        assert set(np.unique(detected_all).tolist()) <= {0, 255}, method
        detected = detected_all[keep] == 255
        tp = int(np.sum(detected & positive))
        fp = int(np.sum(detected & ~positive))
        fn = int(np.sum(~detected & positive))
        assert tp > 0 and fp > 0 and fn > 0, (method, tp, fp, fn)
        assert tp > fn, (method, tp, fn)  # a real detector, not noise
    names = list(flat)
    for a in range(len(names)):
        for b in range(a + 1, len(names)):
            assert not np.array_equal(flat[names[a]], flat[names[b]]), (names[a], names[b])


def test_soft_scores_are_graded_and_agree_with_the_binary_mask(demo: DemoLayout) -> None:
    method = SOFT_METHODS[0]
    video = demo.videos[1]
    frames = range(video.temporal_roi[0], video.frame_count + 1, 10)
    soft = _stack(demo.soft_results[method] / video.category / video.name, "bin", frames)
    binary = _stack(demo.results[method] / video.category / video.name, "bin", frames)
    assert len(np.unique(soft)) > 50
    np.testing.assert_array_equal(soft >= 128, binary == 255)


def test_progress_counts_every_frame(demo: DemoLayout,
                                     run: tuple[DemoLayout, list[tuple[int, int]]]) -> None:
    calls = run[1]
    total = sum(video.frame_count for video in demo.videos)
    assert calls[0] == (0, total) and calls[-1] == (total, total)
    assert [done for done, _ in calls] == list(range(total + 1))


def test_refuses_a_non_empty_foreign_folder(tmp_path: Path) -> None:
    root = tmp_path / "my data"
    root.mkdir()
    (root / "thesis.tex").write_text("precious")
    with pytest.raises(RefereeError, match="my data"):
        write_demo(root)
    assert [p.name for p in root.iterdir()] == ["thesis.tex"]
    assert (root / "thesis.tex").read_text() == "precious"


def test_refuses_a_foreign_marker_and_a_file(tmp_path: Path) -> None:
    root = tmp_path / "other"
    root.mkdir()
    (root / MARKER_NAME).write_text('{"generator": "something else"}')
    with pytest.raises(RefereeError):
        write_demo(root)
    a_file = tmp_path / "file.txt"
    a_file.write_text("x")
    with pytest.raises(RefereeError, match="file.txt"):
        write_demo(a_file)
    assert a_file.read_text() == "x"


def test_cancel_stops_and_removes_partial_output(tmp_path: Path) -> None:
    token = CancelToken()

    def progress(done: int, total: int) -> None:
        if done == 5:
            token.cancel()

    root = tmp_path / "demo"
    with pytest.raises(CancelledError):
        write_demo(root, progress=progress, cancel=token)
    assert list(root.iterdir()) == []


def test_one_video_changes_illumination(demo: DemoLayout) -> None:
    brightness = {}
    for video in demo.videos:
        means = [float(cv2.imread(str(video.path / "input" / f"in{i:06d}.jpg")).mean())
                 for i in range(1, video.frame_count + 1, 5)]
        brightness[video.name] = min(means) / max(means)
    assert min(brightness.values()) < 0.8


def test_negative_seed_is_refused(tmp_path: Path) -> None:
    with pytest.raises(RefereeError, match="seed"):
        write_demo(tmp_path / "demo", seed=-1)
    assert not (tmp_path / "demo").exists()


def test_ensure_demo_reuses_a_complete_demo_and_rewrites_an_interrupted_one(tmp_path):
    from referee.core.demo import MARKER_NAME, ensure_demo

    root = tmp_path / "demo"
    first = ensure_demo(root)
    gt = first.videos[0].path / "groundtruth" / "gt000001.png"
    stamp = gt.stat().st_mtime_ns
    again = ensure_demo(root)
    assert again.dataset == first.dataset and again.results == first.results
    assert gt.stat().st_mtime_ns == stamp, "a complete demo must be reused, not rewritten"

    marker = json.loads((root / MARKER_NAME).read_text())
    marker["complete"] = False
    (root / MARKER_NAME).write_text(json.dumps(marker))
    ensure_demo(root)
    assert json.loads((root / MARKER_NAME).read_text())["complete"] is True
    assert gt.stat().st_mtime_ns != stamp, "an interrupted demo must be written again"
