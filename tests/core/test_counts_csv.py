"""Counts CSV ``frame,count`` (docs/measures.md §10): reading, frame checks, errors naming file and line."""

from __future__ import annotations

from pathlib import Path

import pytest

from referee.core.errors import InputFileError, RefereeError
from referee.core.formats.counts_csv import (
    format_counts_csv,
    read_counts_csv,
    read_counts_pair,
    write_counts_csv,
)


def _write(tmp_path: Path, text: str, name: str = "counts.csv") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_reads_consecutive_frames_any_column_order(tmp_path: Path) -> None:
    path = _write(tmp_path, "Count,note,FRAME\n2,a,5\n\n 3 ,b, 6\n3,,7\n")
    series = read_counts_csv(path)
    assert series.first_frame == 5 and series.last_frame == 7
    assert series.counts.tolist() == [2, 3, 3]
    assert series.path == path


def test_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "out.csv"
    write_counts_csv(path, 1, [0, 4, 2])
    assert path.read_text(encoding="utf-8") == "frame,count\n1,0\n2,4\n3,2\n"
    assert read_counts_csv(path).counts.tolist() == [0, 4, 2]
    assert format_counts_csv(0, []) == "frame,count\n"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", r"empty file"),
        ("frame,total\n1,2\n", r"line 1: missing column 'count'"),
        ("frame,count\n", r"no rows after the header on line 1"),
        # a gap: frame 3 missing, reported on the line that skips it
        ("frame,count\n1,0\n2,0\n4,1\n", r"line 4: frame 4 follows frame 2: frame 3 is missing"),
        ("frame,count\n1,0\n5,1\n", r"line 3: frame 5 follows frame 1: frames 2–4 are missing"),
        ("frame,count\n1,0\n2,0\n2,1\n", r"line 4: frame 2 appears twice \(first on line 3\)"),
        ("frame,count\n3,0\n4,0\n1,1\n", r"line 4: frame 1 comes after frame 4"),
        ("frame,count\n1,0\n2,1.5\n", r"line 3: count is '1.5', not a whole number"),
        ("frame,count\n1,0\n2,-1\n", r"line 3: count is -1; counts cannot be negative"),
        ("frame,count\n1,0\n2,\n", r"line 3: count is empty"),
        ("frame,count\nx,0\n", r"line 2: frame is 'x', not a whole number"),
        ("frame,count\n-1,0\n", r"line 2: frame is -1; frame numbers cannot be negative"),
    ],
)
def test_errors_name_file_and_line(tmp_path: Path, text: str, expected: str) -> None:
    path = _write(tmp_path, text, "bad.csv")
    with pytest.raises(InputFileError, match=expected) as caught:
        read_counts_csv(path)
    assert str(caught.value).startswith(str(path))


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(InputFileError, match="cannot read"):
        read_counts_csv(tmp_path / "nope.csv")


def test_pair_must_cover_the_same_frames(tmp_path: Path) -> None:
    gt = _write(tmp_path, "frame,count\n1,0\n2,1\n3,1\n", "gt.csv")
    est = _write(tmp_path, "frame,count\n1,0\n2,1\n", "est.csv")
    with pytest.raises(RefereeError) as caught:
        read_counts_pair(gt, est)
    message = str(caught.value)
    assert str(gt) in message and str(est) in message
    assert "frames 1–3" in message and "frames 1–2" in message
    shifted = _write(tmp_path, "frame,count\n0,0\n1,1\n2,1\n", "shifted.csv")
    with pytest.raises(RefereeError, match="frames 0–2"):
        read_counts_pair(gt, shifted)
    same = _write(tmp_path, "frame,count\n1,5\n2,5\n3,6\n", "same.csv")
    a, b = read_counts_pair(gt, same)
    assert a.counts.tolist() == [0, 1, 1] and b.counts.tolist() == [5, 5, 6]
