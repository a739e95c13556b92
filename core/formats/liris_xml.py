"""LIRIS HARL action annotations in XML, ground truth and detections alike (docs/measures.md §4, §10).

``<tagset><video><videoName>NAME</videoName><action nr="1" class="3">
<bbox x="40" y="30" width="50" height="101" framenr="34"/>…</action>…</video>…</tagset>``

Reading is defensive: a document with a DOCTYPE or entity declarations is
refused before the XML parser sees it, entities, DTDs and network access are
disabled in the parser, and a resolver refuses to open any external resource;
files larger than :data:`MAX_FILE_BYTES` and elements nested deeper than
:data:`MAX_DEPTH` are refused. A document is then validated against the
shipped schema ``referee/resources/liris_harl.xsd`` (strict on elements,
unknown attributes allowed and ignored), then checked for what a schema
cannot say: frames of an action consecutive and unique, action numbers unique
in a video, video names unique in a file or folder, and the limits of
:mod:`referee.core.limits` (frame numbers up to ``MAX_FRAME_NUMBER``, box
coordinates and sizes up to ``MAX_COORDINATE``, at most ``MAX_BOXES_PER_FRAME``
boxes on one frame of a video). Every error is an :class:`XmlFormatError`
naming the file, line, video and action.

Boxes may come in any frame order; they are sorted. The LIRIS format has no
keyframe flag: Referee writes ``interpolated="1"`` on interpolated boxes
(:mod:`~referee.core.formats.liris_xml_writer`) and reads it back; a box
without it is a keyframe."""

from __future__ import annotations

import re
from itertools import pairwise
from pathlib import Path

import numpy as np
from lxml import etree

from referee.core.errors import InputFileError
from referee.core.formats.safe_xml import (
    XML_SPACE,
    XmlDialect,
    compiled_schema,
    element_at,
    lxml_message,
    parse_tree,
    refuse_declarations,
)
from referee.core.formats.text_files import check_regular_file
from referee.core.limits import (
    MAX_BOXES_PER_FRAME,
    MAX_COORDINATE,
    MAX_FRAME_NUMBER,
    MAX_TEXT_FILE_BYTES,
    MAX_XML_FILE_BYTES,
)
from referee.core.model.annotations import ACTION_CLASSES, Action, AnnotationSet, VideoAnnotation

#: Largest LIRIS file Referee reads, in bytes (:data:`~referee.core.limits.MAX_XML_FILE_BYTES`).
MAX_FILE_BYTES: int = MAX_XML_FILE_BYTES
#: Largest total of the ``.xml`` files of a folder, in bytes.
MAX_FOLDER_BYTES: int = MAX_TEXT_FILE_BYTES
#: Deepest element nesting accepted; a LIRIS file needs 4 (tagset/video/action/bbox).
MAX_DEPTH: int = 16
#: Largest coordinate, size, frame number or action number (the schema's bound).
MAX_VALUE: int = 2**31 - 1

SCHEMA_RESOURCE: tuple[str, str] = ("referee.resources", "liris_harl.xsd")
_BOX_ATTRIBUTES: tuple[str, ...] = ("x", "y", "width", "height", "framenr")
_SHAPE_HINT = (
    "a LIRIS file is <tagset><video><videoName>NAME</videoName>"
    '<action nr="1" class="3"><bbox x="…" y="…" width="…" height="…" '
    'framenr="…"/>…</action>…</video>…</tagset>'
)
_LIMITS = (
    (MAX_COORDINATE, "box coordinate or size in pixels Referee reads (MAX_COORDINATE)"),
    (MAX_FRAME_NUMBER, "frame number Referee reads (MAX_FRAME_NUMBER)"),
)
_CLASS_LIST = ", ".join(f"{n} {code}" for n, (code, _) in ACTION_CLASSES.items())


class XmlFormatError(InputFileError):
    """A LIRIS XML file that cannot be read, located by file, line, video and action.

    ``str(error)`` is ``"gt.xml: line 12: video 'vid0003', action 2: <detail>"``;
    the location parts that do not apply are left out. ``problem`` is the text
    after the file name, ``detail`` the bare problem.
    """

    def __init__(
        self,
        path: str | Path,
        detail: str,
        line: int | None = None,
        video: str | None = None,
        action: int | str | None = None,
    ) -> None:
        self.detail = detail
        self.line = line
        self.video = video
        self.action = action
        where = ([f"line {line}"] if line is not None else []) + [
            ", ".join(
                ([f"video {video!r}"] if video is not None else [])
                + ([f"action {action}"] if action is not None else [])
            )
        ]
        super().__init__(path, ": ".join([part for part in where if part] + [detail]))

    def __reduce__(
        self,
    ) -> tuple[type[XmlFormatError], tuple[Path, str, int | None, str | None, int | str | None]]:
        return (type(self), (self.path, self.detail, self.line, self.video, self.action))


