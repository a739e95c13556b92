"""CVAT 1.1 XML, as written by CVAT's "CVAT for video 1.1" and "CVAT for images 1.1"
exports (docs/measures.md §10): reading a document into what it says.

``<annotations><version>1.1</version><meta>…</meta>`` then, for video,
``<track id label><box frame xtl ytl xbr ybr outside occluded keyframe z_order>…``
(and ``<polygon points="x,y;…">``, ``<mask rle left top width height>``), or, for
images, ``<image id name width height><box label xtl ytl xbr ybr …/>…</image>``.

A file is read as safely as LIRIS files are (:mod:`~referee.core.formats.safe_xml`:
no DTD, no entity, no network, at most :data:`MAX_FILE_BYTES`, nesting at most
:data:`MAX_DEPTH`), checked to be version 1.1, validated against the shipped
schema ``referee/resources/cvat_1_1.xsd``, then checked for what a schema cannot
say: every label declared in ``<meta>``, frames within the task's ``<size>``,
one shape per track and frame and one kind of shape per track, ``xbr ≥ xtl`` and
``ybr ≥ ytl``, coordinates within :data:`~referee.core.limits.MAX_COORDINATE`,
upright boxes (``rotation`` 0), polygons of three points or more, and masks whose
run lengths add up to their ``width × height`` (at most
:data:`~referee.core.limits.MAX_IMAGE_PIXELS`) with a pixel set. Every error is
one line naming the file, the line and the element. Polylines, points, ellipses,
cuboids, skeletons and tags are not read; a warning counts them.

A box is kept as ``(x, y, w, h) = (xtl, ytl, xbr − xtl, ybr − ytl)``, the width
and height computed from the decimals as written and then rounded once, so that
writing ``xbr = x + w`` in decimals gives the file's value back. A polygon's or
a mask's box is its bounding box: the extreme points of a polygon, the pixels
set in a mask (``[x, x + w)`` covering them).
"""

from __future__ import annotations

import warnings
from collections import Counter
from dataclasses import dataclass
from decimal import Context, Decimal
from pathlib import Path

import numpy as np
from lxml import etree

from referee.core.errors import InputFileError, RefereeWarning
from referee.core.formats.safe_xml import (
    XML_SPACE,
    XmlDialect,
    compiled_schema,
    element_at,
    lxml_message,
    parse_tree,
    refuse_declarations,
    safe_parser,
)
from referee.core.formats.text_files import check_regular_file, read_file_bytes
from referee.core.limits import (
    MAX_BOXES_PER_FRAME,
    MAX_COORDINATE,
    MAX_IMAGE_PIXELS,
    MAX_XML_FILE_BYTES,
)

#: The two flavours of CVAT XML 1.1: tracks over a video's frames, or shapes per image.
VIDEO = "video"
IMAGES = "images"
#: Largest CVAT file Referee reads, in bytes (:data:`~referee.core.limits.MAX_XML_FILE_BYTES`).
MAX_FILE_BYTES: int = MAX_XML_FILE_BYTES
#: Deepest element nesting accepted (CVAT's shapes need 4; ``<meta>`` up to 7).
MAX_DEPTH: int = 16
SCHEMA_RESOURCE: tuple[str, str] = ("referee.resources", "cvat_1_1.xsd")
#: The shapes Referee reads, and those it leaves out (with a warning).
SHAPES: tuple[str, ...] = ("box", "polygon", "mask")
_UNREAD = ("polyline", "points", "ellipse", "cuboid", "skeleton", "tag")
_SNIFF_BYTES = 1 << 16
#: Decimal arithmetic exact for any two coordinates a file can write.
EXACT = Context(prec=1000)
_SHAPE_HINT = (
    "a CVAT 1.1 file is <annotations><version>1.1</version><meta>…</meta> then "
    '<track id="0" label="…"><box frame="0" xtl="…" ytl="…" xbr="…" ybr="…"/>…</track>… '
    '(CVAT for video) or <image id="0" name="…" width="…" height="…"><box label="…" '
    'xtl="…" …/>…</image>… (CVAT for images)'
)
_EXPORT_AGAIN = "export the task again from CVAT as CVAT for video 1.1 or CVAT for images 1.1"


