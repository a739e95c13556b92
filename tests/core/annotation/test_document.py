"""The ground-truth document: what differs from the files is what a save writes; drafts wait
to be accepted; files changed on disk are kept; the autosave is checked before recovery."""

from __future__ import annotations

import json
import os
import zipfile
from pathlib import Path

import cv2
import numpy as np
import pytest

from referee.core.annotation.autosave import (
    autosave_path,
    newer_autosave,
    read_autosave,
    restore_autosave,
    write_autosave,
)
from referee.core.annotation.count_changes import count_changes, with_count_change
from referee.core.annotation.document import GroundTruthDocument
from referee.core.annotation.review import FrameStatus, Review
from referee.core.annotation.saving import plan_save, save
from referee.core.errors import ChangedOnDiskError, InputFileError, InvalidOptionError
from referee.core.formats.counts_csv import CountSeries, read_counts_csv
from referee.core.formats.liris_xml import read_liris
from referee.core.formats.project_json import read_project, write_project
from referee.core.model.annotations import Action, VideoAnnotation
from referee.core.model.origins import BLANK, CONSENSUS, Origin, Source
from referee.core.model.project import Project
from referee.core.workflow.projects import project_videos
from tests.core.test_evaluate import make_dataset

OFFICE = "baseline/office"
WHEN = "2026-11-26T12:00:00Z"


@pytest.fixture()
def project(tmp_path: Path) -> Project:
    make_dataset(tmp_path / "data")
    (tmp_path / "data" / "baseline" / "office" / "groundtruth" / "gt000041.png").unlink()
    return write_project(Project("p", dataset=tmp_path / "data"), tmp_path / "p.referee.json")


def _document(project: Project) -> GroundTruthDocument:
    return GroundTruthDocument(project, project_videos(project))


def _gt(project: Project, frame: int) -> Path:
    return project.dataset / f"baseline/office/groundtruth/gt{frame:06d}.png"  # type: ignore[operator]


def _blank(project: Project) -> np.ndarray:
    roi = cv2.imread(str(project.dataset / "baseline/office/ROI.bmp"), cv2.IMREAD_GRAYSCALE)  # type: ignore[operator]
    return np.where(roi > 0, 0, 85).astype(np.uint8)


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def test_a_new_frame_starts_static_with_the_roi_outside(project: Project) -> None:
    document = _document(project)
    assert np.array_equal(document.label_map(OFFICE, 41), _blank(project))
    assert document.label_map_is_new(OFFICE, 41) and not document.label_map_is_new(OFFICE, 40)
    assert document.status(OFFICE, 41) is FrameStatus.NONE
    assert document.status(OFFICE, 40) is FrameStatus.GROUND_TRUTH


def test_a_painted_frame_is_written_and_recorded_as_painted(project: Project) -> None:
    document = _document(project)
    label_map = document.label_map(OFFICE, 41)
    label_map[2:5, 3:9] = 255
    document.mask_changed(OFFICE, 41)
    assert document.modified and document.status(OFFICE, 41) is FrameStatus.ACCEPTED
    outcome = save(document, now=WHEN)
    assert np.array_equal(cv2.imread(str(_gt(project, 41)), cv2.IMREAD_UNCHANGED), label_map)
    assert not document.modified and outcome.frames == 1 and outcome.drafts == 0
    stored = json.loads(project.file.read_text())  # type: ignore[union-attr]
    # Every frame of office had a file but 41; now all 45 are recorded, as runs.
    assert stored["annotated"] == {OFFICE: [[1, 45]]}
    assert stored["origins"] == {OFFICE: [[41, 41, "painted", WHEN]]} and stored["version"] == 2
    assert not [p for p in _gt(project, 41).parent.iterdir() if p.name.endswith(".tmp")]


