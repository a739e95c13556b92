"""Autosave: the unsaved ground truth in a sidecar file next to the project (docs/measures.md §10).

The sidecar ``<project file>.autosave`` is a ZIP archive holding
``autosave.json`` (what follows, and where) and one member per changed file:
label maps as PNG, actions as LIRIS XML, tracks as MOTChallenge CSV, counts
as CSV, in the formats they are saved in. It is written atomically, so a crash
or a kill while autosaving leaves the previous sidecar or the new one, never a
mix (and at most a temporary file, which the next autosave removes). It holds only unsaved changes and is removed once they are saved or
discarded; on start, a sidecar newer than its project file offers recovery.
"""

from __future__ import annotations

import glob
import io
import json
import os
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from referee.core.annotation.document import GroundTruthDocument, MaskKey
from referee.core.annotation.tracks import Track, rows_of_tracks, tracks_from_rows
from referee.core.errors import InputFileError
from referee.core.formats.counts_csv import CountSeries, format_counts_csv, parse_counts_csv
from referee.core.formats.gt_png import encode_ground_truth_png
from referee.core.formats.images import decode_grey
from referee.core.formats.liris_xml import parse_liris_bytes
from referee.core.formats.liris_xml_writer import format_liris
from referee.core.formats.mot_csv import format_mot_csv, parse_mot_csv
from referee.core.formats.text_files import write_bytes
from referee.core.model.annotations import AnnotationSet
from referee.core.model.videos import frame_runs

FORMAT_NAME = "referee-autosave"
FORMAT_VERSION = 1
SUFFIX = ".autosave"
_INDEX = "autosave.json"
#: Largest sidecar read back, in bytes (unsaved label maps of a long session fit easily).
MAX_AUTOSAVE_BYTES = 2**31


@dataclass
class AutosaveContents:
    """What a sidecar holds: the unsaved changes of one project."""

    project_file: Path
    masks: dict[MaskKey, np.ndarray] = field(default_factory=dict)
    annotated: dict[str, set[int]] = field(default_factory=dict)
    actions: AnnotationSet | None = None
    tracks: tuple[Track, ...] | None = None
    counts: dict[str, CountSeries] = field(default_factory=dict)


def autosave_path(project_file: Path) -> Path:
    """The sidecar of ``project_file``: ``<name>.referee.json.autosave`` beside it."""
    return project_file.with_name(project_file.name + SUFFIX)


def newer_autosave(project_file: Path) -> Path | None:
    """The sidecar of ``project_file`` if it exists and is newer than the project file."""
    sidecar = autosave_path(project_file)
    try:
        newer = os.stat(sidecar).st_mtime_ns > os.stat(project_file).st_mtime_ns
    except OSError:
        return sidecar if sidecar.is_file() else None
    return sidecar if newer else None


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
    index: dict[str, object] = {
        "format": FORMAT_NAME,
        "version": FORMAT_VERSION,
        "project": document.project.file.name,
        "masks": [],
        "annotated": {
            label: [list(run) for run in frame_runs(document.annotated[label])]
            for label in sorted(document.changed_annotated)
        },
        "actions": None,
        "tracks": None,
        "counts": {},
    }
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for k, ((label, frame), label_map) in enumerate(document.changed_label_maps().items()):
            member = f"masks/{k}.png"
            archive.writestr(member, encode_ground_truth_png(label_map), zipfile.ZIP_STORED)
            index["masks"].append([label, frame, member])  # type: ignore[attr-defined]
        if document.actions_changed:
            archive.writestr("actions.xml", format_liris(document.actions))
            index["actions"] = "actions.xml"
        if document.tracks_changed:
            archive.writestr("boxes.txt", format_mot_csv(rows_of_tracks(document.tracks)))
            index["tracks"] = "boxes.txt"
        for k, (folder, series) in enumerate(document.changed_counts_series().items()):
            member = f"counts/{k}.csv"
            archive.writestr(member, format_counts_csv(series.first_frame, series.counts))
            index["counts"][folder] = member  # type: ignore[index]
        archive.writestr(_INDEX, json.dumps(index, indent=1, ensure_ascii=False))
    write_bytes(sidecar, buffer.getvalue())
    return sidecar


def read_autosave(sidecar: Path) -> AutosaveContents:
    """Read a sidecar written by :func:`write_autosave`.

    Raises
    ------
    InputFileError
        If the file is not a readable Referee autosave, naming it and the problem.
    """
    try:
        if os.stat(sidecar).st_size > MAX_AUTOSAVE_BYTES:
            raise InputFileError(sidecar, "the autosave is larger than 2 GiB; it is not read")
        with zipfile.ZipFile(sidecar) as archive:
            return _contents(sidecar, archive)
    except InputFileError:
        raise
    except (OSError, zipfile.BadZipFile, KeyError, ValueError, TypeError) as error:
        raise InputFileError(
            sidecar, f"not a readable Referee autosave ({error}); it cannot be recovered"
        ) from None


def _contents(sidecar: Path, archive: zipfile.ZipFile) -> AutosaveContents:
    index = json.loads(archive.read(_INDEX))
    if index.get("format") != FORMAT_NAME or index.get("version") != FORMAT_VERSION:
        raise ValueError(f"format {index.get('format')!r} version {index.get('version')!r}")
    contents = AutosaveContents(sidecar.with_name(str(index["project"])))
    for label, frame, member in index["masks"]:
        label_map = decode_grey(archive.read(member), sidecar, f"autosaved {member}", int(frame))
        contents.masks[(str(label), int(frame))] = label_map
    for label, runs in index["annotated"].items():
        contents.annotated[label] = {f for a, b in runs for f in range(int(a), int(b) + 1)}
    if index["actions"] is not None:
        contents.actions = parse_liris_bytes(archive.read(index["actions"]), sidecar)
    if index["tracks"] is not None:
        text = archive.read(index["tracks"]).decode()
        contents.tracks = tracks_from_rows(parse_mot_csv(text, sidecar))
    for folder, member in index["counts"].items():
        contents.counts[folder] = parse_counts_csv(archive.read(member).decode(), sidecar)
    return contents


def restore_autosave(document: GroundTruthDocument, contents: AutosaveContents) -> None:
    """Put the sidecar's changes into ``document`` (as unsaved changes)."""
    for (label, frame), label_map in contents.masks.items():
        if label in document.videos:
            document.replace_label_map(label, frame, label_map)
    for label, frames in contents.annotated.items():
        document.annotated[label] = set(frames)
        document.changed_annotated.add(label)
    if contents.actions is not None:
        document.actions = contents.actions
        document.actions_changed = True
    if contents.tracks is not None:
        document.set_tracks(contents.tracks)
    for folder, series in contents.counts.items():
        document.set_counts(folder, series)


def discard_autosave(project_file: Path) -> None:
    """Remove the sidecar of ``project_file`` if there is one."""
    autosave_path(project_file).unlink(missing_ok=True)