def _error(path: str | Path, detail: str, line: int | None) -> InputFileError:
    return InputFileError(path, f"line {line}: {detail}" if line else detail)


_DIALECT = XmlDialect(
    document="a CVAT file",
    shape_hint=_SHAPE_HINT,
    max_depth=MAX_DEPTH,
    depth_needed="4 (annotations, track or image, shape, attribute) and 7 inside <meta>",
    error=_error,
)


@dataclass(frozen=True, eq=False)
class CvatShape:
    """One shape as the file writes it: a box, a polygon or a mask.

    Attributes
    ----------
    kind
        ``"box"``, ``"polygon"`` or ``"mask"``.
    frame
        The CVAT frame (from 0) of a track's shape; the image's id for an image's.
    label
        Its label (a track's shapes have the track's).
    box
        ``(x, y, w, h)`` in pixels: the box, or the polygon's or mask's bounding box.
    line
        The line of its element, for messages.
    outside, keyframe
        A track's flags: the object left the frame; the shape was set by someone
        (``False``: CVAT interpolated it). An image's shapes are keyframes, never outside.
    occluded, z_order, attributes
        As written (``attributes``: the ``<attribute name>`` children, in order).
    points
        A polygon's vertices, ``float64`` ``(n, 2)``.
    runs, rect
        A mask's run lengths (``int64``, background first, row by row) over ``rect`` =
        ``(left, top, width, height)``.
    """

    kind: str
    frame: int
    label: str
    box: tuple[float, float, float, float]
    line: int
    outside: bool = False
    keyframe: bool = True
    occluded: bool = False
    z_order: int = 0
    attributes: tuple[tuple[str, str], ...] = ()
    points: np.ndarray | None = None
    runs: np.ndarray | None = None
    rect: tuple[int, int, int, int] | None = None


@dataclass(frozen=True, eq=False)
class CvatTrack:
    """A ``<track>``: its id, label and shapes in frame order (one per frame, one kind)."""

    track_id: int
    label: str
    shapes: tuple[CvatShape, ...]
    line: int
    source: str | None = None


@dataclass(frozen=True, eq=False)
class CvatImage:
    """An ``<image>``: its id (the frame, from 0), name, ``(width, height)`` and shapes."""

    image_id: int
    name: str | None
    size: tuple[int, int] | None
    shapes: tuple[CvatShape, ...]
    line: int


@dataclass(frozen=True, eq=False)
class CvatDocument:
    """What a CVAT 1.1 file holds.

    Attributes
    ----------
    path
        The file, for messages.
    flavour
        :data:`VIDEO` or :data:`IMAGES`.
    name
        The task's ``<name>`` in ``<meta>``, or ``None``.
    frame_count
        The task's ``<size>`` (its number of frames or images), or ``None``.
    frame_size
        The task's ``<original_size>`` ``(width, height)``, or ``None``.
    labels
        The labels ``<meta>`` declares, in order.
    tracks, images
        The file's tracks (video) or images (images), in file order.
    """

    path: Path
    flavour: str
    name: str | None
    frame_count: int | None
    frame_size: tuple[int, int] | None
    labels: tuple[str, ...]
    tracks: tuple[CvatTrack, ...] = ()
    images: tuple[CvatImage, ...] = ()

    @property
    def video_name(self) -> str:
        """The name of the one video the file holds: the task's name, else the file's stem."""
        return self.name or self.path.stem