def test_an_edit_undone_by_hand_writes_nothing(project: Project) -> None:
    """Painting a frame and painting it back leaves the document as saved: nothing is
    written, nothing recorded, even after another change is saved."""
    before = _snapshot(project.file.parent)  # type: ignore[union-attr]
    document = _document(project)
    label_map = document.label_map(OFFICE, 41)
    label_map[0, 0] = 255
    document.mask_changed(OFFICE, 41)
    label_map[0, 0] = _blank(project)[0, 0]
    document.mask_changed(OFFICE, 41)
    assert not document.modified
    office = document.videos[OFFICE]
    document.set_counts(office.file_stem, with_count_change(document.counts(office), 10, 1))
    save(document)
    after = _snapshot(project.file.parent)  # type: ignore[union-attr]
    written = {name for name in after if after[name] != before.get(name)}
    assert written == {"annotations/counts/baseline_office/groundtruth.csv", "p.referee.json"}
    assert "annotated" not in json.loads(project.file.read_text())  # type: ignore[union-attr]


def test_nothing_to_save_writes_no_file(project: Project) -> None:
    before = _snapshot(project.file.parent)  # type: ignore[union-attr]
    outcome = save(_document(project))
    assert outcome.files == () and _snapshot(project.file.parent) == before  # type: ignore[union-attr]


def test_a_draft_is_saved_only_once_accepted(project: Project) -> None:
    document = _document(project)
    draft = _blank(project).copy()
    draft[1:4, 6:9] = 255
    document.replace_label_map(OFFICE, 41, draft)
    document.set_review(OFFICE, 41, Review(CONSENSUS))
    assert document.status(OFFICE, 41) is FrameStatus.DRAFT and document.drafts() == [(OFFICE, 41)]
    outcome = save(document)
    assert outcome.drafts == 1 and not _gt(project, 41).exists() and document.modified
    document.set_review(OFFICE, 41, document.accepted(OFFICE, 41, WHEN))
    assert document.status(OFFICE, 41) is FrameStatus.ACCEPTED
    save(document)
    assert np.array_equal(cv2.imread(str(_gt(project, 41)), cv2.IMREAD_UNCHANGED), draft)
    stored = json.loads(project.file.read_text())  # type: ignore[union-attr]
    assert stored["origins"] == {OFFICE: [[41, 41, "consensus", WHEN]]}
    assert not document.modified


def test_a_frame_marked_annotated_is_a_blank_draft_until_accepted(project: Project) -> None:
    document = _document(project)
    document.set_review(OFFICE, 41, document.marked(OFFICE, 41, True))
    assert document.review(OFFICE, 41) == Review(BLANK)
    assert document.status(OFFICE, 41) is FrameStatus.DRAFT
    save(document)
    assert not _gt(project, 41).exists()
    document.set_review(OFFICE, 41, document.accepted(OFFICE, 41, WHEN))
    save(document)
    assert np.array_equal(cv2.imread(str(_gt(project, 41)), cv2.IMREAD_UNCHANGED), _blank(project))
    again = read_project(project.file)  # type: ignore[arg-type]
    assert 41 in again.annotated_frames(OFFICE)  # type: ignore[operator]
    assert [str(run.origin) for run in again.origins_of(OFFICE)] == ["blank"]


def test_an_unmarked_frame_leaves_the_record_and_keeps_its_file(project: Project) -> None:
    document = _document(project)
    document.set_review(OFFICE, 7, document.marked(OFFICE, 7, False))
    assert document.status(OFFICE, 7) is FrameStatus.UNMARKED and not document.is_annotated(
        OFFICE, 7
    )
    save(document)
    again = read_project(project.file)  # type: ignore[arg-type]
    assert 7 not in again.annotated_frames(OFFICE) and 8 in again.annotated_frames(OFFICE)  # type: ignore[operator]
    assert _gt(project, 7).exists() and not document.modified


def test_a_file_changed_on_disk_is_not_overwritten(project: Project) -> None:
    document = _document(project)
    label_map = document.label_map(OFFICE, 40)
    label_map[0, 0] = 170
    document.mask_changed(OFFICE, 40)
    theirs = np.full(label_map.shape, 50, np.uint8)
    cv2.imwrite(str(_gt(project, 40)), theirs)
    before = project.file.read_bytes()  # type: ignore[union-attr]
    with pytest.raises(ChangedOnDiskError, match="changed on disk") as caught:
        save(document)
    assert caught.value.path == _gt(project, 40)
    assert np.array_equal(cv2.imread(str(_gt(project, 40)), cv2.IMREAD_UNCHANGED), theirs)
    assert project.file.read_bytes() == before and document.modified  # type: ignore[union-attr]
    save(document, replace_changed=True)
    assert np.array_equal(cv2.imread(str(_gt(project, 40)), cv2.IMREAD_UNCHANGED), label_map)


