"""Autosave: the unsaved ground truth in a sidecar file next to the project (docs/measures.md §10).

The sidecar ``<project file>.autosave`` is a ZIP archive holding
``autosave.json`` (what follows, and where) and one member per modified file:
label maps as PNG, actions as LIRIS XML, tracks as MOTChallenge CSV, counts as
CSV, in the formats they are saved in, and each frame's unsaved decisions
(drafts, accepted frames, frames taken out of the record). It is written
atomically, so a crash or a kill while autosaving leaves the previous sidecar
or the new one, never a mix (and at most a temporary file, which the next
autosave removes). It holds only unsaved changes and is removed once they are
saved or discarded; on start, a sidecar newer than its project file offers
recovery.

A sidecar is read as untrusted input: its size and each member's are checked
before anything is read, members are read with a bound, and every field is
checked against the open project — its identity, video names, frame numbers,
label-map sizes — before recovery is offered (:func:`read_autosave`).
"""

from __future__ import annotations

import glob
import io
import json
import os
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from referee.core.annotation.document import GroundTruthDocument, MaskKey
from referee.core.annotation.review import Review
from referee.core.annotation.tracks import parse_tracks, updated_tracks
from referee.core.errors import InputFileError, RefereeError
from referee.core.formats.cdnet import last_annotatable_frame
from referee.core.formats.counts_csv import CountSeries, parse_counts_csv, updated_counts_csv
from referee.core.formats.gt_png import encode_ground_truth_png
from referee.core.formats.images import decode_grey
from referee.core.formats.liris_xml import parse_liris_bytes
from referee.core.formats.liris_xml_writer import format_liris
from referee.core.formats.text_files import check_regular_file, decode_text, write_bytes
from referee.core.limits import MAX_IMAGE_FILE_BYTES, MAX_TEXT_FILE_BYTES, MAX_XML_FILE_BYTES
from referee.core.model.annotations import AnnotationSet
from referee.core.model.origins import Origin, check_accepted_time
from referee.core.model.tracks import Track

FORMAT_NAME = "referee-autosave"
FORMAT_VERSION = 2
SUFFIX = ".autosave"
_INDEX = "autosave.json"
#: Largest sidecar read back, in bytes (unsaved label maps of a long session fit easily).
MAX_AUTOSAVE_BYTES = 2**31
#: Largest ``autosave.json`` read back, in bytes.
MAX_INDEX_BYTES = 64 * 2**20


@dataclass
class AutosaveContents:
    """What a sidecar holds: the unsaved changes of one project."""

    project_file: Path
    masks: dict[MaskKey, np.ndarray] = field(default_factory=dict)
    reviews: dict[MaskKey, Review] = field(default_factory=dict)
    actions: AnnotationSet | None = None
    tracks: tuple[Track, ...] | None = None
    counts: dict[str, CountSeries] = field(default_factory=dict)


def autosave_path(project_file: Path) -> Path:
    """The sidecar of ``project_file``: ``<name>.referee.json.autosave`` beside it."""
    return project_file.with_name(project_file.name + SUFFIX)


def newer_autosave(project_file: Path) -> Path | None:
    """The sidecar of ``project_file`` if it exists and is newer than the project file
    (anything but a regular file is returned too, so that it is refused with a reason)."""
    sidecar = autosave_path(project_file)
    try:
        mine = os.stat(sidecar).st_mtime_ns
    except OSError:
        return None
    try:
        return sidecar if mine >= os.stat(project_file).st_mtime_ns else None
    except OSError:
        return sidecar


