"""A project that records which frames are annotated (docs/measures.md §8)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest

from referee.core.errors import InputFileError
from referee.core.formats.cdnet import discover_videos
from referee.core.formats.project_json import read_project, write_project
from referee.core.model.project import DetectorSource, Project, with_annotated
from referee.core.workflow.options import PixelOptions, RankingOptions
from referee.core.workflow.pixels import run_pixels
from referee.core.workflow.projects import project_videos
from referee.core.workflow.ranking import run_ranking
from tests.core.test_evaluate import make_dataset, make_results, reference_rows

OFFICE = "baseline/office"
RECORDED = (3, 4, 5, 6, 7, 8, 9, 10, 20, 40)


@pytest.fixture()
def project(tmp_path: Path) -> Project:
    folders = make_dataset(tmp_path / "data")
    make_results(tmp_path / "a", discover_videos(tmp_path / "data"), seed=1)
    make_results(tmp_path / "b", discover_videos(tmp_path / "data"), seed=2)
    # Frames of office that are not recorded lose their ground truth: they must not be read.
    for gt in (folders[("baseline", "office")] / "groundtruth").iterdir():
        if int(gt.stem[2:]) not in RECORDED:
            gt.unlink()
    base = Project(
        "p",
        dataset=tmp_path / "data",
        detectors=(
            DetectorSource("a", masks=tmp_path / "a"),
            DetectorSource("b", masks=tmp_path / "b"),
        ),
    )
    # Frame 2 is outside office's temporal ROI (3–40): recorded but not evaluated.
    return with_annotated(base, OFFICE, [20, 2, *RECORDED[:-2], 40, 20])


def test_the_record_survives_a_round_trip(project: Project, tmp_path: Path) -> None:
    saved = write_project(project, tmp_path / "p.referee.json")
    document = json.loads(saved.file.read_text())  # type: ignore[union-attr]
    assert document["annotated"] == {OFFICE: [[2, 10], [20, 20], [40, 40]]}
    again = read_project(saved.file)  # type: ignore[arg-type]
    assert [(label, tuple(frames)) for label, frames in again.annotated] == [
        (OFFICE, (2, *RECORDED))
    ]
    assert again.annotated_frames("baseline/pets") is None


@pytest.mark.parametrize(
    ("runs", "problem"),
    [
        ([[5, 3]], "first ≤ last"),
        ([[0, 3]], "from 1 to"),
        ([[1, 5], [5, 9]], "overlaps"),
        ([[9, 12], [1, 2]], "overlaps or comes before"),
        ([[1.5, 2]], "is not a run"),
        ("1-5", "must be a list"),
    ],
)
def test_bad_records_are_refused(tmp_path: Path, runs: object, problem: str) -> None:
    file = tmp_path / "p.referee.json"
    document = {"format": "referee-project", "version": 1, "name": "p", "annotated": {"v": runs}}
    file.write_text(json.dumps(document))
    with pytest.raises(InputFileError, match=problem) as caught:
        read_project(file)
    assert str(file) in str(caught.value)


@pytest.mark.parametrize("workers", [1, 2])
def test_only_recorded_frames_are_evaluated(project: Project, tmp_path: Path, workers: int) -> None:
    result = run_pixels(project, PixelOptions(workers=workers))
    office = next(v for v in project_videos(project) if v.label == OFFICE)
    assert office.partly_annotated and list(office.truth_frames) == list(RECORDED)
    for name in ("a", "b"):
        evaluation = next(e for e in result.evaluations[name] if e.video == "office")
        folder = tmp_path / name / "baseline" / "office"
        # reference_rows reads every frame of a video's temporal ROI: one frame at a time.
        expected = np.concatenate(
            [reference_rows(dataclasses.replace(office, first=f, last=f), folder) for f in RECORDED]
        )
        assert np.array_equal(evaluation.per_frame, expected)
        others = [e for e in result.evaluations[name] if e.video != "office"]
        assert [len(e.frames) for e in others] == [25, 5]  # pets 1–25, loose 5–9: the whole ROI


def test_ranking_skips_the_recorded_frames_only(project: Project) -> None:
    ranked = run_ranking(project, RankingOptions(gap=0)).frames
    office = {r.frame for r in ranked if r.video == OFFICE}
    # Every frame of the temporal ROI that is not recorded, whether or not a file exists.
    assert office == set(range(3, 41)) - set(RECORDED)


def test_the_report_counts_only_the_annotated_frames_and_says_how_many(
    demo, tmp_path: Path
) -> None:
    import csv
    import os
    import shutil

    import cv2

    from referee.core.cli.main import main
    from referee.core.demo.project import (
        ANNOTATED_EVERY,
        PARTLY_ANNOTATED_VIDEO,
        ensure_demo_project,
    )
    from referee.core.formats.project_json import write_project
    from referee.core.model.origins import CONSENSUS, PAINTED, AcceptedRun
    from referee.core.model.project import with_origins

    root = tmp_path / "demo"
    shutil.copytree(demo.root, root, copy_function=os.link)  # links: nothing is written
    project = ensure_demo_project(root)  # the newcomer's demo: the corridor partly annotated
    # Three of its annotated frames were accepted in Referee: two from the consensus (one
    # run), one painted; the others were on disk before.
    first = project.annotated_frames(PARTLY_ANNOTATED_VIDEO)[0]  # type: ignore[index]
    step = ANNOTATED_EVERY
    runs = (
        AcceptedRun(first, first, CONSENSUS, "2026-11-26T10:00:00Z"),
        AcceptedRun(first + step, first + step, CONSENSUS, "2026-11-26T10:01:00Z"),
        AcceptedRun(first + 2 * step, first + 2 * step, PAINTED, "2026-11-26T10:02:00Z"),
    )
    write_project(with_origins(project, PARTLY_ANNOTATED_VIDEO, runs), project.file)  # type: ignore[arg-type]
    tables = tmp_path / "tables"
    assert main(["report", str(root), "--csv", str(tables), "--quiet"]) == 0

    def rows(name: str) -> list[dict[str, str]]:
        with open(tables / f"{name}.csv", encoding="utf-8", newline="") as handle:
            return list(csv.DictReader(handle))

    corridor = next(r for r in rows("videos") if r["video"] == "corridor")
    frames = range(int(corridor["first frame"]), int(corridor["last frame"]) + 1)
    kept = list(frames[::ANNOTATED_EVERY])
    assert (int(corridor["frames"]), int(corridor["annotated frames"])) == (len(frames), len(kept))
    # mog2's true positives on the corridor: a plain numpy count over the kept frames only.
    folder = root / "dataset" / PARTLY_ANNOTATED_VIDEO
    roi = cv2.imread(str(folder / "ROI.bmp"), cv2.IMREAD_GRAYSCALE) > 0
    tp = 0
    for frame in kept:
        gt = cv2.imread(str(folder / "groundtruth" / f"gt{frame:06d}.png"), cv2.IMREAD_UNCHANGED)
        mask = cv2.imread(
            str(root / "results" / "mog2" / PARTLY_ANNOTATED_VIDEO / f"bin{frame:06d}.png"),
            cv2.IMREAD_GRAYSCALE,
        )
        tp += int(np.sum(roi & (gt == 255) & (mask == 255)))
    counts = next(
        r
        for r in rows("per-video-counts")
        if r["detector"] == "mog2" and r["video"] == PARTLY_ANNOTATED_VIDEO
    )
    assert (int(counts["frames"]), int(counts["TP"])) == (len(kept), tp)
    sources = {r["source"]: int(r["frames"]) for r in rows("annotation-sources")}
    assert sources == {"consensus": 2, "painted": 1, "recorded before": len(kept) - 3}
