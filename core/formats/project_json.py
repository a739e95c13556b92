"""Referee project files, ``*.referee.json`` (see :mod:`referee.core.model.project`).

::

    {
      "format": "referee-project",
      "version": 1,
      "name": "Street study",
      "dataset": "dataset",
      "video_files": ["clips/lobby.mp4"],
      "actions_groundtruth": "actions/groundtruth.xml",
      "counts": "counts",
      "detectors": [
        {"name": "mog2", "masks": "results/mog2", "scores": null, "actions": "actions/mog2.xml"}
      ],
      "annotated": {"baseline/highway": [[470, 520], [600, 600]]},
      "origins": {"baseline/highway": [[600, 600, "consensus", "2026-11-26T23:43:25Z"]]},
      "annotators": [{"name": "ann", "root": "annotators/ann"}]
    }

``annotated`` records, per video label, the frames someone has annotated, as
increasing, disjoint ``[first, last]`` runs of frame numbers (docs/measures.md §8);
a video it does not list has ground truth on every frame (or on those with a file).
Runs are kept as runs (:class:`~referee.core.model.frame_set.FrameSet`), never
expanded. ``origins`` (version 2) records, per video label, increasing
``[first, last, source, accepted]`` runs: where frames accepted in Referee came
from and when (:mod:`referee.core.model.origins`). ``annotators`` (version 3) names
several people's ground truth of the same frames, each a root laid out like the
dataset (docs/measures.md §13). A file is written with the lowest version that holds
its content (version 1 without ``origins`` and ``annotators``), so that older
Referees still read it.

Paths are stored relative to the file's folder, with ``/`` separators, so a
project folder can be moved or copied to another machine; a path on another
drive stays absolute. Optional entries may be ``null`` or left out. Unknown
keys are refused, so that a misspelt key is not silently ignored; so are a key
given twice in one object, ``NaN`` and ``Infinity``, numbers of more than
:data:`~referee.core.formats.json_files.MAX_DIGITS` digits, nesting deeper than
:data:`~referee.core.limits.MAX_JSON_DEPTH`, and names or paths holding a
control character or a lone UTF-16 surrogate, or a path with a part longer
than :data:`MAX_NAME_BYTES` bytes.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from referee.core.errors import InputFileError
from referee.core.formats.json_files import json_type, read_json
from referee.core.formats.text_files import write_text
from referee.core.limits import MAX_FRAME_NUMBER
from referee.core.model import project as model
from referee.core.model.frame_set import FrameSet
from referee.core.model.origins import AcceptedRun, Origin, check_accepted_time

FORMAT_NAME = "referee-project"
#: The version written when the project names annotators; with origins alone, 2; else 1.
FORMAT_VERSION = 3
_VERSIONS = (1, 2, 3)

_PATH_KEYS: tuple[str, ...] = ("dataset", "actions_groundtruth", "boxes_groundtruth", "counts")
_PROJECT_KEYS: frozenset[str] = frozenset(
    (
        "format",
        "version",
        "name",
        "video_files",
        "detectors",
        "annotated",
        "origins",
        "annotators",
        *_PATH_KEYS,
    )
)
_DETECTOR_PATH_KEYS: tuple[str, ...] = ("masks", "scores", "actions", "boxes")
_DETECTOR_KEYS: frozenset[str] = frozenset(("name", *_DETECTOR_PATH_KEYS))
_ANNOTATOR_KEYS: frozenset[str] = frozenset(("name", "root"))
#: Longest part of a stored path (a folder or file name), in UTF-8 bytes, as most file
#: systems allow; longer, the path cannot exist.
MAX_NAME_BYTES = 255
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


# --------------------------------------------------------------------------- reading


def read_project(path: str | Path) -> model.Project:
    """Read a project file; its paths become absolute, relative ones taken from its folder.

    Raises
    ------
    InputFileError
        Naming the file and the problem: unreadable, not JSON (with line and
        column), not a Referee project or of another version, a missing,
        unknown or ill-typed key, an empty name, or a detector name given twice.
    """
    file = Path(os.path.abspath(path))
    document = read_json(file)
    return _Reader(file).project(document)


class _Reader:
    """Turns the parsed JSON of ``file`` into a project, raising errors that name ``file``."""

    def __init__(self, file: Path) -> None:
        self.file = file

    def fail(self, problem: str) -> InputFileError:
        return InputFileError(self.file, problem)

    def project(self, document: Any) -> model.Project:
        if not isinstance(document, dict):
            raise self.fail(
                "not a Referee project: the file must hold a JSON object "
                f'{{"format": "{FORMAT_NAME}", "version": {FORMAT_VERSION}, ...}}'
            )
        self.check_header(document)
        self.check_keys(document, _PROJECT_KEYS, "the project")
        detectors = tuple(
            self.detector(item, f"detectors[{index}]")
            for index, item in enumerate(self.list_of(document, "detectors"))
        )
        self.check_unique(detectors)
        return model.Project(
            name=self.name(document, "name"),
            dataset=self.path(document, "dataset"),
            video_files=tuple(
                self.stored_path(value, f"video_files[{index}]")
                for index, value in enumerate(self.list_of(document, "video_files"))
            ),
            actions_groundtruth=self.path(document, "actions_groundtruth"),
            boxes_groundtruth=self.path(document, "boxes_groundtruth"),
            counts=self.path(document, "counts"),
            detectors=detectors,
            annotators=self.annotators(self.list_of(document, "annotators")),
            annotated=self.annotated(document.get("annotated")),
            origins=self.origins(document.get("origins")),
            file=self.file,
        )

    def annotators(self, items: list[Any]) -> tuple[model.AnnotatorSource, ...]:
        found: list[model.AnnotatorSource] = []
        for index, item in enumerate(items):
            where = f"annotators[{index}]"
            if not isinstance(item, dict):
                raise self.fail(
                    f'{where} must be an object like {{"name": "ann", "root": "annotators/ann"}}'
                )
            self.check_keys(item, _ANNOTATOR_KEYS, where)
            name = self.name(item, "name", where)
            if any(known.name == name for known in found):
                raise self.fail(
                    f"annotator name {name!r} is given twice; each annotator needs its own name"
                )
            if item.get("root") is None:
                raise self.fail(f"the key '{where}.root' is missing; give the annotator's folder")
            root = self.stored_path(item["root"], f"{where}.root")
            found.append(model.AnnotatorSource(name, root))
        return tuple(found)

    def annotated(self, value: Any) -> tuple[tuple[str, FrameSet], ...]:
        return tuple(
            (label, FrameSet((a, b) for a, b in self.runs(runs, f"annotated[{label!r}]", 2)))
            for label, runs in self.per_video(value, "annotated", "[[470, 520]]")
        )

    def origins(self, value: Any) -> tuple[tuple[str, tuple[AcceptedRun, ...]], ...]:
        return tuple(
            (label, tuple(self.origin_run(run, f"origins[{label!r}]") for run in runs))
            for label, runs in (
                (label, self.runs(runs, f"origins[{label!r}]", 4))
                for label, runs in self.per_video(
                    value, "origins", '[[600, 600, "painted", "2026-11-26T23:43:25Z"]]'
                )
            )
        )

    def per_video(self, value: Any, key: str, example: str) -> list[tuple[str, Any]]:
        if value is None:
            return []
        if not isinstance(value, dict):
            raise self.fail(
                f'{key!r} must be an object like {{"baseline/highway": {example}}}, '
                f"not {json_type(value)}"
            )
        return [(self.text(label, key), runs) for label, runs in value.items()]

    def runs(self, value: Any, label: str, size: int) -> list[list[Any]]:
        """Increasing, disjoint ``[first, last, …]`` runs of ``size`` items (not expanded)."""
        shape = "[first, last]" if size == 2 else "[first, last, source, accepted]"
        if not isinstance(value, list):
            raise self.fail(f"{label} must be a list of {shape} runs, not {json_type(value)}")
        previous = 0
        for run in value:
            if not (
                isinstance(run, list)
                and len(run) == size
                and all(type(f) is int and 1 <= f <= MAX_FRAME_NUMBER for f in run[:2])
                and run[0] <= run[1]
            ):
                raise self.fail(
                    f"{label}: {json.dumps(run)[:80]} is not a run {shape} of frame numbers "
                    f"from 1 to {MAX_FRAME_NUMBER:,} with first ≤ last"
                )
            if run[0] <= previous:
                raise self.fail(
                    f"{label}: the run {json.dumps(run[:2])} overlaps or comes before the one "
                    f"ending at frame {previous}; list runs in increasing order"
                )
            previous = run[1]
        return value

    def origin_run(self, run: list[Any], label: str) -> AcceptedRun:
        first, last, origin, accepted = run
        try:
            return AcceptedRun(
                first,
                last,
                Origin.parse(self.text(origin, label)),
                check_accepted_time(self.text(accepted, label)),
            )
        except ValueError as error:
            raise self.fail(f"{label}: {error}") from None

    def check_header(self, document: dict[str, Any]) -> None:
        if "format" not in document:
            raise self.fail(
                f"not a Referee project: the key 'format' is missing; "
                f'a project file starts with "format": "{FORMAT_NAME}"'
            )
        if document["format"] != FORMAT_NAME:
            raise self.fail(
                f"not a Referee project: 'format' is {document['format']!r}, "
                f"expected {FORMAT_NAME!r}"
            )
        version = document.get("version")
        if type(version) is not int:
            raise self.fail(f"'version' must be a whole number, 1 to 3, not {version!r}")
        if version not in _VERSIONS:
            raise self.fail(
                f"project format version {version} is not supported; this "
                f"Referee reads versions {_VERSIONS[0]} to {_VERSIONS[-1]} (a newer Referee "
                "may have written the file)"
            )
        if version < 2 and "origins" in document:
            raise self.fail("'origins' needs version 2; set \"version\": 2")
        if version < 3 and "annotators" in document:
            raise self.fail("'annotators' needs version 3; set \"version\": 3")

    def check_keys(self, mapping: dict[str, Any], allowed: frozenset[str], where: str) -> None:
        unknown = sorted(set(mapping) - allowed)
        if unknown:
            raise self.fail(
                f"unknown key {unknown[0]!r} in {where}; the keys are " + ", ".join(sorted(allowed))
            )

    def check_unique(self, detectors: tuple[model.DetectorSource, ...]) -> None:
        seen: set[str] = set()
        for detector in detectors:
            if detector.name in seen:
                raise self.fail(
                    f"detector name {detector.name!r} is given twice; each "
                    "detector needs its own name"
                )
            seen.add(detector.name)

    def detector(self, item: Any, where: str) -> model.DetectorSource:
        if not isinstance(item, dict):
            raise self.fail(
                f'{where} must be an object like {{"name": "mog2", "masks": "results/mog2"}}'
            )
        self.check_keys(item, _DETECTOR_KEYS, where)
        name = self.name(item, "name", where)
        problem = model.detector_name_problem(name)
        if problem is not None:
            raise self.fail(f"{where}: {problem}")
        paths = {key: self.path(item, key, where) for key in _DETECTOR_PATH_KEYS}
        return model.DetectorSource(name, **paths)

    def name(self, mapping: dict[str, Any], key: str, where: str = "") -> str:
        label = f"{where}.{key}" if where else key
        if key not in mapping:
            raise self.fail(f"the key {label!r} is missing")
        value = self.text(mapping[key], label)
        if not value.strip():
            raise self.fail(f"{label!r} is empty; give a name")
        return value

    def path(self, mapping: dict[str, Any], key: str, where: str = "") -> Path | None:
        value = mapping.get(key)
        if value is None:
            return None
        return self.stored_path(value, f"{where}.{key}" if where else key)

    def list_of(self, mapping: dict[str, Any], key: str) -> list[Any]:
        value = mapping.get(key, [])
        if value is None:
            return []
        if not isinstance(value, list):
            raise self.fail(f"{key!r} must be a list, not {json_type(value)}")
        return value

    def text(self, value: Any, label: str) -> str:
        if not isinstance(value, str):
            raise self.fail(f"{label!r} must be a string, not {json_type(value)}")
        control = _CONTROL.search(value)
        if control:
            raise self.fail(
                f"{label!r} holds the control character U+{ord(control.group()):04X}; "
                "names and paths are plain text on one line"
            )
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise self.fail(
                f"{label!r} holds a lone UTF-16 surrogate (such as \\ud800), which is "
                "not a character; fix the text"
            ) from None
        return value

    def stored_path(self, value: Any, label: str) -> Path:
        """The absolute path of a stored one, relative ones taken from the file's folder."""
        if not self.text(value, label):
            raise self.fail(f"{label!r} is an empty string; give a path or leave the key out")
        longest = max(len(part.encode("utf-8")) for part in re.split(r"[/\\]", value))
        if longest > MAX_NAME_BYTES:
            raise self.fail(
                f"{label!r} has a folder or file name of {longest:,} bytes; file systems "
                f"allow at most {MAX_NAME_BYTES}"
            )
        return Path(os.path.normpath(os.path.join(self.file.parent, value)))


