"""The project model and its ``*.referee.json`` files."""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest

from referee.core.demo.dataset import (
    BINARY_METHODS,
    SOFT_METHODS,
    TRACKED_METHODS,
    DemoLayout,
    ensure_demo,
)
from referee.core.demo.project import (
    ANNOTATED_EVERY,
    PARTLY_ANNOTATED_VIDEO,
    demo_project,
    ensure_demo_project,
)
from referee.core.errors import InputFileError, InvalidOptionError
from referee.core.formats.project_json import read_project, write_project
from referee.core.model.project import (
    DetectorSource,
    Project,
    with_annotated,
    with_detector,
    without_detector,
)
from referee.core.workflow.projects import list_project, open_path, project_videos
from referee.core.workflow.sources import source_status


@pytest.fixture
def demo_copy(demo: DemoLayout, tmp_path: Path) -> DemoLayout:
    """A private copy of the demo, free to move or to damage by removing files.

    Its files are hard links to the session's demo (fast): never write into one.
    """
    root = tmp_path / "copy" / "demo"
    shutil.copytree(demo.root, root, copy_function=os.link)
    return ensure_demo(root)  # reuses the copied demo: its marker is complete


def _tiny_video(path: Path, frames: int = 3) -> Path:
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10.0, (32, 24))
    for value in range(frames):
        writer.write(np.full((24, 32, 3), 40 * value, np.uint8))
    writer.release()
    return path


def _states(project: Project) -> dict[tuple[str, str], tuple[str, str]]:
    return {(row.group, row.kind): (row.state, row.message) for row in source_status(project)}


# --------------------------------------------------------------------------- files


def test_written_project_reads_back_equal(demo: DemoLayout, tmp_path: Path) -> None:
    clip = tmp_path / "clips" / "lobby.mp4"
    project = Project(
        name="Étude",
        dataset=demo.dataset,
        video_files=(clip, demo.root / "other.avi"),
        actions_groundtruth=demo.actions_gt,
        counts=demo.root / "counts",
        detectors=(
            DetectorSource("a", masks=demo.results["knn"]),
            DetectorSource(
                "b", scores=demo.soft_results["running-average"], actions=demo.actions["cnt"]
            ),
        ),
    )
    file = tmp_path / "study.referee.json"
    written = write_project(project, file)
    assert written.file == file
    assert read_project(file) == dataclasses.replace(project, file=file)


def test_project_file_holds_paths_relative_to_its_folder(tmp_path: Path) -> None:
    layout = DemoLayout(
        root=tmp_path,
        dataset=tmp_path / "dataset",
        results={m: tmp_path / "results" / m for m in BINARY_METHODS},
        soft_results={m: tmp_path / "results-soft" / m for m in SOFT_METHODS},
        videos=(),
        seed=0,
        actions_gt=tmp_path / "actions" / "groundtruth.xml",
        actions={m: tmp_path / "actions" / f"{m}.xml" for m in TRACKED_METHODS},
        counts={},
    )
    file = tmp_path / "p.referee.json"
    write_project(demo_project(layout), file)
    stored = json.loads(file.read_text(encoding="utf-8"))
    assert stored["format"] == "referee-project" and stored["version"] == 1
    assert stored["dataset"] == "dataset"
    assert stored["actions_groundtruth"] == "actions/groundtruth.xml"
    assert stored["counts"] == "counts"
    first = stored["detectors"][0]
    assert first == {
        "name": "mog2",
        "masks": "results/mog2",
        "scores": None,
        "actions": "actions/mog2.xml",
    }
    assert stored["detectors"][4]["scores"] == "results-soft/running-average"


def test_paths_outside_the_folder_go_up(tmp_path: Path) -> None:
    file = tmp_path / "projects" / "p.referee.json"
    file.parent.mkdir()
    write_project(Project("p", dataset=tmp_path / "data" / "cdnet"), file)
    assert json.loads(file.read_text(encoding="utf-8"))["dataset"] == "../data/cdnet"


def test_moved_project_folder_resolves_to_its_new_place(
    demo_copy: DemoLayout, tmp_path: Path
) -> None:
    write_project(demo_project(demo_copy), demo_copy.root / "p.referee.json")
    moved = tmp_path / "elsewhere" / "moved"
    moved.parent.mkdir()
    shutil.move(demo_copy.root, moved)
    project = read_project(moved / "p.referee.json")
    assert project.dataset == moved / "dataset"
    assert project.detector("knn").masks == moved / "results" / "knn"
    assert project.file == moved / "p.referee.json"
    assert all(row.state == "loaded" for row in source_status(project))


_VALID = {"format": "referee-project", "version": 1, "name": "p"}