def write_autosave(document: GroundTruthDocument) -> Path | None:
    """Write the document's unsaved changes to its sidecar, atomically.

    Returns the sidecar, or ``None`` when the project has no file to sit beside.

    Raises
    ------
    InputFileError
        If the sidecar cannot be written (the document keeps its changes).
    """
    if document.project.file is None:
        return None
    sidecar = autosave_path(document.project.file)
    for stale in sidecar.parent.glob(f".{glob.escape(sidecar.name)}.*.tmp"):
        stale.unlink(missing_ok=True)  # left by an autosave that was killed while writing
    buffer = io.BytesIO()
    index: dict[str, Any] = {
        "format": FORMAT_NAME,
        "version": FORMAT_VERSION,
        "project": document.project.file.name,
        "name": document.project.name,
        "dataset": None if document.project.dataset is None else str(document.project.dataset),
        "masks": [],
        "reviews": [
            [label, frame, None if r.origin is None else str(r.origin), r.accepted, r.unmarked]
            for (label, frame), r in sorted(document.reviews().items())
        ],
        "actions": None,
        "tracks": None,
        "counts": {},
    }
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for k, ((label, frame), label_map) in enumerate(document.modified_label_maps().items()):
            member = f"masks/{k}.png"
            archive.writestr(member, encode_ground_truth_png(label_map), zipfile.ZIP_STORED)
            index["masks"].append([label, frame, member])
        if document.actions_modified():
            archive.writestr("actions.xml", format_liris(document.actions))
            index["actions"] = "actions.xml"
        if document.tracks_modified():
            archive.writestr("boxes.txt", updated_tracks(None, document.tracks))
            index["tracks"] = "boxes.txt"
        for k, (folder, series) in enumerate(document.modified_counts().items()):
            member = f"counts/{k}.csv"
            archive.writestr(member, updated_counts_csv(None, series))
            index["counts"][folder] = member
        archive.writestr(_INDEX, json.dumps(index, indent=1, ensure_ascii=False))
    write_bytes(sidecar, buffer.getvalue())
    return sidecar


def read_autosave(sidecar: Path, document: GroundTruthDocument) -> AutosaveContents:
    """Read a sidecar written by :func:`write_autosave` for ``document``'s project.

    Raises
    ------
    InputFileError
        If the file is not a readable Referee autosave of this project, or holds a
        member or a field that does not fit it, naming the file and the problem in
        one sentence.
    """
    try:
        size = check_regular_file(sidecar).st_size
        if size > MAX_AUTOSAVE_BYTES:
            raise ValueError("it is larger than 2 GiB")
        with zipfile.ZipFile(sidecar) as archive:
            return _Reader(sidecar, archive, document).contents()
    except InputFileError as error:
        raise _refused(sidecar, error.problem if error.path == sidecar else str(error)) from None
    except KeyError as error:  # a member the index names is missing
        raise _refused(sidecar, str(error.args[0] if error.args else error)) from None
    except (OSError, zipfile.BadZipFile, ValueError, RefereeError) as error:
        raise _refused(sidecar, str(error)) from None


def _refused(sidecar: Path, problem: str) -> InputFileError:
    return InputFileError(
        sidecar, f"not a Referee autosave of this project ({problem}); it cannot be recovered"
    )