_DIALECT = XmlDialect(
    document="a LIRIS file",
    shape_hint=_SHAPE_HINT,
    max_depth=MAX_DEPTH,
    depth_needed="4 (tagset, video, action, bbox)",
    error=XmlFormatError,
)


# --------------------------------------------------------------------------- reading


def read_liris(path: str | Path) -> AnnotationSet:
    """Read LIRIS annotations from one XML file or a folder of ``*.xml`` files (docs/measures.md §10).

    A folder's files (not its subfolders) are read in name order; each may
    hold one or more videos. Videos keep their file order and are paired with
    other sets later by ``videoName``.

    Raises
    ------
    XmlFormatError
        A malformed, unsafe or invalid document, or a video name given twice
        (in one file or across the folder's files).
    InputFileError
        A missing or unreadable path, a named pipe or device, a file over
        :data:`MAX_FILE_BYTES`, a folder whose ``.xml`` files add up to more
        than :data:`MAX_FOLDER_BYTES`, or a folder without any ``.xml`` file.
    """
    source = Path(path)
    if source.is_dir():
        return _read_folder(source)
    return AnnotationSet.from_videos(v for v, _ in _read_file(source))


def parse_liris_bytes(data: bytes, path: str | Path = "<bytes>") -> AnnotationSet:
    """Parse the bytes of one LIRIS XML document; ``path`` only names it in errors.

    Raises
    ------
    XmlFormatError
        See :func:`read_liris`.
    """
    return AnnotationSet.from_videos(v for v, _ in _parse_videos(data, path))


def _read_folder(folder: Path) -> AnnotationSet:
    files = sorted(p for p in folder.iterdir() if p.is_file() and p.suffix.lower() == ".xml")
    if not files:
        raise InputFileError(
            folder, "no .xml file in this folder; give a LIRIS XML file or a folder of them"
        )
    total = sum(check_regular_file(file).st_size for file in files)
    if total > MAX_FOLDER_BYTES:
        raise InputFileError(
            folder,
            f"its .xml files add up to {total:,} bytes; Referee reads at most "
            f"{MAX_FOLDER_BYTES:,} of LIRIS XML from one folder (MAX_TEXT_FILE_BYTES)",
        )
    seen: dict[str, tuple[Path, int]] = {}
    videos: list[VideoAnnotation] = []
    for file in files:
        for video, line in _read_file(file):
            if video.name in seen:
                first, first_line = seen[video.name]
                raise XmlFormatError(
                    file,
                    f"this video is also in {first.name} (line "
                    f"{first_line}); each video may appear in one file "
                    "only",
                    line,
                    video.name,
                )
            seen[video.name] = (file, line)
            videos.append(video)
    return AnnotationSet.from_videos(videos)


def _read_file(path: Path) -> list[tuple[VideoAnnotation, int]]:
    _check_size(check_regular_file(path).st_size, path)
    try:
        with path.open("rb") as handle:  # a file that grew since: one byte too many is enough
            data = handle.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise InputFileError(
            path,
            f"cannot read the file ({exc.strerror or exc}); check that it exists and is readable",
        ) from exc
    return _parse_videos(data, path)


def _parse_videos(data: bytes, path: str | Path) -> list[tuple[VideoAnnotation, int]]:
    """Videos of one document with the line of each ``<videoName>``."""
    _check_size(len(data), path)
    refuse_declarations(data, path, _DIALECT)
    root = parse_tree(data, path, _DIALECT)
    _validate(root, path)
    return _videos(root, path)


def _check_size(size: int, path: str | Path) -> None:
    if size > MAX_FILE_BYTES:
        raise InputFileError(
            path,
            f"the file has {size:,} bytes, more than the {MAX_FILE_BYTES:,} a LIRIS file may "
            "have (MAX_XML_FILE_BYTES); split it into several files in one folder",
        )


# --------------------------------------------------------------------------- schema


def liris_schema() -> etree.XMLSchema:
    """The shipped LIRIS XML schema, compiled once per thread (validators are not shared)."""
    return compiled_schema(SCHEMA_RESOURCE)


def _validate(root: etree._Element, path: str | Path) -> None:
    """Raise the first schema error, worded for people when the cause is recognized."""
    schema = liris_schema()
    if schema.validate(root.getroottree()):
        return
    entry = schema.error_log[0]
    element = element_at(root, entry.path, entry.line)
    located = _explain(element)
    if located is None:
        located = (element, f"{lxml_message(entry.message)}; {_SHAPE_HINT}")
    where, detail = located
    raise XmlFormatError(path, detail, where.sourceline or entry.line or None, *_context(where))


