"""The Data dock's cheap checks: every source that cannot be read is a failed row that
names its file and says why (core.workflow.sources)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from referee.core.demo.dataset import DemoLayout, ensure_demo
from referee.core.demo.project import demo_project
from referee.core.model.project import DetectorSource, Project
from referee.core.workflow.sources import SourceStatus, failed_sources, source_status


@pytest.fixture
def damaged(demo: DemoLayout, tmp_path: Path) -> DemoLayout:
    """A private copy of the demo (real copies: tests overwrite its files)."""
    root = shutil.copytree(demo.root, tmp_path / "demo")
    return ensure_demo(root)  # reuses the copied demo: its marker is complete


def _plaza(demo: DemoLayout):
    return next(v for v in demo.videos if v.name == "plaza")


def _rows(project: Project) -> dict[tuple[str, str], SourceStatus]:
    return {(row.group, row.kind): row for row in source_status(project)}


def test_a_first_mask_that_does_not_decode_fails_its_detector(damaged: DemoLayout) -> None:
    plaza = _plaza(damaged)
    first = plaza.temporal_roi[0]
    mask = damaged.results["knn"] / "baseline" / "plaza" / f"bin{first:06d}.png"
    mask.write_bytes(b"these bytes are not a PNG image")
    rows = _rows(demo_project(damaged))
    knn = rows[("knn", "masks")]
    assert knn.state == "error" and knn.path == damaged.results["knn"]
    # The row names the results folder; its message names the file inside it, and why.
    assert knn.message.startswith(
        f"baseline/plaza/bin{first:06d}.png: cannot decode this result (frame {first})"
    )
    assert rows[("mog2", "masks")].state == "loaded"


def test_a_first_input_frame_that_does_not_decode_fails_the_dataset(
    damaged: DemoLayout,
) -> None:
    plaza = _plaza(damaged)
    first = plaza.temporal_roi[0]
    frame = damaged.dataset / "baseline" / "plaza" / "input" / f"in{first:06d}.jpg"
    frame.write_bytes(b"these bytes are not a JPEG image")
    dataset = _rows(demo_project(damaged))[("Dataset", "dataset")]
    assert dataset.state == "error"
    assert dataset.message == (
        f"baseline/plaza/input/{frame.name}: input frame {first} cannot be decoded as an image"
    )


def test_a_counts_file_that_does_not_parse_fails_its_row(damaged: DemoLayout) -> None:
    counts = damaged.root / "counts" / "baseline_plaza" / "cnt.csv"
    counts.write_text("frame,count\n1,many\n", encoding="utf-8")
    rows = _rows(demo_project(damaged))
    row = rows[("cnt", "counts")]
    assert row.state == "error" and row.message.startswith("baseline_plaza/cnt.csv: line 2")
    assert rows[("Ground truth", "counts")].state == "loaded"


def test_box_files_are_read(damaged: DemoLayout, tmp_path: Path) -> None:
    broken = tmp_path / "boxes.xml"
    broken.write_text("<tagset><video>", encoding="utf-8")
    project = Project(
        "p",
        boxes_groundtruth=damaged.actions_gt,
        detectors=(DetectorSource("b", boxes=broken),),
    )
    rows = _rows(project)
    truth = rows[("Ground truth", "boxes")]
    assert truth.state == "loaded" and truth.message.endswith("boxes of 3 videos")
    detector = rows[("b", "boxes")]
    assert (detector.state, detector.path) == ("error", broken)
    assert "not well-formed XML" in detector.message


def test_failed_sources_keeps_the_rows_that_could_not_be_read(damaged: DemoLayout) -> None:
    damaged.actions["cnt"].write_text("<tagset><video>", encoding="utf-8")
    shutil.rmtree(damaged.results["mog"])
    rows = source_status(demo_project(damaged))
    failed = failed_sources(rows)
    assert [(row.group, row.kind, row.state) for row in failed] == [
        ("mog", "masks", "missing"),
        ("cnt", "actions", "error"),
    ]
    assert all(row.failed for row in failed)
    assert sum(not row.failed for row in rows) == len(rows) - 2


def test_a_motchallenge_benchmark_is_described_and_its_trackers_checked(tmp_path: Path) -> None:
    gt = tmp_path / "gt"
    (gt / "seqmaps").mkdir(parents=True)
    (gt / "seqmaps" / "MOT17-train.txt").write_text("name\nA\nB\n", encoding="utf-8")
    for sequence in ("A", "B"):
        (gt / "MOT17-train" / sequence / "gt").mkdir(parents=True)
        (gt / "MOT17-train" / sequence / "gt" / "gt.txt").write_text(
            "1,1,10,10,20,40,1,1,1\n", encoding="utf-8"
        )
    whole, partial = tmp_path / "whole" / "data", tmp_path / "partial" / "data"
    for folder, sequences in ((whole, ("A", "B")), (partial, ("A",))):
        folder.mkdir(parents=True)
        for sequence in sequences:
            (folder / f"{sequence}.txt").write_text("1,-1,10,10,20,40,0.9\n", encoding="utf-8")
    project = Project(
        "p",
        boxes_groundtruth=gt,
        detectors=(
            DetectorSource("whole", boxes=whole.parent),
            DetectorSource("partial", boxes=partial.parent),
        ),
    )
    rows = _rows(project)
    truth = rows[("Ground truth", "boxes")]
    assert truth.state == "loaded"
    assert truth.message == "MOTChallenge benchmark of 2 sequences (seqmap MOT17-train.txt)"
    assert rows[("whole", "boxes")].message == "MOTChallenge tracker files of 2 sequences"
    missing = rows[("partial", "boxes")]
    assert missing.state == "error" and "B.txt" in f"{missing.path} {missing.message}"