@pytest.mark.parametrize(
    "content, problem",
    [
        ('{\n  "format": "referee-project"\n  "version": 1\n}', "not valid JSON: line 3, column 3"),
        ("[1, 2]", "must hold a JSON object"),
        ('{"version": 1, "name": "p"}', "'format' is missing"),
        (json.dumps({**_VALID, "format": "labelme"}), "'format' is 'labelme'"),
        (json.dumps({**_VALID, "version": 4}), "version 4 is not supported"),
        (json.dumps({**_VALID, "origins": {}}), "'origins' needs version 2"),
        (
            json.dumps({**_VALID, "version": 2, "origins": {"v": [[1, 2, "guessed", "x"]]}}),
            "'guessed' is not a source",
        ),
        (
            json.dumps(
                {**_VALID, "version": 2, "origins": {"v": [[1, 2, "painted", "yesterday"]]}}
            ),
            "'yesterday' is not a UTC time",
        ),
        (json.dumps({**_VALID, "version": "1"}), "'version' must be a whole number, 1 to 3"),
        (json.dumps({"format": "referee-project", "version": 1}), "'name' is missing"),
        (json.dumps({**_VALID, "name": 7}), "'name' must be a string, not a number"),
        (json.dumps({**_VALID, "name": "  "}), "'name' is empty"),
        (json.dumps({**_VALID, "dataset": ""}), "'dataset' is an empty string"),
        (json.dumps({**_VALID, "video_files": "a.mp4"}), "'video_files' must be a list"),
        (json.dumps({**_VALID, "detector": []}), "unknown key 'detector'"),
        (json.dumps({**_VALID, "detectors": ["mog2"]}), "detectors[0] must be an object"),
        (json.dumps({**_VALID, "detectors": [{"name": ""}]}), "'detectors[0].name' is empty"),
        (json.dumps({**_VALID, "detectors": [{"masks": "r"}]}), "'detectors[0].name' is missing"),
        (
            json.dumps({**_VALID, "detectors": [{"name": "a", "masks": 5}]}),
            "'detectors[0].masks' must be a string",
        ),
        (
            json.dumps({**_VALID, "detectors": [{"name": "a", "mask": "r"}]}),
            "unknown key 'mask' in detectors[0]",
        ),
        (
            json.dumps({**_VALID, "detectors": [{"name": "a"}, {"name": "a"}]}),
            "detector name 'a' is given twice",
        ),
        (
            json.dumps({**_VALID, "detectors": [{"name": "groundtruth"}]}),
            "'groundtruth' cannot name a detector",
        ),
    ],
)
def test_bad_project_file_names_file_and_problem(
    tmp_path: Path, content: str, problem: str
) -> None:
    file = tmp_path / "bad.referee.json"
    file.write_text(content, encoding="utf-8")
    with pytest.raises(InputFileError) as caught:
        read_project(file)
    assert caught.value.path == file
    assert str(caught.value).startswith(f"{file}: ")
    assert problem in str(caught.value)


def test_project_file_that_is_not_text_names_the_file(tmp_path: Path) -> None:
    file = tmp_path / "binary.referee.json"
    file.write_bytes(b"\xff\xfe\x00\x81")
    with pytest.raises(InputFileError, match=r"binary\.referee\.json"):
        read_project(file)


# --------------------------------------------------------------------------- opening


def test_open_dataset_folder_finds_the_results_next_to_it(demo: DemoLayout) -> None:
    project = open_path(demo.dataset)
    assert project.name == "dataset" and project.dataset == demo.dataset
    assert {d.name for d in project.detectors} == set(BINARY_METHODS)
    for method in BINARY_METHODS:
        assert project.detector(method).masks == demo.results[method]
        assert project.detector(method).scores == demo.soft_results.get(method)
    keys = {(v.category, v.name) for v in project_videos(project)}
    assert keys == {(v.category, v.name) for v in demo.videos}


def test_open_one_video_folder(demo: DemoLayout) -> None:
    video = demo.videos[1]
    project = open_path(video.path)
    assert project.name == video.name and project.dataset == video.path
    [spec] = project_videos(project)
    assert spec.folder == video.path and (spec.first, spec.last) == video.temporal_roi


def test_open_project_file_and_project_folder(demo: DemoLayout, tmp_path: Path) -> None:
    file = tmp_path / "mine.referee.json"
    masks = demo.results["mog"]
    write_project(Project("mine", detectors=(DetectorSource("x", masks=masks),)), file)
    expected = Project("mine", detectors=(DetectorSource("x", masks=masks),), file=file)
    assert open_path(file) == expected
    assert open_path(tmp_path) == expected
    write_project(Project("other"), tmp_path / "other.referee.json")
    with pytest.raises(InputFileError, match="several project files"):
        open_path(tmp_path)


