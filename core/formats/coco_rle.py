"""COCO's run-length encoding of masks (docs/measures.md §10).

A mask of ``h × w`` pixels is read column by column (column-major: down the
first column, then the second…). Its *counts* are the lengths of the
alternating runs of 0 and 1, starting with 0 (a mask whose first pixel is 1
starts with a count of 0); they sum to ``h · w``. COCO files hold them as a
list (*uncompressed* RLE) or as a string (*compressed*): from the fourth count
on, each count is replaced by its difference from the count two before; each
value is cut into 5-bit groups, least significant first, as few as hold it with
the last group's bit 16 as the sign; each group is written as the character
``48 + group``, plus 32 when another group follows.
"""

from __future__ import annotations

import numpy as np

from referee.core.errors import InvalidOptionError

#: The most characters one count may take (35 bits; a count of the largest image needs 6).
MAX_GROUPS = 7


def mask_counts(mask: np.ndarray) -> np.ndarray:
    """The counts of a 2-D mask (non-zero is 1), ``int64``."""
    flat = np.asarray(mask).ravel(order="F") != 0
    if flat.size == 0:
        return np.zeros(0, np.int64)
    changes = np.flatnonzero(flat[1:] != flat[:-1]) + 1
    runs = np.diff(np.concatenate(([0], changes, [flat.size])))
    return np.concatenate(([0], runs) if flat[0] else (runs,)).astype(np.int64)


def counts_mask(counts: np.ndarray, height: int, width: int) -> np.ndarray:
    """The ``bool`` mask ``(height, width)`` of counts that sum to ``height · width``."""
    values = np.arange(len(counts)) % 2 == 1
    return np.ascontiguousarray(np.repeat(values, counts).reshape(width, height).T)


def counts_text(counts: np.ndarray) -> str:
    """The compressed string of counts."""
    values = np.asarray(counts, dtype=np.int64).copy()
    values[3:] -= np.asarray(counts, dtype=np.int64)[1:-2]
    magnitude = np.where(values >= 0, values, ~values).astype(np.float64)
    groups = (np.frexp(magnitude)[1] + 5) // 5  # bits of the magnitude, and the sign's
    if not len(values):
        return ""
    positions = np.arange(int(groups.max()))
    chunks = (values[:, None] >> (5 * positions)[None, :]) & 0x1F
    more = positions[None, :] < groups[:, None] - 1
    characters = 48 + (chunks | np.where(more, 0x20, 0))
    return characters[positions[None, :] < groups[:, None]].astype(np.uint8).tobytes().decode()


def text_counts(text: str) -> np.ndarray:
    """The counts of a compressed string, ``int64`` (not yet checked against a size).

    Raises
    ------
    InvalidOptionError
        If the string holds a character outside ``0``…``o``, a count of more than
        :data:`MAX_GROUPS` characters, or ends inside a count.
    """
    if not text:
        return np.zeros(0, np.int64)
    if text.isascii():
        data = np.frombuffer(text.encode("ascii"), np.uint8).astype(np.int64)
    else:
        data = np.array([ord(c) for c in text], np.int64)
    wrong = (data < 48) | (data > 111)
    if wrong.any():
        at = int(np.argmax(wrong))
        raise InvalidOptionError(
            f"character {at + 1} ({text[at]!r}) is not one COCO's compressed counts use "
            "('0' to 'o')"
        )
    data -= 48
    more = (data & 0x20) != 0
    if more[-1]:
        raise InvalidOptionError("the string ends inside a count: it was cut short")
    ends = np.flatnonzero(~more)
    starts = np.concatenate(([0], ends[:-1] + 1))
    lengths = ends - starts + 1
    if np.max(lengths) > MAX_GROUPS:
        raise InvalidOptionError(f"a count takes more than {MAX_GROUPS} characters")
    position = np.arange(len(data)) - np.repeat(starts, lengths)
    values = np.add.reduceat((data & 0x1F) << (5 * position), starts)
    values = np.where((data[ends] & 0x10) != 0, values - (1 << (5 * lengths)), values)
    counts: np.ndarray = values.copy()
    counts[2::2] = np.cumsum(values[2::2])
    counts[1::2] = np.cumsum(values[1::2])
    return counts


def check_counts(counts: np.ndarray, height: int, width: int) -> None:
    """Refuse counts that cannot be a mask of ``height × width``.

    Raises
    ------
    InvalidOptionError
        If a count is negative or the counts do not sum to ``height · width``.
    """
    if len(counts) and counts.min() < 0:
        raise InvalidOptionError(
            f"count {int(np.argmin(counts)) + 1} is {int(counts.min())}; counts cannot be negative"
        )
    total = int(counts.sum())
    if total != height * width:
        raise InvalidOptionError(
            f"the counts sum to {total:,} pixels but the mask is {height} × {width} = "
            f"{height * width:,}"
        )


def mask_box(mask: np.ndarray) -> list[float]:
    """``[x, y, w, h]`` of the pixels set in a 2-D mask (COCO's box of a mask); zeros if none."""
    rows, columns = np.flatnonzero(mask.any(axis=1)), np.flatnonzero(mask.any(axis=0))
    if not len(rows):
        return [0.0, 0.0, 0.0, 0.0]
    x, y = int(columns[0]), int(rows[0])
    return [float(x), float(y), float(columns[-1] + 1 - x), float(rows[-1] + 1 - y)]
