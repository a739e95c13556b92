"""MOTChallenge benchmark folders, as TrackEval lays them out (docs/measures.md §5, §10).

A *benchmark folder* holds ``seqmaps/<split>.txt`` (first line ``name``, then one
sequence a line) and a folder per sequence with ``gt/gt.txt`` and, optionally,
``seqinfo.ini`` (``[Sequence]`` ``seqLength``: frames beyond it are refused). The
sequence folders are in ``<split>/`` when the benchmark folder has one (TrackEval's
``data/gt/mot_challenge/MOT17-train/``), else in the benchmark folder itself; the
benchmark folder may also be the ``<split>`` folder, its seqmap in
``../seqmaps/<split>.txt``. A *trackers folder* holds one folder per tracker (in
``<split>/`` when it has one), each with ``data/<sequence>.txt`` (TrackEval) or
``<sequence>.txt``; a folder that itself holds those files is one tracker.
Every file is a MOTChallenge CSV (:mod:`referee.core.formats.mot_csv`).
"""

from __future__ import annotations

import configparser
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from referee.core.errors import InputFileError, InvalidOptionError
from referee.core.formats.cdnet import list_folder
from referee.core.formats.mot_csv import mot_boxes, read_mot_csv
from referee.core.formats.text_files import numbered_csv_rows, read_text
from referee.core.measures.boxes import VideoBoxes

#: The name of the format, as the outputs give it.
MOT_BENCHMARK = "mot-benchmark"
SEQMAPS = "seqmaps"
#: The folder of a tracker's files in TrackEval's layout (``TRACKER_SUB_FOLDER``).
TRACKER_DATA = "data"
_FORMAT = "first line 'name', then one sequence a line"


@dataclass(frozen=True)
class Benchmark:
    """A benchmark folder's sequences, where their ground truth is, and their lengths.

    Attributes
    ----------
    root
        The folder given.
    seqmap
        The seqmap file listing the sequences; its name without ``.txt`` is the split.
    folder
        The folder holding the sequence folders.
    sequences
        The sequences, in the seqmap's order.
    lengths
        Each sequence's ``seqLength`` from its ``seqinfo.ini``, or ``None`` without one.
    """

    root: Path
    seqmap: Path
    folder: Path
    sequences: tuple[str, ...]
    lengths: dict[str, int | None]

    @property
    def split(self) -> str:
        """The split's name (``MOT17-train``): the seqmap's name without ``.txt``."""
        return self.seqmap.stem

    def groundtruth_file(self, sequence: str) -> Path:
        """Where the ground truth of ``sequence`` is: ``<sequence>/gt/gt.txt``."""
        return self.folder / sequence / "gt" / "gt.txt"

    def info_file(self, sequence: str) -> Path:
        """The ``seqinfo.ini`` of ``sequence`` (which may be absent)."""
        return self.folder / sequence / "seqinfo.ini"


def is_benchmark(path: str | Path) -> bool:
    """Whether ``path`` is a MOTChallenge benchmark folder: it holds ``seqmaps/`` or a
    ``<sequence>/gt/gt.txt``, or it is named in ``../seqmaps/``."""
    folder = Path(path)
    if not folder.is_dir():
        return False
    if (folder / SEQMAPS).is_dir() or (folder.parent / SEQMAPS / f"{folder.name}.txt").is_file():
        return True
    return any((folder / name / "gt" / "gt.txt").is_file() for name in list_folder(folder))