def test_open_video_file(tmp_path: Path) -> None:
    clip = _tiny_video(tmp_path / "lobby.avi")
    project = open_path(clip)
    assert project == Project(name="lobby", video_files=(clip,))
    assert _states(project)[("Videos", "video")] == ("loaded", "32x24 pixels")


@pytest.mark.parametrize(
    "content",
    [
        b"this is not a video\n" * 50,  # a text file renamed .mp4
        b"\x00\x00\x00\x18ftypmp42",  # an MP4 cut after its first bytes
    ],
)
def test_open_video_file_that_does_not_decode_says_so_in_one_line(
    tmp_path: Path, content: bytes
) -> None:
    clip = tmp_path / "bad.mp4"
    clip.write_bytes(content)
    with pytest.raises(InputFileError) as caught:
        open_path(clip)
    assert caught.value.path == clip
    assert str(caught.value) == (
        f"{clip}: not a video OpenCV can decode (no frame could be read): the file is "
        "corrupt, truncated or not a video, or its codec is not supported"
    )


@pytest.mark.parametrize(
    "name, problem",
    [
        ("notes.txt", "Referee cannot open this kind of file"),
        ("absent.mp4", "does not exist"),
        ("empty-folder", "holds no CDnet video"),
    ],
)
def test_open_unsupported_path_says_what_referee_opens(
    tmp_path: Path, name: str, problem: str
) -> None:
    target = tmp_path / name
    if name == "notes.txt":
        target.write_text("hello", encoding="utf-8")
    elif name == "empty-folder":
        target.mkdir()
    with pytest.raises(InputFileError) as caught:
        open_path(target)
    assert caught.value.path == target
    assert problem in str(caught.value)
    assert "CDnet dataset folder" in str(caught.value) and ".mp4" in str(caught.value)


def test_open_broken_video_folder_keeps_its_own_error(demo_copy: DemoLayout) -> None:
    video = demo_copy.videos[0].path
    (video / "ROI.bmp").unlink()
    with pytest.raises(InputFileError) as caught:
        open_path(demo_copy.dataset)
    assert caught.value.path == video / "ROI.bmp"


# --------------------------------------------------------------------------- demo and editing


def test_demo_project_has_every_demo_detector(demo: DemoLayout) -> None:
    project = demo_project(demo)
    assert tuple(d.name for d in project.detectors) == BINARY_METHODS
    for detector in project.detectors:
        assert detector.masks == demo.root / "results" / detector.name
        assert detector.masks.is_dir()
        assert (detector.scores is not None) == (detector.name in SOFT_METHODS)
        assert (detector.actions is not None) == (detector.name in TRACKED_METHODS)
    assert project.dataset == demo.root / "dataset"
    assert project.actions_groundtruth == demo.root / "actions" / "groundtruth.xml"
    assert project.counts == demo.root / "counts"
    assert project.file == demo.root / "demo.referee.json"


def test_ensure_demo_project_keeps_an_edited_project(demo_copy: DemoLayout) -> None:
    file = demo_copy.root / "demo.referee.json"
    assert not file.exists()
    first = ensure_demo_project(demo_copy.root)
    # The demo as a project, with one video left partly annotated for the newcomer.
    recorded = first.annotated_frames(PARTLY_ANNOTATED_VIDEO)
    assert first == with_annotated(demo_project(demo_copy), PARTLY_ANNOTATED_VIDEO, recorded)
    corridor = next(v for v in project_videos(first) if v.label == PARTLY_ANNOTATED_VIDEO)
    assert tuple(recorded) == tuple(range(corridor.first, corridor.last + 1, ANNOTATED_EVERY))  # type: ignore[arg-type]
    assert [f for f in corridor.frames if corridor.gt_path(f).exists()] == list(recorded)
    stored = json.loads(file.read_text(encoding="utf-8"))
    stored["name"] = "edited"
    stored["detectors"] = stored["detectors"][:1]
    file.write_text(json.dumps(stored), encoding="utf-8")
    again = ensure_demo_project(demo_copy.root)
    assert again.name == "edited"
    assert [d.name for d in again.detectors] == ["mog2"]
    assert json.loads(file.read_text(encoding="utf-8"))["name"] == "edited"


