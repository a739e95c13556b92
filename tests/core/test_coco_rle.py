"""COCO's run-length encoding (docs/measures.md §10): hand-worked strings, then pycocotools.

pycocotools is the peer tool, used here only: Referee's counts and strings must be
those its ``mask.encode`` gives, and its ``mask.decode`` must give Referee's masks back.
"""

from __future__ import annotations

import numpy as np
import pytest
from pycocotools import mask as coco_mask

from referee.core.errors import InvalidOptionError
from referee.core.formats.coco_rle import (
    check_counts,
    counts_mask,
    counts_text,
    mask_box,
    mask_counts,
    text_counts,
)

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")  # pycocotools' own

# Worked from the format's rules (see the module docstring):
# * 3 × 2, columns [0, 1, 1] and [1, 0, 0]: runs 1 zero, 3 ones, 2 zeros → "1", "3", "2".
# * 2 × 5, columns [1,1] [1,1] [1,0] [0,1] [1,1]: runs 0, 5, 2, 3; the fourth is written as
#   3 − 5 = −2, one group 30 (sign bit 16 set): chr(48 + 30) = "N".
# * 4 × 6 with pixels (x, y) = (4, 0), (5, 0), (5, 1): column-major indices 16, 20, 21:
#   runs 16, 1, 3, 2, 2; 16 needs two groups (its bit 16 would read as a sign): chr(48 + 16 + 32)
#   = "`" then "0"; 2 − 1 = 1 → "1"; 2 − 3 = −1 → group 31 → "O".
# * 40 × 2, second column set: runs 40, 40: 40 = 8 + 1·32 → "X" (8 + 32 + 48), then "1".
HAND_WORKED = [
    (np.array([[0, 1], [1, 0], [1, 0]]), [1, 3, 2], "132"),
    (np.array([[1, 1, 1, 0, 1], [1, 1, 0, 1, 1]]), [0, 5, 2, 3], "052N"),
    (
        np.array([[0, 0, 0, 0, 1, 1], [0, 0, 0, 0, 0, 1], [0] * 6, [0] * 6]),
        [16, 1, 3, 2, 2],
        "`0131O",
    ),
    (np.array([[0, 1]] * 40), [40, 40], "X1X1"),
]


@pytest.mark.parametrize(("mask", "counts", "text"), HAND_WORKED)
def test_hand_worked_counts_and_strings(mask: np.ndarray, counts: list[int], text: str) -> None:
    assert mask_counts(mask).tolist() == counts
    assert counts_text(np.array(counts)) == text
    assert text_counts(text).tolist() == counts
    assert np.array_equal(counts_mask(np.array(counts), *mask.shape), mask.astype(bool))


@pytest.mark.parametrize(("mask", "counts", "text"), HAND_WORKED)
def test_hand_worked_strings_are_pycocotools(
    mask: np.ndarray, counts: list[int], text: str
) -> None:
    encoded = coco_mask.encode(np.asfortranarray(mask.astype(np.uint8)))
    assert encoded["counts"].decode() == text
    assert encoded["size"] == list(mask.shape)


@pytest.mark.parametrize("seed", range(4))
def test_random_masks_encode_and_decode_as_pycocotools_does(seed: int) -> None:
    rng = np.random.default_rng(seed)
    for _ in range(200):
        height, width = rng.integers(1, 40, 2)
        mask = (rng.random((height, width)) < rng.random()).astype(np.uint8)
        ours = counts_text(mask_counts(mask))
        theirs = coco_mask.encode(np.asfortranarray(mask))
        assert ours == theirs["counts"].decode()
        decoded = coco_mask.decode({"size": [int(height), int(width)], "counts": ours})
        assert np.array_equal(decoded, mask)
        assert np.array_equal(counts_mask(text_counts(ours), height, width), mask.astype(bool))
        assert mask_box(mask) == coco_mask.toBbox(theirs).tolist()


def test_a_large_mask_with_long_runs() -> None:
    mask = np.zeros((1080, 1920), np.uint8)
    mask[100:900, 3:1917] = 1
    text = counts_text(mask_counts(mask))
    assert text == coco_mask.encode(np.asfortranarray(mask))["counts"].decode()
    assert np.array_equal(counts_mask(text_counts(text), 1080, 1920), mask.astype(bool))


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("13 2", r"character 3 \(' '\) is not one"),
        ("13é", r"character 3 \('é'\)"),
        ("1`", "ends inside a count"),
        ("1" + "`" * 7 + "0", "more than 7 characters"),
    ],
)
def test_damaged_strings_are_refused(text: str, problem: str) -> None:
    with pytest.raises(InvalidOptionError, match=problem):
        text_counts(text)


def test_counts_must_make_the_mask() -> None:
    check_counts(np.array([1, 3, 2]), 3, 2)
    with pytest.raises(InvalidOptionError, match="sum to 5 pixels but the mask is 3 × 2 = 6"):
        check_counts(np.array([1, 3, 1]), 3, 2)
    with pytest.raises(InvalidOptionError, match="count 2 is -1"):
        check_counts(text_counts("0O7"), 3, 2)
