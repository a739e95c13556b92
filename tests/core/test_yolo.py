"""YOLO label folders (docs/measures.md §10): reading, writing, round trips, bad input.

Fixtures follow Ultralytics' label format: one ``<frame>.txt`` per image, lines
``class cx cy w h`` normalized by the image's size (``score`` after them for
detections), class names in ``data.yaml``'s ``names``; expected boxes are worked out
by hand in the comments.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from referee.core.errors import InputFileError, InvalidOptionError
from referee.core.formats import registry
from referee.core.formats.yolo import read_yolo_boxes, write_yolo_boxes, yolo_class_names
from referee.core.measures.boxes import FrameBoxes, VideoBoxes

SIZE = (640, 480)
# Frame 1 on a 640 × 480 image:
# * class 0 centred at (0.5·640, 0.5·480) = (320, 240), 0.25·640 = 160 wide, 0.5·480 = 240 high:
#   x = 320 − 80 = 240, y = 240 − 120 = 120;
# * class 2 centred at (64, 96), 32 × 48: x = 48, y = 72.
# Frame 3: an empty file, a frame without boxes.
FRAME_1 = "0 0.5 0.5 0.25 0.5\n2 0.1 0.2 0.05 0.1\n"
DATA_YAML = 'nc: 3\nnames:\n  0: "person"\n  1: "bicycle"\n  2: "car"\n'


def _folder(root: Path, files: dict[str, str]) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (root / name).write_text(text, encoding="utf-8")
    return root


def test_reads_boxes_in_pixels_frame_by_frame(tmp_path: Path) -> None:
    folder = _folder(
        tmp_path / "lobby", {"000001.txt": FRAME_1, "000003.txt": "", "data.yaml": DATA_YAML}
    )
    (video,) = read_yolo_boxes(folder, image_size=SIZE)
    assert video.name == "lobby" and sorted(video.frames) == [1, 3]
    assert video.at(1).boxes.tolist() == [[240, 120, 160, 240], [48, 72, 32, 48]]
    assert video.at(1).labels.tolist() == [0, 2]
    assert video.at(1).ids is None and video.at(1).confidences is None
    assert len(video.at(3)) == 0
    assert yolo_class_names(folder) == ["person", "bicycle", "car"]


def test_detections_carry_scores_and_min_conf_drops_the_low_ones(tmp_path: Path) -> None:
    folder = _folder(
        tmp_path / "det", {"frame_000002.txt": "0 0.5 0.5 0.25 0.5 0.9\n1 0.5 0.5 0.1 0.1 0.2\n"}
    )
    (video,) = read_yolo_boxes(folder, image_size=SIZE, video="lobby")
    assert video.name == "lobby" and video.at(2).confidences.tolist() == [0.9, 0.2]
    (kept,) = read_yolo_boxes(folder, image_size=SIZE, min_conf=0.5)
    assert kept.at(2).labels.tolist() == [0] and kept.at(2).confidences.tolist() == [0.9]


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("names: [person, 'bicycle', \"car\"]\n", ["person", "bicycle", "car"]),
        (
            "path: ../data\nnames:\n  0: person\n  1: bicycle # two wheels\nnc: 2\n",
            ["person", "bicycle"],
        ),
        ("names:\n- person\n- 'it''s'\ndownload: |\n  names: [not, these]\n", ["person", "it's"]),
        ("names: [a,\n  'b, c']\n", ["a", "b, c"]),
    ],
)
def test_data_yaml_names_as_ultralytics_writes_them(
    tmp_path: Path, text: str, names: list[str]
) -> None:
    assert yolo_class_names(_folder(tmp_path, {"data.yaml": text})) == names


def test_names_beside_a_labels_folder_and_in_classes_txt(tmp_path: Path) -> None:
    labels = _folder(tmp_path / "set" / "labels", {"000001.txt": "1 0.5 0.5 0.1 0.1\n"})
    _folder(tmp_path / "set", {"classes.txt": "person\nbicycle\n\n"})
    assert yolo_class_names(labels) == ["person", "bicycle"]
    assert registry.read(labels, registry.BOXES, image_size=SIZE)[1] == "yolo"


def test_the_registry_writes_a_folder_that_reads_back(tmp_path: Path) -> None:
    videos = [
        VideoBoxes(
            "lobby",
            {
                1: FrameBoxes(
                    [[0.5, 1.25, 30.1, 2], [600, 400, 40, 80]], [3, 0], None, [0.5, 0.123456]
                ),
                2: FrameBoxes(np.zeros((0, 4)), np.zeros(0), None, np.zeros(0)),
                17: FrameBoxes([[1 / 3, 2 / 7, 1e-3, 479.9]], [1], None, [1.0]),
            },
        )
    ]
    out = tmp_path / "out"
    writer = registry.writer("yolo", registry.BOXES)
    assert writer.cannot_hold == "identities"
    writer.write(videos, out, force=False, image_size=SIZE, names={0: "person", 3: "car"})
    assert sorted(p.name for p in out.iterdir()) == [
        "000001.txt",
        "000002.txt",
        "000017.txt",
        "data.yaml",
    ]
    assert (out / "000002.txt").read_text() == ""
    assert yolo_class_names(out) == ["person", "1", "2", "car"]
    (back,), name = registry.read(out, registry.BOXES, image_size=SIZE, video="lobby")
    assert name == "yolo" and back.name == "lobby" and sorted(back.frames) == [1, 2, 17]
    for frame, boxes in videos[0].frames.items():
        np.testing.assert_allclose(back.at(frame).boxes, boxes.boxes, rtol=0, atol=1e-11 * 640)
        np.testing.assert_array_equal(back.at(frame).labels, boxes.labels)
        np.testing.assert_allclose(back.at(frame).confidences, boxes.confidences, rtol=1e-11)


def test_a_hand_written_folder_is_written_back_as_it_was(tmp_path: Path) -> None:
    folder = _folder(
        tmp_path / "in", {"000001.txt": FRAME_1, "000003.txt": "", "data.yaml": DATA_YAML}
    )
    videos = read_yolo_boxes(folder, image_size=SIZE)
    names = dict(enumerate(yolo_class_names(folder) or []))
    write_yolo_boxes(videos, tmp_path / "out", image_size=SIZE, names=names)
    for name in ("000001.txt", "000003.txt", "data.yaml"):
        assert (tmp_path / "out" / name).read_text() == (folder / name).read_text()


def test_writing_refuses_existing_files_before_writing_any(tmp_path: Path) -> None:
    videos = [VideoBoxes("v", {1: FrameBoxes([[0, 0, 1, 1]]), 2: FrameBoxes([[0, 0, 2, 2]])})]
    out = _folder(tmp_path / "out", {"000002.txt": "old\n"})
    with pytest.raises(InputFileError, match=r"000002\.txt: already exists"):
        write_yolo_boxes(videos, out, image_size=SIZE)
    assert sorted(p.name for p in out.iterdir()) == ["000002.txt"]
    write_yolo_boxes(videos, out, force=True, image_size=SIZE)
    assert (
        out / "000002.txt"
    ).read_text() == "0 0.0015625 0.00208333333333 0.003125 0.00416666666667\n"


def test_writing_needs_one_video_a_size_and_consistent_scores(tmp_path: Path) -> None:
    one = VideoBoxes(
        "v", {1: FrameBoxes([[0, 0, 1, 1]], None, None, [0.5]), 2: FrameBoxes([[0, 0, 1, 1]])}
    )
    with pytest.raises(InvalidOptionError, match="a YOLO folder holds one video, not 2"):
        write_yolo_boxes([one, one], tmp_path, image_size=SIZE)
    with pytest.raises(InvalidOptionError, match=r"--image-size WxH; image_size=\(width, height\)"):
        write_yolo_boxes([one], tmp_path)
    with pytest.raises(InvalidOptionError, match="some boxes have scores and others not"):
        write_yolo_boxes([one], tmp_path, image_size=SIZE)


@pytest.mark.parametrize(
    ("files", "where", "message"),
    [
        (
            {"000001.txt": "0 0.5 0.5 0.2\n"},
            "000001.txt",
            "line 1: 4 values; a box is 'class cx cy w h'",
        ),
        (
            {"000001.txt": "0 0.5 0.5 0.2 -0.1\n"},
            "000001.txt",
            "line 1: w and h cannot be negative",
        ),
        (
            {"000001.txt": "\n1.5 0.5 0.5 0.2 0.1\n"},
            "000001.txt",
            r"line 2: class is '1\.5', not a whole number",
        ),
        ({"000001.txt": "0 0.5 0.5 0.2 nan\n"}, "000001.txt", "line 1: h is 'nan', not a number"),
        (
            {"000001.txt": "0 0.1 0.2 0.3 0.4 0.5 0.6 0.7\n"},
            "000001.txt",
            "segments and keypoints are not read",
        ),
        (
            {"000001.txt": "0 0.5 0.5 0.2 0.1 0.9\n", "000002.txt": "0 0.5 0.5 0.2 0.1\n"},
            "000002.txt",
            "line 1: 5 values, but earlier lines have 6",
        ),
        (
            {"000001.txt": "3 0.5 0.5 0.2 0.1\n", "data.yaml": DATA_YAML},
            "000001.txt",
            "class 3 has no name; the names file gives 0..2",
        ),
        ({"000001.txt": "", "notes.txt": "x"}, "notes.txt", "'notes.txt' names no frame"),
        ({"000001.txt": "", "1.txt": ""}, "1.txt", "gives frame 1, as 000001.txt does"),
        ({"000001.txt": "", "data.yaml": "nc: 1\n"}, "data.yaml", "has no 'names:' line"),
        (
            {"000001.txt": "", "data.yaml": "names:\n  0: a\n  2: b\n"},
            "data.yaml",
            "line 2: names' indices must be 0, 1, 2",
        ),
    ],
)
def test_bad_folders_are_one_line_naming_the_file_and_line(
    tmp_path: Path, files: dict[str, str], where: str, message: str
) -> None:
    folder = _folder(tmp_path / "v", files)
    with pytest.raises(InputFileError, match=message) as raised:
        registry.read(folder, registry.BOXES, image_size=SIZE)
    assert str(raised.value).startswith(f"{folder / where}: ") and "\n" not in str(raised.value)


def test_the_size_must_be_given_and_an_oversized_file_is_refused(tmp_path: Path) -> None:
    folder = _folder(tmp_path / "v", {"000001.txt": "0 0.5 0.5 0.1 0.1\n"})
    with pytest.raises(InvalidOptionError, match="YOLO files do not hold"):
        read_yolo_boxes(folder)
    with open(folder / "000002.txt", "wb") as out:
        out.truncate(64 * 2**20 + 1)
    with pytest.raises(
        InputFileError, match=r"000002\.txt: is 64 MiB; Referee reads such files up to 64 MiB"
    ):
        read_yolo_boxes(folder, image_size=SIZE)