def test_adding_and_removing_detectors(demo: DemoLayout) -> None:
    base = Project("p")
    one = with_detector(base, DetectorSource("a", masks=demo.results["mog"]))
    two = with_detector(one, DetectorSource("b"))
    assert [d.name for d in two.detectors] == ["a", "b"] and base.detectors == ()
    assert [d.name for d in without_detector(two, "a").detectors] == ["b"]
    with pytest.raises(InvalidOptionError, match="already has a detector 'a'"):
        with_detector(two, DetectorSource("a"))
    with pytest.raises(InvalidOptionError, match="cannot be empty"):
        with_detector(two, DetectorSource(" "))
    with pytest.raises(InvalidOptionError, match=r"no detector 'c'.*a, b"):
        without_detector(two, "c")


def test_project_without_dataset_has_no_videos() -> None:
    assert project_videos(Project("p")) == ()


def test_listing_a_project_gives_its_videos_and_the_frames_with_ground_truth(
    demo_copy: DemoLayout,
) -> None:
    video = demo_copy.videos[0]
    truth = video.path / "groundtruth"
    for frame in (2, 3, 9):  # the video becomes partly annotated
        (truth / f"gt{frame:06d}.png").unlink()
    project = open_path(demo_copy.dataset)
    listed = list_project(project)
    assert listed.project is project
    assert [(v.category, v.name) for v in listed.videos] == sorted(
        (v.category, v.name) for v in demo_copy.videos
    )
    for demo_video in demo_copy.videos:  # the files, listed here by hand
        names = os.listdir(demo_video.path / "groundtruth")
        expected = sorted(int(name[2:8]) for name in names if name.startswith("gt"))
        label = f"{demo_video.category}/{demo_video.name}"
        assert list(listed.annotated[label]) == expected
    assert 2 not in listed.annotated[f"{video.category}/{video.name}"]


def test_listing_a_project_with_nothing_to_show_names_its_file(tmp_path: Path) -> None:
    file = tmp_path / "empty.referee.json"
    with pytest.raises(InputFileError, match=r"empty\.referee\.json: the project is empty"):
        list_project(Project("empty", file=file))


# --------------------------------------------------------------------------- status


def test_status_of_the_demo_is_all_loaded(demo: DemoLayout) -> None:
    rows = source_status(demo_project(demo))
    assert {row.state for row in rows} == {"loaded"}
    kinds = {(row.group, row.kind) for row in rows}
    assert {
        ("Dataset", "dataset"),
        ("Ground truth", "actions"),
        ("Ground truth", "counts"),
        ("running-average", "scores"),
    } <= kinds
    assert {(m, "masks") for m in BINARY_METHODS} <= kinds
    assert {(m, "actions") for m in TRACKED_METHODS} <= kinds
    assert _states(demo_project(demo))[("Dataset", "dataset")] == (
        "loaded",
        "3 videos in 2 categories",
    )


def test_status_names_missing_results(demo_copy: DemoLayout) -> None:
    shutil.rmtree(demo_copy.results["mog"])
    plaza = next(v for v in demo_copy.videos if v.name == "plaza")
    shutil.rmtree(demo_copy.results["knn"] / plaza.category / plaza.name)
    states = _states(demo_project(demo_copy))
    assert states[("mog", "masks")] == ("missing", "masks folder does not exist")
    state, message = states[("knn", "masks")]
    assert state == "missing" and message == f"no masks for 1 video: {plaza.category}/plaza"
    assert states[("mog2", "masks")][0] == "loaded"


def test_status_reports_corrupt_actions_and_videos(tmp_path: Path) -> None:
    corrupt = tmp_path / "cnt.xml"
    corrupt.write_text("<tagset><video>", encoding="utf-8")
    broken = tmp_path / "broken.mp4"
    broken.write_bytes(b"not a video at all" * 10)
    project = Project(
        "p",
        video_files=(broken, tmp_path / "gone.mp4"),
        detectors=(DetectorSource("cnt", actions=corrupt),),
    )
    rows = {(row.group, row.name): row for row in source_status(project)}
    actions = rows[("cnt", "actions")]
    # The row names the file; its message says what is wrong without repeating the path.
    assert actions.state == "error" and actions.path == corrupt
    assert "not well-formed XML" in actions.message and str(corrupt) not in actions.message
    video = rows[("Videos", "broken.mp4")]
    assert (video.state, video.path) == ("error", broken)
    assert video.message.startswith("not a video OpenCV can decode")
    assert rows[("Videos", "gone.mp4")].state == "missing"


def test_status_of_a_missing_dataset_and_counts(tmp_path: Path) -> None:
    project = Project("p", dataset=tmp_path / "no-data", counts=tmp_path / "no-counts")
    states = _states(project)
    assert states[("Dataset", "dataset")] == ("missing", "dataset folder does not exist")
    assert states[("Ground truth", "counts")] == ("missing", "counts folder does not exist")
