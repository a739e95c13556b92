"""LASIESTA sequences as a mask dataset (docs/measures.md §1, §10).

LASIESTA [LASIESTA2016] gives each sequence ``S`` two folders side by side: ``S/`` holding
its input frames ``S-1.bmp``, ``S-2.bmp``… and ``S-GT/`` holding a colour ground-truth
frame ``S-GT_1.bmp``… for every one of them. A dataset is a folder holding such pairs,
directly or one level down (the folder holding a pair is then its category); a sequence
folder with its ``-GT`` folder beside it is a dataset of one sequence.

Each sequence is a :class:`~referee.core.model.videos.VideoSpec` of frames ``1..N`` placed
by a :class:`~referee.core.model.videos.SequenceLayout`, and :func:`read_lasiesta_gt`
turns its ground truth into CDnet's levels by :data:`LASIESTA_LABELS`, so everything
downstream reads it as CDnet ground truth. Reading only: no measure is computed here.
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

import cv2
import numpy as np

from referee.core.errors import InputFileError, MissingFrameError
from referee.core.formats.cdnet import list_folder, subfolders
from referee.core.formats.images import load_colour
from referee.core.limits import check_frame_number
from referee.core.measures.pixel import GT_MOTION, GT_STATIC, GT_UNKNOWN
from referee.core.model.videos import NumberedFiles, SequenceLayout, VideoSpec, numbered_names

#: What ends the name of a sequence's ground-truth folder (and starts its files' suffix).
TRUTH_SUFFIX = "-GT"
#: Extensions of a sequence's frames, input and ground truth alike (LASIESTA's are BMP).
EXTENSIONS: tuple[str, ...] = (".bmp", ".png")


class LasiestaLabel(NamedTuple):
    """One colour of LASIESTA's ground truth and the CDnet level it is evaluated as."""

    colour: str
    red: int
    green: int
    blue: int
    level: int


LASIESTA_LABELS: tuple[LasiestaLabel, ...] = (
    LasiestaLabel("black", 0, 0, 0, GT_STATIC),  # background
    LasiestaLabel("red", 255, 0, 0, GT_MOTION),  # moving object 1
    LasiestaLabel("green", 0, 255, 0, GT_MOTION),  # moving object 2
    LasiestaLabel("yellow", 255, 255, 0, GT_MOTION),  # moving object 3
    LasiestaLabel("white", 255, 255, 255, GT_MOTION),  # moving objects remaining static
    LasiestaLabel("grey", 128, 128, 128, GT_UNKNOWN),  # uncertainty pixels: not evaluated
)
"""LASIESTA's ground-truth colours and the CDnet level each becomes (docs/measures.md §1):
the only colours its ground truth may hold."""

_COLOURS_TEXT = ", ".join(f"{c.colour} ({c.red}, {c.green}, {c.blue})" for c in LASIESTA_LABELS)
_UNLISTED = 1  # not a CDnet level: a pixel of none of LASIESTA's colours