def find_benchmark(root: str | Path, seqmap: str | Path | None = None) -> Benchmark:
    """The benchmark in folder ``root`` (see the module's description).

    Parameters
    ----------
    root
        The benchmark folder.
    seqmap
        A seqmap file, or the name of one in ``root/seqmaps`` (``MOT17-train``);
        default: the only seqmap of ``root/seqmaps``, else ``../seqmaps/<root's name>.txt``.

    Raises
    ------
    InputFileError
        No folder, no seqmap or several to choose from, a malformed seqmap or
        ``seqinfo.ini``, or a listed sequence without ``gt/gt.txt``; the message names
        the file.
    """
    root = Path(root)
    if not root.is_dir():
        raise InputFileError(
            root,
            "not a folder; a MOTChallenge benchmark is a folder holding seqmaps/ and "
            "<sequence>/gt/gt.txt",
        )
    seqmap_file = _seqmap_file(root, seqmap)
    split = root / seqmap_file.stem
    folder = split if split.is_dir() else root
    sequences = read_seqmap(seqmap_file)
    lengths: dict[str, int | None] = {}
    benchmark = Benchmark(root, seqmap_file, folder, sequences, lengths)
    for sequence in sequences:
        groundtruth = benchmark.groundtruth_file(sequence)
        if not groundtruth.is_file():
            raise InputFileError(
                groundtruth,
                f"no such file: sequence {sequence!r}, listed in {seqmap_file}, has no ground truth",
            )
        lengths[sequence] = read_sequence_length(benchmark.info_file(sequence))
    return benchmark


def _seqmap_file(root: Path, seqmap: str | Path | None) -> Path:
    folder = root / SEQMAPS
    if seqmap is not None:
        given = Path(seqmap)
        if given.is_file():
            return given
        if len(given.parts) != 1:
            raise InputFileError(
                given, f"no such seqmap file; a seqmap lists sequences ({_FORMAT})"
            )
        named = folder / (given.name if given.suffix == ".txt" else f"{given.name}.txt")
        if not named.is_file():
            raise InputFileError(named, "no such seqmap")
        return named
    found = sorted(n for n in list_folder(folder) if n.endswith(".txt")) if folder.is_dir() else []
    if len(found) > 1:
        choices = ", ".join(n.removesuffix(".txt") for n in found)
        raise InputFileError(
            folder, f"holds several seqmaps ({choices}); choose one with --seqmap NAME"
        )
    if found:
        return folder / found[0]
    beside = root.parent / SEQMAPS / f"{root.name}.txt"
    if beside.is_file():
        return beside
    raise InputFileError(
        folder,
        f"no seqmap: a benchmark lists its sequences in seqmaps/<split>.txt ({_FORMAT}); "
        "give one with --seqmap FILE",
    )


def read_seqmap(path: str | Path) -> tuple[str, ...]:
    """The sequences a seqmap lists, in order.

    Raises
    ------
    InputFileError
        A first line that is not ``name``, a name that is not a folder name, a
        sequence listed twice, or no sequence at all; the message names the line.
    """
    sequences: list[str] = []
    header = False
    for line, row in numbered_csv_rows(read_text(path)):
        cell = row[0].strip() if row else ""
        if not header:
            if cell.lower() != "name":
                raise InputFileError(
                    path, f"line {line}: {cell!r} where the header 'name' is expected ({_FORMAT})"
                )
            header = True
            continue
        if not cell:
            continue
        if cell in (".", "..") or "/" in cell or "\\" in cell:
            raise InputFileError(path, f"line {line}: {cell!r} is not a sequence folder's name")
        if cell in sequences:
            raise InputFileError(path, f"line {line}: sequence {cell!r} is listed twice")
        sequences.append(cell)
    if not sequences:
        raise InputFileError(path, f"lists no sequence ({_FORMAT})")
    return tuple(sequences)


def read_sequence_length(path: str | Path) -> int | None:
    """``seqLength`` of the ``[Sequence]`` section of a ``seqinfo.ini``; ``None`` if the
    file does not exist.

    Raises
    ------
    InputFileError
        An unreadable file, or no whole number ``seqLength`` of at least 1 in ``[Sequence]``.
    """
    if not Path(path).is_file():
        return None
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string(read_text(path), str(path))
        value = parser.get("Sequence", "seqLength")
    except configparser.Error as error:
        problem = str(error).splitlines()[0]
        raise InputFileError(path, f"{problem}; expected [Sequence] with seqLength=N") from None
    if not value.strip().isdigit() or int(value) < 1:
        raise InputFileError(path, f"seqLength is {value!r}, not a whole number of frames")
    return int(value)


