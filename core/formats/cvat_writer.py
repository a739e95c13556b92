"""Writing CVAT 1.1 XML: tracks and LIRIS actions as CVAT for video, per-frame boxes as
CVAT for images (docs/measures.md §10).

Every document has ``<version>1.1</version>`` and a ``<meta><task>`` with the
video's name, its ``<size>`` (``frame_count`` when given, else one past the
last frame written), its mode, its labels and, given ``size``, its
``<original_size>``. Referee frame ``f`` is CVAT frame ``f − first_frame``
(``first_frame`` 1 unless given), as the readers number them.

For video, each track id is one ``<track>``: every frame of it is a ``<box>``,
keyframes with ``keyframe="1"``, interpolated frames with ``keyframe="0"``; the
frame after each run of frames gets an ``outside="1"`` keyframe holding the last
box, unless the id comes back on that very frame or it is the task's last frame
— so the runs of an id that leaves and comes back (several
:class:`~referee.core.model.tracks.Track` of one id) read back as they were.
Boxes are written ``xtl = x``, ``xbr = x + w`` in decimals, so reading gives
``x, w`` back exactly. Files are written atomically and never replace an
existing file unless ``force``
(:func:`~referee.core.formats.text_files.write_bytes`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from decimal import Decimal
from pathlib import Path
from typing import Any

import numpy as np
from lxml import etree

from referee.core.errors import InvalidOptionError
from referee.core.formats.cvat_xml import EXACT
from referee.core.formats.text_files import keeping_existing, write_bytes
from referee.core.measures.boxes import VideoBoxes
from referee.core.model.annotations import ACTION_CLASSES, AnnotationSet
from referee.core.model.tracks import Track

#: The label of boxes and tracks that have none.
DEFAULT_LABEL = "object"
#: How an image is named by default: the CDnet input frame (``{frame}``: the Referee
#: frame; ``{index}``: the CVAT image id).
DEFAULT_IMAGE_NAME = "in{frame:06d}.jpg"
#: LIRIS classes as CVAT labels by default: their codes (``DI``, ``GI``…).
LIRIS_CODES: dict[int, str] = {number: code for number, (code, _) in ACTION_CLASSES.items()}

#: One run of a track: CVAT id, label, first CVAT frame, boxes ``(n, 4)``, keyframe flags.
_Run = tuple[int, str, int, np.ndarray, np.ndarray]


# --------------------------------------------------------------------------- video


def format_cvat_tracks(
    tracks: Iterable[Track],
    name: str = "video",
    label: str = DEFAULT_LABEL,
    frame_count: int | None = None,
    size: tuple[int, int] | None = None,
    first_frame: int = 1,
) -> bytes:
    """The CVAT for video document of one video's ``tracks``, every track labelled
    ``label`` (see the module docstring). Confidences are not written.

    Raises
    ------
    InvalidOptionError
        A negative id (CVAT ids are whole numbers from 0), two tracks of one id sharing
        a frame, a frame before ``first_frame`` or beyond ``frame_count``.
    """
    runs = [
        (
            t.track_id,
            label,
            _cvat_first(t.first, first_frame, f"track {t.track_id}"),
            t.boxes,
            ~t.interpolated,
        )
        for t in tracks
    ]
    for track_id, *_ in runs:
        if track_id < 0:
            raise InvalidOptionError(f"track {track_id}: CVAT track ids are whole numbers from 0")
    return _video_document(runs, name, [label], frame_count, size)


def format_cvat_actions(
    annotations: AnnotationSet,
    labels: Mapping[int, str] | None = None,
    frame_count: int | None = None,
    size: tuple[int, int] | None = None,
    first_frame: int = 1,
) -> bytes:
    """The CVAT for video document of the LIRIS actions of one video: action ``nr`` is
    track ``nr − 1`` (its first appearance reads back as action ``nr``), its class the
    label ``labels[class]`` (default :data:`LIRIS_CODES`); ``<meta>`` declares every
    label of ``labels``, in class order.

    Raises
    ------
    InvalidOptionError
        A set of more than one video (a CVAT task is one video), a class without a
        label, a frame before ``first_frame`` (LIRIS frames from 0 need
        ``first_frame=0``) or beyond ``frame_count``.
    """
    names = dict(LIRIS_CODES if labels is None else labels)
    if len(annotations) > 1:
        raise InvalidOptionError(
            f"a CVAT for video file holds one video; these actions have {len(annotations)} "
            f"({', '.join(annotations.videos)}): write one file per video"
        )
    video = next(iter(annotations), None)
    runs: list[_Run] = []
    for action in video.actions if video is not None else ():
        what = f"action {action.number}"
        if action.number < 1:
            raise InvalidOptionError(f"{what}: LIRIS actions are numbered from 1")
        if action.action_class not in names:
            raise InvalidOptionError(
                f"{what}: class {action.action_class} has no label in the map of classes to labels"
            )
        start = _cvat_first(action.first, first_frame, what)
        boxes = action.boxes.astype(np.float64)
        runs.append(
            (action.number - 1, names[action.action_class], start, boxes, ~action.interpolated)
        )
    declared = [names[number] for number in sorted(names)]
    return _video_document(runs, video.name if video else "video", declared, frame_count, size)


def _cvat_first(first: int, first_frame: int, what: str) -> int:
    if first < first_frame:
        raise InvalidOptionError(
            f"{what} starts on frame {first}, before first_frame={first_frame} (CVAT frame 0); "
            "give first_frame=0 for frames numbered from 0"
        )
    return first - first_frame


def _video_document(
    runs: list[_Run],
    name: str,
    labels: Sequence[str],
    frame_count: int | None,
    size: tuple[int, int] | None,
) -> bytes:
    by_id: dict[int, list[_Run]] = {}
    for run in sorted(runs, key=lambda r: (r[0], r[2])):
        by_id.setdefault(run[0], []).append(run)
    last = max((r[2] + len(r[3]) for r in runs), default=0)  # one past, for the outside box
    if frame_count is not None and last - 1 >= frame_count:
        raise InvalidOptionError(
            f"a track reaches CVAT frame {last - 1}, beyond the {frame_count} frames of the task"
        )
    count = frame_count if frame_count is not None else (last + 1 if runs else 0)
    root = _root(name, count, "interpolation", labels, size)
    for track_id, track_runs in by_id.items():
        node = etree.SubElement(
            root, "track", id=str(track_id), label=track_runs[0][1], source="manual"
        )
        starts = [run[2] for run in track_runs[1:]] + [count + 1]  # the next run's first frame
        for (_, label, start, boxes, keyframes), following in zip(track_runs, starts):
            stop = start + len(boxes)
            if label != track_runs[0][1]:
                raise InvalidOptionError(
                    f"track {track_id} has two labels, {track_runs[0][1]!r} and {label!r}"
                )
            if following < stop:
                raise InvalidOptionError(
                    f"two tracks of id {track_id} overlap (on CVAT frame {following}); an id "
                    "has one box per frame"
                )
            for k, box in enumerate(boxes.tolist()):
                _box(node, start + k, box, keyframe=bool(keyframes[k]))
            if stop < min(count, following):
                _box(node, stop, boxes[-1].tolist(), keyframe=True, outside=True)
    return _serialized(root)


def _box(
    node: etree._Element, frame: int, box: list[float], keyframe: bool, outside: bool = False
) -> None:
    x, y, w, h = box
    etree.SubElement(
        node,
        "box",
        frame=str(frame),
        outside="1" if outside else "0",
        occluded="0",
        keyframe="1" if keyframe else "0",
        **_corners(x, y, w, h),
        z_order="0",
    )


def _corners(x: float, y: float, w: float, h: float) -> dict[str, str]:
    """``xtl, ytl, xbr, ybr`` in decimals: ``xbr = x + w`` exactly, from the shortest
    decimals of ``x`` and ``w`` (which read back as the same floats)."""
    if not np.isfinite([x, y, w, h]).all():
        raise InvalidOptionError(f"a box ({x}, {y}, {w}, {h}) has a value that is not a number")
    xtl, ytl, width, height = (Decimal(repr(float(v))) for v in (x, y, w, h))
    return {
        "xtl": _text(xtl),
        "ytl": _text(ytl),
        "xbr": _text(EXACT.add(xtl, width)),
        "ybr": _text(EXACT.add(ytl, height)),
    }


def _text(value: Decimal) -> str:
    """The fewest decimals of ``value``, without an exponent (``12``, ``12.5``, ``0.00001``)."""
    return "0" if value.is_zero() else format(EXACT.normalize(value), "f")


# --------------------------------------------------------------------------- images


def format_cvat_images(
    videos: Sequence[VideoBoxes],
    size: tuple[int, int] | None = None,
    labels: Mapping[int, str] | None = None,
    label: str = DEFAULT_LABEL,
    image_name: str = DEFAULT_IMAGE_NAME,
    frame_count: int | None = None,
    first_frame: int = 1,
) -> bytes:
    """The CVAT for images document of one video's per-frame boxes.

    Each frame is an ``<image id name width height>`` (``id`` the CVAT frame, ``name``
    from ``image_name``), every frame of the task when ``frame_count`` is given, else
    the video's frames; each box a ``<box label xtl ytl xbr ybr>``, labelled
    ``labels[label]`` (default: the label's number as text), or ``label`` for boxes
    without one. ``<meta>`` declares the labels by increasing number, so they read back
    numbered 1, 2… in that order. Identities and confidences are not written.

    Raises
    ------
    InvalidOptionError
        No ``size`` (CVAT needs each image's width and height), more than one video, a
        frame before ``first_frame`` or beyond ``frame_count``, or a bad ``image_name``.
    """
    if size is None:
        raise InvalidOptionError(
            "CVAT for images needs the images' size: give size=(width, height)"
        )
    if len(videos) != 1:
        raise InvalidOptionError(
            f"a CVAT for images file holds one video, not {len(videos)}: write one file per video"
        )
    video = videos[0]
    numbers = sorted(
        {int(n) for b in video.frames.values() if b.labels is not None for n in b.labels.tolist()}
    )
    names = {n: (labels or {}).get(n, str(n)) for n in numbers}
    declared = [names[n] for n in numbers]
    if any(b.labels is None and len(b) for b in video.frames.values()):
        declared.append(label)
    frames = sorted(video.frames)
    for frame in frames:
        _cvat_first(frame, first_frame, f"frame {frame}")
    if frame_count is not None:
        if frames and frames[-1] - first_frame >= frame_count:
            raise InvalidOptionError(
                f"frame {frames[-1]} is beyond the {frame_count} frames of the task"
            )
        frames = list(range(first_frame, first_frame + frame_count))
    count = (
        frame_count if frame_count is not None else (frames[-1] - first_frame + 1 if frames else 0)
    )
    root = _root(video.name, count, "annotation", declared, size)
    for frame in frames:
        index = frame - first_frame
        try:
            file_name = image_name.format(frame=frame, index=index)
        except (KeyError, IndexError, ValueError) as exc:
            raise InvalidOptionError(
                f"image_name {image_name!r} cannot name frame {frame} ({exc}); use {{frame}} and {{index}}"
            ) from None
        node = etree.SubElement(
            root, "image", id=str(index), name=file_name, width=str(size[0]), height=str(size[1])
        )
        found = video.at(frame)
        for k, box in enumerate(found.boxes.tolist()):
            name = label if found.labels is None else names[int(found.labels[k])]
            etree.SubElement(node, "box", label=name, occluded="0", **_corners(*box), z_order="0")
    return _serialized(root)


# --------------------------------------------------------------------------- documents


def _root(
    name: str, count: int, mode: str, labels: Sequence[str], size: tuple[int, int] | None
) -> etree._Element:
    """``<annotations>`` with its version and meta."""
    root = etree.Element("annotations")
    etree.SubElement(root, "version").text = "1.1"
    task = etree.SubElement(etree.SubElement(root, "meta"), "task")
    try:
        etree.SubElement(task, "name").text = name
    except ValueError:
        raise InvalidOptionError(f"the name {name!r} holds characters XML cannot carry") from None
    etree.SubElement(task, "size").text = str(count)
    etree.SubElement(task, "mode").text = mode
    node = etree.SubElement(task, "labels")
    for label in dict.fromkeys(labels):
        if not label or label != label.strip():
            raise InvalidOptionError(
                f"label {label!r} cannot be written: labels are non-empty, without leading or trailing spaces"
            )
        entry = etree.SubElement(node, "label")
        etree.SubElement(entry, "name").text = label
        etree.SubElement(entry, "attributes")
    if size is not None:
        original = etree.SubElement(task, "original_size")
        etree.SubElement(original, "width").text = str(size[0])
        etree.SubElement(original, "height").text = str(size[1])
    return root


def _serialized(root: etree._Element) -> bytes:
    document: bytes = etree.tostring(
        root, encoding="utf-8", xml_declaration=True, pretty_print=True
    )
    return document


# --------------------------------------------------------------------------- files


def write_cvat_tracks(
    tracks: Iterable[Track], path: str | Path, force: bool = False, **options: Any
) -> None:
    """Write :func:`format_cvat_tracks` to ``path`` (its stem names the video unless
    ``name`` is given), atomically; an existing file only with ``force``."""
    options.setdefault("name", Path(path).stem)
    _write(path, format_cvat_tracks(tracks, **options), force)


def write_cvat_actions(
    annotations: AnnotationSet, path: str | Path, force: bool = False, **options: Any
) -> None:
    """Write :func:`format_cvat_actions` to ``path``, atomically; an existing file only
    with ``force``."""
    _write(path, format_cvat_actions(annotations, **options), force)


def write_cvat_images(
    videos: Sequence[VideoBoxes], path: str | Path, force: bool = False, **options: Any
) -> None:
    """Write :func:`format_cvat_images` to ``path``, atomically; an existing file only
    with ``force``."""
    _write(path, format_cvat_images(videos, **options), force)


def _write(path: str | Path, data: bytes, force: bool) -> None:
    with keeping_existing(not force):
        write_bytes(path, data)
