"""CDnet 2014 dataset folders and result folders (docs/measures.md §1, §10).

A dataset is ``<root>/<category>/<video>/`` where each video folder holds
``input/in%06d.jpg``, ``groundtruth/gt%06d.png``, ``ROI.bmp`` and
``temporalROI.txt``. A video folder directly under the root, or a root that is
itself a video folder, is a category of its own named after the video.

A method's results are ``<results>/<category>/<video>/bin%06d.png`` (also
``.jpg .jpeg .bmp .ppm``, probed in that order); ``<results>/<video>/`` is
accepted when the category level is absent, and for a one-video dataset the
results root may be the video's result folder itself.

Reading only: no measure is computed here."""

from __future__ import annotations

import dataclasses
import os
import re
import stat
from pathlib import Path

import numpy as np

from referee.core.errors import InputFileError, MissingFrameError
from referee.core.formats.annotated import annotated_frames
from referee.core.formats.images import load_grey
from referee.core.formats.text_files import read_text
from referee.core.limits import check_frame_number
from referee.core.model.videos import (
    GROUNDTRUTH_DIR,
    INPUT_DIR,
    ROI_FILE,
    TEMPORAL_ROI_FILE,
    VideoSpec,
)

RESULT_PREFIX = "bin"
RESULT_EXTENSIONS: tuple[str, ...] = (".png", ".jpg", ".jpeg", ".bmp", ".ppm")
"""Extensions of result frames, in the order they are probed."""


# ---------------------------------------------------------------------------
# Images


def read_grey(path: str | Path, what: str = "image", frame: int | None = None) -> np.ndarray:
    """Decode an image file to grey levels, ``uint8``, shape ``(h, w)``.

    Grey, grey-palette and grey colour images are read exactly (never raw palette
    indices); see :mod:`referee.core.formats.images` for what is refused.

    Parameters
    ----------
    path
        Image file.
    what
        What the file is, for messages ("ground truth", "result", ...).
    frame
        The 1-based frame number the file holds, if any, for messages.

    Raises
    ------
    MissingFrameError
        If ``frame`` is given and the file does not exist.
    InputFileError
        If the file does not exist, or cannot be read or decoded as a grey image.
    """
    image = load_grey(path, what, frame)
    if image is not None:
        return image
    if frame is not None:
        raise MissingFrameError(
            path, f"{what} of frame {frame} is missing; every evaluated frame needs this file"
        )
    raise InputFileError(path, f"{what} file is missing")


def read_gt(path: str | Path, frame: int | None = None) -> np.ndarray:
    """Ground-truth grey levels (0, 50, 85, 170, 255), ``uint8``, shape ``(h, w)``."""
    return read_grey(path, "ground truth", frame)


def read_roi(path: str | Path) -> np.ndarray:
    """Region of interest: ``True`` where the grey level of ``ROI.bmp`` is > 0.

    The file is decoded to grey levels first: CDnet's ``ROI.bmp`` is often a
    palette image whose index 0 is white, so raw indices would invert it.
    """
    return read_grey(path, "region of interest (ROI.bmp)") > 0


# ---------------------------------------------------------------------------
# Temporal ROI and discovery


def read_temporal_roi(path: str | Path) -> tuple[int, int]:
    """Read ``temporalROI.txt``: the first and last evaluated frames (1-based, inclusive).

    Raises
    ------
    InputFileError
        If the file is missing, unreadable or not a regular file, does not hold
        exactly two whole numbers ``first last``, the range is empty
        (``first > last``), or a number is outside ``1..MAX_FRAME_NUMBER``.
    """
    p = Path(path)
    if not os.path.lexists(p):
        raise InputFileError(
            p,
            "temporal ROI file is missing; it must hold the first and last "
            "evaluated frame numbers, e.g. '470 1700'",
        )
    text = read_text(p)
    fields = text.split()
    try:
        first, last = (int(f) for f in fields)
    except ValueError:
        shown = text.strip()[:60]
        raise InputFileError(
            p,
            f"expected two whole numbers 'first last' (1-based frame "
            f"numbers, inclusive), found {shown!r}",
        ) from None
    if first < 1:
        raise InputFileError(p, f"first frame is {first} but frames are numbered from 1")
    if first > last:
        raise InputFileError(
            p,
            f"the temporal ROI is empty: first frame {first} is after "
            f"last frame {last}, so no frame would be evaluated; "
            f"fix the two numbers",
        )
    return first, check_frame_number(p, last, "last frame")


