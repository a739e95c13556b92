"""``--frames FIRST:LAST``: every command that reads a dataset's frames reads only those of
each video's temporal ROI, exactly as if ``temporalROI.txt`` said so (docs/measures.md §1).

Each command is run through the real entry point twice: on the demo dataset with
``--frames``, and without it on a copy whose ``temporalROI.txt`` files were rewritten to
the intersection of the range with each video's temporal ROI, worked out here with
``max`` and ``min``. Both must give the same numbers.
"""

from __future__ import annotations

import csv
import dataclasses
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from referee.core.cli.main import main
from referee.core.demo.dataset import DemoLayout
from referee.core.demo.project import ensure_demo_project
from referee.core.formats import project_json
from referee.core.model.project import Project
from referee.core.model.videos import FrameRange

#: The demo's temporal ROIs are 31–150, 37–180 and 33–160: this range cuts all three, and
#: starts before one of them.
RANGE = "35:100"


def rewritten(demo: DemoLayout, folder: Path, frames: str) -> Path:
    """A copy of the demo dataset whose temporal ROIs are their intersection with ``frames``."""
    copy = folder / "dataset"
    shutil.copytree(demo.dataset, copy)
    rewrite_temporal_rois(copy, frames)
    return copy


def rewrite_temporal_rois(dataset: Path, frames: str) -> None:
    """Make every ``temporalROI.txt`` of ``dataset`` its intersection with ``frames``."""
    first, last = (int(end) if end else None for end in frames.split(":"))
    for roi in dataset.glob("*/*/temporalROI.txt"):
        start, end = (int(n) for n in roi.read_text().split())
        start = start if first is None else max(start, first)
        end = end if last is None else min(end, last)
        assert start <= end
        roi.write_text(f"{start} {end}\n")


def run(*arguments: object) -> int:
    return main([str(a) for a in arguments])


def without_parameters(path: Path) -> dict[str, Any]:
    """A JSON output without its parameters (they name the dataset and the range)."""
    document = json.loads(path.read_text(encoding="utf-8"))
    parameters = document.pop("parameters")
    return {**document, "dataset": Path(parameters["dataset"]).name}


def frames_recorded(path: Path) -> object:
    return json.loads(path.read_text(encoding="utf-8"))["parameters"]["frames"]


@pytest.mark.parametrize("frames", [RANGE, "100:", ":50"])
def test_evaluate_reads_the_frames_of_the_range_only(
    demo: DemoLayout, tmp_path: Path, frames: str, capsys: pytest.CaptureFixture[str]
) -> None:
    dataset = rewritten(demo, tmp_path, frames)
    results = [demo.results["mog2"], demo.results["knn"]]
    ranged, expected, whole = (
        tmp_path / "ranged.json",
        tmp_path / "rewritten.json",
        tmp_path / "whole.json",
    )
    assert (
        run("evaluate", demo.dataset, *results, "--frames", frames, "--json", ranged, "--quiet")
        == 0
    )
    assert run("evaluate", dataset, *results, "--json", expected, "--quiet") == 0
    assert run("evaluate", demo.dataset, *results, "--json", whole, "--quiet") == 0
    assert without_parameters(ranged) == without_parameters(expected)
    assert without_parameters(ranged) != without_parameters(whole)
    assert frames_recorded(ranged) == frames and frames_recorded(whole) is None


