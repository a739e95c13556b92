"""CDnet's ``stats.txt``: written in the layout of CDnet's Stats.py, read back (docs/measures.md §2, §10).

The writer reproduces the overall file for one method: three comment lines,
``cm video CATEGORY VIDEO TP FP FN TN SE`` per video, ``cm category`` with the
summed counts after each category, ``cm overall``, then one tab-separated row
of the seven statistics per category (names longer than 8 characters cut to
7) and the ``Overall`` row, all with 10 decimals. Values come from
:func:`referee.core.measures.summarize.cdnet_procedure`; an undefined value is written
``nan``; unknown shadow errors are written 0.
"""

from __future__ import annotations

import math
from pathlib import Path

from referee.core.errors import InputFileError, RefereeError
from referee.core.formats.text_files import parse_count, read_text, write_text
from referee.core.measures.indicators import IndicatorValue
from referee.core.measures.summarize import CDNET_STATISTICS, CdnetSummary
from referee.core.model.confusion import ConfusionMatrix, VideoConfusion
from referee.core.model.videos import video_label

_COMMENT = (
    "#This is the statistical file we use to compare each method.\n"
    '#Only the lines starting with "cm" are importants.\n'
    "#cm NbTruePositive NbFalsePositive NbFalseNegative NbTrueNegative NbErrorShadow\n\n"
)
_TABLE_HEADER = (
    "\t\t\tRecall\t\t\tSpecificity\t\tFPR\t\t\t\tFNR\t\t\t\tPBC\t\t\t\tPrecision\t\tFMeasure"
)
_FEW_CATEGORIES = (
    "\nYour method will not be visible in the Overall section.\n"
    "You need all 6 categories to appear in the overall section."
)
FULL_CATEGORY_COUNT = 6


def format_stats_txt(cdnet: CdnetSummary) -> str:
    """The text of the overall ``stats.txt`` of one method, in CDnet's layout.

    Raises
    ------
    RefereeError
        If a category or video name contains whitespace (the file separates
        fields by spaces), or a count is not a whole number.
    """
    by_key = {v.key: v for v in cdnet.videos}
    parts = [_COMMENT]
    overall = [0, 0, 0, 0, 0]
    for category, keys in cdnet.categories.items():
        total = [0, 0, 0, 0, 0]
        for key in keys:
            video = by_key[key]
            counts = _counts(video)
            total = [a + b for a, b in zip(total, counts)]
            parts.append(f"cm video {_name(category)} {_name(video.video)} {_join(counts)}\n")
        overall = [a + b for a, b in zip(overall, total)]
        parts.append(f"cm category {category} {_join(total)}\n\n")
    parts.append(f"\n\ncm overall {_join(overall)}")
    parts.append("\n\n\n\n" + _TABLE_HEADER)
    for category, stats in cdnet.statistics_per_category.items():
        shown = category[:7] if len(category) > 8 else category
        parts.append(f"\n{shown} :\t{_row(stats)}")
    parts.append(f"\n\nOverall :\t{_row(cdnet.statistics_overall)}")
    if len(cdnet.categories) < FULL_CATEGORY_COUNT:
        parts.append(_FEW_CATEGORIES)
    return "".join(parts)


def write_stats_txt(path: str | Path, cdnet: CdnetSummary) -> None:
    """Write :func:`format_stats_txt` to ``path`` (no trailing newline, as CDnet does)."""
    text = format_stats_txt(cdnet)
    write_text(path, text)


def _row(stats: dict[str, IndicatorValue]) -> str:
    return "\t".join(f"{stats[key].value:1.10f}" for key in CDNET_STATISTICS)


def _name(name: str) -> str:
    if not name or any(ch.isspace() for ch in name):
        raise RefereeError(
            f"name {name!r} cannot be written to stats.txt: names must be "
            "non-empty and contain no spaces; rename the category or video"
        )
    return name


def _counts(video: VideoConfusion) -> list[int]:
    cm = video.cm
    values = []
    for value in (cm.tp, cm.fp, cm.fn, cm.tn):
        if not math.isfinite(value) or value != int(value):
            raise RefereeError(
                f"video {video.label} has a non-integer count "
                f"{value!r}; stats.txt holds raw counts only"
            )
        values.append(int(value))
    values.append(0 if video.shadow_errors is None else int(video.shadow_errors))
    return values


def _join(counts: list[int]) -> str:
    return " ".join(str(c) for c in counts)


def read_stats_txt(path: str | Path) -> list[VideoConfusion]:
    """Read the ``cm video`` lines of a CDnet ``stats.txt`` (docs/measures.md §10).

    Raises
    ------
    InputFileError
        Unreadable file, a malformed ``cm video`` line, a video given twice,
        or no ``cm video`` line at all; the message names the file and line.
    """
    text = read_text(path)
    return parse_stats_txt(text, path)


def parse_stats_txt(text: str, path: str | Path = "<text>") -> list[VideoConfusion]:
    """Parse the ``cm video`` lines of a ``stats.txt`` text; ``path`` only names it in errors.

    Each such line is ``cm video CATEGORY VIDEO TP FP FN TN [SE]``, optionally
    ending in ``/`` (as CDnet's per-category files do).
    """
    videos: list[VideoConfusion] = []
    first_line: dict[tuple[str, str], int] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        fields = line.split()
        if fields[:2] != ["cm", "video"]:
            continue
        if fields and fields[-1].endswith("/"):
            fields[-1] = fields[-1][:-1]
            if not fields[-1]:
                fields.pop()
        if len(fields) not in (8, 9):
            raise InputFileError(
                path,
                f"line {number}: expected 'cm video CATEGORY VIDEO TP "
                f"FP FN TN SE', found {len(fields)} fields",
            )
        category, video = fields[2], fields[3]
        counts = [
            parse_count(cell, name, path, number)
            for cell, name in zip(fields[4:], ("TP", "FP", "FN", "TN", "SE"))
        ]
        shadow: int | None = counts[4] if len(counts) == 5 else None
        item = VideoConfusion(category, video, ConfusionMatrix(*counts[:4]), shadow)
        if item.key in first_line:
            raise InputFileError(
                path,
                f"line {number}: video {video_label(category, video)} appears twice "
                f"(first on line {first_line[item.key]})",
            )
        first_line[item.key] = number
        videos.append(item)
    if not videos:
        raise InputFileError(path, "no 'cm video' line found; is this a CDnet stats.txt file?")
    return videos
