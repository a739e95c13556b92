"""The values options of the measures choose among, their defaults and the detection-rule
check, importable without numpy so that the command line parses its options quickly."""

from __future__ import annotations

import numbers

from referee.core.errors import InvalidOptionError

#: Weight schemes of docs/measures.md §2; ``auto`` means ``category`` if any video has
#: one, else ``video``.
WEIGHT_SCHEMES: tuple[str, ...] = ("auto", "video", "category", "pixels", "custom")

#: Frame-level mapping strategies of boxes (docs/measures.md §5); the first is the default.
MAPPINGS: tuple[str, ...] = ("hungarian", "greedy")
#: A mapped pair of boxes is a true positive iff its IoU is at least this (§5).
DEFAULT_IOU_THRESHOLD = 0.5


def check_threshold(threshold: int | None) -> int | None:
    """Validate the detection-threshold option (docs/measures.md §1).

    Parameters
    ----------
    threshold
        ``None`` (a detection is positive iff its value is 255) or a whole
        number ``T`` in 0..255 (positive iff value ``>= T``).

    Returns
    -------
    The threshold as a Python ``int``, or ``None``.

    Raises
    ------
    InvalidOptionError
        If ``threshold`` is not a whole number in 0..255.
    """
    if threshold is None:
        return None
    # numpy's integers are Integral; its booleans, like Python's, are refused.
    if isinstance(threshold, bool) or not isinstance(threshold, numbers.Integral):
        raise InvalidOptionError(
            f"detection threshold must be a whole number from 0 to 255, not {threshold!r}"
        )
    if not 0 <= int(threshold) <= 255:
        raise InvalidOptionError(
            f"detection threshold must be from 0 to 255 (a mask value >= T is a detection), "
            f"not {threshold}"
        )
    return int(threshold)