def is_video_folder(path: str | Path, require_groundtruth: bool = True) -> bool:
    """Whether ``path`` looks like a CDnet video folder.

    It does if it has a ``groundtruth/`` folder or a ``temporalROI.txt`` file;
    with ``require_groundtruth=False`` (evaluation without ground truth,
    docs/measures.md §7) an ``input/`` folder is enough.
    """
    p = Path(path)
    if _kind(p / GROUNDTRUTH_DIR) == stat.S_IFDIR or _kind(p / TEMPORAL_ROI_FILE) is not None:
        return True
    return not require_groundtruth and _kind(p / INPUT_DIR) == stat.S_IFDIR


def load_video(
    folder: str | Path, category: str | None = None, require_groundtruth: bool = True
) -> VideoSpec:
    """Describe one video folder.

    Parameters
    ----------
    folder
        The video folder.
    category
        Its category; by default the video is a category of its own, named after it.
    require_groundtruth
        ``False`` for evaluation without ground truth (docs/measures.md §7): ``groundtruth/``
        and ``ROI.bmp`` may then be missing, and without ``temporalROI.txt``
        the frames are ``1..N``, ``N`` the highest ``input/in%06d.jpg`` number
        (0, an empty range, when there is no input frame).

    Raises
    ------
    InputFileError
        If ``groundtruth/``, ``ROI.bmp`` or a valid ``temporalROI.txt`` is
        missing (only a present but invalid ``temporalROI.txt`` without
        ``require_groundtruth``).

    A video whose ``groundtruth/`` lacks some frames of the temporal ROI is partly
    annotated: :attr:`VideoSpec.annotated` holds the frames that have a file.
    """
    p = Path(folder)
    if _kind(p) != stat.S_IFDIR:
        raise InputFileError(p, "video folder does not exist")
    if not require_groundtruth:
        name = category if category is not None else p.name
        if _kind(p / TEMPORAL_ROI_FILE) is not None:
            first, last = read_temporal_roi(p / TEMPORAL_ROI_FILE)
        else:
            first, last = 1, _last_input_frame(p / INPUT_DIR)
        return VideoSpec(category=name, name=p.name, folder=p, first=first, last=last)
    if _kind(p / GROUNDTRUTH_DIR) != stat.S_IFDIR:
        raise InputFileError(p, f"not a CDnet video folder: it has no '{GROUNDTRUTH_DIR}' folder")
    if _kind(p / ROI_FILE) is None:
        raise InputFileError(
            p / ROI_FILE,
            "region of interest file is missing; CDnet videos "
            "need a ROI.bmp (white inside the region)",
        )
    first, last = read_temporal_roi(p / TEMPORAL_ROI_FILE)
    video = VideoSpec(
        category=category if category is not None else p.name,
        name=p.name,
        folder=p,
        first=first,
        last=last,
    )
    present = annotated_frames(video)
    if present.count_within(first, last) == video.n_frames:
        return video
    return dataclasses.replace(video, annotated=present)  # partly annotated (docs/measures.md §8)