def _level_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Tables turning a frame into levels with 8-bit passes: each channel value to a code
    (the values the colours use, then one for any other), the weights packing a pixel's
    three codes into one number, and that number to its level."""
    values = sorted({v for c in LASIESTA_LABELS for v in (c.red, c.green, c.blue)})
    base = len(values) + 1  # 4: the packed numbers stay below 64
    channel = np.full(256, len(values), dtype=np.uint8)
    channel[values] = np.arange(len(values))
    weights = np.array([[1, base, base * base]], dtype=np.float32)  # blue, green, red
    levels = np.full(256, _UNLISTED, dtype=np.uint8)
    for c in LASIESTA_LABELS:
        levels[(int(channel[c.red]) * base + int(channel[c.green])) * base + channel[c.blue]] = (
            c.level
        )
    return channel, weights, levels


_CHANNEL_CODES, _PACKING, _LEVELS = _level_tables()


def read_lasiesta_gt(path: str | Path, frame: int) -> np.ndarray:
    """A LASIESTA ground-truth frame as CDnet's levels (:data:`LASIESTA_LABELS`), ``uint8``,
    shape ``(h, w)``.

    Raises
    ------
    MissingFrameError
        If the file does not exist.
    InputFileError
        If it cannot be read as an image, or holds a colour none of LASIESTA's (naming the
        first such pixel, in row order, and its colour).
    """
    image = load_colour(path, "ground truth", frame)
    if image is None:
        raise MissingFrameError(
            path, f"ground truth of frame {frame} is missing; every evaluated frame needs this file"
        )
    levels = cv2.LUT(cv2.transform(cv2.LUT(image, _CHANNEL_CODES), _PACKING), _LEVELS)
    unlisted = levels == _UNLISTED
    if unlisted.any():
        y, x = divmod(int(np.argmax(unlisted)), image.shape[1])
        blue, green, red = image[y, x]
        raise InputFileError(
            path,
            f"this ground truth (frame {frame}) has the colour (R, G, B) = ({red}, {green}, "
            f"{blue}) at pixel (x, y) = ({x}, {y}), none of LASIESTA's: {_COLOURS_TEXT} "
            "(docs/measures.md §1); save it losslessly with only these",
        )
    return levels


def discover_sequences(root: Path) -> list[VideoSpec]:
    """Every sequence of the LASIESTA dataset at ``root``, sorted by category then name;
    none when ``root`` is not laid out as one (:func:`sequence_folders`).

    Raises
    ------
    InputFileError, MissingFrameError
        As :func:`load_sequence`, or naming a folder that cannot be listed.
    """
    found = [load_sequence(folder, category) for folder, category in sequence_folders(root)]
    return sorted(found, key=lambda video: video.key)


def sequence_folders(root: Path) -> list[tuple[Path, str]]:
    """The sequence folders of the LASIESTA dataset at ``root``, each with its category.

    A folder is a sequence when a folder of its name followed by ``-GT`` is beside it:
    ``root`` itself (a one-sequence dataset, its own category), the folders in ``root``
    (each its own category) and the folders one level down (their category is the
    folder holding them). The layout decides, not the names. Empty: not LASIESTA.

    Raises
    ------
    InputFileError
        Naming ``root`` or a folder in it that cannot be listed.
    """
    if _truth_folder(root).is_dir():
        return [(root, root.name)]
    children = subfolders(root)
    found = [(folder, folder.name) for folder in _paired(children)]
    taken = {folder for folder, _ in found} | {_truth_folder(folder) for folder, _ in found}
    for child in children:
        if child not in taken and _named_pairs(child):
            found += [(folder, child.name) for folder in _paired(subfolders(child))]
    return found


def _named_pairs(folder: Path) -> set[str]:
    """The names ``X`` in ``folder`` with an ``X-GT`` beside them, of any kind: a cheap first
    look, so that a folder of thousands of frames is not searched for subfolders.

    Raises
    ------
    InputFileError
        Naming ``folder``, if it cannot be listed.
    """
    names = set(list_folder(folder))
    return {name[: -len(TRUTH_SUFFIX)] for name in names if name.endswith(TRUTH_SUFFIX)} & names


def load_sequence(folder: Path, category: str) -> VideoSpec:
    """Describe one sequence: its frames are ``1..N``, ``N`` the highest number of its input
    or ground-truth files, and every one of them must have ground truth.

    Raises
    ------
    InputFileError
        If a folder cannot be listed, its files have two extensions, the ground-truth
        folder holds no frame, or a frame number is beyond ``MAX_FRAME_NUMBER``.
    MissingFrameError
        Naming the first frame without a ground-truth file.
    """
    name = folder.name
    truth, truth_numbers = _numbered(_truth_folder(folder), f"{name}{TRUTH_SUFFIX}_")
    inputs, input_numbers = _numbered(folder, f"{name}-")
    if not truth_numbers:
        raise InputFileError(
            truth.folder,
            f"holds no ground-truth frame ({truth.stem}1{EXTENSIONS[0]}, "
            f"{truth.stem}2{EXTENSIONS[0]}…); a LASIESTA sequence has one for every frame",
        )
    last_truth, last_input = max(truth_numbers), max(input_numbers, default=0)
    last = max(last_truth, last_input)
    highest = truth.name(last) if last == last_truth else inputs.name(last)
    check_frame_number(highest, last, "this file's number")
    gap = _first_missing(truth_numbers)
    if gap <= last:
        raise MissingFrameError(
            truth.name(gap),
            f"ground truth of frame {gap} is missing; a LASIESTA sequence has ground truth on "
            f"every frame, and {name} has frames 1 to {last}",
        )
    layout = SequenceLayout(inputs=inputs, truth=truth)
    return VideoSpec(category, name, folder, first=1, last=last, layout=layout)


def _truth_folder(folder: Path) -> Path:
    return folder.parent / f"{folder.name}{TRUTH_SUFFIX}"


def _paired(folders: list[Path]) -> list[Path]:
    """Those of ``folders`` whose ``-GT`` folder is among them."""
    names = {folder.name for folder in folders}
    return [folder for folder in folders if f"{folder.name}{TRUTH_SUFFIX}" in names]


def _numbered(folder: Path, stem: str) -> tuple[NumberedFiles, list[int]]:
    """The files ``<stem><i><extension>`` of ``folder`` and their numbers ``i``.

    Raises
    ------
    InputFileError
        If ``folder`` cannot be listed or its files have more than one extension.
    """
    pattern = numbered_names(stem, EXTENSIONS)
    found: dict[str, list[int]] = {}
    for match in map(pattern.fullmatch, list_folder(folder)):
        if match:
            found.setdefault(match.group(2), []).append(int(match.group(1)))
    if len(found) > 1:
        raise InputFileError(
            folder,
            f"holds frames {stem}N with {' and '.join(sorted(found))} extensions; "
            "keep one kind of file per folder",
        )
    extension, numbers = next(iter(found.items()), (EXTENSIONS[0], []))
    return NumberedFiles(folder, stem, extension), numbers


def _first_missing(numbers: list[int]) -> int:
    """The smallest frame number from 1 not among ``numbers`` (distinct, any order)."""
    for expected, number in enumerate(sorted(numbers), start=1):
        if number != expected:
            return expected
    return len(numbers) + 1