def _context(element: etree._Element) -> tuple[str | None, int | str | None]:
    """The ``(video name, action nr)`` an element belongs to, as far as they are known."""
    video = action = None
    for node in [element, *element.iterancestors()]:
        parent = node.getparent()
        if (
            node.tag == "video"
            and parent is not None
            and parent.getparent() is None
            and parent.tag == "tagset"
        ):
            video = node
    for node in [element, *element.iterancestors()]:
        if node.tag == "action" and node.getparent() is video:
            raw = node.get("nr")
            action = _as_int(raw) if _as_int(raw) is not None else raw
    return (_video_name(video) if video is not None else None), action


def _video_name(video: etree._Element) -> str | None:
    first = next(iter(video), None)
    if first is None or first.tag != "videoName":
        return None
    return (first.text or "").strip(XML_SPACE) or None


# --------------------------------------------------------------------------- explanations


def _explain(element: etree._Element) -> tuple[etree._Element, str] | None:
    """A readable reason why ``element`` (or its video) breaks the schema, if recognized."""
    root = element.getroottree().getroot()
    if root.tag != "tagset":
        return root, (
            f"the root element is <{root.tag}>, expected <tagset> (without a "
            f"namespace); {_SHAPE_HINT}"
        )
    videos = [element] if element.tag == "video" else list(element.iterancestors(tag="video"))
    if videos and videos[-1].getparent() is root:
        problem = _explain_video(videos[-1])
        if problem is not None:
            return problem
    if element.tag == "action":
        return _explain_action(element)
    if element.tag == "bbox":
        return _explain_box(element)
    return None


def _explain_video(video: etree._Element) -> tuple[etree._Element, str] | None:
    children = [c for c in video if isinstance(c.tag, str)]
    names = [c for c in children if c.tag == "videoName"]
    number = video.getparent().index(video) + 1
    if not names:
        return video, (
            f"<video> number {number} has no <videoName>; each <video> starts with "
            "<videoName>NAME</videoName>"
        )
    if children[0] is not names[0]:
        return names[0], "<videoName> must come first in its <video>, before the actions"
    if len(names) > 1:
        return names[1], "a <video> has more than one <videoName>; keep one"
    if not (names[0].text or "").strip(XML_SPACE):
        return names[0], f"<video> number {number} has an empty <videoName>; give the video's name"
    return None


def _explain_action(action: etree._Element) -> tuple[etree._Element, str] | None:
    for name, low, top, rule in (
        ("nr", 1, MAX_VALUE, f"action numbers are whole numbers from 1 to {MAX_VALUE}"),
        ("class", 1, max(ACTION_CLASSES), f"LIRIS classes are {_CLASS_LIST}"),
    ):
        raw = action.get(name)
        if raw is None:
            return action, (
                f'the <action> has no {name} attribute; write <action nr="1" class="3">'
            )
        problem = _integer_problem(raw, name, low, top, rule)
        if problem:
            return action, problem
    if not any(c.tag == "bbox" for c in action):
        return action, "the action has no <bbox>; an action needs one box per frame"
    return None


def _explain_box(box: etree._Element) -> tuple[etree._Element, str] | None:
    rule = f"box coordinates, sizes and frame numbers are whole numbers from 0 to {MAX_VALUE}"
    for name in _BOX_ATTRIBUTES:
        raw = box.get(name)
        if raw is None:
            return box, (
                f"the <bbox> has no {name} attribute; a box needs {', '.join(_BOX_ATTRIBUTES)}"
            )
        problem = _integer_problem(raw, name, 0, MAX_VALUE, rule)
        if problem:
            return box, problem
    flag = box.get("interpolated")
    if flag is not None and _flag(flag) is None:
        return box, (
            f'interpolated is {flag!r}; write interpolated="1" on an interpolated '
            'box, "0" or nothing on a keyframe'
        )
    return None


def _integer_problem(raw: str, name: str, low: int, top: int, rule: str) -> str | None:
    """Why attribute ``name`` = ``raw`` is not a whole number in ``[low, top]``, or None."""
    value = _as_int(raw)
    if value is None:
        return f"{name} is {raw!r}, not a whole number; {rule}"
    if value < 0 <= low:
        return f"{name} is {value}, a negative number; {rule}"
    if not low <= value <= top:
        return f"{name} is {value}, out of range; {rule}"
    return None


def _as_int(raw: str | None) -> int | None:
    """The integer an XML Schema integer attribute holds, or None (no underscores, ASCII digits)."""
    if raw is None or not re.fullmatch(r"[ \t\r\n]*[+-]?[0-9]+[ \t\r\n]*", raw):
        return None
    return int(raw)