def test_a_project_file_changed_on_disk_is_not_overwritten(project: Project) -> None:
    document = _document(project)
    document.set_review(OFFICE, 3, document.marked(OFFICE, 3, False))
    project.file.write_text(project.file.read_text().replace('"p"', '"renamed"'))  # type: ignore[union-attr]
    with pytest.raises(ChangedOnDiskError):
        save(document)


def test_a_project_file_written_by_referee_is_not_a_change_on_disk(project: Project) -> None:
    document = _document(project)
    document.set_review(OFFICE, 3, document.marked(OFFICE, 3, False))
    moved = project.file.with_name("q.referee.json")  # type: ignore[union-attr]
    document.with_file(write_project(document.project, moved).file)  # type: ignore[arg-type]
    save(document)
    assert 3 not in read_project(moved).annotated_frames(OFFICE)  # type: ignore[operator]


def test_stale_temporaries_of_a_stopped_save_are_removed(project: Project) -> None:
    folder = _gt(project, 1).parent
    stale = [folder / ".gt000041.png.a1b2c3d4.tmp", folder / ".gt000002.png.zz_9.tmp"]
    kept = folder / ".notes.txt.abc.tmp"
    for path in [*stale, kept]:
        path.write_bytes(b"half a PNG")
    document = _document(project)
    document.label_map(OFFICE, 40)[0, 0] = 170
    document.mask_changed(OFFICE, 40)
    save(document)
    assert not any(path.exists() for path in stale) and kept.exists()


def test_counts_actions_and_the_record_are_saved(project: Project) -> None:
    document = _document(project)
    office = document.videos[OFFICE]
    series = with_count_change(document.counts(office), 10, +1)
    series = with_count_change(series, 20, +1)
    series = with_count_change(series, 30, -1)
    document.set_counts(office.file_stem, series)
    action = Action.from_boxes(1, 4, {5: (1, 2, 3, 4), 6: (2, 2, 3, 4)})
    document.set_video_actions(VideoAnnotation("office", (action,)))
    document.set_review(OFFICE, 7, document.marked(OFFICE, 7, False))
    saved = save(document).project
    counts = read_counts_csv(saved.counts / "baseline_office" / "groundtruth.csv")  # type: ignore[operator]
    assert (counts.first_frame, counts.last_frame) == (3, 40)  # office's temporal ROI
    assert count_changes(counts) == {10: 1, 20: 1, 30: -1}
    assert read_liris(saved.actions_groundtruth).same_as(document.actions)  # type: ignore[arg-type]
    again = read_project(saved.file)  # type: ignore[arg-type]
    assert 7 not in again.annotated_frames(OFFICE) and 8 in again.annotated_frames(OFFICE)  # type: ignore[operator]
    assert again.counts == saved.counts and again.actions_groundtruth == saved.actions_groundtruth
    assert not document.modified


def test_counts_changed_back_are_not_saved(project: Project) -> None:
    document = _document(project)
    office = document.videos[OFFICE]
    original = document.counts(office)
    document.set_counts(office.file_stem, with_count_change(original, 10, +1))
    assert document.modified
    document.set_counts(office.file_stem, original)
    assert not document.modified and plan_save(document).counts == []


def test_count_changes_by_hand() -> None:
    series = CountSeries(5, np.array([0, 0, 1, 1, 1], np.int64))
    changed = with_count_change(series, 8, +2)
    assert changed.counts.tolist() == [0, 0, 1, 3, 3]
    assert count_changes(changed) == {7: 1, 8: 2}
    with pytest.raises(InvalidOptionError, match="negative"):
        with_count_change(series, 6, -1)
    with pytest.raises(InvalidOptionError, match="outside"):
        with_count_change(series, 10, 1)


