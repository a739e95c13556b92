"""Conversions between annotation formats (docs/measures.md §10): read a file as the
richest content both formats hold (tracks, actions, per-frame boxes, label maps) and
write it in the target format, refusing what would drop part of it unless told.

:func:`run_convert` is the one way in, for ``referee convert``, the window's Import
and Export, and the Python API. Readers and writers come from
:mod:`referee.core.formats.registry`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from referee.core.errors import InputFileError, InvalidOptionError
from referee.core.formats import registry
from referee.core.formats.registry import (
    ACTIONS,
    BOXES,
    CONFIDENCES,
    IDENTITIES,
    KEYFRAMES,
    LABEL_MAPS,
    LABELS,
    TRACKS,
)
from referee.core.progress import CancelToken, ProgressCallback, check, report
from referee.core.workflow.options import ConvertOptions

#: The contents a conversion may carry, richest first: the first one both formats hold
#: is converted unless the options name one.
KINDS: tuple[str, ...] = (TRACKS, ACTIONS, BOXES, LABEL_MAPS)
#: Which options each writer takes: option → the writer's keyword (``names``: the
#: labels turned around, number → name).
_WRITE_OPTIONS: dict[tuple[str, str], dict[str, str]] = {
    ("coco", BOXES): {"image_size": "image_size", "names": "names"},
    ("coco", LABEL_MAPS): {"names": "names"},
    ("yolo", BOXES): {"image_size": "image_size", "names": "names"},
    ("labelme", BOXES): {"image_size": "image_size", "names": "names"},
    ("labelme", LABEL_MAPS): {"names": "names"},
    ("cvat-images", BOXES): {"image_size": "size", "names": "labels"},
    ("cvat-video", TRACKS): {"image_size": "size"},
    ("cvat-video", ACTIONS): {"image_size": "size", "names": "labels"},
}
_OPTION_FLAGS = {
    "labels": "--labels",
    "image_size": "--image-size",
    "images": "--images",
    "frame_from": "--frame-from",
}


@dataclass(frozen=True)
class Conversion:
    """What :func:`run_convert` did: the formats, the content converted and how many
    items it held (tracks, actions, boxes or labelled frames), and what was dropped."""

    source: Path
    target: Path
    source_format: str
    target_format: str
    kind: str
    items: int
    dropped: tuple[str, ...]


def run_convert(
    source: str | Path,
    target: str | Path,
    options: ConvertOptions,
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> Conversion:
    """Convert ``source`` to ``options.to`` in ``target``.

    Raises
    ------
    InvalidOptionError
        An unknown format, no content both formats hold, an option neither side takes,
        or a conversion that would drop what ``source`` holds (without ``lossy``).
    InputFileError
        What the reader or the writer raises: a bad input, an existing output without
        ``force``.
    """
    source, target = Path(source), Path(target)
    reader, writer = _pair(source, options)
    kind = writer.kind
    read_options = _given(options, registry.READ_OPTIONS.get((reader.name, kind), {}))
    write_options = _given(options, _WRITE_OPTIONS.get((writer.name, kind), {}))
    _check_used(options, {*read_options, *write_options})
    report(progress, 0, 2)
    content = reader.read(source, **registry.reader_keywords(reader.name, kind, read_options))
    check(cancel)
    dropped = tuple(d for d in writer.drops if d in holds(kind, content))
    if dropped and not options.lossy:
        raise InvalidOptionError(
            f"{writer.name} cannot hold all of {source}: its {' and '.join(dropped)} would be "
            f"lost ({writer.name} drops {writer.cannot_hold}); accept the loss (--lossy) to "
            "convert without them"
        )
    mapped = {_WRITE_OPTIONS[(writer.name, kind)][k]: v for k, v in write_options.items()}
    writer.write(content, target, force=options.force, **mapped)
    report(progress, 2, 2)
    return Conversion(
        source, target, reader.name, writer.name, kind, _count(kind, content), dropped
    )


def parse_labels(text: str) -> dict[str, int]:
    """``name=number,…`` or a JSON file of ``{name: number}``.

    Raises
    ------
    InvalidOptionError
        A mapping that is neither, or a value that is not a whole number.
    """
    path = Path(text)
    if path.suffix.lower() == ".json" and path.is_file():
        try:
            found = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
            raise InvalidOptionError(f"labels {text}: not a readable JSON file ({error})") from None
        pairs = [(str(k), v) for k, v in found.items()] if isinstance(found, dict) else []
    else:
        cells = [p.split("=", 1) for p in text.split(",") if p.strip()]
        pairs = [(c[0], c[1]) for c in cells if len(c) == 2]
        if len(pairs) < len(cells):
            pairs = []
    if not pairs:
        raise InvalidOptionError(
            f"labels {text!r}: give 'name=number,…' or a JSON file of {{name: number}}"
        )
    mapping = {}
    for name, value in pairs:
        try:
            mapping[str(name).strip()] = int(str(value).strip())
        except ValueError:
            raise InvalidOptionError(
                f"labels: {name!s} is given {value!r}, not a whole number"
            ) from None
    return mapping


def parse_image_size(text: str) -> tuple[int, int]:
    """``WxH`` as ``(width, height)``, both positive."""
    width, _, height = text.lower().partition("x")
    if width.isdigit() and height.isdigit() and int(width) > 0 and int(height) > 0:
        return int(width), int(height)
    raise InvalidOptionError(f"image size {text!r}: give WIDTHxHEIGHT in pixels, e.g. 1920x1080")


def _pair(source: Path, options: ConvertOptions) -> tuple[registry.Reader, registry.Writer]:
    """The reader of ``source`` and the writer of ``options.to`` for the richest content
    both hold."""
    written = {w.kind: w for kind in KINDS for w in registry.writers(kind) if w.name == options.to}
    if not written:
        names = sorted({w.name for kind in KINDS for w in registry.writers(kind)})
        raise InvalidOptionError(
            f"unknown target format {options.to!r} (choose from {', '.join(names)})"
        )
    kinds = [options.kind] if options.kind is not None else list(KINDS)
    if options.kind is not None and options.kind not in KINDS:
        raise InvalidOptionError(
            f"unknown content {options.kind!r} (choose from {', '.join(KINDS)})"
        )
    read_as = []
    for kind in kinds:
        try:
            reader = registry.detect(source, kind)
        except InputFileError:
            if not source.exists():
                raise
            continue
        read_as.append(f"{kind} ({reader.name})")
        if kind in written:
            return reader, written[kind]
    held = ", ".join(read_as) or "nothing Referee converts"
    raise InvalidOptionError(
        f"cannot convert {source} to {options.to}: it reads as {held}; {options.to} writes "
        f"{', '.join(written)}"
    )


def _given(options: ConvertOptions, taken: Mapping[str, str]) -> dict[str, Any]:
    """The options given that a reader or writer taking ``taken`` uses."""
    values: dict[str, Any] = {
        "labels": options.labels,
        "image_size": options.image_size,
        "images": options.images,
        "frame_from": options.frame_from,
        "names": None if options.labels is None else {v: k for k, v in options.labels.items()},
    }
    return {k: values[k] for k in taken if values[k] is not None}


def _check_used(options: ConvertOptions, used: set[str]) -> None:
    """Refuse an option that neither the reader nor the writer takes."""
    for option, flag in _OPTION_FLAGS.items():
        taken = option in used or (option == "labels" and "names" in used)
        if getattr(options, option) is not None and not taken:
            raise InvalidOptionError(f"{flag} is not used by this conversion")


def holds(kind: str, content: Any) -> set[str]:
    """What of :data:`~referee.core.formats.registry.IDENTITIES`, ``CONFIDENCES``,
    ``LABELS`` and ``KEYFRAMES`` ``content`` (of ``kind``) holds."""
    found: set[str] = set()
    if kind == BOXES:
        for video in content:
            for boxes in video.frames.values():
                if not len(boxes):
                    continue
                found |= {IDENTITIES} if boxes.ids is not None else set()
                found |= {LABELS} if boxes.labels is not None else set()
                if boxes.confidences is not None and (boxes.confidences != 1).any():
                    found.add(CONFIDENCES)
    elif kind == TRACKS:
        for track in content:
            found |= {KEYFRAMES} if track.interpolated.any() else set()
            found |= {CONFIDENCES} if (track.conf != 1).any() else set()
    return found


def _count(kind: str, content: Any) -> int:
    if kind == BOXES:
        return sum(video.box_count for video in content)
    if kind == ACTIONS:
        return sum(len(video.actions) for video in content)
    if kind == LABEL_MAPS:
        return sum(len(frames) for frames in content.values())
    return len(content)
