"""Which format a file is in, and its reader: one registry for every command.

A command asks for what it needs — annotated actions, per-frame boxes,
per-video confusion matrices, counts — and :func:`read` finds the registered
format of that kind that claims the path (by its name or content) and reads
it. A path no format claims gets one error naming the file and the formats
accepted for that kind.

Formats are registered with :func:`register_reader`; a new format is one
module with a reader and one registration::

    from referee.core.formats.registry import BOXES, register_reader

    def read_my_boxes(path):                     # -> list[VideoBoxes]
        ...

    register_reader(
        name="my-boxes", kind=BOXES, description="my tracker's .boxes files",
        claims=lambda path: path.suffix == ".boxes", read=read_my_boxes,
    )

Readers take the path and the keyword options of their kind (``min_conf`` for
boxes) and raise :class:`~referee.core.errors.InputFileError` on bad content.
Writers are registered the same way with :func:`register_writer`, and found by
format name and kind with :func:`writer`.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from referee.core.errors import InputFileError, InvalidOptionError

#: Kinds of content a reader returns.
ACTIONS = "actions"  # AnnotationSet: LIRIS actions with their boxes
BOXES = "boxes"  # list[VideoBoxes]: per-frame boxes
CONFUSIONS = "confusions"  # list[VideoConfusion]: per-video confusion matrices
COUNTS = "counts"  # CountSeries: a count per frame
SCORES = "scores"  # CaseScores: per-case scores of several methods
TRACKS = "tracks"  # tuple[Track, ...]: one video's keyframed tracks
#: Mapping[str, Mapping[int, ndarray]]: per video, frame → CDnet label map (uint8, the levels
#: of docs/measures.md §1); readers draw a frame's map when it is looked up.
LABEL_MAPS = "label-maps"
#: The name of the MOTChallenge format (one video per file, named after nothing in it).
MOT_CSV = "mot-csv"

#: Formats whose file or folder is one video named after nothing in it: facing a single
#: video, it is that video.
ONE_VIDEO_FORMATS = frozenset({MOT_CSV, "yolo", "labelme"})
#: What the name of a video file may end with (lower case).
VIDEO_EXTENSIONS: tuple[str, ...] = (".mp4", ".avi", ".mkv", ".mov", ".webm")


@dataclass(frozen=True)
class Reader:
    """One registered format: what it holds, which paths it claims, how to read them."""

    name: str
    kind: str
    description: str
    claims: Callable[[Path], bool]
    read: Callable[..., Any]


_READERS: list[Reader] = []


def register_reader(
    *,
    name: str,
    kind: str,
    description: str,
    claims: Callable[[Path], bool],
    read: Callable[..., Any],
    first: bool = False,
) -> Reader:
    """Register a format's reader; formats are tried in registration order.

    Parameters
    ----------
    name
        The format's short name (``"liris-xml"``), shown in messages and outputs.
    kind
        What ``read`` returns: :data:`ACTIONS`, :data:`BOXES`, :data:`CONFUSIONS`,
        :data:`COUNTS`, :data:`SCORES`, :data:`TRACKS`, :data:`LABEL_MAPS`, or a kind of
        your own.
    description
        What a user should give, for error messages ("a LIRIS XML file or folder").
    claims
        Whether a path is in this format, from its name or a cheap look at it.
    read
        ``read(path, **options) -> content``.
    first
        Try this format before those already registered.

    Raises
    ------
    InvalidOptionError
        If a reader of that name and kind is already registered.
    """
    if any(r.name == name and r.kind == kind for r in _READERS):
        raise InvalidOptionError(f"a {kind} reader named {name!r} is already registered")
    reader = Reader(name, kind, description, claims, read)
    if first:
        _READERS.insert(0, reader)
    else:
        _READERS.append(reader)
    return reader


def readers(kind: str) -> tuple[Reader, ...]:
    """The readers of ``kind``, in the order they are tried."""
    return tuple(r for r in _READERS if r.kind == kind)


def detect(path: str | Path, kind: str) -> Reader:
    """The reader of ``kind`` that claims ``path``.

    Raises
    ------
    InputFileError
        If the path does not exist or no reader of that kind claims it; the
        message lists what is accepted.
    """
    target = Path(path)
    candidates = readers(kind)
    accepted = "; ".join(r.description for r in candidates) or f"no format reads {kind}"
    if not target.exists():
        raise InputFileError(target, f"no such file or folder; give {accepted}")
    for reader in candidates:
        if reader.claims(target):
            return reader
    raise InputFileError(target, f"cannot tell the format from its name; give {accepted}")


def read(path: str | Path, kind: str, **options: Any) -> tuple[Any, str]:
    """The content of ``path`` as ``kind``, and the name of the format it was read as.

    Raises
    ------
    InputFileError
        See :func:`detect`, and whatever the format's reader raises on bad content.
    """
    reader = detect(path, kind)
    return reader.read(Path(path), **options), reader.name


def claims_any(path: str | Path, kind: str) -> bool:
    """Whether some reader of ``kind`` claims ``path`` (which must exist)."""
    target = Path(path)
    return target.exists() and any(r.claims(target) for r in readers(kind))


@dataclass(frozen=True)
class Writer:
    """One registered way to write a kind of content in a format.

    ``cannot_hold`` says, in a phrase, what of that kind the format cannot hold ("no
    identities", "no keyframes"), or is empty when it holds everything; ``drops`` names
    it (:data:`IDENTITIES`, :data:`CONFIDENCES`, :data:`LABELS`, :data:`KEYFRAMES`), so
    that a conversion that would lose what its input holds refuses unless the user
    accepts the loss.
    """

    name: str
    kind: str
    description: str
    write: Callable[..., Any]
    cannot_hold: str = ""
    drops: tuple[str, ...] = ()


#: What a writer may drop of what it writes (a :class:`Writer`'s ``drops``).
IDENTITIES, CONFIDENCES, LABELS, KEYFRAMES = "identities", "confidences", "labels", "keyframes"

_WRITERS: list[Writer] = []


def register_writer(
    *,
    name: str,
    kind: str,
    description: str,
    write: Callable[..., Any],
    cannot_hold: str = "",
    drops: tuple[str, ...] = (),
) -> Writer:
    """Register a format's writer: ``write(content, path, **options)`` writes ``content``
    (of ``kind``, as its reader returns it) atomically to ``path``.

    Raises
    ------
    InvalidOptionError
        If a writer of that name and kind is already registered.
    """
    if any(w.name == name and w.kind == kind for w in _WRITERS):
        raise InvalidOptionError(f"a {kind} writer named {name!r} is already registered")
    found = Writer(name, kind, description, write, cannot_hold, drops)
    _WRITERS.append(found)
    return found


def writers(kind: str) -> tuple[Writer, ...]:
    """The writers of ``kind``, in registration order."""
    return tuple(w for w in _WRITERS if w.kind == kind)


def writer(name: str, kind: str) -> Writer:
    """The writer of ``kind`` named ``name``.

    Raises
    ------
    InvalidOptionError
        If there is none; the message lists the formats that write ``kind``.
    """
    for found in writers(kind):
        if found.name == name:
            return found
    names = ", ".join(w.name for w in writers(kind)) or "none"
    raise InvalidOptionError(f"no format {name!r} writes {kind} (formats that do: {names})")


def is_video_file(path: str | Path) -> bool:
    """Whether ``path`` names a video file (:data:`VIDEO_EXTENSIONS`)."""
    return Path(path).suffix.lower() in VIDEO_EXTENSIONS


def is_project_file(path: str | Path) -> bool:
    """Whether ``path`` names a Referee project file (``*.json``)."""
    return Path(path).suffix.lower() == ".json"


# --- the built-in formats ----------------------------------------------------------------------


def _liris_claims(path: Path) -> bool:
    if path.is_dir():
        from referee.core.formats.cdnet import list_folder  # names an unreadable folder

        names = list_folder(path)
        return any(n.lower().endswith(".xml") and os.path.isfile(path / n) for n in names)
    return path.suffix.lower() == ".xml"


def _suffix(*suffixes: str) -> Callable[[Path], bool]:
    return lambda path: path.is_file() and path.suffix.lower() in suffixes


def _is_stats_txt(path: Path) -> bool:
    return path.is_file() and (path.name.lower() == "stats.txt" or path.suffix.lower() == ".txt")


def _read_actions(path: Path) -> Any:
    from referee.core.formats.liris_xml import read_liris

    return read_liris(path)


def _read_liris_boxes(path: Path, min_conf: float | None = None) -> Any:
    from referee.core.formats.liris_xml import read_liris
    from referee.core.measures.boxes import boxes_from_annotations

    return boxes_from_annotations(read_liris(path))


def _read_mot_boxes(path: Path, min_conf: float | None = None) -> Any:
    from referee.core.formats.mot_csv import read_mot_boxes

    return [read_mot_boxes(path, min_conf)]


def _read_stats_txt(path: Path) -> Any:
    from referee.core.formats.stats_txt import read_stats_txt

    return read_stats_txt(path)


def _read_cm_csv(path: Path) -> Any:
    from referee.core.formats.cm_csv import read_cm_csv

    return read_cm_csv(path)


def _read_counts_csv(path: Path) -> Any:
    from referee.core.formats.counts_csv import read_counts_csv

    return read_counts_csv(path)


def _read_scores_csv(path: Path, measure: str | None = None) -> Any:
    from referee.core.formats.scores_csv import read_scores_csv

    return read_scores_csv(path, measure)


_LIRIS = "a LIRIS XML file (.xml) or a folder of them"
for _name, _kind, _description, _claims, _read in (
    ("liris-xml", ACTIONS, _LIRIS, _liris_claims, _read_actions),
    ("liris-xml", BOXES, _LIRIS, _liris_claims, _read_liris_boxes),
    (
        MOT_CSV,
        BOXES,
        "a MOTChallenge CSV 'frame,id,x,y,w,h,conf,…' (.csv or .txt)",
        _suffix(".csv", ".txt"),
        _read_mot_boxes,
    ),
    ("stats-txt", CONFUSIONS, "a CDnet stats.txt (.txt)", _is_stats_txt, _read_stats_txt),
    (
        "cm-csv",
        CONFUSIONS,
        "a CSV 'category,video,TP,FP,FN,TN[,SE]' (.csv)",
        _suffix(".csv"),
        _read_cm_csv,
    ),
    ("counts-csv", COUNTS, "a CSV 'frame,count' (.csv)", _suffix(".csv"), _read_counts_csv),
    ("scores-csv", SCORES, "a CSV 'case,A,B[,C…]' (.csv)", _suffix(".csv"), _read_scores_csv),
):
    register_reader(name=_name, kind=_kind, description=_description, claims=_claims, read=_read)


# --- the formats of annotators' tools: COCO, YOLO, labelme (docs/measures.md §10) ----------------


def _later(module: str, function: str) -> Callable[..., Any]:
    """``referee.core.formats.<module>.<function>``, imported when first called."""

    def call(*args: Any, **options: Any) -> Any:
        found = getattr(importlib.import_module(f"referee.core.formats.{module}"), function)
        return found(*args, **options)

    return call


def _json_naming(*keys: bytes) -> Callable[[Path], bool]:
    """Claims a ``.json`` file whose first bytes hold one of ``keys`` (``b"["``: a list)."""

    def claims(path: Path) -> bool:
        from referee.core.formats.json_files import json_head

        head = json_head(path) if path.suffix.lower() == ".json" else b""
        return any(head.startswith(key) if key == b"[" else key in head for key in keys)

    return claims


def _folder_of(suffix: str, inner: Callable[[Path], bool] | None = None) -> Callable[[Path], bool]:
    """Claims a folder holding a ``*<suffix>`` file (the first by name claimed by ``inner``)."""

    def claims(path: Path) -> bool:
        if not path.is_dir():
            return False
        from referee.core.formats.cdnet import list_folder  # names an unreadable folder

        names = sorted(n for n in list_folder(path) if n.lower().endswith(suffix))
        names = [n for n in names if n.lower() != "classes.txt" and os.path.isfile(path / n)]
        return bool(names) and (inner is None or inner(path / names[0]))

    return claims


_COCO = "a COCO instances or detection results file (.json)"
_YOLO = "a YOLO label folder (<frame>.txt: 'class cx cy w h [score]')"
_LABELME = "a labelme folder of <frame>.json files, or one of them"
_coco_claims = _json_naming(b'"images"', b'"annotations"', b"[")
_labelme_file = _json_naming(b'"shapes"')
_labelme_folder = _folder_of(".json", _labelme_file)


def _labelme_claims(path: Path) -> bool:
    return _labelme_file(path) or _labelme_folder(path)


for _name, _kind, _description, _claims, _read in (
    ("coco", BOXES, _COCO, _coco_claims, _later("coco", "read_coco_boxes")),
    ("coco", LABEL_MAPS, _COCO, _coco_claims, _later("coco", "read_coco_label_maps")),
    ("yolo", BOXES, _YOLO, _folder_of(".txt"), _later("yolo", "read_yolo_boxes")),
    ("labelme", BOXES, _LABELME, _labelme_claims, _later("labelme", "read_labelme_boxes")),
    (
        "labelme",
        LABEL_MAPS,
        _LABELME,
        _labelme_claims,
        _later("labelme", "read_labelme_label_maps"),
    ),
):
    register_reader(name=_name, kind=_kind, description=_description, claims=_claims, read=_read)
_drops: tuple[str, ...]
for _name, _kind, _description, _write, _cannot_hold, _drops in (
    (
        "coco",
        BOXES,
        "a COCO results file (boxes with scores) or instances file (.json)",
        _later("coco_writer", "write_coco_boxes"),
        "identities (kept only in the non-standard key track_id), and in a results file the "
        "frames without boxes",
        (),
    ),
    (
        "coco",
        LABEL_MAPS,
        "a COCO instances file of RLE regions (.json)",
        _later("coco_writer", "write_coco_label_maps"),
        "",
        (),
    ),
    ("yolo", BOXES, _YOLO, _later("yolo", "write_yolo_boxes"), "identities", (IDENTITIES,)),
    (
        "labelme",
        BOXES,
        _LABELME,
        _later("labelme", "write_labelme_boxes"),
        "confidences",
        (CONFIDENCES,),
    ),
    ("labelme", LABEL_MAPS, _LABELME, _later("labelme", "write_labelme_label_maps"), "", ()),
):
    register_writer(
        name=_name,
        kind=_kind,
        description=_description,
        write=_write,
        cannot_hold=_cannot_hold,
        drops=_drops,
    )


# --- CVAT 1.1 XML: CVAT for video and CVAT for images (docs/measures.md §10) ------------------


def _cvat_claims(flavour: str) -> Callable[[Path], bool]:
    """Claims a CVAT 1.1 file of ``flavour`` by its root and first track or image."""

    def claims(path: Path) -> bool:
        from referee.core.formats.cvat_xml import cvat_flavour

        return cvat_flavour(path) == flavour

    return claims


_CVAT_VIDEO = "a CVAT for video 1.1 XML file (.xml)"
_CVAT_IMAGES = "a CVAT for images 1.1 XML file (.xml)"
for _name, _kind, _description, _module, _function in (
    ("cvat-video", BOXES, _CVAT_VIDEO, "cvat_video", "read_cvat_video_boxes"),
    ("cvat-video", ACTIONS, _CVAT_VIDEO, "cvat_video", "read_cvat_actions"),
    ("cvat-video", TRACKS, _CVAT_VIDEO, "cvat_video", "read_cvat_tracks"),
    ("cvat-video", LABEL_MAPS, _CVAT_VIDEO, "cvat_label_maps", "read_cvat_video_label_maps"),
    ("cvat-images", BOXES, _CVAT_IMAGES, "cvat_images", "read_cvat_image_boxes"),
    ("cvat-images", LABEL_MAPS, _CVAT_IMAGES, "cvat_label_maps", "read_cvat_image_label_maps"),
):  # before LIRIS, which claims every .xml file: these claim CVAT's by their content
    register_reader(
        name=_name,
        kind=_kind,
        description=_description,
        claims=_cvat_claims(_name.removeprefix("cvat-")),
        read=_later(_module, _function),
        first=True,
    )


#: A writer's row: name, kind, description, function, what it cannot hold, what it drops.
_WriterRow = tuple[str, str, str, str, str, tuple[str, ...]]


def _register_writers(module: str, rows: Iterable[_WriterRow]) -> None:
    """Register each row's writer, ``(name, kind, description, function, cannot_hold,
    drops)``, whose function is in ``module`` (imported when first used)."""
    for name, kind, description, function, cannot_hold, drops in rows:
        register_writer(
            name=name,
            kind=kind,
            description=description,
            write=_later(module, function),
            cannot_hold=cannot_hold,
            drops=drops,
        )


_register_writers(
    "cvat_writer",
    (
        (
            "cvat-video",
            TRACKS,
            _CVAT_VIDEO,
            "write_cvat_tracks",
            "confidences (read back as 1)",
            (CONFIDENCES,),
        ),
        ("cvat-video", ACTIONS, _CVAT_VIDEO, "write_cvat_actions", "", ()),
        (
            "cvat-images",
            BOXES,
            _CVAT_IMAGES,
            "write_cvat_images",
            "identities and confidences; labels read back numbered 1, 2… in order",
            (IDENTITIES, CONFIDENCES, LABELS),
        ),
    ),
)


#: Which of the common reading options (``labels``, ``image_size``, ``images``,
#: ``frame_from``) each reader takes: option → the reader's keyword.
READ_OPTIONS: dict[tuple[str, str], dict[str, str]] = {
    ("cvat-video", ACTIONS): {"labels": "classes"},
    ("cvat-video", LABEL_MAPS): {"labels": "levels", "image_size": "size"},
    ("cvat-images", LABEL_MAPS): {"labels": "levels", "image_size": "size"},
    ("coco", BOXES): {"images": "images", "frame_from": "frame_from"},
    ("coco", LABEL_MAPS): {"images": "images", "frame_from": "frame_from", "labels": "levels"},
    ("yolo", BOXES): {"image_size": "image_size"},
    ("labelme", BOXES): {"labels": "classes"},
    ("labelme", LABEL_MAPS): {"labels": "levels"},
}


def reader_keywords(name: str, kind: str, given: dict[str, Any]) -> dict[str, Any]:
    """The keywords that pass ``given`` common options (those not ``None``) to the reader
    ``name`` of ``kind``; options it does not take are left out."""
    taken = READ_OPTIONS.get((name, kind), {})
    return {taken[k]: v for k, v in given.items() if k in taken and v is not None}


# --- Referee's own formats, as conversions write them (docs/measures.md §10) ----------------


def _cdnet_truth_claims(path: Path) -> bool:
    from referee.core.formats.own_formats import is_cdnet_truth_folder

    return is_cdnet_truth_folder(path)


register_reader(
    name="cdnet-png",
    kind=LABEL_MAPS,
    description="a CDnet ground-truth folder (gt%06d.png)",
    claims=_cdnet_truth_claims,
    read=_later("own_formats", "read_cdnet_label_maps"),
)
register_reader(
    name=MOT_CSV,
    kind=TRACKS,
    description="a MOTChallenge CSV 'frame,id,x,y,w,h,conf,…' (.csv or .txt)",
    claims=_suffix(".csv", ".txt"),
    read=_later("own_formats", "read_mot_tracks"),
)
_register_writers(
    "own_formats",
    (
        (
            MOT_CSV,
            TRACKS,
            "a MOTChallenge CSV (.txt)",
            "write_mot_tracks",
            "keyframe flags (every row reads back as a keyframe)",
            (KEYFRAMES,),
        ),
        (MOT_CSV, BOXES, "a MOTChallenge CSV (.txt)", "write_mot_boxes", "labels", (LABELS,)),
        ("liris-xml", ACTIONS, "a LIRIS XML file (.xml)", "write_liris_actions", "", ()),
        (
            "cdnet-png",
            LABEL_MAPS,
            "a CDnet ground-truth folder (gt%06d.png)",
            "write_cdnet_label_maps",
            "",
            (),
        ),
    ),
)
