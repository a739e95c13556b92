"""labelme JSON folders (docs/measures.md §10): boxes and label maps, round trips, bad input.

Fixtures follow labelme's file: ``shapes`` of ``label``, ``points``, ``group_id`` and
``shape_type`` (polygon, rectangle…), with ``imageHeight``, ``imageWidth`` and
``imagePath``; expected boxes and pixels are worked out by hand in the comments.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from referee.core.errors import InputFileError, InvalidOptionError, RefereeWarning
from referee.core.formats import registry
from referee.core.formats.labelme import (
    LABELME_VERSION,
    read_labelme_boxes,
    read_labelme_label_maps,
    write_labelme_boxes,
    write_labelme_label_maps,
)
from referee.core.measures.boxes import FrameBoxes, VideoBoxes

CLASSES = {"person": 1, "car": 2}
LEVELS = {"person": 255, "car": 50}
TRIANGLE = [[10.5, 2.5], [13.5, 2.5], [10.5, 5.5]]


def _shape(label: str, points: Any, kind: str | None, group: int | None = None) -> dict[str, Any]:
    shape = {"label": label, "points": points, "group_id": group, "description": "", "flags": {}}
    if kind is not None:
        shape["shape_type"] = kind
    return shape


def _file(
    shapes: list[dict[str, Any]], image: str, height: int = 8, width: int = 16
) -> dict[str, Any]:
    return {
        "version": "5.4.1",
        "flags": {},
        "shapes": shapes,
        "imagePath": image,
        "imageData": None,
        "imageHeight": height,
        "imageWidth": width,
    }


# Frame 12 of a 16 × 8 video: a person's rectangle of corners (2, 1) and (5, 4), a car's
# triangle through the centres of pixels (10, 2), (13, 2) and (10, 5), and a point (left out).
# Frame 13: no shape.
FRAME_12 = _file(
    [
        _shape("person", [[5, 4], [2, 1]], "rectangle", 3),
        _shape("car", TRIANGLE, "polygon", 4),
        _shape("person", [[0, 0]], "point"),
    ],
    "in000012.jpg",
)


def _folder(root: Path, files: dict[str, Any]) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    for name, document in files.items():
        text = document if isinstance(document, str) else json.dumps(document)
        (root / name).write_text(text, encoding="utf-8")
    return root


def _fixture(tmp_path: Path) -> Path:
    return _folder(
        tmp_path / "hall", {"in000012.json": FRAME_12, "in000013.json": _file([], "in000013.jpg")}
    )


def test_boxes_of_rectangles_and_polygons(tmp_path: Path) -> None:
    with pytest.warns(
        RefereeWarning, match=r"in000012\.json: shapes\[2\]: 1 shape\(s\) other than"
    ):
        (video,), name = registry.read(_fixture(tmp_path), registry.BOXES, classes=CLASSES)
    assert name == "labelme" and video.name == "hall" and sorted(video.frames) == [12, 13]
    # The rectangle's corners in any order; the triangle's bounding box.
    assert video.at(12).boxes.tolist() == [[2, 1, 3, 3], [10.5, 2.5, 3, 3]]
    assert video.at(12).labels.tolist() == [1, 2] and video.at(12).ids.tolist() == [3, 4]
    assert len(video.at(13)) == 0
    with pytest.warns(RefereeWarning):
        (unlabelled,) = read_labelme_boxes(_fixture(tmp_path), video="other")
    assert unlabelled.name == "other" and unlabelled.at(12).labels is None


def test_label_maps_paint_the_pixels_whose_centres_the_shapes_hold(tmp_path: Path) -> None:
    with pytest.warns(RefereeWarning):
        maps, _ = registry.read(_fixture(tmp_path), registry.LABEL_MAPS, levels=LEVELS)
    expected = np.zeros((8, 16), np.uint8)
    expected[1:4, 2:5] = 255  # centres 2.5 … 4.5 and 1.5 … 3.5 lie in [2, 5] × [1, 4]
    for y, (first, last) in {2: (10, 13), 3: (10, 12), 4: (10, 11), 5: (10, 10)}.items():
        expected[y, first : last + 1] = 50  # x ≥ 10, y ≥ 2, x + y ≤ 15 (the hypotenuse)
    np.testing.assert_array_equal(maps["hall"][12], expected)
    np.testing.assert_array_equal(maps["hall"][13], np.zeros((8, 16), np.uint8))
    # OpenCV puts integer coordinates at pixel centres: the triangle less half a pixel.
    opencv = np.zeros((8, 16), np.uint8)
    cv2.fillPoly(opencv, [(np.array(TRIANGLE) - 0.5).astype(np.int32)], 50)
    np.testing.assert_array_equal(np.where(expected == 50, 50, 0), opencv)


def test_a_shape_without_shape_type_is_a_polygon_and_one_file_is_a_video(tmp_path: Path) -> None:
    path = tmp_path / "cam" / "frame_7.json"
    _folder(tmp_path / "cam", {"frame_7.json": _file([_shape("car", TRIANGLE, None)], "x.png")})
    (video,), name = registry.read(path, registry.BOXES)
    assert (
        name == "labelme"
        and video.name == "cam"
        and video.at(7).boxes.tolist() == [[10.5, 2.5, 3, 3]]
    )


# --- round trips -----------------------------------------------------------------------------


def test_boxes_to_labelme_and_back(tmp_path: Path) -> None:
    videos = [
        VideoBoxes(
            "v",
            {
                1: FrameBoxes([[0, 0, 3, 4], [10, 20, 0, 5]], [2, 1], [7, 9]),
                4: FrameBoxes(np.zeros((0, 4)), np.zeros(0), np.zeros(0)),
                5: FrameBoxes([[0.1, 0.7, 0.2, 3.3]], [1], [7]),
            },
        )
    ]
    writer = registry.writer("labelme", registry.BOXES)
    assert writer.cannot_hold == "confidences"
    writer.write(
        videos, tmp_path / "out", force=False, image_size=(64, 48), names={1: "person", 2: "car"}
    )
    (back,) = read_labelme_boxes(tmp_path / "out", classes=CLASSES, video="v")
    assert sorted(back.frames) == [1, 4, 5]
    np.testing.assert_array_equal(back.at(1).boxes, videos[0].at(1).boxes)  # whole pixels: exact
    np.testing.assert_allclose(back.at(5).boxes, videos[0].at(5).boxes, rtol=0, atol=1e-12)
    for frame in (1, 5):
        assert back.at(frame).labels.tolist() == videos[0].at(frame).labels.tolist()
        assert back.at(frame).ids.tolist() == videos[0].at(frame).ids.tolist()


def test_label_maps_to_labelme_and_back_exactly(tmp_path: Path) -> None:
    rng = np.random.default_rng(2)
    levels = np.array([0, 50, 85, 170, 255], np.uint8)
    blobs = np.zeros((40, 60), np.uint8)
    for _ in range(8):
        centre = (int(rng.integers(0, 60)), int(rng.integers(0, 40)))
        cv2.circle(blobs, centre, int(rng.integers(2, 12)), int(rng.choice(levels)), -1)
    maps = {"v": {3: blobs, 4: levels[rng.integers(0, 5, (25, 31))], 5: np.zeros((4, 4), np.uint8)}}
    writer = registry.writer("labelme", registry.LABEL_MAPS)
    writer.write(maps, tmp_path / "out", force=False)
    back, _ = registry.read(tmp_path / "out", registry.LABEL_MAPS)
    assert list(back) == ["out"] and list(back["out"]) == [3, 4, 5]
    for frame, label in maps["v"].items():
        np.testing.assert_array_equal(back["out"][frame], label)


def test_a_hand_written_file_is_written_back_as_it_was(tmp_path: Path) -> None:
    boxes_file = {
        "version": LABELME_VERSION,
        "flags": {},
        "shapes": [
            _shape("person", [[2, 1], [5, 4]], "rectangle", 3) | {"shape_type": "rectangle"},
            _shape("car", [[0.5, 0], [10, 7.25]], "rectangle", 4),
        ],
        "imagePath": "000012.jpg",
        "imageData": None,
        "imageHeight": 8,
        "imageWidth": 16,
    }
    source = _folder(tmp_path / "in", {"000012.json": boxes_file})
    videos = read_labelme_boxes(source, classes=CLASSES)
    write_labelme_boxes(videos, tmp_path / "out", image_size=(16, 8), names={1: "person", 2: "car"})
    assert json.loads((tmp_path / "out" / "000012.json").read_text()) == boxes_file

    # A map's region written as the polygon through its boundary pixels' centres.
    square = [[1.5, 1.5], [1.5, 2.5], [3.5, 2.5], [3.5, 1.5]]
    maps_source = _folder(
        tmp_path / "maps",
        {"000002.json": _file([_shape("motion", square, "polygon")], "x.jpg", 5, 6)},
    )
    write_labelme_label_maps(read_labelme_label_maps(maps_source), tmp_path / "maps_out")
    (shape,) = json.loads((tmp_path / "maps_out" / "000002.json").read_text())["shapes"]
    assert shape["label"] == "motion" and shape["shape_type"] == "polygon"
    written = shape["points"]
    turns = [written[k:] + written[:k] for k in range(4)]
    assert square in turns or square[::-1] in turns


# --- bad input -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("document", "message"),
    [
        ("{", r"not valid JSON: line 1, column 2"),
        ({k: v for k, v in FRAME_12.items() if k != "imageHeight"}, "imageHeight: is missing"),
        (
            _file([_shape("car", [[0, 0], [1, 1]], "polygon")], "x.jpg"),
            r"shapes\[0\]\.points: holds 2 points; a polygon has at least 3",
        ),
        (
            _file([_shape("car", [[0, 0], [1, 1], [2, 2]], "rectangle")], "x.jpg"),
            r"shapes\[0\]\.points: holds 3 points; a rectangle has 2",
        ),
        (
            _file([_shape("car", [[0, 0], [1, "a"]], "rectangle")], "x.jpg"),
            r"shapes\[0\]\.points\[1\]\[1\]: must be a number, not 'a'",
        ),
        (
            _file([_shape("bus", TRIANGLE, "polygon")], "x.jpg"),
            r"shapes\[0\]\.label: 'bus' is not one of the classes given",
        ),
        (
            _file([_shape(7, TRIANGLE, "polygon")], "x.jpg"),
            r"shapes\[0\]\.label: must be a string, not a number",
        ),
        (_file([], "x.jpg", 0, 5), r"imageHeight: is 0; it must be within 1\.\."),
    ],
)
def test_bad_files_are_one_line_naming_the_file_and_key(
    tmp_path: Path, document: Any, message: str
) -> None:
    folder = _folder(tmp_path / "v", {"000001.json": _file([], "a.jpg"), "000002.json": document})
    # The folder is told by its first file; the second is the bad one.
    with pytest.raises(InputFileError, match=message) as raised:
        registry.read(folder, registry.BOXES, classes=CLASSES)
    assert str(raised.value).startswith(f"{folder / '000002.json'}: ") and "\n" not in str(
        raised.value
    )


def test_labels_without_a_level_names_without_frames_and_oversized_files(tmp_path: Path) -> None:
    folder = _fixture(tmp_path)
    with (
        pytest.warns(RefereeWarning),
        pytest.raises(
            InputFileError, match=r"in000012\.json: shapes\[1\]\.label: 'car' has no CDnet level"
        ),
    ):
        read_labelme_label_maps(folder, levels={"person": 255})
    (folder / "cover.json").write_text(json.dumps(_file([], "cover.jpg")))
    with pytest.raises(InputFileError, match=r"cover\.json: 'cover\.json' names no frame"):
        read_labelme_boxes(folder)
    (folder / "cover.json").unlink()
    with open(folder / "in000014.json", "wb") as out:
        out.truncate(64 * 2**20 + 1)
    with pytest.raises(InputFileError, match=r"in000014\.json: is 64 MiB"):
        read_labelme_boxes(folder)


def test_writers_need_one_video_and_a_size(tmp_path: Path) -> None:
    video = VideoBoxes("v", {1: FrameBoxes([[0, 0, 1, 1]])})
    with pytest.raises(InvalidOptionError, match="a labelme folder holds one video, not 2"):
        write_labelme_boxes([video, video], tmp_path, image_size=(4, 4))
    with pytest.raises(InvalidOptionError, match="labelme files give the image's size"):
        write_labelme_boxes([video], tmp_path)
    write_labelme_boxes([video], tmp_path / "o", image_size=(4, 4))
    (shape,) = json.loads((tmp_path / "o" / "000001.json").read_text())["shapes"]
    assert shape["label"] == "object" and shape["points"] == [[0, 0], [1, 1]]
    with pytest.raises(InputFileError, match="already exists"):
        write_labelme_boxes([video], tmp_path / "o", image_size=(4, 4))