def read_cvat(path: str | Path, flavour: str) -> CvatDocument:
    """Read a CVAT 1.1 file of ``flavour`` (:data:`VIDEO` or :data:`IMAGES`).

    Raises
    ------
    InputFileError
        A missing, unreadable or too large file, or one that is not a valid CVAT 1.1
        file of that flavour; the message names the line and the element.
    """
    _check_size(check_regular_file(path).st_size, path)
    return parse_cvat(read_file_bytes(path, MAX_FILE_BYTES), path, flavour)


def parse_cvat(data: bytes, path: str | Path, flavour: str) -> CvatDocument:
    """Parse the bytes of a CVAT 1.1 document; ``path`` names it in errors (see :func:`read_cvat`)."""
    _check_size(len(data), path)
    refuse_declarations(data, path, _DIALECT)
    root = parse_tree(data, path, _DIALECT)
    _check_version(root, path)
    _validate(root, path)
    return _document(root, Path(path), flavour)


def _check_size(size: int, path: str | Path) -> None:
    if size > MAX_FILE_BYTES:
        raise InputFileError(
            path,
            f"the file has {size:,} bytes, more than the {MAX_FILE_BYTES:,} a CVAT file may "
            "have (MAX_XML_FILE_BYTES); export the task in parts (CVAT jobs)",
        )


def cvat_flavour(path: Path) -> str | None:
    """:data:`VIDEO` or :data:`IMAGES` for a CVAT 1.1 file, from its root and its first
    ``<track>`` or ``<image>`` (a file with neither is video); ``None`` for any other
    file or one that cannot be read. Reads no further than that element."""
    if not path.is_file() or path.suffix.lower() != ".xml":
        return None
    parser, depth, root = safe_parser(), 0, None
    try:
        with path.open("rb") as handle:
            for _ in range(0, MAX_FILE_BYTES, _SNIFF_BYTES):
                chunk = handle.read(_SNIFF_BYTES)
                if not chunk:
                    break
                parser.feed(chunk)
                for event, element in parser.read_events():
                    depth += 1 if event == "start" else -1
                    if root is None:
                        root = element.tag
                        if root != "annotations":
                            return None
                    elif event == "start" and depth == 2 and element.tag in ("track", "image"):
                        return VIDEO if element.tag == "track" else IMAGES
    except (OSError, etree.XMLSyntaxError):
        pass
    return VIDEO if root == "annotations" else None


# --------------------------------------------------------------------------- checks


def _check_version(root: etree._Element, path: str | Path) -> None:
    if root.tag != "annotations":
        raise _error(
            path, f"the root element is <{root.tag}>, expected <annotations>; {_SHAPE_HINT}", 1
        )
    first = next(iter(root), None)
    if first is None or first.tag != "version":
        raise _error(
            path,
            "<annotations> does not start with <version>1.1</version>; Referee reads CVAT XML "
            f"1.1: {_EXPORT_AGAIN}",
            root.sourceline,
        )
    version = (first.text or "").strip(XML_SPACE)
    if version != "1.1":
        raise _error(
            path,
            f"<version> is {version!r}; Referee reads CVAT XML 1.1: {_EXPORT_AGAIN}",
            first.sourceline,
        )


def _validate(root: etree._Element, path: str | Path) -> None:
    """Raise the first schema error, naming its line and element."""
    schema = compiled_schema(SCHEMA_RESOURCE)
    if schema.validate(root.getroottree()):
        return
    entry = schema.error_log[0]
    element = element_at(root, entry.path, entry.line)
    raise _error(
        path,
        f"{_where(element)}: {lxml_message(entry.message)}",
        element.sourceline or entry.line,
    )


def _where(element: etree._Element) -> str:
    """How a message names ``element``: ``<box frame="3"> of track 2``, ``<image id="5">``…"""
    parent = element.getparent()
    if element.tag in ("track", "image") and element.get("id") is not None:
        return f'<{element.tag} id="{element.get("id")}">'
    if parent is not None and parent.tag in ("track", "image"):
        frame = element.get("frame")
        at = f' frame="{frame}"' if frame is not None else ""
        return f"<{element.tag}{at}> of {parent.tag} {parent.get('id')}"
    return f"<{element.tag}>"


