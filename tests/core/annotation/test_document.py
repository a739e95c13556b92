"""The ground-truth document: editing, saving atomically, refusing to overwrite, autosave."""

from __future__ import annotations

import json
import os
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
from referee.core.errors import ChangedOnDiskError, InputFileError, InvalidOptionError
from referee.core.formats.counts_csv import CountSeries, read_counts_csv
from referee.core.formats.liris_xml import read_liris
from referee.core.formats.project_json import read_project, write_project
from referee.core.model.annotations import Action, VideoAnnotation
from referee.core.model.project import Project
from referee.core.workflow.projects import project_videos
from tests.core.test_evaluate import make_dataset

OFFICE = "baseline/office"


@pytest.fixture()
def project(tmp_path: Path) -> Project:
    make_dataset(tmp_path / "data")
    (tmp_path / "data" / "baseline" / "office" / "groundtruth" / "gt000041.png").unlink()
    return write_project(Project("p", dataset=tmp_path / "data"), tmp_path / "p.referee.json")


def _document(project: Project) -> GroundTruthDocument:
    return GroundTruthDocument(project, project_videos(project))


def test_a_new_frame_starts_static_with_the_roi_outside(project: Project) -> None:
    document = _document(project)
    roi = cv2.imread(str(project.dataset / "baseline/office/ROI.bmp"), cv2.IMREAD_GRAYSCALE)  # type: ignore[operator]
    blank = document.label_map(OFFICE, 41)
    assert document.label_map_is_new(OFFICE, 41) and not document.label_map_is_new(OFFICE, 40)
    assert np.array_equal(blank, np.where(roi > 0, 0, 85).astype(np.uint8))


def test_saving_writes_the_png_and_records_the_frame(project: Project) -> None:
    document = _document(project)
    label_map = document.label_map(OFFICE, 41)
    label_map[2:5, 3:9] = 255
    document.mask_changed(OFFICE, 41)
    assert document.has_changes and 41 not in document.annotated[OFFICE]
    saved = document.save()
    gt = project.dataset / "baseline/office/groundtruth/gt000041.png"  # type: ignore[operator]
    assert np.array_equal(cv2.imread(str(gt), cv2.IMREAD_UNCHANGED), label_map)
    assert not document.has_changes
    # Every frame of office had a file but 41; now all 45 are recorded, as runs.
    record = json.loads(project.file.read_text())["annotated"]  # type: ignore[union-attr]
    assert record == {OFFICE: [[1, 45]]}
    assert read_project(saved.file).annotated_frames(OFFICE) == tuple(range(1, 46))  # type: ignore[arg-type]
    assert not [p for p in gt.parent.iterdir() if p.name.endswith(".tmp")]


def test_a_file_changed_on_disk_is_not_overwritten(project: Project) -> None:
    document = _document(project)
    label_map = document.label_map(OFFICE, 40)
    label_map[0, 0] = 170
    document.mask_changed(OFFICE, 40)
    gt = project.dataset / "baseline/office/groundtruth/gt000040.png"  # type: ignore[operator]
    theirs = np.full(label_map.shape, 50, np.uint8)
    cv2.imwrite(str(gt), theirs)
    before = project.file.read_bytes()  # type: ignore[union-attr]
    with pytest.raises(ChangedOnDiskError, match="changed on disk") as caught:
        document.save()
    assert caught.value.path == gt
    assert np.array_equal(cv2.imread(str(gt), cv2.IMREAD_UNCHANGED), theirs)
    assert project.file.read_bytes() == before and document.has_changes  # type: ignore[union-attr]
    document.save(replace_changed=True)
    assert np.array_equal(cv2.imread(str(gt), cv2.IMREAD_UNCHANGED), label_map)


def test_a_project_file_changed_on_disk_is_not_overwritten(project: Project) -> None:
    document = _document(project)
    document.set_annotated(OFFICE, 3, False)
    project.file.write_text(project.file.read_text().replace('"p"', '"renamed"'))  # type: ignore[union-attr]
    with pytest.raises(ChangedOnDiskError):
        document.save()


def test_counts_actions_and_annotated_frames_are_saved(project: Project) -> None:
    document = _document(project)
    office = document.videos[OFFICE]
    series = with_count_change(document.counts(office), 10, +1)
    series = with_count_change(series, 20, +1)
    series = with_count_change(series, 30, -1)
    document.set_counts(office.file_stem, series)
    action = Action.from_boxes(1, 4, {5: (1, 2, 3, 4), 6: (2, 2, 3, 4)})
    document.set_video_actions(VideoAnnotation("office", (action,)))
    document.set_annotated(OFFICE, 7, False)
    saved = document.save()
    counts = read_counts_csv(saved.counts / "baseline_office" / "groundtruth.csv")  # type: ignore[operator]
    assert (counts.first_frame, counts.last_frame) == (3, 40)  # office's temporal ROI
    assert count_changes(counts) == {10: 1, 20: 1, 30: -1}
    assert read_liris(saved.actions_groundtruth).same_as(document.actions)  # type: ignore[arg-type]
    again = read_project(saved.file)  # type: ignore[arg-type]
    assert 7 not in again.annotated_frames(OFFICE) and 8 in again.annotated_frames(OFFICE)  # type: ignore[operator]
    assert again.counts == saved.counts and again.actions_groundtruth == saved.actions_groundtruth


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
    office = document.videos[OFFICE]
    document.set_counts(office.file_stem, with_count_change(document.counts(office), 12, 1))
    document.set_annotated(OFFICE, 4, False)
    sidecar = write_autosave(document)
    assert sidecar == autosave_path(project.file)  # type: ignore[arg-type]
    os.utime(project.file, ns=(1, 1))  # type: ignore[arg-type]
    assert newer_autosave(project.file) == sidecar  # type: ignore[arg-type]
    fresh = _document(project)
    restore_autosave(fresh, read_autosave(sidecar))  # type: ignore[arg-type]
    assert np.array_equal(fresh.label_map(OFFICE, 41), label_map)
    assert count_changes(fresh.counts(office)) == {12: 1}
    assert 4 not in fresh.annotated[OFFICE] and fresh.has_changes


def test_a_damaged_autosave_is_refused_by_name(tmp_path: Path) -> None:
    bad = tmp_path / "p.referee.json.autosave"
    bad.write_bytes(b"PK\x03\x04 not really a zip")
    with pytest.raises(InputFileError, match="not a readable Referee autosave") as caught:
        read_autosave(bad)
    assert caught.value.path == bad


def test_a_frame_marked_annotated_without_a_file_gets_one(project: Project) -> None:
    document = _document(project)
    document.set_annotated(OFFICE, 41, True)  # frame 41 has no file: it is saved as shown
    document.save()
    gt = project.dataset / "baseline/office/groundtruth/gt000041.png"  # type: ignore[operator]
    roi = cv2.imread(str(project.dataset / "baseline/office/ROI.bmp"), cv2.IMREAD_GRAYSCALE)  # type: ignore[operator]
    assert np.array_equal(
        cv2.imread(str(gt), cv2.IMREAD_UNCHANGED), np.where(roi > 0, 0, 85).astype(np.uint8)
    )
