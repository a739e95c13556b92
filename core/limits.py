"""The limits on what Referee reads, so that a large or hostile file cannot exhaust memory.

Each limit is far beyond any real dataset; a file beyond one is refused with a
message that names the file, the limit and this module's constant
(docs/measures.md §11 lists them and what each protects).
"""

from __future__ import annotations

from pathlib import Path

from referee.core.errors import InputFileError

#: The largest frame number any file may name (over four days of video at 25 frames/s).
MAX_FRAME_NUMBER = 10_000_000
#: The largest annotation or result text file (XML, CSV, JSON, text), in bytes.
MAX_TEXT_FILE_BYTES = 64 * 2**20
#: The most boxes one file may give one frame.
MAX_BOXES_PER_FRAME = 2_000
#: The largest image (mask, ground truth, ROI) in pixels: 8192 × 8192.
MAX_IMAGE_PIXELS = 8192 * 8192
#: The largest box coordinate, in pixels, in absolute value.
MAX_COORDINATE = 1_000_000
#: The deepest nesting of a project file's JSON.
MAX_JSON_DEPTH = 32


#: The largest LIRIS XML file, in bytes: its parsed tree takes about 22 times the file's
#: size in memory (32 MiB → about 0.8 GB), so XML has a lower limit than other text.
MAX_XML_FILE_BYTES = 32 * 2**20
#: The most boxes the tracks of one CVAT for video file may hold once filled in between
#: their keyframes (about 250 MB of boxes): a few keyframes can span millions of frames.
MAX_TRACK_BOXES = 5_000_000
#: The largest count or confusion-matrix count: every whole number up to 2**53 is exact
#: as a float, so changes of counts and sums stay exact.
MAX_COUNT = 2**53
#: The largest image file (mask, ground truth, ROI), in bytes: an uncompressed
#: MAX_IMAGE_PIXELS image with four 8-bit channels, and 1 MiB of headers.
MAX_IMAGE_FILE_BYTES = 4 * MAX_IMAGE_PIXELS + 2**20
#: The most (ground-truth, detected) action pairs of one video that share frames: all the
#: pairs of one frame with MAX_BOXES_PER_FRAME actions on both sides (about 0.7 GB).
MAX_ACTION_PAIRS = MAX_BOXES_PER_FRAME**2


def check_frame_number(path: str | Path, frame: int, where: str) -> int:
    """``frame`` if it is within ``1..MAX_FRAME_NUMBER``.

    Raises
    ------
    InputFileError
        Naming ``path`` and ``where`` (such as "line 3") otherwise.
    """
    if not 1 <= frame <= MAX_FRAME_NUMBER:
        raise InputFileError(
            path,
            f"{where}: frame number {frame} is outside 1..{MAX_FRAME_NUMBER:,} "
            "(the largest frame number Referee reads)",
        )
    return frame