# --------------------------------------------------------------------------- building


def _document(root: etree._Element, path: Path, flavour: str) -> CvatDocument:
    name, frame_count, frame_size, labels = _meta(root.find("meta"), path)
    declared = set(labels)
    tracks: list[CvatTrack] = []
    images: list[CvatImage] = []
    seen: dict[int, int] = {}
    unread: Counter[str] = Counter()
    for element in root.iterchildren("track", "image"):
        if element.tag != ("track" if flavour == VIDEO else "image"):
            other = "CVAT for images" if element.tag == "image" else "CVAT for video"
            raise _error(
                path,
                f"{_where(element)}: a CVAT for {flavour} file holds no <{element.tag}>; "
                f"this one mixes in {other}: {_EXPORT_AGAIN}",
                element.sourceline,
            )
        number = int(element.get("id"))
        if number in seen:
            raise _error(
                path,
                f"{_where(element)}: this id is used twice (first on line {seen[number]}); "
                f"each {element.tag} has its own id",
                element.sourceline,
            )
        seen[number] = element.sourceline
        unread.update(child.tag for child in element if child.tag in _UNREAD)
        if element.tag == "track":
            tracks.append(_track(element, path, declared, frame_count))
        else:
            images.append(_image(element, path, declared, frame_count))
    if unread:
        counted = ", ".join(f"{n} <{tag}>" for tag, n in sorted(unread.items()))
        warnings.warn(
            f"{path}: {counted} not read; Referee reads boxes, polygons and masks",
            RefereeWarning,
            stacklevel=3,
        )
    return CvatDocument(
        path, flavour, name, frame_count, frame_size, labels, tuple(tracks), tuple(images)
    )


def _meta(
    meta: etree._Element | None, path: Path
) -> tuple[str | None, int | None, tuple[int, int] | None, tuple[str, ...]]:
    """The task's (or job's) name, size, original size, and the labels ``<meta>`` declares."""
    if meta is None:
        return None, None, None, ()
    labels = dict.fromkeys(
        (label.findtext("name") or "").strip(XML_SPACE)
        for label in meta.iter("label")
        if label.find("name") is not None
    )
    holder = next((meta.find(tag) for tag in ("task", "job") if meta.find(tag) is not None), None)
    if holder is None:
        return None, None, None, tuple(label for label in labels if label)
    name = (holder.findtext("name") or "").strip(XML_SPACE) or None
    size = _meta_number(holder.find("size"), path, 0)
    width = _meta_number(holder.find("original_size/width"), path, 1)
    height = _meta_number(holder.find("original_size/height"), path, 1)
    frame_size = (width, height) if width is not None and height is not None else None
    return name, size, frame_size, tuple(label for label in labels if label)


def _meta_number(element: etree._Element | None, path: Path, low: int) -> int | None:
    if element is None:
        return None
    text = (element.text or "").strip(XML_SPACE)
    if not text.isdigit() or not text.isascii() or len(text) > 10 or int(text) < low:
        raise _error(
            path,
            f"<meta> <{element.tag}> is {text!r}, not a whole number of at least {low}",
            element.sourceline,
        )
    return int(text)


def _track(
    element: etree._Element, path: Path, labels: set[str], frame_count: int | None
) -> CvatTrack:
    label = _label(element, path, labels)
    shapes: dict[int, CvatShape] = {}
    for child in element.iterchildren(*SHAPES):
        shape = _shape(child, path, label, int(child.get("frame")))
        if shape.frame in shapes:
            raise _error(
                path,
                f"{_where(child)}: the track already has a shape on this frame (line "
                f"{shapes[shape.frame].line}); a track has one shape per frame",
                child.sourceline,
            )
        if frame_count is not None and shape.frame >= frame_count:
            raise _error(
                path,
                f"{_where(child)}: frame {shape.frame} is out of range; the task has "
                f"{frame_count} frames (0–{frame_count - 1}, <meta> <size>)",
                child.sourceline,
            )
        first = next(iter(shapes.values()), shape)
        if shape.kind != first.kind:
            raise _error(
                path,
                f"{_where(child)}: a <{shape.kind}> in a track of <{first.kind}> (line "
                f"{first.line}); a track holds one kind of shape",
                child.sourceline,
            )
        shapes[shape.frame] = shape
    ordered = tuple(shapes[frame] for frame in sorted(shapes))
    return CvatTrack(
        int(element.get("id")), label, ordered, element.sourceline, element.get("source")
    )