def test_autosave_round_trip_and_recovery(project: Project) -> None:
    document = _document(project)
    label_map = document.label_map(OFFICE, 41)
    label_map[1:3, 1:3] = 50
    document.mask_changed(OFFICE, 41)
    draft = _blank(project)
    document.replace_label_map(OFFICE, 39, draft)
    document.set_review(OFFICE, 39, Review(Origin(Source.DETECTOR, "mog2")))
    office = document.videos[OFFICE]
    document.set_counts(office.file_stem, with_count_change(document.counts(office), 12, 1))
    document.set_review(OFFICE, 4, document.marked(OFFICE, 4, False))
    sidecar = write_autosave(document)
    assert sidecar == autosave_path(project.file)  # type: ignore[arg-type]
    os.utime(project.file, ns=(1, 1))  # type: ignore[arg-type]
    assert newer_autosave(project.file) == sidecar  # type: ignore[arg-type]
    fresh = _document(project)
    restore_autosave(fresh, read_autosave(sidecar, fresh))  # type: ignore[arg-type]
    assert np.array_equal(fresh.label_map(OFFICE, 41), label_map)
    assert np.array_equal(fresh.label_map(OFFICE, 39), draft)
    assert fresh.review(OFFICE, 39) == Review(Origin(Source.DETECTOR, "mog2"))
    assert fresh.status(OFFICE, 39) is FrameStatus.DRAFT
    assert count_changes(fresh.counts(office)) == {12: 1}
    assert fresh.status(OFFICE, 4) is FrameStatus.UNMARKED and fresh.modified


def test_a_damaged_autosave_is_refused_by_name(project: Project) -> None:
    bad = autosave_path(project.file)  # type: ignore[arg-type]
    bad.write_bytes(b"PK\x03\x04 not really a zip")
    with pytest.raises(InputFileError, match="cannot be recovered") as caught:
        read_autosave(bad, _document(project))
    assert caught.value.path == bad


def _sidecar_with(project: Project, change: dict[str, object], members: dict[str, bytes]) -> Path:
    """A sidecar written for ``project``, its index changed by ``change`` and members added."""
    document = _document(project)
    document.label_map(OFFICE, 41)[0, 0] = 255
    document.mask_changed(OFFICE, 41)
    sidecar = write_autosave(document)
    assert sidecar is not None
    with zipfile.ZipFile(sidecar) as archive:
        index = json.loads(archive.read("autosave.json"))
        kept = {name: archive.read(name) for name in archive.namelist()}
    index.update(change)
    kept.update(members)
    kept["autosave.json"] = json.dumps(index).encode()
    with zipfile.ZipFile(sidecar, "w") as archive:
        for name, data in kept.items():
            archive.writestr(name, data)
    return sidecar


@pytest.mark.parametrize(
    ("change", "members", "problem"),
    [
        ({"name": "another"}, {}, "written for the project 'another'"),
        ({"masks": [["baseline/elsewhere", 3, "masks/0.png"]]}, {}, "does not have"),
        ({"masks": [[OFFICE, 99_999, "masks/0.png"]]}, {}, "whose frames are 1 to 45"),
        ({"masks": [[OFFICE, -4, "masks/0.png"]]}, {}, "frame -4"),
        (
            {"masks": [[OFFICE, 41, "big.png"]]},
            {"big.png": cv2.imencode(".png", np.zeros((240, 320), np.uint8))[1].tobytes()},
            "is 320x240, but the video's frames are",
        ),
        ({"reviews": {"not": "a list"}}, {}, "'reviews' is not a list"),
        ({"masks": {"a": 1}}, {}, "'masks' is not a list"),
        ({"reviews": [[OFFICE, 41, "guessed", None, False]]}, {}, "'guessed' is not a source"),
        ({"counts": {"nowhere": "counts/0.csv"}}, {}, "no video of this project"),
        ({"version": 1}, {}, "version 1"),
    ],
)
def test_an_autosave_that_does_not_fit_the_project_is_refused(
    project: Project, change: dict[str, object], members: dict[str, bytes], problem: str
) -> None:
    sidecar = _sidecar_with(project, change, members)
    with pytest.raises(InputFileError, match="cannot be recovered") as caught:
        read_autosave(sidecar, _document(project))
    assert caught.value.path == sidecar and problem in str(caught.value)
    assert "\n" not in str(caught.value)


def test_a_named_pipe_as_the_autosave_is_refused(project: Project) -> None:
    pipe = autosave_path(project.file)  # type: ignore[arg-type]
    os.mkfifo(pipe)
    assert newer_autosave(project.file) == pipe  # type: ignore[arg-type]
    with pytest.raises(InputFileError, match="not a regular file"):
        read_autosave(pipe, _document(project))