# --------------------------------------------------------------------------- writing


def write_project(project: model.Project, path: str | Path) -> model.Project:
    """Write ``project`` to ``path`` atomically, paths relative to its folder.

    Returns
    -------
    Project
        ``project`` with ``file`` set to ``path`` (made absolute).

    Raises
    ------
    InputFileError
        If the folder does not exist or is not writable.
    """
    file = Path(os.path.abspath(path))
    write_text(
        file,
        json.dumps(project_document(project, file.parent), indent=2, ensure_ascii=False) + "\n",
    )
    return dataclasses.replace(project, file=file)


def project_document(project: model.Project, folder: Path) -> dict[str, Any]:
    """The JSON object of ``project`` with paths relative to ``folder``."""

    def stored(path: Path | None) -> str | None:
        return None if path is None else _relative(path, folder)

    document: dict[str, Any] = {
        "format": FORMAT_NAME,
        "version": FORMAT_VERSION if project.annotators else 2 if project.origins else 1,
        "name": project.name,
        "dataset": stored(project.dataset),
        "video_files": [stored(path) for path in project.video_files],
        "actions_groundtruth": stored(project.actions_groundtruth),
        "counts": stored(project.counts),
        "detectors": [_detector_document(d, stored) for d in project.detectors],
    }
    if (
        project.boxes_groundtruth is not None
    ):  # written only when set: older files stay as they were
        document["boxes_groundtruth"] = stored(project.boxes_groundtruth)
    if project.annotated:
        document["annotated"] = {
            label: [list(run) for run in frames.runs] for label, frames in project.annotated
        }
    if project.origins:
        document["origins"] = {
            label: [[r.first, r.last, str(r.origin), r.accepted] for r in runs]
            for label, runs in project.origins
        }
    if project.annotators:
        document["annotators"] = [
            {"name": a.name, "root": stored(a.root)} for a in project.annotators
        ]
    return document


def _detector_document(
    detector: model.DetectorSource, stored: Callable[[Path | None], str | None]
) -> dict[str, Any]:
    document = {
        "name": detector.name,
        "masks": stored(detector.masks),
        "scores": stored(detector.scores),
        "actions": stored(detector.actions),
    }
    if detector.boxes is not None:
        document["boxes"] = stored(detector.boxes)
    return document


def _relative(path: Path, folder: Path) -> str:
    """``path`` relative to ``folder`` with ``/`` separators, or absolute on another drive."""
    absolute = os.path.abspath(path)
    try:
        return Path(os.path.relpath(absolute, folder)).as_posix()
    except ValueError:
        return Path(absolute).as_posix()