def test_pseudo_reads_the_frames_of_the_range_only(
    demo: DemoLayout, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dataset = rewritten(demo, tmp_path, RANGE)
    results = [demo.results[m] for m in ("mog2", "knn", "cnt")]
    ranged, expected = tmp_path / "ranged.json", tmp_path / "rewritten.json"
    assert (
        run("pseudo", demo.dataset, *results, "--frames", RANGE, "--json", ranged, "--quiet") == 0
    )
    assert run("pseudo", dataset, *results, "--json", expected, "--quiet") == 0
    assert without_parameters(ranged) == without_parameters(expected)
    assert frames_recorded(ranged) == RANGE


def test_curves_sweep_the_frames_of_the_range_only(
    demo: DemoLayout, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dataset = rewritten(demo, tmp_path, RANGE)
    soft = list(demo.soft_results.values())
    ranged, expected, whole = (tmp_path / f"{n}.csv" for n in ("ranged", "rewritten", "whole"))
    assert run("curves", demo.dataset, *soft, "--frames", RANGE, "--csv", ranged, "--quiet") == 0
    ranged_table = capsys.readouterr().out
    assert run("curves", dataset, *soft, "--csv", expected, "--quiet") == 0
    assert capsys.readouterr().out == ranged_table
    assert run("curves", demo.dataset, *soft, "--csv", whole, "--quiet") == 0
    assert ranged.read_text(encoding="utf-8") == expected.read_text(encoding="utf-8")
    assert ranged.read_text(encoding="utf-8") != whole.read_text(encoding="utf-8")


def test_rank_lists_frames_of_the_range_only(
    demo: DemoLayout, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dataset = rewritten(demo, tmp_path, RANGE)
    results = [demo.results["mog2"], demo.results["knn"]]
    ranged, expected = tmp_path / "ranged.csv", tmp_path / "rewritten.csv"
    common = ["--include-annotated", "--gap", "0", "--quiet"]
    assert run("rank", demo.dataset, *results, "--frames", RANGE, "--csv", ranged, *common) == 0
    assert "within frames 35:100" in capsys.readouterr().out
    assert run("rank", dataset, *results, "--csv", expected, *common) == 0
    assert ranged.read_text() == expected.read_text()
    with ranged.open(newline="") as table:
        listed = [int(row["frame"]) for row in csv.DictReader(table)]
    # plaza 35–100, street 37–100, corridor 35–100: every frame listed once (gap 0).
    assert len(listed) == 66 + 64 + 66 and min(listed) == 35 and max(listed) == 100


def test_significance_tests_the_frames_of_the_range_only(
    demo: DemoLayout, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dataset = rewritten(demo, tmp_path, RANGE)
    results = [demo.results["mog2"], demo.results["knn"]]
    ranged, expected = tmp_path / "ranged.json", tmp_path / "rewritten.json"
    assert run("significance", demo.dataset, *results, "--frames", RANGE, "--json", ranged) == 0
    assert run("significance", dataset, *results, "--json", expected) == 0
    assert without_parameters(ranged) == without_parameters(expected)
    assert frames_recorded(ranged) == RANGE


def test_estimate_uses_the_frames_of_the_range_only(
    demo: DemoLayout, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dataset = rewritten(demo, tmp_path, RANGE)
    results = [demo.results["mog2"], demo.results["knn"]]
    ranged, expected = tmp_path / "ranged.json", tmp_path / "rewritten.json"
    simulate = ["--simulate", "--labels", "8", "--quiet"]
    assert (
        run("estimate", demo.dataset, *results, "--frames", RANGE, "--json", ranged, *simulate) == 0
    )
    assert run("estimate", dataset, *results, "--json", expected, *simulate) == 0
    assert without_parameters(ranged) == without_parameters(expected)
    assert frames_recorded(ranged) == RANGE
    assert all(35 <= frame["frame"] <= 100 for frame in json.loads(ranged.read_text())["frames"])


def test_report_covers_the_frames_of_the_range_only(
    demo: DemoLayout, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dataset = rewritten(demo, tmp_path, RANGE)
    for outputs in ("results", "results-soft"):  # found next to the dataset
        (tmp_path / outputs).symlink_to(demo.root / outputs)
    ranged, expected = tmp_path / "ranged.json", tmp_path / "rewritten.json"
    assert run("report", demo.dataset, "--frames", RANGE, "--json", ranged, "--quiet") == 0
    assert run("report", dataset, "--json", expected, "--quiet") == 0
    reports = [json.loads(path.read_text(encoding="utf-8")) for path in (ranged, expected)]
    assert reports[0]["sections"] == reports[1]["sections"]
    videos = reports[0]["facts"]["videos"]
    assert videos == reports[1]["facts"]["videos"]
    assert "baseline/street frames 37–100" in videos


def test_demo_evaluates_the_frames_of_the_range_only(
    demo: DemoLayout, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ranged_root, expected_root = tmp_path / "ranged", tmp_path / "rewritten"
    shutil.copytree(demo.root, ranged_root)  # reused as it is: the demo is complete
    ensure_demo_project(ranged_root)  # its project file, with the annotated frames
    shutil.copytree(ranged_root, expected_root)
    rewrite_temporal_rois(expected_root / "dataset", RANGE)
    assert run("demo", "--dir", ranged_root, "--frames", RANGE, "--quiet") == 0
    assert run("demo", "--dir", expected_root, "--quiet") == 0
    ranged, expected = (
        root / "evaluation" / "results.json" for root in (ranged_root, expected_root)
    )
    assert without_parameters(ranged) == without_parameters(expected)
    assert frames_recorded(ranged) == RANGE and frames_recorded(expected) is None


# --- refused ranges ------------------------------------------------------------------------


def test_a_range_that_leaves_a_video_no_frame_is_one_line_naming_it(
    demo: DemoLayout, capsys: pytest.CaptureFixture[str]
) -> None:
    # plaza's temporal ROI ends at 150; the other videos have frames 151–160.
    status = run("evaluate", demo.dataset, demo.results["mog2"], "--frames", "151:160")
    error = capsys.readouterr().err
    assert status == 2
    assert error.count("\n") == 1 and error.startswith("referee: error:")
    assert "baseline/plaza" in error and "151:160" in error and "31 to 150" in error


@pytest.mark.parametrize("frames", ["5:3", "0:10", "abc", "7", ":", "1:2:3", "x:9"])
def test_a_malformed_range_is_an_option_error(
    demo: DemoLayout, frames: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit:
        run("evaluate", demo.dataset, demo.results["mog2"], f"--frames={frames}")
    assert exit.value.code == 2
    assert "argument --frames" in capsys.readouterr().err


def test_a_video_without_a_temporal_roi_refuses_a_range(
    demo: DemoLayout, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Pseudo ground truth takes the frames every detector has from such a video."""
    dataset = rewritten(demo, tmp_path, RANGE)
    (dataset / "baseline" / "street" / "temporalROI.txt").unlink()
    results = [demo.results["mog2"], demo.results["knn"]]
    assert run("pseudo", dataset, *results, "--frames", RANGE, "--quiet") == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "baseline/street has no temporalROI.txt" in error


def test_inputs_without_a_dataset_refuse_a_range(
    demo: DemoLayout, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    scores = tmp_path / "scores.csv"
    scores.write_text("case,A,B\n1,0.5,0.7\n2,0.4,0.6\n3,0.6,0.9\n", encoding="utf-8")
    detections = [demo.actions[m] for m in list(demo.actions)[:2]]
    assert run("significance", "--scores", scores, "--frames", "1:5") == 2
    assert run("rank", *detections, "--frames", "1:5") == 2
    errors = capsys.readouterr().err.splitlines()
    assert len(errors) == 2 and all("--frames" in line for line in errors)


def test_a_project_file_does_not_keep_the_range(tmp_path: Path) -> None:
    project = Project(name="p", dataset=tmp_path, frame_range=FrameRange(3, 9))
    written = project_json.write_project(project, tmp_path / "p.referee.json")
    assert written.frame_range == FrameRange(3, 9)
    document = json.loads((tmp_path / "p.referee.json").read_text(encoding="utf-8"))
    assert "3" not in json.dumps(document) and not any("frame" in key for key in document)
    read = project_json.read_project(tmp_path / "p.referee.json")
    assert read == dataclasses.replace(written, frame_range=None)