def discover_videos(root: str | Path, require_groundtruth: bool = True) -> list[VideoSpec]:
    """All videos of a CDnet dataset, sorted by category then name (docs/measures.md §10).

    ``root`` may be a dataset (``<root>/<category>/<video>``), a folder of
    video folders, a mix of both, or a single video folder. A video without a
    category level is a category of its own named after the video. With
    ``require_groundtruth=False`` (docs/measures.md §7) video folders need not hold ground
    truth, a ROI or a temporal ROI: see :func:`load_video`.

    Raises
    ------
    InputFileError
        If ``root`` does not exist or holds no video folder.
    """
    p = Path(root)
    kind = _kind(p)
    if kind != stat.S_IFDIR:
        problem = "does not exist" if kind is None else "is a file, not a folder"
        raise InputFileError(p, f"dataset folder {problem}; give the folder that holds the videos")
    strict = require_groundtruth
    list_folder(p)  # an unreadable dataset folder is named as such
    if is_video_folder(p, strict):
        return [load_video(p, require_groundtruth=strict)]
    videos: list[VideoSpec] = []
    for child in subfolders(p):
        if is_video_folder(child, strict):
            videos.append(load_video(child, require_groundtruth=strict))
            continue
        for grandchild in subfolders(child):
            if is_video_folder(grandchild, strict):
                videos.append(
                    load_video(grandchild, category=child.name, require_groundtruth=strict)
                )
    if not videos:
        holding = (
            "groundtruth/, ROI.bmp and temporalROI.txt"
            if strict
            else "input/, groundtruth/ or temporalROI.txt"
        )
        raise InputFileError(
            p, f"no CDnet video found: expected <category>/<video>/ folders holding {holding}"
        )
    return sorted(videos, key=lambda v: v.key)


def last_annotatable_frame(video: VideoSpec) -> int:
    """The last frame of ``video`` that may be annotated: the last of its temporal ROI, of
    its ``input/in%06d.jpg`` frames or of its ground-truth files, whichever comes later
    (docs/measures.md §8)."""
    return max(video.last, last_frame_present(video))


def last_frame_present(video: VideoSpec) -> int:
    """The last frame ``video`` has a file of: an ``input/in%06d.jpg`` or a ground-truth
    ``gt%06d.png`` (0 when it has neither)."""
    files = annotated_frames(video).last or 0
    return max(files, _last_input_frame(video.folder / INPUT_DIR))


def _last_input_frame(folder: Path) -> int:
    """Highest ``N`` of the ``in%06d.jpg`` files in ``folder`` (0 if none)."""
    numbers = _numbers_of(folder, "in", (".jpg",))
    return max(numbers, default=0)


def _numbers_of(folder: Path, prefix: str, extensions: tuple[str, ...]) -> set[int]:
    """Numbers ``N`` of the files ``<prefix>%06d<extension>`` in ``folder`` (none if it is absent)."""
    if _kind(folder) is None:
        return set()
    name = re.compile(f"{re.escape(prefix)}([0-9]{{6}})(?:{'|'.join(map(re.escape, extensions))})")
    return {int(match.group(1)) for match in map(name.fullmatch, list_folder(folder)) if match}


def subfolders(folder: Path) -> list[Path]:
    """The folders in ``folder``, sorted, without those whose names start with a dot.

    Raises
    ------
    InputFileError
        Naming ``folder``, if it cannot be listed.
    """
    try:
        with os.scandir(folder) as entries:
            return sorted(
                folder / entry.name
                for entry in entries
                if not entry.name.startswith(".") and _is_folder_entry(entry)
            )
    except OSError as error:
        raise _unlistable(folder, error) from None