def _box_row(
    box: etree._Element, video: str, number: int, path: str | Path
) -> tuple[int, int, tuple[int, ...], bool]:
    """``(frame, line, (x, y, width, height), interpolated)`` of a schema-valid ``<bbox>``,
    refusing values beyond the limits of :mod:`referee.core.limits`."""
    x, y, width, height, frame = values = [int(box.get(name)) for name in _BOX_ATTRIBUTES]
    for name, value in zip(_BOX_ATTRIBUTES, values):
        top, what = _LIMITS[name == "framenr"]
        if value > top:
            raise XmlFormatError(
                path,
                f"{name} is {value:,}, beyond {top:,}, the largest {what}",
                box.sourceline,
                video,
                number,
            )
    interpolated = bool(_flag(box.get("interpolated", "0")))
    return frame, box.sourceline or 0, (x, y, width, height), interpolated


def _flag(raw: str) -> bool | None:
    return {"1": True, "true": True, "0": False, "false": False}.get(raw.strip(XML_SPACE))


# --------------------------------------------------------------------------- semantics


def _videos(root: etree._Element, path: str | Path) -> list[tuple[VideoAnnotation, int]]:
    """Build the videos of a schema-valid document, refusing what the schema cannot see."""
    videos: list[tuple[VideoAnnotation, int]] = []
    first_line: dict[str, int] = {}
    for element in root.iterchildren("video"):
        name_element = element.find("videoName")
        name = (name_element.text or "").strip(XML_SPACE)
        line = name_element.sourceline
        if name in first_line:
            raise XmlFormatError(
                path,
                f"this video name is used twice (first on line "
                f"{first_line[name]}); each video appears once",
                line,
                name,
            )
        first_line[name] = line
        videos.append((VideoAnnotation(name, _actions(element, name, path)), line))
    return videos


def _actions(video: etree._Element, name: str, path: str | Path) -> tuple[Action, ...]:
    actions: list[Action] = []
    first_line: dict[int, int] = {}
    for element in video.iterchildren("action"):
        number = int(element.get("nr"))
        if number in first_line:
            raise XmlFormatError(
                path,
                f"action number {number} is used twice in this video "
                f"(first on line {first_line[number]}); give each action "
                "its own nr",
                element.sourceline,
                name,
                number,
            )
        first_line[number] = element.sourceline
        actions.append(_action(element, name, number, path))
    _check_boxes_per_frame(actions, first_line, name, path)
    return tuple(actions)


def _check_boxes_per_frame(
    actions: list[Action], lines: dict[int, int], video: str, path: str | Path
) -> None:
    """Refuse a frame covered by more than ``MAX_BOXES_PER_FRAME`` actions (one box each)."""
    if len(actions) <= MAX_BOXES_PER_FRAME:  # one box per action and frame: none can have more
        return
    frames, counts = np.unique(np.concatenate([a.frames for a in actions]), return_counts=True)
    if np.max(counts) <= MAX_BOXES_PER_FRAME:
        return
    frame = int(frames[np.argmax(counts)])
    over = [a for a in actions if a.first <= frame <= a.last][MAX_BOXES_PER_FRAME]
    raise XmlFormatError(
        path,
        f"frame {frame} has {np.max(counts):,} boxes (one per action on it), more than the "
        f"{MAX_BOXES_PER_FRAME:,} Referee reads on one frame of a video (MAX_BOXES_PER_FRAME)",
        lines[over.number],
        video,
        over.number,
    )


def _action(element: etree._Element, video: str, number: int, path: str | Path) -> Action:
    rows = sorted(_box_row(b, video, number, path) for b in element.iterchildren("bbox"))
    for (frame, line, *_), (next_frame, next_line, *_) in pairwise(rows):
        if next_frame == frame:
            raise XmlFormatError(
                path,
                f"frame {frame} has two boxes (the first on line {line}); "
                "an action has one box per frame",
                next_line,
                video,
                number,
            )
        if next_frame > frame + 1:
            missing = (
                f"frame {frame + 1} is missing"
                if next_frame == frame + 2
                else f"frames {frame + 1}–{next_frame - 1} are missing"
            )
            raise XmlFormatError(
                path,
                f"{missing} between {frame} and {next_frame} (frames of "
                "an action must be consecutive)",
                next_line,
                video,
                number,
            )
    return Action(
        number,
        int(element.get("class")),
        np.array([r[0] for r in rows], dtype=np.int64),
        np.array([r[2] for r in rows], dtype=np.int64).reshape(-1, 4),
        np.array([r[3] for r in rows], dtype=bool),
    )