def _image(
    element: etree._Element, path: Path, labels: set[str], frame_count: int | None
) -> CvatImage:
    number = int(element.get("id"))
    if frame_count is not None and number >= frame_count:
        raise _error(
            path,
            f"{_where(element)}: image {number} is out of range; the task has {frame_count} "
            f"images (ids 0–{frame_count - 1}, <meta> <size>)",
            element.sourceline,
        )
    shapes = [
        _shape(child, path, _label(child, path, labels), number)
        for child in element.iterchildren(*SHAPES)
    ]
    if len(shapes) > MAX_BOXES_PER_FRAME:
        raise _error(
            path,
            f"{_where(element)}: {len(shapes):,} shapes, more than the {MAX_BOXES_PER_FRAME:,} "
            "Referee reads on one frame (MAX_BOXES_PER_FRAME)",
            element.sourceline,
        )
    width, height = element.get("width"), element.get("height")
    size = (int(width), int(height)) if width is not None and height is not None else None
    return CvatImage(number, element.get("name"), size, tuple(shapes), element.sourceline)


def _label(element: etree._Element, path: Path, labels: set[str]) -> str:
    label = element.get("label")
    if label not in labels:
        declared = ", ".join(repr(name) for name in sorted(labels)) or "none"
        raise _error(
            path,
            f"{_where(element)}: label {label!r} is not declared in <meta> (declared: "
            f"{declared}); CVAT declares every label of a task there",
            element.sourceline,
        )
    return str(label)


def _shape(element: etree._Element, path: Path, label: str, frame: int) -> CvatShape:
    """The shape of a schema-valid ``<box>``, ``<polygon>`` or ``<mask>``."""
    kind = element.tag
    points = runs = rect = None
    if kind == "box":
        box = _box(element, path)
    elif kind == "polygon":
        points = _points(element, path)
        low, high = points.min(axis=0), points.max(axis=0)
        box = (float(low[0]), float(low[1]), float(high[0] - low[0]), float(high[1] - low[1]))
    else:
        runs, rect, box = _mask(element, path)
    return CvatShape(
        kind,
        frame,
        label,
        box,
        element.sourceline,
        outside=_flag(element.get("outside"), False),
        keyframe=_flag(element.get("keyframe"), True),
        occluded=_flag(element.get("occluded"), False),
        z_order=int(element.get("z_order", "0")),
        attributes=tuple(
            (str(a.get("name")), a.text or "") for a in element.iterchildren("attribute")
        ),
        points=points,
        runs=runs,
        rect=rect,
    )


def _flag(raw: str | None, default: bool) -> bool:
    return default if raw is None else raw.strip(XML_SPACE) in ("1", "true")


def _box(element: etree._Element, path: Path) -> tuple[float, float, float, float]:
    """``(x, y, w, h)``: the width and height from the written decimals, rounded once."""
    rotation = element.get("rotation")
    if rotation is not None and Decimal(rotation.strip(XML_SPACE)) != 0:
        raise _error(
            path,
            f"{_where(element)}: the box is rotated by {rotation.strip(XML_SPACE)}°; Referee's "
            "boxes are upright: turn the box straight in CVAT (rotation 0)",
            element.sourceline,
        )
    xtl, ytl, xbr, ybr = (_coordinate(element, name, path) for name in ("xtl", "ytl", "xbr", "ybr"))
    for low, high, (a, b) in ((xtl, xbr, ("xtl", "xbr")), (ytl, ybr, ("ytl", "ybr"))):
        if high < low:
            raise _error(
                path,
                f"{_where(element)}: {b}={high} is less than {a}={low}; a box's bottom-right "
                "corner lies right of and below its top-left corner",
                element.sourceline,
            )
    return float(xtl), float(ytl), float(EXACT.subtract(xbr, xtl)), float(EXACT.subtract(ybr, ytl))


