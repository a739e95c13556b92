"""COCO instances and results files (docs/measures.md §10): reading, writing, round trips.

Fixtures are written by hand after the COCO data and results formats
(https://cocodataset.org/#format-data, #format-results); expected values are worked
out by hand in the comments. pycocotools is the peer tool, used here only: it must
load the files Referee writes and decode their RLE to the same masks, and its
COCOeval must give the AP Referee computes from the same files.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import stat
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from pycocotools.coco import COCO
from pycocotools.cocoeval import COCOeval

from referee.core import __version__
from referee.core.errors import InputFileError, InvalidOptionError, RefereeWarning
from referee.core.formats import registry
from referee.core.formats.coco import coco_category_names, read_coco_boxes, read_coco_label_maps
from referee.core.formats.coco_writer import write_coco_boxes, write_coco_label_maps
from referee.core.formats.text_files import current_umask
from referee.core.limits import MAX_TEXT_FILE_BYTES
from referee.core.measures.boxes import FrameBoxes, VideoBoxes
from referee.core.measures.detection_ap import DetectedBox, GroundTruthBox, coco_ap

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")  # pycocotools' own

LEVELS = {"person": 255, "car": 50}

# Three frames of a 6 × 4 video. Frame 1: a person's polygon, the square of corners (1, 1)
# and (3, 3) (the pixels x, y ∈ {1, 2}, whose centres it holds), and a car's compressed RLE
# of the pixels (4, 0), (5, 0), (5, 1): runs 16, 1, 3, 2, 2 → "`0131O" (test_coco_rle).
# Frame 2: a crowd of people, uncompressed RLE of the first column: runs 0, 4, 20.
# Frame 3: nothing.
INSTANCES: dict[str, Any] = {
    "info": {"description": "hand-written"},
    "licenses": [],
    "images": [
        {"id": 7, "file_name": "in000001.jpg", "height": 4, "width": 6},
        {"id": 8, "file_name": "in000002.jpg", "height": 4, "width": 6},
        {"id": 9, "file_name": "in000003.jpg", "height": 4, "width": 6},
    ],
    "annotations": [
        {
            "id": 1,
            "image_id": 7,
            "category_id": 1,
            "bbox": [1, 1, 2, 2],
            "area": 4,
            "iscrowd": 0,
            "segmentation": [[1, 1, 3, 1, 3, 3, 1, 3]],
        },
        {
            "id": 2,
            "image_id": 7,
            "category_id": 2,
            "bbox": [4, 0, 2, 2],
            "area": 3,
            "iscrowd": 0,
            "segmentation": {"size": [4, 6], "counts": "`0131O"},
        },
        {
            "id": 3,
            "image_id": 8,
            "category_id": 1,
            "bbox": [0, 0, 1, 4],
            "area": 4,
            "iscrowd": 1,
            "segmentation": {"size": [4, 6], "counts": [0, 4, 20]},
        },
    ],
    "categories": [
        {"id": 1, "name": "person", "supercategory": "human"},
        {"id": 2, "name": "car", "supercategory": "vehicle"},
    ],
}
RESULTS: list[dict[str, Any]] = [
    {"image_id": 7, "category_id": 1, "bbox": [1.5, 1, 2, 2], "score": 0.9},
    {"image_id": 8, "category_id": 2, "bbox": [0, 0, 1, 1], "score": 0.4},
]


def _write(folder: Path, name: str, document: Any) -> Path:
    path = folder / name
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def _frames(video: VideoBoxes) -> dict[int, tuple[list[list[float]], list[int] | None]]:
    return {
        f: (b.boxes.tolist(), None if b.labels is None else b.labels.tolist())
        for f, b in video.frames.items()
    }


def _expected_maps() -> dict[int, np.ndarray]:
    first = np.zeros((4, 6), np.uint8)
    first[1:3, 1:3] = 255  # the person's square
    first[0, 4] = first[0, 5] = first[1, 5] = 50  # the car
    second = np.zeros((4, 6), np.uint8)
    second[:, 0] = 170  # the crowd: unknown
    return {1: first, 2: second, 3: np.zeros((4, 6), np.uint8)}


# --- reading ---------------------------------------------------------------------------------


def test_instances_boxes_frame_by_frame_with_crowds_left_out(tmp_path: Path) -> None:
    path = _write(tmp_path, "street.json", INSTANCES)
    with pytest.warns(RefereeWarning, match=r"annotations\[2\]: 1 crowd region"):
        (video,) = read_coco_boxes(path)
    assert video.name == "street"
    assert _frames(video) == {
        1: ([[1.0, 1.0, 2.0, 2.0], [4.0, 0.0, 2.0, 2.0]], [1, 2]),
        2: ([], []),
        3: ([], []),
    }
    assert video.at(1).confidences is None and video.at(1).ids is None
    assert coco_category_names(path) == {1: "person", 2: "car"}


def test_instances_label_maps_of_polygons_rle_and_crowds(tmp_path: Path) -> None:
    maps = read_coco_label_maps(_write(tmp_path, "street.json", INSTANCES), levels=LEVELS)
    assert list(maps) == ["street"] and list(maps["street"]) == [1, 2, 3]
    for frame, expected in _expected_maps().items():
        np.testing.assert_array_equal(maps["street"][frame], expected)


def test_a_category_is_found_by_its_id_as_text(tmp_path: Path) -> None:
    maps = read_coco_label_maps(
        _write(tmp_path, "street.json", INSTANCES), levels={"1": 255, "car": 50}
    )
    np.testing.assert_array_equal(maps["street"][1], _expected_maps()[1])


def test_frames_from_frame_id_or_id_and_videos_from_the_videos_list(tmp_path: Path) -> None:
    document = {
        "videos": [{"id": 1, "name": "lobby"}, {"id": 2, "name": "hall"}],
        "images": [
            {"id": 10, "file_name": "a.jpg", "video_id": 2, "frame_id": 0},
            {"id": 11, "file_name": "b.jpg", "video_id": 1, "frame_id": 0},
            {"id": 12, "file_name": "c.jpg", "video_id": 1, "frame_id": 1},
        ],
        "annotations": [
            {"id": 1, "image_id": 12, "category_id": 1, "bbox": [0, 0, 1, 1], "track_id": 4},
            {"id": 2, "image_id": 10, "category_id": 1, "bbox": [1, 1, 1, 1], "track_id": 4},
        ],
        "categories": [{"id": 1, "name": "person"}],
    }
    path = _write(tmp_path, "videos.json", document)
    lobby, hall = read_coco_boxes(path, frame_from="frame_id")
    assert (lobby.name, sorted(lobby.frames), lobby.at(1).ids.tolist()) == ("lobby", [0, 1], [4])
    assert (hall.name, sorted(hall.frames), hall.at(0).ids.tolist()) == ("hall", [0], [4])
    by_id = {v.name: sorted(v.frames) for v in read_coco_boxes(path, frame_from="id")}
    assert by_id == {"lobby": [11, 12], "hall": [10]}
    with pytest.raises(InvalidOptionError, match="unknown frame rule 'names'"):
        read_coco_boxes(path, frame_from="names")


def test_results_take_frames_from_the_instances_file_or_from_image_ids(tmp_path: Path) -> None:
    truth = _write(tmp_path, "street.json", INSTANCES)
    results = _write(tmp_path, "detector.json", RESULTS)
    (named,) = read_coco_boxes(results, images=truth)
    assert named.name == "street"  # the ground truth's video, so that they pair
    assert _frames(named) == {
        1: ([[1.5, 1.0, 2.0, 2.0]], [1]),
        2: ([[0.0, 0.0, 1.0, 1.0]], [2]),
        3: ([], []),
    }
    assert named.at(1).confidences.tolist() == [0.9]
    (bare,) = read_coco_boxes(results, min_conf=0.5)
    assert bare.name == "detector" and _frames(bare) == {7: ([[1.5, 1.0, 2.0, 2.0]], [1])}
    (renamed,) = read_coco_boxes(results, video="street")
    assert renamed.name == "street"


def test_the_registry_reads_and_writes_coco(tmp_path: Path) -> None:
    path = _write(tmp_path, "street.json", INSTANCES)
    maps, name = registry.read(path, registry.LABEL_MAPS, levels=LEVELS)
    assert name == "coco" and list(maps) == ["street"]
    results, name = registry.read(
        _write(tmp_path, "det.json", RESULTS), registry.BOXES, images=path
    )
    assert name == "coco" and results[0].at(2).confidences.tolist() == [0.4]
    out = tmp_path / "out.json"
    registry.writer("coco", registry.BOXES).write(results, out, force=False)
    assert json.loads(out.read_text())[0]["score"] == 0.9
    with pytest.raises(InputFileError, match="already exists"):
        registry.writer("coco", registry.BOXES).write(results, out, force=False)
    registry.writer("coco", registry.LABEL_MAPS).write(maps, out, force=True)
    assert "annotations" in json.loads(out.read_text())
    assert stat.S_IMODE(os.stat(out).st_mode) == 0o666 & ~current_umask()
    assert registry.writer("coco", registry.BOXES).cannot_hold.startswith("identities")


# --- round trips -----------------------------------------------------------------------------


def _boxes(name: str, frames: dict[int, FrameBoxes]) -> VideoBoxes:
    return VideoBoxes(name, frames)


def _assert_same_boxes(ours: list[VideoBoxes], back: list[VideoBoxes]) -> None:
    assert [v.name for v in back] == [v.name for v in ours]
    for video, other in zip(ours, back):
        assert sorted(other.frames) == sorted(video.frames)
        for frame, boxes in video.frames.items():
            found = other.frames[frame]
            for field in ("boxes", "labels", "ids", "confidences"):
                mine, theirs = getattr(boxes, field), getattr(found, field)
                assert (mine is None) == (theirs is None) or len(boxes) == 0, (frame, field)
                if mine is not None and theirs is not None:
                    np.testing.assert_array_equal(theirs, mine)


def test_boxes_to_an_instances_file_and_back(tmp_path: Path) -> None:
    videos = [
        _boxes(
            "cam/2",
            {
                1: FrameBoxes([[0.5, 1, 2.25, 3], [10, 10, 0, 0]], [3, 1], [7, 8]),
                2: FrameBoxes(np.zeros((0, 4)), np.zeros(0), np.zeros(0)),
                40: FrameBoxes([[1e-3, 1e5, 33.3, 0.1]], [3], [7]),
            },
        ),
        _boxes("cam1", {0: FrameBoxes([[1, 2, 3, 4]], [1], [1])}),
    ]
    write_coco_boxes(videos, tmp_path / "truth.json", image_size=(640, 480), names={3: "car"})
    _assert_same_boxes(videos, read_coco_boxes(tmp_path / "truth.json"))
    assert coco_category_names(tmp_path / "truth.json") == {1: "1", 3: "car"}


def test_scored_boxes_to_a_results_file_and_back(tmp_path: Path) -> None:
    truth = [_boxes("a", {3: FrameBoxes([[0, 0, 1, 1]], [2]), 4: FrameBoxes([[1, 1, 2, 2]], [2])})]
    found = [
        _boxes(
            "a",
            {
                3: FrameBoxes([[0.1, 0, 1, 1], [5, 5, 2, 2]], [2, 1], None, [0.25, 1.0]),
                4: FrameBoxes([[1, 1, 2, 2]], [2], None, [0.5]),
            },
        )
    ]
    write_coco_boxes(truth, tmp_path / "truth.json")
    write_coco_boxes(found, tmp_path / "found.json")
    back = read_coco_boxes(tmp_path / "found.json", images=tmp_path / "truth.json")
    _assert_same_boxes(found, back)
    _assert_same_boxes(found, read_coco_boxes(tmp_path / "found.json", video="a"))


def test_label_maps_to_coco_and_back(tmp_path: Path) -> None:
    rng = np.random.default_rng(3)
    levels = np.array([0, 50, 85, 170, 255], np.uint8)
    maps = {
        "b": {f: levels[rng.integers(0, 5, (17, 23))] for f in (1, 2, 9)},
        "a": {0: np.zeros((5, 4), np.uint8), 7: np.full((5, 4), 255, np.uint8)},
    }
    write_coco_label_maps(maps, tmp_path / "maps.json")
    back = read_coco_label_maps(tmp_path / "maps.json")
    assert list(back) == ["b", "a"]
    for video, frames in maps.items():
        assert list(back[video]) == sorted(frames)
        for frame, label in frames.items():
            np.testing.assert_array_equal(back[video][frame], label)


def test_referees_layout_is_written_back_as_it_was(tmp_path: Path) -> None:
    # A file in the layout Referee writes: read, then written again, it is the same JSON.
    boxes_file = {
        "info": {"description": f"written by Referee {__version__}"},
        "licenses": [],
        "videos": [{"id": 1, "name": "cam"}],
        "images": [
            {
                "id": 1,
                "file_name": "cam/000001.jpg",
                "video_id": 1,
                "frame_id": 1,
                "width": 64,
                "height": 48,
            },
            {
                "id": 2,
                "file_name": "cam/000002.jpg",
                "video_id": 1,
                "frame_id": 2,
                "width": 64,
                "height": 48,
            },
        ],
        "annotations": [
            {
                "image_id": 1,
                "category_id": 3,
                "bbox": [10.5, 20, 30, 4],
                "id": 1,
                "area": 120,
                "iscrowd": 0,
            },
            {
                "image_id": 1,
                "category_id": 5,
                "bbox": [0, 0, 1, 1],
                "id": 2,
                "area": 1,
                "iscrowd": 0,
            },
        ],
        "categories": [
            {"id": 3, "name": "car", "supercategory": ""},
            {"id": 5, "name": "bus", "supercategory": ""},
        ],
    }
    source = _write(tmp_path, "boxes.json", boxes_file)
    videos, _ = registry.read(source, registry.BOXES)
    names = coco_category_names(source)
    write_coco_boxes(videos, tmp_path / "again.json", image_size=(64, 48), names=names)
    assert json.loads((tmp_path / "again.json").read_text()) == boxes_file

    results = [{"image_id": 4, "category_id": 1, "bbox": [1, 2, 3, 4], "score": 0.75}]
    write_coco_boxes(read_coco_boxes(_write(tmp_path, "r.json", results)), tmp_path / "r2.json")
    assert json.loads((tmp_path / "r2.json").read_text()) == results

    # One frame 6 × 4 of motion at (4, 0), (5, 0), (5, 1) ("`0131O", bbox [4, 0, 2, 2]) and
    # an unknown (crowd) pixel at (0, 3): column-major index 3, runs 3, 1, 20 → "3", "1", and
    # 20 in two groups, its bit 16 being set: chr(48 + 20 + 32) = "d", then "0".
    maps_file = {
        "info": {"description": f"written by Referee {__version__}"},
        "licenses": [],
        "videos": [{"id": 1, "name": "cam"}],
        "images": [
            {
                "id": 5,
                "file_name": "cam/000005.jpg",
                "video_id": 1,
                "frame_id": 5,
                "width": 6,
                "height": 4,
            }
        ],
        "annotations": [
            {
                "id": 1,
                "image_id": 5,
                "category_id": 1,
                "segmentation": {"size": [4, 6], "counts": "`0131O"},
                "area": 3,
                "bbox": [4, 0, 2, 2],
                "iscrowd": 0,
            },
            {
                "id": 2,
                "image_id": 5,
                "category_id": 4,
                "segmentation": {"size": [4, 6], "counts": "31d0"},
                "area": 1,
                "bbox": [0, 3, 1, 1],
                "iscrowd": 1,
            },
        ],
        "categories": [
            {"id": 1, "name": "motion", "supercategory": ""},
            {"id": 2, "name": "shadow", "supercategory": ""},
            {"id": 3, "name": "outside-roi", "supercategory": ""},
            {"id": 4, "name": "unknown", "supercategory": ""},
        ],
    }
    maps, _ = registry.read(_write(tmp_path, "maps.json", maps_file), registry.LABEL_MAPS)
    write_coco_label_maps(maps, tmp_path / "maps2.json")
    assert json.loads((tmp_path / "maps2.json").read_text()) == maps_file


# --- the peer tool ---------------------------------------------------------------------------


def _peer(path: Path) -> COCO:
    with contextlib.redirect_stdout(io.StringIO()):
        return COCO(str(path))


def test_pycocotools_loads_referees_label_maps_and_decodes_the_same_masks(tmp_path: Path) -> None:
    rng = np.random.default_rng(8)
    levels = np.array([0, 50, 85, 170, 255], np.uint8)
    maps = {"v": {f: levels[rng.integers(0, 5, (30, 41))] for f in (1, 2, 3)}}
    write_coco_label_maps(maps, tmp_path / "maps.json")
    peer = _peer(tmp_path / "maps.json")
    level_of = {
        c["id"]: {"motion": 255, "shadow": 50, "outside-roi": 85, "unknown": 170}[c["name"]]
        for c in peer.loadCats(peer.getCatIds())
    }
    seen = 0
    for annotation in peer.loadAnns(peer.getAnnIds()):
        frame = peer.imgs[annotation["image_id"]]["frame_id"]
        mask = maps["v"][frame] == level_of[annotation["category_id"]]
        np.testing.assert_array_equal(peer.annToMask(annotation), mask)
        assert annotation["area"] == mask.sum() and annotation["iscrowd"] == (
            level_of[annotation["category_id"]] == 170
        )
        seen += 1
    assert seen == 12  # every level on every frame


def test_pycocotools_loads_referees_boxes(tmp_path: Path) -> None:
    truth = [_boxes("v", {1: FrameBoxes([[0, 0, 4, 4], [5, 5, 2, 3]], [1, 2])})]
    found = [_boxes("v", {1: FrameBoxes([[0, 0, 4, 5]], [1], None, [0.5])})]
    write_coco_boxes(truth, tmp_path / "truth.json", image_size=(10, 10))
    write_coco_boxes(found, tmp_path / "found.json")
    peer = _peer(tmp_path / "truth.json")
    assert [a["bbox"] for a in peer.loadAnns(peer.getAnnIds())] == [[0, 0, 4, 4], [5, 5, 2, 3]]
    with contextlib.redirect_stdout(io.StringIO()):
        results = peer.loadRes(str(tmp_path / "found.json"))
    assert [a["score"] for a in results.loadAnns(results.getAnnIds())] == [0.5]


# Two categories on three frames; boxes and scores chosen so that matches happen at
# several IoU thresholds, with a false positive, a miss and a tie in scores.
AP_TRUTH: dict[str, Any] = {
    "info": {},
    "images": [
        {"id": k, "file_name": f"{k:06d}.jpg", "height": 200, "width": 300} for k in (1, 2, 3)
    ],
    "annotations": [
        {
            "id": 1,
            "image_id": 1,
            "category_id": 1,
            "bbox": [10, 10, 40, 60],
            "area": 2400,
            "iscrowd": 0,
        },
        {
            "id": 2,
            "image_id": 1,
            "category_id": 1,
            "bbox": [100, 20, 20, 20],
            "area": 400,
            "iscrowd": 0,
        },
        {
            "id": 3,
            "image_id": 1,
            "category_id": 2,
            "bbox": [150, 100, 120, 90],
            "area": 10800,
            "iscrowd": 0,
        },
        {
            "id": 4,
            "image_id": 2,
            "category_id": 1,
            "bbox": [0, 0, 50, 50],
            "area": 2500,
            "iscrowd": 0,
        },
        {
            "id": 5,
            "image_id": 2,
            "category_id": 2,
            "bbox": [60, 60, 30, 30],
            "area": 900,
            "iscrowd": 0,
        },
        {
            "id": 6,
            "image_id": 3,
            "category_id": 1,
            "bbox": [200, 100, 10, 10],
            "area": 100,
            "iscrowd": 0,
        },
    ],
    "categories": [{"id": 1, "name": "person"}, {"id": 2, "name": "car"}],
}
AP_RESULTS: list[dict[str, Any]] = [
    {"image_id": 1, "category_id": 1, "bbox": [12, 12, 40, 58], "score": 0.95},
    {"image_id": 1, "category_id": 1, "bbox": [102, 22, 20, 20], "score": 0.6},
    {"image_id": 1, "category_id": 1, "bbox": [250, 150, 30, 30], "score": 0.6},
    {"image_id": 1, "category_id": 2, "bbox": [160, 110, 110, 80], "score": 0.8},
    {"image_id": 2, "category_id": 1, "bbox": [5, 5, 50, 50], "score": 0.7},
    {"image_id": 2, "category_id": 2, "bbox": [70, 70, 30, 30], "score": 0.3},
    {"image_id": 2, "category_id": 2, "bbox": [60, 61, 30, 29], "score": 0.2},
    {"image_id": 3, "category_id": 1, "bbox": [0, 0, 10, 10], "score": 0.9},
]


def test_ap_from_coco_files_equals_cocoeval(tmp_path: Path) -> None:
    truth_path = _write(tmp_path, "truth.json", AP_TRUTH)
    results_path = _write(tmp_path, "results.json", AP_RESULTS)
    (truth,), _ = registry.read(truth_path, registry.BOXES)
    (found,), _ = registry.read(results_path, registry.BOXES, images=truth_path)
    ours = coco_ap(
        [
            GroundTruthBox(frame, int(label), *box)
            for frame, boxes in truth.frames.items()
            for box, label in zip(boxes.boxes.tolist(), boxes.labels.tolist())
        ],
        [
            DetectedBox(frame, int(label), *box, score)
            for frame, boxes in found.frames.items()
            for box, label, score in zip(
                boxes.boxes.tolist(), boxes.labels.tolist(), boxes.confidences.tolist()
            )
        ],
    )
    with contextlib.redirect_stdout(io.StringIO()):
        peer = COCO(str(truth_path))
        evaluation = COCOeval(peer, peer.loadRes(str(results_path)), "bbox")
        evaluation.evaluate()
        evaluation.accumulate()
        evaluation.summarize()
    np.testing.assert_allclose(ours.overall.as_tuple(), evaluation.stats, rtol=0, atol=1e-12)
    assert 0 < ours.overall.ap < 1  # neither perfect nor empty: the comparison means something


# --- bad input -------------------------------------------------------------------------------


def _broken(change: str) -> Any:
    document = json.loads(json.dumps(INSTANCES))
    if change == "no bbox":
        del document["annotations"][0]["bbox"]
    elif change == "negative width":
        document["annotations"][1]["bbox"][2] = -2
    elif change == "no frame in name":
        document["images"][2]["file_name"] = "street.jpg"
    elif change == "unknown image":
        document["annotations"][0]["image_id"] = 99
    elif change == "unknown category":
        document["annotations"][0]["category_id"] = 5
    elif change == "short rle":
        document["annotations"][2]["segmentation"]["counts"] = [0, 4, 19]
    elif change == "rle size":
        document["annotations"][1]["segmentation"]["size"] = [6, 4]
    elif change == "two-point polygon":
        document["annotations"][0]["segmentation"] = [[1, 1, 3, 1]]
    elif change == "bbox text":
        document["annotations"][0]["bbox"] = "1,1,2,2"
    elif change == "same frame":
        document["images"][1]["file_name"] = "frame_1.png"
    return document


@pytest.mark.parametrize(
    ("change", "kind", "message"),
    [
        ("no bbox", registry.BOXES, r"annotations\[0\]\.bbox: is missing"),
        (
            "negative width",
            registry.BOXES,
            r"annotations\[1\]\.bbox: width is -2; .* cannot be negative",
        ),
        (
            "no frame in name",
            registry.BOXES,
            r"images\[2\]\.file_name: 'street\.jpg' names no frame",
        ),
        (
            "unknown image",
            registry.BOXES,
            r"annotations\[0\]\.image_id: is 99, which no entry of images has",
        ),
        (
            "unknown category",
            registry.BOXES,
            r"annotations\[0\]\.category_id: is 5, which no entry of categories",
        ),
        (
            "short rle",
            registry.LABEL_MAPS,
            r"annotations\[2\]\.segmentation\.counts: the counts sum to 23",
        ),
        (
            "rle size",
            registry.LABEL_MAPS,
            r"annotations\[1\]\.segmentation\.size: is \[6, 4\] but the frame is 4 high",
        ),
        (
            "two-point polygon",
            registry.LABEL_MAPS,
            r"annotations\[0\]\.segmentation\[0\]: holds 4 numbers",
        ),
        (
            "bbox text",
            registry.BOXES,
            r"annotations\[0\]\.bbox: must be a list of numbers, not a string",
        ),
        ("same frame", registry.BOXES, r"images\[1\]: is frame 1 of 'street', as images\[0\] is"),
    ],
)
def test_bad_instances_are_one_line_naming_the_file_and_key(
    tmp_path: Path, change: str, kind: str, message: str
) -> None:
    path = _write(tmp_path, "street.json", _broken(change))
    options = {"levels": LEVELS} if kind == registry.LABEL_MAPS else {}
    with pytest.raises(InputFileError, match=message) as raised:
        registry.read(path, kind, **options)
    assert str(raised.value).startswith(f"{path}: ") and "\n" not in str(raised.value)


def test_a_category_without_a_level_is_refused(tmp_path: Path) -> None:
    path = _write(tmp_path, "street.json", INSTANCES)
    with pytest.raises(
        InputFileError,
        match=r"annotations\[1\]\.category_id: category 2 \('car'\) has no CDnet level",
    ):
        read_coco_label_maps(path, levels={"person": 255})
    with pytest.raises(InvalidOptionError, match="the label 'car' is given the level 60"):
        read_coco_label_maps(path, levels={"person": 255, "car": 60})


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"images": [}', r"not valid JSON: line 1, column 13"),
        ('{"images": [], "images": []}', "the key 'images' is given twice"),
        ('{"images": [{"id": NaN}]}', "NaN is not a number JSON allows"),
        (
            '{"images": {}, "annotations": [], "categories": []}',
            r"images: must be a list \[…\], not an object",
        ),
        ('{"images": [], "annotations": []}', "categories: is missing"),
        ('[{"image_id": 1, "category_id": 1, "bbox": [0, 0, 1, 1]}]', r"\[0\]\.score: is missing"),
        (
            '[{"image_id": 1e3, "category_id": 1, "bbox": [0, 0, 1, 1], "score": 1}]',
            r"\[0\]\.image_id: must be a whole number, not 1000\.0",
        ),
    ],
)
def test_malformed_files_are_one_line_naming_the_file(
    tmp_path: Path, text: str, message: str
) -> None:
    path = tmp_path / "bad.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputFileError, match=message) as raised:
        registry.read(path, registry.BOXES)
    assert str(raised.value).startswith(f"{path}: ") and "\n" not in str(raised.value)


def test_an_oversized_file_is_refused_before_it_is_read(tmp_path: Path) -> None:
    path = tmp_path / "huge.json"
    with open(path, "wb") as out:
        out.write(b'{"images": [')
        out.truncate(MAX_TEXT_FILE_BYTES + 1)  # sparse: nothing is written
    with pytest.raises(
        InputFileError, match="is 64 MiB; Referee reads such files up to 64 MiB"
    ) as raised:
        registry.read(path, registry.BOXES)
    assert str(raised.value).startswith(f"{path}: ")


def test_writers_refuse_what_coco_cannot_say(tmp_path: Path) -> None:
    mixed = [
        _boxes(
            "v", {1: FrameBoxes([[0, 0, 1, 1]], None, None, [0.5]), 2: FrameBoxes([[0, 0, 1, 1]])}
        )
    ]
    with pytest.raises(InvalidOptionError, match="some boxes have confidences and others not"):
        write_coco_boxes(mixed, tmp_path / "x.json")
    with pytest.raises(InvalidOptionError, match="two videos have the same name"):
        write_coco_boxes([_boxes("v", {}), _boxes("v", {})], tmp_path / "x.json")
    with pytest.raises(
        InvalidOptionError, match=r"video 'v', frame 1: ground truth holds the value 7"
    ):
        write_coco_label_maps({"v": {1: np.full((2, 2), 7, np.uint8)}}, tmp_path / "x.json")
    assert not (tmp_path / "x.json").exists()
