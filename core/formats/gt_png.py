"""Writing CDnet ground-truth frames, ``groundtruth/gt%06d.png`` (docs/measures.md §1, §10).

A ground-truth frame is an 8-bit, single-channel PNG whose pixels hold the
five levels 0, 50, 85, 170 and 255 (docs/measures.md §1); anything else is
refused before a byte is written. Reading the file back with
:func:`~referee.core.formats.cdnet.read_gt` gives the same array. Files are
written atomically (:func:`~referee.core.formats.text_files.write_bytes`).
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from referee.core.errors import InvalidOptionError
from referee.core.formats.text_files import write_bytes
from referee.core.measures.pixel import GT_LEVEL_NAMES

_IS_LEVEL = np.zeros(256, bool)
_IS_LEVEL[list(GT_LEVEL_NAMES)] = True


def encode_ground_truth_png(label: np.ndarray) -> bytes:
    """The PNG bytes of a ground-truth label map (8-bit grey, docs/measures.md §10).

    Parameters
    ----------
    label
        ``uint8`` array of shape ``(h, w)``, ``h, w >= 1``, holding only the
        levels of docs/measures.md §1.

    Raises
    ------
    InvalidOptionError
        If ``label`` is not a non-empty 2-D ``uint8`` array, or holds another
        value (the message names the first one, in row order, and its pixel ``(x, y)``).
    """
    check_ground_truth(label)
    encoded, png = cv2.imencode(".png", label)
    if not encoded:  # pragma: no cover - OpenCV encodes every 2-D uint8 array
        raise InvalidOptionError("OpenCV could not encode the ground truth as PNG")
    return png.tobytes()


def write_ground_truth_png(path: str | Path, label: np.ndarray) -> None:
    """Write a ground-truth label map to ``path`` as PNG, atomically (docs/measures.md §10).

    Raises
    ------
    InvalidOptionError
        If ``label`` is not a ground-truth label map (see :func:`encode_ground_truth_png`).
    InputFileError
        If the file cannot be written.
    """
    write_bytes(path, encode_ground_truth_png(label))


def check_ground_truth(label: np.ndarray) -> None:
    """Refuse anything but a ground-truth label map (see :func:`encode_ground_truth_png`)."""
    if not isinstance(label, np.ndarray) or label.ndim != 2 or label.dtype != np.uint8:
        found = (
            f"a {label.dtype} array of shape {label.shape}"
            if isinstance(label, np.ndarray)
            else type(label).__name__
        )
        raise InvalidOptionError(f"ground truth must be a 2-D uint8 image, not {found}")
    if label.size == 0:
        raise InvalidOptionError(f"ground truth must have pixels; its shape is {label.shape}")
    is_level = _IS_LEVEL[label]
    if not is_level.all():
        y, x = divmod(int(np.argmin(is_level)), label.shape[1])
        levels = ", ".join(map(str, GT_LEVEL_NAMES))
        raise InvalidOptionError(
            f"ground truth holds the value {label[y, x]} at pixel (x, y) = ({x}, {y}); "
            f"every pixel must be one of {levels} (docs/measures.md §1)"
        )