def _coordinate(element: etree._Element, name: str, path: Path) -> Decimal:
    value = Decimal(element.get(name).strip(XML_SPACE))
    if value.copy_abs() > MAX_COORDINATE:
        raise _error(
            path,
            f"{_where(element)}: {name}={value} is beyond {MAX_COORDINATE:,} pixels in "
            "absolute value (MAX_COORDINATE)",
            element.sourceline,
        )
    return value


def _points(element: etree._Element, path: Path) -> np.ndarray:
    pairs = element.get("points").strip(XML_SPACE).split(";")
    points = np.array([pair.split(",") for pair in pairs], dtype=np.float64)
    if len(points) < 3:
        raise _error(
            path,
            f"{_where(element)}: a polygon needs at least 3 points, this one has {len(points)}",
            element.sourceline,
        )
    if np.abs(points).max() > MAX_COORDINATE:
        raise _error(
            path,
            f"{_where(element)}: a point lies beyond {MAX_COORDINATE:,} pixels in absolute "
            "value (MAX_COORDINATE)",
            element.sourceline,
        )
    return points


def _mask(
    element: etree._Element, path: Path
) -> tuple[np.ndarray, tuple[int, int, int, int], tuple[float, float, float, float]]:
    """A mask's run lengths, its ``(left, top, width, height)`` and the box of its pixels."""
    left, top, width, height = (int(element.get(n)) for n in ("left", "top", "width", "height"))
    where = _where(element)
    if width < 1 or height < 1 or width * height > MAX_IMAGE_PIXELS:
        raise _error(
            path,
            f"{where}: the mask is {width}×{height}; a mask has from 1 to "
            f"{MAX_IMAGE_PIXELS:,} pixels (MAX_IMAGE_PIXELS)",
            element.sourceline,
        )
    if max(left + width, top + height) > MAX_COORDINATE:
        raise _error(
            path,
            f"{where}: the mask reaches beyond {MAX_COORDINATE:,} pixels (MAX_COORDINATE)",
            element.sourceline,
        )
    cells = element.get("rle").split(",")
    if max(len(cell.strip(XML_SPACE)) for cell in cells) > 10:
        raise _error(path, f"{where}: a run is longer than the mask", element.sourceline)
    runs = np.array(cells, dtype=np.int64)
    if int(runs.sum()) != width * height:
        raise _error(
            path,
            f"{where}: the run lengths add up to {int(runs.sum()):,} pixels, not the "
            f"{width}×{height} = {width * height:,} of the mask",
            element.sourceline,
        )
    ends = np.cumsum(runs)
    set_runs = np.flatnonzero((np.arange(len(runs)) % 2 == 1) & (runs > 0))
    if not len(set_runs):
        raise _error(path, f"{where}: the mask has no pixel set", element.sourceline)
    first, last = ends[set_runs] - runs[set_runs], ends[set_runs] - 1  # flat indices
    rows_first, rows_last = first // width, last // width
    one_row = rows_first == rows_last
    x_low = int(np.min(np.where(one_row, first % width, 0)))
    x_high = int(np.max(np.where(one_row, last % width, width - 1)))
    y_low, y_high = int(np.min(rows_first)), int(np.max(rows_last))
    box = (
        float(left + x_low),
        float(top + y_low),
        float(x_high - x_low + 1),
        float(y_high - y_low + 1),
    )
    return runs, (left, top, width, height), box
