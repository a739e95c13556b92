"""Reading CVAT for video and CVAT for images 1.1 (docs/measures.md §10): boxes, tracks,
LIRIS actions, through the registry; values worked out by hand from cvat_fixtures."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from referee.core.cli.main import main
from referee.core.errors import InputFileError, InvalidOptionError, RefereeWarning
from referee.core.formats import registry
from referee.core.formats.cvat_video import LIRIS_LABELS
from referee.core.formats.cvat_xml import IMAGES, VIDEO, cvat_flavour, read_cvat
from tests.core import cvat_fixtures as fx


@pytest.fixture
def video(tmp_path: Path) -> Path:
    return fx.write(tmp_path, "corridor.xml", fx.VIDEO)


@pytest.fixture
def images(tmp_path: Path) -> Path:
    return fx.write(tmp_path, "crossing.xml", fx.IMAGES)


def _rows(frames: dict) -> dict[int, list[tuple]]:
    return {
        f: [
            (tuple(b.boxes[k].tolist()), None if b.ids is None else int(b.ids[k]), int(b.labels[k]))
            for k in range(len(b))
        ]
        for f, b in sorted(frames.items())
    }


def test_the_document_as_written(video: Path) -> None:
    document = read_cvat(video, VIDEO)
    assert (document.name, document.frame_count, document.frame_size) == ("corridor", 8, (40, 30))
    assert document.labels == ("person", "car", "road")
    person = document.tracks[0]
    assert (person.track_id, person.label, person.source) == (0, "person", "manual")
    assert [s.frame for s in person.shapes] == [0, 1, 2, 3, 5, 6]
    assert [s.outside for s in person.shapes] == [False, False, False, True, False, True]
    assert [s.keyframe for s in person.shapes] == [True, False, True, True, True, True]
    assert [s.occluded for s in person.shapes] == [False, False, True, True, False, False]
    assert person.shapes[2].attributes == (("pose", "sitting"),)
    assert person.shapes[4].box == (20.0, 5.0, 10.5, 20.0)
    road, mask = document.tracks[2], document.tracks[3]
    assert road.shapes[0].box == (0.0, 0.0, 6.0, 6.0)
    # rle 6,2,3,3,6 over 5×4: set pixels (1,1), (2,1), (1,2), (2,2), (3,2) of the mask.
    assert mask.shapes[0].box == (31.0, 21.0, 3.0, 2.0) and mask.shapes[0].z_order == 1


def test_video_boxes_fill_in_keyframes_hold_before_outside_and_to_the_last_frame(
    video: Path,
) -> None:
    videos, name = registry.read(video, registry.BOXES)
    assert name == "cvat-video" and len(videos) == 1 and videos[0].name == "corridor"
    person, car, road, mask = 1, 2, 3, 2  # labels by place in <meta>
    assert _rows(videos[0].frames) == {
        1: [((2, 3, 10, 20), 0, person), ((0, 0, 6, 6), 2, road)],
        2: [((3, 3, 10, 20.5), 0, person), ((0, 0, 4, 4), 1, car)],
        3: [((4, 3, 10, 21), 0, person), ((2, 1, 5, 4), 1, car), ((31, 21, 3, 2), 4, mask)],
        4: [((4, 2, 6, 4), 1, car), ((31, 21, 3, 2), 4, mask)],  # mask held; person left
        5: [((6, 3, 7, 4), 1, car)],
        6: [((20, 5, 10.5, 20), 0, person), ((8, 4, 8, 4), 1, car)],
        7: [((8, 4, 8, 4), 1, car)],
        8: [((8, 4, 8, 4), 1, car)],  # held to the task's last frame (<size> 8)
    }


def test_first_frame_shifts_every_frame(video: Path) -> None:
    videos, _ = registry.read(video, registry.BOXES, first_frame=0)
    assert sorted(videos[0].frames) == list(range(8))


def test_tracks_keep_keyframes_and_split_at_outside(video: Path) -> None:
    tracks, name = registry.read(video, registry.TRACKS)
    assert name == "cvat-video"
    found = [
        (t.track_id, t.frames.tolist(), t.boxes.tolist(), t.interpolated.tolist()) for t in tracks
    ]
    assert found == [
        (
            0,
            [1, 2, 3],
            [[2, 3, 10, 20], [3, 3, 10, 20.5], [4, 3, 10, 21]],
            [False, True, False],
        ),
        (0, [6], [[20, 5, 10.5, 20]], [False]),
        (
            1,
            [2, 3, 4, 5, 6, 7, 8],
            [[0, 0, 4, 4], [2, 1, 5, 4], [4, 2, 6, 4], [6, 3, 7, 4]] + [[8, 4, 8, 4]] * 3,
            [False, True, True, True, False, True, True],
        ),
        (2, [1], [[0, 0, 6, 6]], [False]),
        (4, [3, 4], [[31, 21, 3, 2]] * 2, [False, True]),
    ]
    assert all(t.conf.tolist() == [1.0] * len(t) for t in tracks)
    with pytest.raises(InvalidOptionError, match="from 1"):
        registry.read(video, registry.TRACKS, first_frame=0)


def test_actions_need_a_map_unless_labels_are_liris_classes(video: Path) -> None:
    with pytest.raises(InputFileError, match=r"'car', 'person', 'road' are not LIRIS classes"):
        registry.read(video, registry.ACTIONS)
    actions, name = registry.read(
        video, registry.ACTIONS, classes={"person": 4, "car": 7, "road": 1}
    )
    assert name == "cvat-video" and list(actions.videos) == ["corridor"]
    found = [
        (a.number, a.action_class, a.frames.tolist(), a.boxes.tolist(), a.interpolated.tolist())
        for a in actions.videos["corridor"].actions
    ]
    assert found[0] == (
        1,
        4,
        [1, 2, 3],
        [[2, 3, 10, 20], [3, 3, 10, 21], [4, 3, 10, 21]],  # 20.5 → 21, halves up
        [False, True, False],
    )
    assert found[1] == (6, 4, [6], [[20, 5, 11, 20]], [False])  # a comeback: after the largest
    assert [(n, c) for n, c, *_ in found[2:]] == [(2, 7), (3, 1), (5, 7)]
    with pytest.raises(
        InputFileError, match=r"<track id=\"1\">: its label 'car' is not in the map"
    ):
        registry.read(video, registry.ACTIONS, classes={"person": 4, "road": 1})
    with pytest.raises(InvalidOptionError, match="1–10"):
        registry.read(video, registry.ACTIONS, classes={"person": 11, "car": 7, "road": 1})


def test_liris_labels_map_by_code_or_description(tmp_path: Path) -> None:
    assert LIRIS_LABELS["EN"] == LIRIS_LABELS["enter/leave room"] == 4
    path = fx.write(
        tmp_path,
        "liris.xml",
        fx.document(
            fx.meta("vid0003", 4, ["EN", "handshaking"]),
            '  <track id="0" label="handshaking"><box frame="1" xtl="1" ytl="1" xbr="3" ybr="3"/>'
            '<box frame="2" outside="1" xtl="1" ytl="1" xbr="3" ybr="3"/></track>\n'
            '  <track id="1" label="EN"><box frame="0" xtl="0" ytl="0" xbr="2" ybr="2"/></track>\n',
        ),
    )
    actions, _ = registry.read(path, registry.ACTIONS, first_frame=0)
    found = [
        (a.number, a.action_class, a.frames.tolist()) for a in actions.videos["vid0003"].actions
    ]
    assert found == [(1, 8, [1]), (2, 4, [0, 1, 2, 3])]


def test_image_boxes_per_frame_with_labels_and_no_identities(images: Path) -> None:
    with pytest.warns(RefereeWarning, match=r"1 <polyline>, 1 <tag> not read"):
        videos, name = registry.read(images, registry.BOXES)
    assert name == "cvat-images" and videos[0].name == "crossing"
    frames = videos[0].frames
    assert sorted(frames) == [1, 3]  # image 1 has no shape
    assert frames[1].boxes.tolist() == [[1, 2, 4.5, 4], [0, 0, 12, 3]]
    assert frames[1].labels.tolist() == [2, 3] and frames[1].ids is None
    assert frames[3].boxes.tolist() == [[5, 6, 3, 2], [4, 5, 5, 4], [0, 0, 2, 3]]
    assert frames[3].labels.tolist() == [2, 3, 1]


def test_the_flavour_is_told_by_content_before_liris_claims_the_xml(
    video: Path, images: Path, tmp_path: Path
) -> None:
    liris = fx.write(
        tmp_path, "liris.xml", "<tagset><video><videoName>v</videoName></video></tagset>"
    )
    assert (cvat_flavour(video), cvat_flavour(images), cvat_flavour(liris)) == (VIDEO, IMAGES, None)
    assert registry.detect(video, registry.BOXES).name == "cvat-video"
    assert registry.detect(images, registry.BOXES).name == "cvat-images"
    assert registry.detect(liris, registry.BOXES).name == "liris-xml"
    empty = fx.write(tmp_path, "empty.xml", fx.document("", ""))
    assert registry.read(empty, registry.BOXES)[0][0].frames == {}


_MOT_GT = (
    # frame,id,x,y,w,h,conf,class,visibility: the boxes of VIDEO, CVAT frame + 1
    "1,0,2,3,10,20,1,1,1\n1,2,0,0,6,6,1,1,1\n"
    "2,0,3,3,10,20.5,1,1,1\n2,1,0,0,4,4,1,1,1\n"
    "3,0,4,3,10,21,1,1,1\n3,1,2,1,5,4,1,1,1\n3,4,31,21,3,2,1,1,1\n"
    "4,1,4,2,6,4,1,1,1\n4,4,31,21,3,2,1,1,1\n"
    "5,1,6,3,7,4,1,1,1\n"
    "6,0,20,5,10.5,20,1,1,1\n6,1,8,4,8,4,1,1,1\n"
    "7,1,8,4,8,4,1,1,1\n8,1,8,4,8,4,1,1,1\n"
)
_MOT_DETECTIONS = (
    "1,7,2,3,10,20,0.9\n1,8,1,1,5,5,0.8\n2,7,4,3,10,20,0.9\n2,9,0,0,4,4,0.7\n"
    "3,7,4,3,10,21,0.9\n3,9,2,1,5,4,0.7\n4,9,4,2,6,4,0.7\n4,5,30,20,4,4,0.6\n"
    "6,7,20,5,10,20,0.9\n6,9,9,4,8,4,0.7\n7,9,8,4,8,4,0.7\n8,3,8,4,8,4,0.7\n"
)


def test_referee_boxes_gives_the_numbers_of_the_equivalent_mot_file(
    video: Path, tmp_path: Path, capsys
) -> None:
    mot = fx.write(tmp_path, "gt.txt", _MOT_GT)
    detections = fx.write(tmp_path, "det.txt", _MOT_DETECTIONS)
    results = {}
    for truth in (video, mot):
        out = tmp_path / f"{truth.stem}.json"
        assert main(["boxes", str(truth), str(detections), "--json", str(out), "--quiet"]) == 0
        results[truth.stem] = json.loads(out.read_text(encoding="utf-8"))
    capsys.readouterr()
    cvat, reference = results["corridor"], results["gt"]
    assert cvat["overall"] == reference["overall"]
    assert cvat["overall"]["tp"] == 11  # by hand: 12 detections, all but frame 4's at IoU ≥ 0.5
    for key in ("tracking", "videos"):
        assert json.dumps(cvat[key]).replace("corridor", "gt") == json.dumps(reference[key])


def test_frames_are_numbered_as_the_mot_file_numbers_them(video: Path) -> None:
    boxes, _ = registry.read(video, registry.BOXES)
    rows = [
        (frame, int(b.ids[k]), *b.boxes[k].tolist())
        for frame, b in sorted(boxes[0].frames.items())
        for k in range(len(b))
    ]
    expected = [tuple(float(v) for v in line.split(",")[:6]) for line in _MOT_GT.splitlines()]
    assert sorted(rows) == sorted(expected)
    assert np.isclose(sum(r[4] * r[5] for r in rows), sum(e[4] * e[5] for e in expected))


def test_a_box_stays_before_it_leaves_whatever_the_outside_box_says(tmp_path: Path) -> None:
    # CVAT holds the last box up to an outside shape; it does not move towards it.
    body = (
        '  <track id="5" label="a">\n'
        '    <box frame="0" keyframe="1" outside="0" xtl="0" ytl="0" xbr="10" ybr="10"/>\n'
        '    <box frame="3" keyframe="1" outside="1" xtl="30" ytl="30" xbr="40" ybr="40"/>\n'
        "  </track>\n"
    )
    path = fx.write(tmp_path, "leave.xml", fx.document(fx.meta("t", 6, ["a"]), body))
    (track,), _ = registry.read(path, registry.TRACKS)
    assert track.frames.tolist() == [1, 2, 3]
    assert track.boxes.tolist() == [[0, 0, 10, 10]] * 3
    assert track.interpolated.tolist() == [False, True, True]