class _Reader:
    """Reads and checks the members of one sidecar against ``document``."""

    def __init__(
        self, sidecar: Path, archive: zipfile.ZipFile, document: GroundTruthDocument
    ) -> None:
        self.sidecar, self.archive, self.document = sidecar, archive, document

    def member(self, name: Any, limit: int) -> bytes:
        """The bytes of the member ``name``, refused before reading when over ``limit``."""
        if not isinstance(name, str):
            raise ValueError(f"a member name is {type(name).__name__}, not text")
        info = self.archive.getinfo(name)
        if info.file_size > limit:
            raise ValueError(f"its member {name} is {info.file_size:,} bytes, over {limit:,}")
        with self.archive.open(info) as handle:
            data = handle.read(limit + 1)
        if len(data) > limit:
            raise ValueError(f"its member {name} holds more than {limit:,} bytes")
        return data

    def contents(self) -> AutosaveContents:
        index = json.loads(self.member(_INDEX, MAX_INDEX_BYTES))
        if not isinstance(index, dict):
            raise ValueError("autosave.json is not an object")
        if index.get("format") != FORMAT_NAME or index.get("version") != FORMAT_VERSION:
            raise ValueError(
                f"format {index.get('format')!r} version {index.get('version')!r}, "
                f"expected {FORMAT_NAME!r} version {FORMAT_VERSION}"
            )
        self.check_project(index)
        contents = AutosaveContents(self.document.project_file())
        for label, frame, member in _rows(index.get("masks"), "masks", 3):
            key = self.frame_key(label, frame)
            contents.masks[key] = self.label_map(key, member)
        for label, frame, origin, accepted, unmarked in _rows(index.get("reviews"), "reviews", 5):
            contents.reviews[self.frame_key(label, frame)] = _review(origin, accepted, unmarked)
        if index.get("actions") is not None:
            data = self.member(index["actions"], MAX_XML_FILE_BYTES)
            contents.actions = parse_liris_bytes(data, self.sidecar)
        if index.get("tracks") is not None:
            data = self.member(index["tracks"], MAX_TEXT_FILE_BYTES)
            contents.tracks = parse_tracks(data, self.sidecar)
        counts = index.get("counts") or {}
        if not isinstance(counts, dict):
            raise ValueError("'counts' is not an object")
        stems = {video.file_stem for video in self.document.videos.values()}
        for folder, member in counts.items():
            if folder not in stems:
                raise ValueError(
                    f"it holds counts of {folder!r}, which is no video of this project"
                )
            text = decode_text(self.member(member, MAX_TEXT_FILE_BYTES), self.sidecar)
            contents.counts[folder] = parse_counts_csv(text, self.sidecar)
        return contents

    def check_project(self, index: dict[str, Any]) -> None:
        project = self.document.project
        dataset = None if project.dataset is None else str(project.dataset)
        expected = (self.document.project_file().name, project.name, dataset)
        found = (index.get("project"), index.get("name"), index.get("dataset"))
        if found != expected:
            raise ValueError(
                f"it was written for the project {found[1]!r} ({found[0]}, dataset {found[2]}), "
                f"not {expected[1]!r} ({expected[0]}, dataset {expected[2]})"
            )

    def frame_key(self, label: Any, frame: Any) -> MaskKey:
        video = self.document.videos.get(label) if isinstance(label, str) else None
        if video is None:
            raise ValueError(f"it names the video {label!r}, which this project does not have")
        last = last_annotatable_frame(video)
        if type(frame) is not int or not 1 <= frame <= last:
            raise ValueError(f"it names frame {frame!r} of {label}, whose frames are 1 to {last:,}")
        return label, frame

    def label_map(self, key: MaskKey, member: Any) -> np.ndarray:
        data = self.member(member, MAX_IMAGE_FILE_BYTES)
        label_map = decode_grey(data, self.sidecar, f"autosaved {member}", key[1])
        expected = self.document.map_shape(key[0])
        if label_map.shape != expected:
            raise ValueError(
                f"its label map of frame {key[1]} of {key[0]} is {label_map.shape[1]}x"
                f"{label_map.shape[0]}, but the video's frames are {expected[1]}x{expected[0]}"
            )
        return label_map


def _rows(value: Any, key: str, size: int) -> list[list[Any]]:
    """The list ``key`` of lists of ``size`` items."""
    value = value or []
    if not isinstance(value, list) or not all(
        isinstance(row, list) and len(row) == size for row in value
    ):
        raise ValueError(f"{key!r} is not a list of {size}-item lists")
    return value


def _review(origin: Any, accepted: Any, unmarked: Any) -> Review:
    if not (origin is None or isinstance(origin, str)) or not (
        accepted is None or isinstance(accepted, str)
    ):
        raise ValueError("a review's origin and time are text or null")
    if not isinstance(unmarked, bool):
        raise ValueError("a review's 'unmarked' is true or false")
    return Review(
        None if origin is None else Origin.parse(origin),
        None if accepted is None else check_accepted_time(accepted),
        unmarked,
    )


def restore_autosave(document: GroundTruthDocument, contents: AutosaveContents) -> None:
    """Put the sidecar's changes into ``document`` (as unsaved changes)."""
    for (label, frame), label_map in contents.masks.items():
        document.replace_label_map(label, frame, label_map)
    for (label, frame), review in contents.reviews.items():
        document.set_review(label, frame, review)
    if contents.actions is not None:
        document.actions = contents.actions
    if contents.tracks is not None:
        document.set_tracks(contents.tracks)
    for folder, series in contents.counts.items():
        document.set_counts(folder, series)


def discard_autosave(project_file: Path) -> None:
    """Remove the sidecar of ``project_file`` if there is one."""
    autosave_path(project_file).unlink(missing_ok=True)


__all__ = [
    "AutosaveContents",
    "autosave_path",
    "discard_autosave",
    "newer_autosave",
    "read_autosave",
    "restore_autosave",
    "write_autosave",
]
