"""Writing MOTChallenge files that read back identical (docs/measures.md §10)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from referee.core.annotation.keyframes import with_keyframe
from referee.core.errors import InputFileError, InvalidOptionError
from referee.core.formats.mot_csv import (
    MotRows,
    format_mot_csv,
    parse_mot_csv,
    read_mot_csv,
    write_mot_csv,
)
from referee.core.formats.own_formats import rows_of_tracks, tracks_from_rows
from referee.core.formats.text_files import keeping_existing
from referee.core.model.tracks import Track

AWKWARD = [
    0.1,
    1e-7,
    123456.789,
    5.0,
    -0.0,
    1 / 3,
    2.5e-300,
    999999.9999999999,
    0.30000000000000004,
]


def _rows(values: list[float]) -> MotRows:
    n = len(values)
    boxes = np.column_stack([values, values[::-1], np.abs(values), np.abs(values[::-1])])
    return MotRows(
        np.arange(1, n + 1, dtype=np.int64),
        np.arange(n, dtype=np.int64) - 3,
        boxes,
        np.array(values[1:] + values[:1]),
        np.arange(n, dtype=np.int64),
    )


def _assert_identical(read: MotRows, written: MotRows) -> None:
    for name in ("frames", "ids", "boxes", "conf"):
        a, b = getattr(read, name), getattr(written, name)
        assert a.dtype == b.dtype and a.shape == b.shape, name
        assert a.tobytes() == b.tobytes(), name  # bit for bit: -0.0 stays -0.0


def test_awkward_floats_read_back_bit_for_bit() -> None:
    rows = _rows(AWKWARD)
    _assert_identical(parse_mot_csv(format_mot_csv(rows)), rows)


def test_random_floats_of_every_magnitude_read_back_identical() -> None:
    rng = np.random.default_rng(11)
    values = (rng.uniform(-1, 1, 500) * 10.0 ** rng.integers(-12, 7, 500)).tolist()
    values = [v for v in values if abs(v) <= 1_000_000]
    rows = _rows(values)
    _assert_identical(parse_mot_csv(format_mot_csv(rows)), rows)


def test_lines_have_ten_columns_and_no_header() -> None:
    text = format_mot_csv(_rows(AWKWARD))
    lines = text.splitlines()
    assert len(lines) == len(AWKWARD) and text.endswith("\n")
    assert all(len(line.split(",")) == 10 for line in lines)
    assert all(line.endswith(",-1,-1,-1") for line in lines)
    assert lines[0] == "1,-3,0.1,0.30000000000000004,0.1,0.30000000000000004,1e-07,-1,-1,-1"
    assert lines[3] == "4,0,5,0.3333333333333333,5,0.3333333333333333,-0,-1,-1,-1"
    assert lines[4].split(",")[2] == "-0"


def test_whole_numbers_are_written_without_a_decimal_point() -> None:
    rows = MotRows(
        np.array([7]),
        np.array([12]),
        np.array([[3.0, 40.0, 120.0, 0.0]]),
        np.array([1.0]),
        np.array([0]),
    )
    assert format_mot_csv(rows) == "7,12,3,40,120,0,1,-1,-1,-1\n"


def test_written_file_is_read_back_identical(tmp_path: Path) -> None:
    rows = _rows(AWKWARD)
    path = tmp_path / "gt.txt"
    write_mot_csv(path, rows)
    _assert_identical(read_mot_csv(path), rows)
    assert not list(tmp_path.glob(".*"))  # no temporary file left behind


def test_edited_tracks_survive_a_save_and_load(tmp_path: Path) -> None:
    tracks = (
        with_keyframe(Track(1, [1], [[0, 0, 10, 10]]), 4, (1, 0.1, 13, 10)),
        Track(2, [2, 3], [[5.25, 5, 1e-7, 2], [6, 5, 1, 2]], conf=[0.5, 0.125]),
    )
    path = tmp_path / "gt.txt"
    write_mot_csv(path, rows_of_tracks(tracks))
    loaded = tracks_from_rows(read_mot_csv(path))
    assert [t.track_id for t in loaded] == [1, 2]
    assert all(a.boxes.tobytes() == b.boxes.tobytes() for a, b in zip(loaded, tracks))
    assert all(np.array_equal(a.conf, b.conf) for a, b in zip(loaded, tracks))


def test_no_rows_write_an_empty_file(tmp_path: Path) -> None:
    empty = MotRows(
        np.zeros(0, np.int64),
        np.zeros(0, np.int64),
        np.zeros((0, 4)),
        np.zeros(0),
        np.zeros(0, np.int64),
    )
    assert format_mot_csv(empty) == ""


@pytest.mark.parametrize("bad", [float("nan"), float("inf")])
def test_values_no_file_can_hold_are_refused(bad: float) -> None:
    rows = MotRows(
        np.array([1, 2]),
        np.array([1, 1]),
        np.array([[0, 0, 1, 1], [0, 0, 1, 1.0]]),
        np.array([1.0, bad]),
        np.array([0, 1]),
    )
    with pytest.raises(InvalidOptionError, match=r"row 1 \(frame 2, id 1\) .* not a finite number"):
        format_mot_csv(rows)


def test_an_existing_file_is_kept_when_asked(tmp_path: Path) -> None:
    path = tmp_path / "gt.txt"
    path.write_text("old", encoding="utf-8")
    with keeping_existing(), pytest.raises(InputFileError, match="already exists"):
        write_mot_csv(path, _rows([1.0]))
    assert path.read_text(encoding="utf-8") == "old"
