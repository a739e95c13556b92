"""Per-frame counts kept between runs (DESIGN "Long work"): a run with the cache gives exactly
a cold run's counts, and reads again only the frames whose files changed."""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from pathlib import Path

import cv2
import numpy as np
import pytest

from referee.core.cache import stamps
from referee.core.cache.store import FrameCache
from referee.core.demo.project import ensure_demo_project
from referee.core.formats.cdnet import discover_videos
from referee.core.workflow.options import CurveOptions, PixelOptions
from referee.core.workflow.pixels import run_curves, run_pixels
from referee.core.workflow.projects import project_of_outputs
from tests.core.test_evaluate import make_dataset, make_results, reference_rows

METHODS = ("a", "b", "c")


@pytest.fixture()
def dataset(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Three small videos and three methods' masks; files count as settled at once."""
    monkeypatch.setattr(stamps, "RACY_SECONDS", 0.0)
    make_dataset(tmp_path / "data")
    videos = discover_videos(tmp_path / "data")
    for seed, name in enumerate(METHODS, start=1):
        make_results(tmp_path / name, videos, seed=seed)
    return tmp_path


def _run(root: Path, cache: FrameCache | None, threshold: int | None = None):
    project = project_of_outputs("masks", [root / m for m in METHODS], dataset=root / "data")
    return run_pixels(project, PixelOptions(threshold=threshold, workers=1), cache=cache)


def _expected(root: Path, threshold: int | None = None) -> dict[tuple[str, str, str], np.ndarray]:
    """Every method's per-frame counts by a plain reference, straight from the files."""
    return {
        (m, v.category, v.name): reference_rows(v, root / m / v.category / v.name, threshold)
        for v in discover_videos(root / "data")
        for m in METHODS
    }


def _rows(result) -> dict[tuple[str, str, str], np.ndarray]:
    return {
        (m, e.category, e.video): e.per_frame
        for m, found in result.evaluations.items()
        for e in found
    }


def _assert_counts(result, expected) -> None:
    found = _rows(result)
    assert found.keys() == expected.keys()
    for key, rows in expected.items():
        np.testing.assert_array_equal(found[key], rows, err_msg=str(key))


def _rewrite(path: Path, seed: int) -> None:
    image = cv2.imread(str(path), cv2.IMREAD_GRAYSCALE)
    changed = np.random.default_rng(seed).permutation(image.ravel()).reshape(image.shape)
    assert not np.array_equal(changed, image)
    cv2.imwrite(str(path), changed)


def test_a_second_run_reads_no_frame_and_gives_the_counts_of_the_files(dataset: Path) -> None:
    folder = dataset / "cache"
    first = FrameCache(folder)
    _assert_counts(_run(dataset, first), _expected(dataset))
    assert sum(len(f) for f in first.computed_of("counts").values()) == 38 + 25 + 5

    again = FrameCache(folder)
    _assert_counts(_run(dataset, again), _expected(dataset))
    assert again.computed_of("counts") == {}


def test_a_changed_ground_truth_frame_is_the_only_frame_read_again(dataset: Path) -> None:
    folder = dataset / "cache"
    _run(dataset, FrameCache(folder))
    _rewrite(dataset / "data" / "baseline" / "office" / "groundtruth" / "gt000040.png", 1)

    again = FrameCache(folder)
    _assert_counts(_run(dataset, again), _expected(dataset))
    assert again.computed_of("counts") == {"baseline/office": [40]}


def test_a_changed_detector_output_is_the_only_frame_read_again(dataset: Path) -> None:
    folder = dataset / "cache"
    _run(dataset, FrameCache(folder))
    _rewrite(dataset / "b" / "loose" / "loose" / "bin000007.png", 2)

    again = FrameCache(folder)
    _assert_counts(_run(dataset, again), _expected(dataset))
    assert again.computed_of("counts") == {"loose": [7]}


def test_another_threshold_reads_every_frame_again(dataset: Path) -> None:
    folder = dataset / "cache"
    _run(dataset, FrameCache(folder))

    again = FrameCache(folder)
    _assert_counts(_run(dataset, again, threshold=200), _expected(dataset, 200))
    assert sorted(again.computed_of("counts")) == ["baseline/office", "baseline/pets", "loose"]
    assert len(again.computed_of("counts")["baseline/pets"]) == 25


def test_corrupt_and_foreign_entries_are_ignored_and_computed_again(dataset: Path) -> None:
    folder = dataset / "cache"
    _run(dataset, FrameCache(folder))
    tables = sorted((folder / "v1").glob("*.npz"))
    assert len(tables) == 9  # three videos, three methods
    tables[0].write_bytes(b"not a table")
    shutil.copyfile(tables[2], tables[1])  # another table's rows under this table's name
    truncated = tables[3].read_bytes()
    tables[3].write_bytes(truncated[: len(truncated) // 2])

    again = FrameCache(folder)
    _assert_counts(_run(dataset, again), _expected(dataset))
    assert again.computed_of("counts")  # the three damaged tables' frames were read again
    cold = _run(dataset, None)
    for key, rows in _rows(cold).items():
        np.testing.assert_array_equal(_rows(_run(dataset, FrameCache(folder)))[key], rows)


def test_a_file_changed_within_the_racy_window_is_never_cached(
    dataset: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(stamps, "RACY_SECONDS", 3600.0)  # every file was just written
    folder = dataset / "cache"
    _run(dataset, FrameCache(folder))

    again = FrameCache(folder)
    _assert_counts(_run(dataset, again), _expected(dataset))
    assert sum(len(f) for f in again.computed_of("counts").values()) == 38 + 25 + 5


def test_the_cache_folder_stays_within_its_bound(dataset: Path) -> None:
    folder = dataset / "cache"
    _run(dataset, FrameCache(folder, max_bytes=3000))
    sizes = [p.stat().st_size for p in (folder / "v1").iterdir()]
    assert sizes and sum(sizes) <= 3000


def _cli(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "referee.core.cli", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_the_command_line_with_a_cache_prints_what_it_prints_without(tmp_path: Path) -> None:
    make_dataset(tmp_path / "data")
    videos = discover_videos(tmp_path / "data")
    for seed, name in enumerate(METHODS, start=1):
        make_results(tmp_path / name, videos, seed=seed)
    make_results(tmp_path / "soft", videos, seed=7, soft=True)
    time.sleep(stamps.RACY_SECONDS + 0.2)  # files just written are never cached
    curves = ["curves", tmp_path / "data", tmp_path / "soft", "--quiet"]
    swept = _cli(*curves, "--cache", tmp_path / "cache")
    arguments = ["evaluate", tmp_path / "data", *(tmp_path / m for m in METHODS), "--quiet"]
    cached = [*arguments, "--cache", tmp_path / "cache"]
    first = _cli(*cached)
    _rewrite(tmp_path / "data" / "baseline" / "pets" / "groundtruth" / "gt000025.png", 3)
    again, cold = _cli(*cached), _cli(*arguments)
    assert first.returncode == again.returncode == cold.returncode == 0, again.stderr
    assert again.stdout == cold.stdout
    assert again.stdout != first.stdout  # the changed frame was read again
    assert list((tmp_path / "cache" / "v1").glob("*.npz"))
    swept_again, swept_cold = _cli(*curves, "--cache", tmp_path / "cache"), _cli(*curves)
    assert swept.returncode == swept_again.returncode == swept_cold.returncode == 0
    assert swept_again.stdout == swept_cold.stdout != swept.stdout


def test_a_cache_that_is_a_file_is_refused_in_one_line(tmp_path: Path) -> None:
    make_dataset(tmp_path / "data")
    make_results(tmp_path / "a", discover_videos(tmp_path / "data"))
    (tmp_path / "cache").write_text("a file")
    found = _cli("evaluate", tmp_path / "data", tmp_path / "a", "--cache", tmp_path / "cache")
    assert found.returncode == 2
    assert found.stderr.count("\n") == 1 and "cache" in found.stderr
    assert "Traceback" not in found.stderr


def test_a_report_with_a_cache_holds_what_a_report_without_holds(demo, tmp_path: Path) -> None:
    root = tmp_path / "demo"
    shutil.copytree(demo.root, root)
    project = ensure_demo_project(root).file
    time.sleep(stamps.RACY_SECONDS + 0.2)  # files just written are never cached
    tables = {}
    cache = ["--cache", tmp_path / "c"]
    for run, extra in (("first", cache), ("again", cache), ("plain", [])):
        done = _cli("report", project, "--csv", tmp_path / run, "--quiet", *extra)
        assert done.returncode == 0, done.stderr
        tables[run] = {p.name: p.read_bytes() for p in (tmp_path / run).glob("*.csv")}
    assert tables["again"] == tables["plain"] == tables["first"]
    assert any("labelled" in name for name in tables["plain"])  # the estimates are in it
    assert list((tmp_path / "c" / "v1").glob("*.npz"))


def test_score_histograms_read_again_only_the_changed_frame(dataset: Path) -> None:
    videos = discover_videos(dataset / "data")
    make_results(dataset / "soft", videos, seed=9, soft=True)
    project = project_of_outputs("scores", [dataset / "soft"], dataset=dataset / "data")
    options = CurveOptions(workers=1)
    folder = dataset / "cache"
    first = run_curves(project, options, cache=FrameCache(folder))
    _rewrite(dataset / "data" / "baseline" / "pets" / "groundtruth" / "gt000003.png", 6)

    again = FrameCache(folder)
    warm = run_curves(project, options, cache=again)
    cold = run_curves(project, options)
    assert again.computed_of("histograms") == {"baseline/pets": [3]}
    for mine, theirs in zip(warm.histograms["soft"], cold.histograms["soft"]):
        np.testing.assert_array_equal(mine.histograms, theirs.histograms)
        assert mine.n_frames == theirs.n_frames
    pets = next(h for h in warm.histograms["soft"] if h.video == "pets")
    assert not np.array_equal(
        pets.histograms, next(h for h in first.histograms["soft"] if h.video == "pets").histograms
    )
    np.testing.assert_array_equal(
        warm.summaries["soft"][1].confusions, cold.summaries["soft"][1].confusions
    )
