"""The catalogue of bad inputs: project files whose record or sources do not fit the data.

A kilobyte of JSON used to claim ten million annotated frames per video and exhaust
memory in ``report`` and ``boxes --project`` (5.4 GB); a project naming a counts folder
or a video file that does not exist gave a report without a word. Each case runs
``referee`` as a user would, bounded in time and memory.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from referee.core.demo.dataset import DemoLayout
from referee.core.formats.project_json import write_project
from referee.core.model.project import DetectorSource, Project
from tests.robustness.conftest import assert_refused, run_referee

#: Peak memory of a run that refuses a project before reading frames (the interpreter,
#: numpy and OpenCV take about 150 MiB; expanding the claimed frames took GBs).
LOW_MEMORY_MIB = 600
#: A refusal comes before any heavy work; more than this means it did the work.
REFUSAL_SECONDS = 60


def _project(demo: DemoLayout, folder: Path, **fields: object) -> Path:
    """The demo's dataset (copied) with two mask detectors, and ``fields``."""
    dataset = Path(shutil.copytree(demo.dataset, folder / "dataset"))
    detectors = tuple(DetectorSource(m, masks=demo.results[m]) for m in ("mog2", "knn"))
    project = Project("records", dataset=dataset, detectors=detectors, **fields)  # type: ignore[arg-type]
    return write_project(project, folder / "records.referee.json").file  # type: ignore[return-value]


def _claiming(path: Path, annotated: dict[str, list[list[int]]]) -> Path:
    document = json.loads(path.read_text(encoding="utf-8"))
    path.write_text(json.dumps({**document, "annotated": annotated}), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    "command",
    [
        ("report", "{project}", "--json", "{out}", "--quiet"),
        ("boxes", "{gt}", "{gt}", "--project", "{project}", "--quiet"),
    ],
    ids=["report", "boxes --project"],
)
def test_ten_million_claimed_frames_are_refused_without_using_memory(
    demo: DemoLayout, tmp_path: Path, command: tuple[str, ...]
) -> None:
    project = _project(demo, tmp_path)
    videos = ("baseline/street", "baseline/plaza", "shadow/corridor")
    _claiming(project, {video: [[1, 10_000_000]] for video in videos})
    values = {"project": project, "out": tmp_path / "out.json", "gt": demo.actions_gt}
    outcome = run_referee(*(part.format(**values) for part in command), timeout=REFUSAL_SECONDS)
    # The first video in the dataset's order, category then name, is baseline/plaza (150 frames).
    assert_refused(outcome, project.name, "frame 10,000,000", "baseline/plaza", "end at 150")
    assert outcome.peak_rss_mib < LOW_MEMORY_MIB


def test_origins_beyond_the_video_are_refused(demo: DemoLayout, tmp_path: Path) -> None:
    project = _project(demo, tmp_path)
    document = json.loads(project.read_text(encoding="utf-8"))
    document.update(
        version=2,
        origins={"baseline/plaza": [[99_999, 99_999, "consensus", "2026-11-26T10:00:00Z"]]},
    )
    project.write_text(json.dumps(document), encoding="utf-8")
    outcome = run_referee("report", project, "--json", tmp_path / "o.json", "--quiet")
    assert_refused(outcome, project.name, "frame 99,999", "end at 150")


@pytest.mark.parametrize(
    "bad",
    [
        ("annotated", {"baseline/plaza": [[5, 3]]}, "first ≤ last"),
        ("annotated", {"baseline/plaza": [[-4, 3]]}, "from 1 to"),
        ("annotated", {"baseline/plaza": [[40, 50], [45, 60]]}, "overlaps"),
        ("annotated", {"baseline/plaza": {"first": 1}}, "list of [first, last] runs"),
        ("annotated", ["baseline/plaza"], "must be an object"),
    ],
    ids=["reversed run", "negative frame", "overlapping runs", "object for runs", "list"],
)
def test_a_malformed_record_is_one_line(
    demo: DemoLayout, tmp_path: Path, bad: tuple[str, object, str]
) -> None:
    project = _project(demo, tmp_path)
    key, value, problem = bad
    document = json.loads(project.read_text(encoding="utf-8"))
    project.write_text(json.dumps({**document, key: value}), encoding="utf-8")
    outcome = run_referee("report", project, "--json", tmp_path / "o.json", "--quiet")
    assert_refused(outcome, project.name, problem)


def test_a_missing_counts_folder_is_named_before_the_report(
    demo: DemoLayout, tmp_path: Path
) -> None:
    project = _project(demo, tmp_path, counts=tmp_path / "counts-gone")
    out = tmp_path / "report.json"
    outcome = run_referee("report", project, "--json", out, "--quiet", timeout=REFUSAL_SECONDS)
    assert_refused(outcome, "counts-gone", "counts folder does not exist", project.name)
    assert not out.exists()


def test_a_missing_video_file_is_named_before_the_report(demo: DemoLayout, tmp_path: Path) -> None:
    project = _project(demo, tmp_path, video_files=(tmp_path / "lobby.mp4",))
    out = tmp_path / "report.json"
    outcome = run_referee("report", project, "--json", out, "--quiet", timeout=REFUSAL_SECONDS)
    assert_refused(outcome, "lobby.mp4", "video file does not exist", project.name)
    assert not out.exists()
