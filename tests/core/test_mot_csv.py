"""MOTChallenge CSV ``frame,id,x,y,w,h,conf,…`` (docs/measures.md §10): rows, per-frame boxes, errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from referee.core.errors import InputFileError
from referee.core.formats.mot_csv import read_mot_boxes, read_mot_csv

GOOD = (
    "1,1,10.5,20,30.25,40,0.9,-1,-1,-1\n"
    "1,2,100,20,30,40,0.2,-1,-1,-1\n"
    "\n"
    "3,1,11,21,30,40,1,-1,-1,-1\n"
)


def _write(tmp_path: Path, text: str, name: str = "det.txt") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_reads_rows_keeping_float_boxes(tmp_path: Path) -> None:
    rows = read_mot_csv(_write(tmp_path, GOOD))
    assert rows.frames.tolist() == [1, 1, 3]
    assert rows.ids.tolist() == [1, 2, 1]
    assert rows.boxes[0].tolist() == [10.5, 20.0, 30.25, 40.0]
    assert rows.conf.tolist() == [0.9, 0.2, 1.0]
    assert rows.lines.tolist() == [1, 2, 4]


def test_min_conf_drops_rows_below_it(tmp_path: Path) -> None:
    path = _write(tmp_path, GOOD)
    assert read_mot_csv(path, min_conf=0.5).ids.tolist() == [1, 1]
    assert len(read_mot_csv(path, min_conf=0.2)) == 3  # conf == min_conf is kept


def test_boxes_per_frame_one_video_named_after_the_file(tmp_path: Path) -> None:
    video = read_mot_boxes(_write(tmp_path, GOOD, "MOT17-02.txt"))
    assert video.name == "MOT17-02"
    assert sorted(video.frames) == [1, 3]
    assert video.at(1).ids.tolist() == [1, 2]
    assert video.at(1).labels is None
    assert len(video.at(2)) == 0
    assert video.box_count == 3


def test_a_header_row_and_seven_columns_are_accepted(tmp_path: Path) -> None:
    rows = read_mot_csv(_write(tmp_path, "frame,id,x,y,w,h,conf\n2,7,0,0,5,5,1\n"))
    assert rows.frames.tolist() == [2] and rows.lines.tolist() == [2]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1,1,0,0,5,5,1\n1,2,0,0,5\n", r"line 2: 5 columns, expected at least 7"),
        ("1,1,0,0,5,5,1\n\n2,1,abc,0,5,5,1\n", r"line 3: x is 'abc', not a number"),
        ("1,1,0,0,5,5,\n", r"line 1: conf is empty, not a number"),
        ("0,1,0,0,5,5,1\n", r"line 1: frame is 0; MOTChallenge frames start at 1"),
        ("1.5,1,0,0,5,5,1\n", r"line 1: frame is '1.5', not a whole number"),
        ("1,1,0,0,-5,5,1\n", r"line 1: w is -5; box width and height cannot be negative"),
        ("1,1,0,0,5,5,1\n2,1,0,0,5,-0.5,1\n", r"line 2: h is -0.5"),
        ("1,1,nan,0,5,5,1\n", r"line 1: x is 'nan', not a number"),
    ],
)
def test_errors_name_file_and_line(tmp_path: Path, text: str, expected: str) -> None:
    path = _write(tmp_path, text, "bad.txt")
    with pytest.raises(InputFileError, match=expected) as caught:
        read_mot_csv(path)
    assert str(caught.value).startswith(str(path))
