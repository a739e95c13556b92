"""Writing CVAT 1.1 (docs/measures.md §10): Referee → CVAT → Referee and CVAT → Referee →
CVAT round trips, what the files hold, and how they are written."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import numpy as np
import pytest

from referee.core.errors import InputFileError, InvalidOptionError
from referee.core.formats import registry
from referee.core.formats.cvat_video import appearances
from referee.core.formats.cvat_writer import format_cvat_tracks
from referee.core.formats.cvat_xml import VIDEO, read_cvat
from referee.core.formats.text_files import current_umask
from referee.core.measures.boxes import boxes_from_rows
from referee.core.model.annotations import Action, AnnotationSet, VideoAnnotation
from referee.core.model.tracks import Track
from tests.core import cvat_fixtures as fx

TRACKS = (
    Track(2, [1, 2, 3, 4], [[0.1, 0.2, 10.3, 20.7]] * 4, [False, True, True, False]),
    Track(2, [7, 8], [[5, 5, 1e-05, 3], [6.125, 5, 2, 3]]),  # id 2 comes back after a gap
    Track(5, [3], [[1359.1, 452.93, 58.67, 176.33]], conf=[0.25]),
)


def _write(content, path: Path, format_name: str, kind: str, **options) -> Path:
    registry.writer(format_name, kind).write(content, path, force=False, **options)
    return path


def _shapes(path: Path) -> dict[int, list[tuple]]:
    return {
        t.track_id: [(s.frame, s.box, s.outside, s.keyframe, s.occluded) for s in t.shapes]
        for t in read_cvat(path, VIDEO).tracks
    }


def test_tracks_come_back_item_by_item(tmp_path: Path) -> None:
    path = _write(TRACKS, tmp_path / "t.xml", "cvat-video", registry.TRACKS)
    back, name = registry.read(path, registry.TRACKS)
    assert name == "cvat-video" and len(back) == len(TRACKS)
    for written, read in zip(TRACKS, back):
        assert read.same_as(
            Track(written.track_id, written.frames, written.boxes, written.interpolated)
        )
    assert back[2].conf.tolist() == [1.0]  # confidences are what CVAT cannot hold
    assert "confidences" in registry.writer("cvat-video", registry.TRACKS).cannot_hold


def test_what_the_tracks_file_says(tmp_path: Path) -> None:
    text = format_cvat_tracks(TRACKS[:2], name="hall", label="person").decode()
    assert "<version>1.1</version>" in text and "<name>hall</name>" in text
    assert "<size>9</size>" in text  # up to the outside box on CVAT frame 8
    assert text.count("<track ") == 1 and 'label="person"' in text
    path = fx.write(tmp_path, "hall.xml", text)
    box = (0.1, 0.2, 10.3, 20.7)
    assert _shapes(path)[2] == [
        (0, box, False, True, False),
        (1, box, False, False, False),
        (2, box, False, False, False),
        (3, box, False, True, False),
        (4, box, True, True, False),  # ends: outside, holding the last box
        (6, (5.0, 5.0, 1e-05, 3.0), False, True, False),
        (7, (6.125, 5.0, 2.0, 3.0), False, True, False),
        (8, (6.125, 5.0, 2.0, 3.0), True, True, False),
    ]
    assert 'xtl="0.1" ytl="0.2" xbr="10.4" ybr="20.9"' in text  # 0.1 + 10.3, in decimals
    assert 'xbr="5.00001"' in text


def test_the_task_length_leaves_out_the_last_outside(tmp_path: Path) -> None:
    path = fx.write(tmp_path, "t.xml", format_cvat_tracks(TRACKS[1:2], frame_count=8).decode())
    assert [s[0] for s in _shapes(path)[2]] == [6, 7]  # ends on the task's last frame
    with pytest.raises(InvalidOptionError, match="beyond the 7 frames"):
        format_cvat_tracks(TRACKS[1:2], frame_count=7)


def test_tracks_cvat_cannot_hold_are_refused() -> None:
    with pytest.raises(InvalidOptionError, match="from 0"):
        format_cvat_tracks([Track(-1, [1], [[0, 0, 1, 1]])])
    with pytest.raises(InvalidOptionError, match="overlap"):
        format_cvat_tracks([Track(1, [1, 2], [[0, 0, 1, 1]] * 2), Track(1, [2], [[0, 0, 1, 1]])])


def test_cvat_comes_back_through_referee_tracks(tmp_path: Path) -> None:
    source = fx.write(tmp_path, "walkway.xml", fx.ROUND_TRIP)
    tracks, _ = registry.read(source, registry.TRACKS)
    copy = _write(
        tracks,
        tmp_path / "copy.xml",
        "cvat-video",
        registry.TRACKS,
        label="person",
        name="walkway",
        frame_count=12,
    )
    before, after = read_cvat(source, VIDEO), read_cvat(copy, VIDEO)
    assert (after.name, after.frame_count, after.labels) == ("walkway", 12, ("person",))
    shapes_before, shapes_after = _shapes(source), _shapes(copy)
    assert shapes_after[0] == shapes_before[0]  # written frame by frame: the same shapes
    # Track 3 gave keyframes 4 and 8 only: the frames between come back filled in
    # (x 0→8, y 0→4, w 10→12, h 10→6 over 4 frames), frame 9 holds, 10 is outside.
    assert shapes_after[3] == [
        (4, (0.0, 0.0, 10.0, 10.0), False, True, False),
        (5, (2.0, 1.0, 10.5, 9.0), False, False, False),
        (6, (4.0, 2.0, 11.0, 8.0), False, False, False),
        (7, (6.0, 3.0, 11.5, 7.0), False, False, False),
        (8, (8.0, 4.0, 12.0, 6.0), False, True, False),
        (9, (8.0, 4.0, 12.0, 6.0), False, False, False),
        (10, (8.0, 4.0, 12.0, 6.0), True, True, False),
    ]
    assert [(a.first, a.boxes.tolist(), a.keyframes.tolist()) for a in appearances(after)] == [
        (a.first, a.boxes.tolist(), a.keyframes.tolist()) for a in appearances(before)
    ]


def test_actions_come_back_and_hold_everything(tmp_path: Path) -> None:
    actions = AnnotationSet.from_videos(
        [
            VideoAnnotation(
                "vid0003",
                (
                    Action.from_boxes(
                        1,
                        3,
                        {0: (40, 30, 50, 101), 1: (42, 30, 50, 101), 2: (44, 31, 50, 100)},
                        [1],
                    ),
                    Action.from_boxes(4, 8, {5: (1, 2, 3, 4)}),
                ),
            )
        ]
    )
    with pytest.raises(InvalidOptionError, match="first_frame=0"):
        _write(actions, tmp_path / "a.xml", "cvat-video", registry.ACTIONS)
    path = _write(actions, tmp_path / "a.xml", "cvat-video", registry.ACTIONS, first_frame=0)
    text = path.read_text(encoding="utf-8")
    assert '<track id="0" label="BO"' in text and '<track id="3" label="HS"' in text
    assert text.count("<label>") == 10  # every LIRIS class is declared, by code
    back, _ = registry.read(path, registry.ACTIONS, first_frame=0)
    assert back.same_as(actions)
    assert registry.writer("cvat-video", registry.ACTIONS).cannot_hold == ""
    two = AnnotationSet.from_videos([*actions, VideoAnnotation("other")])
    with pytest.raises(InvalidOptionError, match="one video"):
        _write(two, tmp_path / "b.xml", "cvat-video", registry.ACTIONS, first_frame=0)


def test_boxes_come_back_from_cvat_for_images(tmp_path: Path) -> None:
    video = boxes_from_rows(
        "crossing",
        [1, 1, 3],
        [[1, 2, 4.5, 4], [0.5, 0, 12, 3.25], [0, 0, 2, 3]],
        ids=[7, 8, 7],
        labels=[2, 1, 2],
    )
    writer = registry.writer("cvat-images", registry.BOXES)
    assert "identities and confidences" in writer.cannot_hold
    with pytest.raises(InvalidOptionError, match="size"):
        writer.write([video], tmp_path / "i.xml")
    path = tmp_path / "i.xml"
    writer.write([video], path, size=(12, 10), labels={1: "person", 2: "car"}, frame_count=3)
    text = path.read_text(encoding="utf-8")
    assert '<image id="0" name="in000001.jpg" width="12" height="10">' in text
    assert '<image id="1" name="in000002.jpg" width="12" height="10"/>' in text
    assert '<box label="car" occluded="0" xtl="1" ytl="2" xbr="5.5" ybr="6" z_order="0"/>' in text
    (back,), name = registry.read(path, registry.BOXES)
    assert (name, back.name, sorted(back.frames)) == ("cvat-images", "crossing", [1, 3])
    for frame, boxes in video.frames.items():
        assert np.array_equal(back.frames[frame].boxes, boxes.boxes)
        assert np.array_equal(back.frames[frame].labels, boxes.labels)  # person 1, car 2
        assert back.frames[frame].ids is None


def test_writing_is_atomic_with_the_umask_and_keeps_existing_files(tmp_path: Path) -> None:
    path = tmp_path / "t.xml"
    _write(TRACKS, path, "cvat-video", registry.TRACKS)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o666 & ~current_umask()
    before = path.read_bytes()
    with pytest.raises(InputFileError, match="already exists"):
        _write(TRACKS[:1], path, "cvat-video", registry.TRACKS)
    assert path.read_bytes() == before
    registry.writer("cvat-video", registry.TRACKS).write(TRACKS[:1], path, force=True)
    assert path.read_bytes() != before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.xml"]  # no temporary left