def _is_folder_entry(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:  # a broken link, or a folder that cannot be searched
        return False


def list_folder(folder: str | Path) -> list[str]:
    """The names of the entries of ``folder``.

    Raises
    ------
    InputFileError
        Naming the folder, if it cannot be listed (missing, permission denied...).
    """
    try:
        return os.listdir(folder)
    except OSError as error:
        raise _unlistable(Path(folder), error) from None


def _unlistable(folder: Path, error: OSError) -> InputFileError:
    if isinstance(error, PermissionError):
        return _denied(folder)
    return InputFileError(folder, f"cannot list this folder ({error.strerror})")


def _denied(folder: Path) -> InputFileError:
    return InputFileError(
        folder,
        "cannot open this folder: permission denied; give Referee read access to it "
        f"(e.g. chmod -R u+rX '{folder}')",
    )


def _kind(path: Path) -> int | None:
    """The type of ``path`` (``stat.S_IFDIR``, ``stat.S_IFREG``...), ``None`` if it is absent.

    Raises
    ------
    InputFileError
        Naming the folder holding ``path`` if that folder cannot be searched.
    """
    try:
        return stat.S_IFMT(os.stat(path).st_mode)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except PermissionError:
        raise _denied(path.parent) from None
    except OSError as error:
        raise InputFileError(path, f"cannot read this file or folder ({error.strerror})") from None


# ---------------------------------------------------------------------------
# Results


def result_file_name(i: int, extension: str = ".png") -> str:
    """File name of result frame ``i``: ``bin%06d`` plus the extension."""
    return f"{RESULT_PREFIX}{i:06d}{extension}"


def result_pattern_text() -> str:
    """The result file names looked for, for messages."""
    others = " ".join(RESULT_EXTENSIONS[1:])
    return f"{RESULT_PREFIX}%06d{RESULT_EXTENSIONS[0]} (or {others})"


def find_result_folder(
    results_root: str | Path, video: VideoSpec, single_video: bool = False
) -> Path:
    """The folder holding a method's results for one video.

    Tries ``<results>/<category>/<video>``, then ``<results>/<video>``, then,
    when the dataset is a single video, ``<results>`` itself.

    Raises
    ------
    InputFileError
        If the results root or every candidate folder is missing.
    """
    root = Path(results_root)
    kind = _kind(root)
    if kind is None:
        raise InputFileError(root, "results folder does not exist")
    if kind != stat.S_IFDIR:
        raise InputFileError(
            root, "is not a folder; give a method's results folder (<category>/<video>/bin%06d.png)"
        )
    list_folder(root)  # an unreadable results folder is named as such
    candidates = [root / video.category / video.name, root / video.name]
    if single_video:
        candidates.append(root)
    for candidate in candidates:
        if _kind(candidate) == stat.S_IFDIR:
            return candidate
    tried = ", ".join(str(c) for c in candidates)
    raise InputFileError(
        root,
        f"no results for video {video.label}: none of these folders exists: {tried}",
    )


def find_result_file(
    folder: str | Path, i: int, extensions: tuple[str, ...] = RESULT_EXTENSIONS
) -> Path | None:
    """The existing file of result frame ``i``, probing ``extensions`` in order.

    Returns ``None`` if there is none. Whatever is there counts (reading a
    named pipe or a folder then says what it is).
    """
    for extension in extensions:
        candidate = Path(folder) / result_file_name(i, extension)
        if _kind(candidate) is not None:
            return candidate
    return None


def result_extension(folder: str | Path, first: int) -> str:
    """The extension of a video's result frames, decided once per video.

    Probes frame ``first`` with every extension in order; if that frame is
    absent, takes the first extension that any ``bin*`` file of the folder has.

    Raises
    ------
    InputFileError
        If the folder holds no result frame at all.
    """
    found = find_result_file(folder, first)
    if found is not None:
        return found.suffix
    for extension in RESULT_EXTENSIONS:
        if _numbers_of(Path(folder), RESULT_PREFIX, (extension,)):
            return extension
    raise InputFileError(
        folder, f"this result folder holds no frame at all: looked for {result_pattern_text()}"
    )


def result_frame_numbers(folder: str | Path) -> list[int]:
    """Sorted numbers of the result frames ``bin%06d.<ext>`` present in ``folder``.

    Any extension of :data:`RESULT_EXTENSIONS` counts. Used when a video has
    no temporal ROI, to find the frames every detector has (docs/measures.md §7).
    """
    return sorted(_numbers_of(Path(folder), RESULT_PREFIX, RESULT_EXTENSIONS))
