"""Ground-truth PNG files (docs/measures.md §1, §10): round trip, refusals, atomic writing."""

from __future__ import annotations

import os
from pathlib import Path

import cv2
import numpy as np
import pytest

from referee.core.errors import InvalidOptionError
from referee.core.formats.cdnet import read_gt
from referee.core.formats.gt_png import encode_ground_truth_png, write_ground_truth_png

LEVELS = np.array([0, 50, 85, 170, 255], np.uint8)


def test_a_written_label_map_reads_back_identical(tmp_path: Path) -> None:
    label = np.random.default_rng(0).choice(LEVELS, size=(23, 37))
    path = tmp_path / "gt000001.png"
    write_ground_truth_png(path, label)
    back = read_gt(path)
    assert back.dtype == np.uint8 and back.shape == (23, 37)
    assert np.array_equal(back, label)


def test_the_bytes_are_an_8_bit_single_channel_png() -> None:
    label = np.array([[0, 255], [85, 170], [50, 0]], np.uint8)
    data = encode_ground_truth_png(label)
    assert data.startswith(b"\x89PNG\r\n\x1a\n")
    assert data[24:26] == b"\x08\x00"  # IHDR: bit depth 8, colour type 0 (grey)
    decoded = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_UNCHANGED)
    assert np.array_equal(decoded, label)


def test_a_view_of_a_larger_map_is_written_as_the_view(tmp_path: Path) -> None:
    big = np.random.default_rng(1).choice(LEVELS, size=(20, 30))
    view = big[3:15:2, 5:25]
    path = tmp_path / "view.png"
    write_ground_truth_png(path, view)
    assert np.array_equal(read_gt(path), view)


def test_the_first_bad_value_is_named_with_its_pixel(tmp_path: Path) -> None:
    label = np.zeros((4, 6), np.uint8)
    label[2, 0] = 9
    label[1, 3] = 7  # row 1 comes before row 2
    path = tmp_path / "gt.png"
    with pytest.raises(InvalidOptionError, match=r"value 7 at pixel \(x, y\) = \(3, 1\)"):
        write_ground_truth_png(path, label)
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize(
    "label",
    [
        np.zeros((3, 3), np.uint16),
        np.zeros((3, 3), np.float64),
        np.zeros((3, 3, 3), np.uint8),
        np.zeros(5, np.uint8),
        np.zeros((0, 4), np.uint8),
    ],
)
def test_other_arrays_are_refused(label: np.ndarray) -> None:
    with pytest.raises(InvalidOptionError, match="ground truth must"):
        encode_ground_truth_png(label)


def test_writing_replaces_atomically_and_leaves_no_temporary_file(tmp_path: Path) -> None:
    path = tmp_path / "gt000002.png"
    path.write_bytes(b"old")
    label = np.full((5, 5), 170, np.uint8)
    write_ground_truth_png(path, label)
    assert os.listdir(tmp_path) == ["gt000002.png"]
    assert np.array_equal(read_gt(path), label)
