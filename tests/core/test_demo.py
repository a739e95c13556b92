"""The demo dataset: CDnet layout, ground-truth conventions, determinism, real mistakes."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import cv2
import numpy as np
import pytest

from referee.core.demo.dataset import (
    BINARY_METHODS,
    MARKER_NAME,
    SOFT_METHODS,
    TRACKED_METHODS,
    DemoLayout,
    count_inside,
    write_demo,
)
from referee.core.demo.scenes import _SCENES
from referee.core.errors import CancelledError, RefereeError
from referee.core.formats.counts_csv import read_counts_csv
from referee.core.model.annotations import ACTION_CLASSES, Action, AnnotationSet
from referee.core.model.project import GROUND_TRUTH
from referee.core.progress import CancelToken

CDNET_LEVELS = {0, 50, 85, 170, 255}


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> tuple[DemoLayout, list[tuple[int, int]]]:
    calls: list[tuple[int, int]] = []
    layout = write_demo(
        tmp_path_factory.mktemp("demo") / "first",
        progress=lambda done, total: calls.append((done, total)),
    )
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
    (root / MARKER_NAME).write_text(
        json.dumps({"generator": "referee.core.demo", "format": 1, "seed": 7, "complete": True})
    )
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
            f"in{i:06d}.jpg" for i in range(1, n + 1)
        ]
        assert sorted(p.name for p in (video.path / "groundtruth").iterdir()) == [
            f"gt{i:06d}.png" for i in range(1, n + 1)
        ]
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
                assert (video.path / sub / name).read_bytes() == (
                    again.path / sub / name
                ).read_bytes()
        for roots, roots_again in (
            (demo.results, rerun.results),
            (demo.soft_results, rerun.soft_results),
        ):
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


def test_progress_counts_every_frame(
    demo: DemoLayout, run: tuple[DemoLayout, list[tuple[int, int]]]
) -> None:
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
    with pytest.raises(RefereeError, match=r"file\.txt"):
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
        means = [
            float(cv2.imread(str(video.path / "input" / f"in{i:06d}.jpg")).mean())
            for i in range(1, video.frame_count + 1, 5)
        ]
        brightness[video.name] = min(means) / max(means)
    assert min(brightness.values()) < 0.8


def test_negative_seed_is_refused(tmp_path: Path) -> None:
    with pytest.raises(RefereeError, match="seed"):
        write_demo(tmp_path / "demo", seed=-1)
    assert not (tmp_path / "demo").exists()


def test_ensure_demo_reuses_a_complete_demo_and_rewrites_an_interrupted_one(tmp_path):
    from referee.core.demo.dataset import MARKER_NAME, ensure_demo

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


# --------------------------------------------------------------------------- actions and counts


def _read_actions(path: Path) -> AnnotationSet:
    from referee.core.formats.liris_xml import read_liris

    return read_liris(path)


@pytest.fixture(scope="module")
def actions(demo: DemoLayout) -> dict[str, AnnotationSet]:
    found = {GROUND_TRUTH: _read_actions(demo.actions_gt)}
    found.update({method: _read_actions(path) for method, path in demo.actions.items()})
    return found


def _iou(a: tuple[int, ...], b: tuple[int, ...]) -> float:
    iw = min(a[0] + a[2], b[0] + b[2]) - max(a[0], b[0])
    ih = min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1])
    inter = max(iw, 0) * max(ih, 0)
    return inter / (a[2] * a[3] + b[2] * b[3] - inter)


def _best_iou(detection: Action, truth: Action) -> float:
    common = range(max(detection.first, truth.first), min(detection.last, truth.last) + 1)
    return max((_iou(detection.box_at(f), truth.box_at(f)) for f in common), default=0.0)


def test_action_and_count_files_are_where_the_layout_says(demo: DemoLayout) -> None:
    assert demo.actions_gt == demo.root / "actions" / "groundtruth.xml"
    assert set(demo.actions) == set(TRACKED_METHODS) and len(TRACKED_METHODS) >= 2
    assert set(TRACKED_METHODS) <= set(BINARY_METHODS)
    assert sorted(p.name for p in (demo.root / "actions").iterdir()) == sorted(
        f"{name}.xml" for name in (GROUND_TRUTH, *TRACKED_METHODS)
    )
    assert set(demo.counts) == {video.key for video in demo.videos}
    for video in demo.videos:
        assert video.key == f"{video.category}_{video.name}"
        files = demo.counts[video.key]
        assert set(files) == {GROUND_TRUTH, *TRACKED_METHODS}
        for name, path in files.items():
            assert path == demo.root / "counts" / video.key / f"{name}.csv" and path.is_file()


def test_action_files_hold_every_video(demo: DemoLayout, actions: dict[str, AnnotationSet]) -> None:
    keys = [video.key for video in demo.videos]
    for name, annotation in actions.items():
        assert list(annotation.videos) == keys, name
        for video in demo.videos:
            for action in annotation.videos[video.key].actions:
                assert np.all(np.diff(action.frames) == 1)
                assert action.first >= 1 and action.last <= video.frame_count
                assert action.action_class in ACTION_CLASSES
                boxes = action.boxes
                assert np.all(boxes[:, 2:] > 0)
                assert np.all(boxes[:, 0] + boxes[:, 2] <= 160)
                assert np.all(boxes[:, 1] + boxes[:, 3] <= 120)


def test_ground_truth_has_one_action_per_visible_stretch_of_each_object(
    demo: DemoLayout, actions: dict[str, AnnotationSet]
) -> None:
    classes: set[int] = set()
    for factory, video in zip(_SCENES, demo.videos):
        scene = factory()
        stretches = 0
        for mover in scene.movers:
            visible = []
            for f in range(1, video.frame_count + 1):
                centre = mover.centre(f)
                visible.append(
                    centre is not None
                    and -mover.width / 2 < centre[0] < 160 + mover.width / 2
                    and -mover.height / 2 < centre[1] < 120 + mover.height / 2
                )
            stretches += sum(
                1 for k, v in enumerate(visible) if v and (k == 0 or not visible[k - 1])
            )
        gt = actions[GROUND_TRUTH].videos[video.key].actions
        assert len(gt) == stretches, video.key
        assert [a.number for a in gt] == list(range(1, len(gt) + 1))
        assert not any(a.interpolated.any() for a in gt)
        classes |= {a.action_class for a in gt}
    assert len(classes) >= 3


def test_ground_truth_boxes_hold_the_moving_pixels(
    demo: DemoLayout, actions: dict[str, AnnotationSet]
) -> None:
    for video in demo.videos:
        gt = actions[GROUND_TRUTH].videos[video.key].actions
        for f in range(5, video.frame_count + 1, 15):
            labels = _grey(video.path / "groundtruth" / f"gt{f:06d}.png")
            motion = labels == 255
            covered = np.zeros_like(motion)
            for action in gt:
                box = action.box_at(f)
                if box is not None:
                    x, y, w, h = box
                    covered[y : y + h, x : x + w] = True
                    # Motion, its boundary band, or outside the ROI: never static or shadow only.
                    assert np.isin(labels[y : y + h, x : x + w], (255, 170, 85)).any()
            assert not np.any(motion & ~covered), (video.key, f)


def test_trackers_find_the_objects_but_make_mistakes(
    demo: DemoLayout, actions: dict[str, AnnotationSet]
) -> None:
    wrong_class = interpolated = 0
    for method in TRACKED_METHODS:
        differs = False
        matched = 0
        for video in demo.videos:
            gt = actions[GROUND_TRUTH].videos[video.key].actions
            found = actions[method].videos[video.key].actions
            if len(found) != len(gt) or not all(a.same_as(b) for a, b in zip(found, gt)):
                differs = True
            for detection in found:
                ious = [_best_iou(detection, truth) for truth in gt]
                best = int(np.argmax(ious)) if ious else -1
                if best >= 0 and ious[best] > 0.5:
                    matched += 1
                    wrong_class += detection.action_class != gt[best].action_class
                interpolated += int(detection.interpolated.sum())
        assert differs, method
        assert matched >= 1, method
    assert wrong_class > 0 and interpolated > 0


def test_count_series_cover_every_frame(
    demo: DemoLayout, actions: dict[str, AnnotationSet]
) -> None:
    for video in demo.videos:
        x, y, w, h = video.count_region
        assert x >= 0 and y >= 0 and x + w <= 160 and y + h <= 120 and w * h > 0
        series = {name: read_counts_csv(path) for name, path in demo.counts[video.key].items()}
        for name, counts in series.items():
            assert counts.first_frame == 1 and len(counts) == video.frame_count, name
            assert np.all(counts.counts >= 0)
        gt = series[GROUND_TRUTH].counts
        assert len(np.unique(gt)) >= 2 and np.any(np.diff(gt) > 0) and np.any(np.diff(gt) < 0)
        for name, counts in series.items():
            expected = count_inside(
                list(actions[name].videos[video.key].actions), video.count_region, video.frame_count
            )
            np.testing.assert_array_equal(counts.counts, expected, err_msg=name)
        assert any(not np.array_equal(series[m].counts, gt) for m in TRACKED_METHODS)


def test_count_inside_uses_box_centres_in_a_half_open_region() -> None:
    inside = Action.from_boxes(1, 4, {1: (10, 10, 4, 4), 2: (12, 10, 4, 4), 3: (30, 10, 4, 4)})
    on_edge = Action.from_boxes(2, 4, {2: (18, 10, 4, 4)})  # centre x = 20: the region's end
    assert count_inside([inside, on_edge], (10, 10, 10, 10), 4).tolist() == [1, 1, 0, 0]


def test_actions_and_counts_are_deterministic(demo: DemoLayout, rerun: DemoLayout) -> None:
    for name in TRACKED_METHODS:
        assert demo.actions[name].read_bytes() == rerun.actions[name].read_bytes()
    assert demo.actions_gt.read_bytes() == rerun.actions_gt.read_bytes()
    for key, files in demo.counts.items():
        for name, path in files.items():
            assert path.read_bytes() == rerun.counts[key][name].read_bytes()
