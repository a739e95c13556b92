"""Writing LIRIS HARL XML annotation files (docs/measures.md §10)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

from lxml import etree

from referee.core.errors import InputFileError, InvalidOptionError
from referee.core.formats.liris_xml import XML_SPACE
from referee.core.formats.text_files import write_bytes
from referee.core.model.annotations import Action, AnnotationSet, VideoAnnotation

# --------------------------------------------------------------------------- writing


def format_liris(annotations: AnnotationSet | Iterable[VideoAnnotation]) -> bytes:
    """The UTF-8 LIRIS XML document of ``annotations`` (docs/measures.md §10).

    Videos and actions keep their order, boxes are in frame order, and
    interpolated boxes carry ``interpolated="1"``.

    Raises
    ------
    InvalidOptionError
        A video name that is empty, starts or ends with white space, or holds
        characters XML cannot carry: it would not read back unchanged.
    """
    root = etree.Element("tagset")
    for video in annotations:
        _check_name(video.name)
        node = etree.SubElement(root, "video")
        etree.SubElement(node, "videoName").text = video.name
        for action in video.actions:
            _add_action(node, action)
    document: bytes = etree.tostring(
        root, encoding="UTF-8", xml_declaration=True, pretty_print=True
    )
    return document


def _check_name(name: str) -> None:
    if not name or name.strip(XML_SPACE) != name:
        raise InvalidOptionError(
            f"video name {name!r} cannot be written: names must be "
            "non-empty, without leading or trailing white space"
        )
    try:
        etree.Element("videoName").text = name
    except ValueError:
        raise InvalidOptionError(
            f"video name {name!r} holds characters XML cannot carry "
            "(control characters); rename the video"
        ) from None


def _add_action(video: etree._Element, action: Action) -> None:
    node = etree.SubElement(
        video, "action", nr=str(action.number), **{"class": str(action.action_class)}
    )
    for frame, (x, y, w, h), filled in zip(
        action.frames.tolist(), action.boxes.tolist(), action.interpolated.tolist()
    ):
        box = etree.SubElement(
            node, "bbox", x=str(x), y=str(y), width=str(w), height=str(h), framenr=str(frame)
        )
        if filled:
            box.set("interpolated", "1")


def write_liris(path: str | Path, annotations: AnnotationSet | Iterable[VideoAnnotation]) -> None:
    """Write all videos to one LIRIS XML file, atomically (docs/measures.md §10).

    Raises
    ------
    InputFileError
        The folder does not exist or is not writable.
    InvalidOptionError
        See :func:`format_liris`.
    """
    write_bytes(path, format_liris(annotations))


def write_liris_folder(
    folder: str | Path, annotations: AnnotationSet | Iterable[VideoAnnotation]
) -> list[Path]:
    """Write one LIRIS XML file per video into ``folder`` (created if missing).

    A file is named after its video, characters other than letters, digits,
    ``.``, ``_`` and ``-`` replaced by ``_`` (``-2``, ``-3``… added when two
    names would clash); reading pairs videos by ``videoName``, not by file
    name. Other files in the folder are left alone. Returns the written paths.

    Raises
    ------
    InputFileError
        The folder cannot be created or written.
    InvalidOptionError
        See :func:`format_liris`.
    """
    target = Path(folder)
    documents: dict[Path, bytes] = {}
    taken: set[str] = set()
    for video in annotations:  # format every video first: a bad name writes nothing
        stem = _file_stem(video.name, taken)
        taken.add(stem.casefold())
        documents[target / f"{stem}.xml"] = format_liris([video])
    try:
        target.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputFileError(
            target,
            f"cannot create the folder ({exc.strerror or exc}); check the path and permissions",
        ) from exc
    for path, document in documents.items():
        write_bytes(path, document)
    return list(documents)


def _file_stem(name: str, taken: set[str]) -> str:
    """A portable file name for video ``name``, distinct (ignoring case) from ``taken``."""
    stem = re.sub(r"[^A-Za-z0-9._-]", "_", name).lstrip(".") or "video"
    candidate, n = stem, 1
    while candidate.casefold() in taken:
        n += 1
        candidate = f"{stem}-{n}"
    return candidate