def tracker_folders(
    root: str | Path, benchmark: Benchmark, names: Sequence[str] | None = None
) -> dict[str, Path]:
    """The trackers of a trackers folder (see the module's description): name → folder.

    Parameters
    ----------
    root
        The trackers folder, or one tracker's folder.
    names
        Only these trackers, in this order (default: every tracker folder, by name).

    Raises
    ------
    InputFileError
        No folder, a named tracker without a folder, or no tracker at all.
    """
    root = Path(root)
    if not root.is_dir():
        raise InputFileError(
            root,
            "not a folder; give the trackers folder (one folder per tracker holding "
            "data/<sequence>.txt or <sequence>.txt)",
        )
    split = root / benchmark.split
    base = split if split.is_dir() else root
    if _holds_results(base, benchmark):
        found = [base.name]
        folders = {base.name: base}
    else:
        found = sorted(
            n for n in list_folder(base) if not n.startswith(".") and (base / n).is_dir()
        )
        folders = {name: base / name for name in found}
    if names is None:
        if not found:
            raise InputFileError(
                base, "holds no tracker folder (one per tracker, holding data/<sequence>.txt)"
            )
        return folders
    if len(set(names)) < len(names):
        raise InvalidOptionError("a tracker is named twice; name each tracker once")
    for name in names:
        if name not in folders:
            raise InputFileError(base / name, "no such tracker folder")
    return {name: folders[name] for name in names}


def _holds_results(folder: Path, benchmark: Benchmark) -> bool:
    """Whether ``folder`` is one tracker's: it has ``data/`` or a sequence's file."""
    return (folder / TRACKER_DATA).is_dir() or any(
        (folder / f"{sequence}.txt").is_file() for sequence in benchmark.sequences
    )


def tracker_files(folder: str | Path, benchmark: Benchmark) -> dict[str, Path]:
    """A tracker's file for every sequence: ``data/<sequence>.txt``, or ``<sequence>.txt``
    when the tracker's folder has no ``data/``.

    Raises
    ------
    InputFileError
        Naming the file of the first sequence the tracker has no file for.
    """
    folder = Path(folder)
    if not folder.is_dir():
        raise InputFileError(
            folder,
            "not a folder; against a MOTChallenge benchmark, a tracker is a folder "
            "holding data/<sequence>.txt or <sequence>.txt",
        )
    data = folder / TRACKER_DATA
    files = {s: (data if data.is_dir() else folder) / f"{s}.txt" for s in benchmark.sequences}
    for sequence, path in files.items():
        if not path.is_file():
            raise InputFileError(
                path,
                f"no such file: tracker {folder.name!r} has no result for sequence "
                f"{sequence!r}, listed in {benchmark.seqmap}",
            )
    return files


def read_sequence(
    path: str | Path,
    sequence: str,
    benchmark: Benchmark,
    min_conf: float | None = None,
    classes: bool = False,
) -> VideoBoxes:
    """The boxes of one sequence's file (ground truth or a tracker's), named ``sequence``.

    Raises
    ------
    InputFileError
        What :func:`~referee.core.formats.mot_csv.read_mot_csv` raises, and a frame
        beyond the sequence's ``seqLength``.
    """
    rows = read_mot_csv(path, min_conf, classes)
    length = benchmark.lengths.get(sequence)
    if length is not None and len(rows) and int(rows.frames.max()) > length:
        k = int(np.argmax(rows.frames > length))
        raise InputFileError(
            path,
            f"line {rows.lines[k]}: frame {rows.frames[k]} is beyond the {length} frames of "
            f"sequence {sequence!r} (seqLength in {benchmark.info_file(sequence)})",
        )
    return mot_boxes(rows, sequence)


def read_groundtruth(benchmark: Benchmark, classes: bool = False) -> list[VideoBoxes]:
    """The ground truth of every sequence, every row kept; with ``classes``, each box's
    class (8th column) is its label."""
    return [
        read_sequence(benchmark.groundtruth_file(s), s, benchmark, classes=classes)
        for s in benchmark.sequences
    ]


def read_tracker(
    folder: str | Path, benchmark: Benchmark, min_conf: float | None = None
) -> list[VideoBoxes]:
    """A tracker's boxes on every sequence, rows with ``conf < min_conf`` dropped.

    Raises
    ------
    InputFileError
        A missing or malformed file (see :func:`tracker_files`, :func:`read_sequence`).
    """
    files = tracker_files(folder, benchmark)
    return [read_sequence(path, s, benchmark, min_conf) for s, path in files.items()]
