"""Writing LIRIS HARL XML annotation files (docs/measures.md §10).

:func:`format_liris` writes a new document; :func:`updated_liris` rewrites one
Referee read, editing its parsed tree in place so that what was not edited
keeps its elements, attributes, order, comments and white space. The tree is
written back by lxml, which spells an element as Referee and most tools do
(attributes in double quotes one space apart, ``<bbox …/>``, characters rather
than character references): an untouched element written another way keeps
its content but takes that spelling. What comes before and after the root
element (declaration, comments, white space) is kept byte for byte, and so are
``\\r\\n`` line endings.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

from lxml import etree

from referee.core.errors import InputFileError, InvalidOptionError
from referee.core.formats.liris_xml import parse_liris_bytes
from referee.core.formats.safe_xml import XML_SPACE
from referee.core.formats.text_files import write_bytes
from referee.core.model.annotations import Action, AnnotationSet, VideoAnnotation

#: What may surround the root element: white space, comments and processing instructions.
_AROUND_ROOT = re.compile(r"(?:\s|<!--.*?-->|<\?.*?\?>)*", re.DOTALL)
_ROOT_END = re.compile(r"</tagset\s*>")
_EMPTY_ROOT = re.compile(r"<tagset(?:[^>\"']|\"[^\"]*\"|'[^']*')*/>")
_BOX_VALUES = ("x", "y", "width", "height")

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
        root.append(_video_element(video))
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


def _video_element(video: VideoAnnotation) -> etree._Element:
    _check_name(video.name)
    node = etree.Element("video")
    etree.SubElement(node, "videoName").text = video.name
    for action in video.actions:
        node.append(_action_element(action))
    return node


def _action_element(action: Action) -> etree._Element:
    node = etree.Element("action", nr=str(action.number), **{"class": str(action.action_class)})
    for frame, box, filled in zip(
        action.frames.tolist(), action.boxes.tolist(), action.interpolated.tolist()
    ):
        node.append(_box_element(frame, box, filled))
    return node


def _box_element(frame: int, box: list[int], interpolated: bool) -> etree._Element:
    x, y, w, h = (str(v) for v in box)
    node = etree.Element("bbox", x=x, y=y, width=w, height=h, framenr=str(frame))
    if interpolated:
        node.set("interpolated", "1")
    return node


# --------------------------------------------------------------------------- rewriting


def updated_liris(
    original: bytes | None,
    annotations: AnnotationSet | Iterable[VideoAnnotation],
    path: str | Path = "<original>",
) -> bytes:
    """The LIRIS document ``original`` holding ``annotations`` instead (docs/measures.md §10).

    Videos are known by name, actions by ``nr`` within their video, boxes by
    frame. What did not change keeps its element; a changed action keeps its
    element and other attributes, its changed boxes get their new values
    (``interpolated`` set or removed) and keep their other attributes; new
    boxes go in frame order when the action's boxes are in frame order, else
    after them; new actions go after their video's last child, new videos
    after the last child of ``<tagset>``; what ``annotations`` lacks is
    removed. New elements take the document's indentation. Without
    ``original`` (a new file) this is :func:`format_liris`.

    Raises
    ------
    XmlFormatError
        ``original`` is not a LIRIS document Referee reads.
    InvalidOptionError
        A new video's name cannot be written (see :func:`format_liris`).
    """
    if not isinstance(annotations, AnnotationSet):
        annotations = AnnotationSet.from_videos(annotations)
    if original is None:
        return format_liris(annotations)
    before = parse_liris_bytes(original, path)  # checked: safe, valid, as Referee reads it
    root = etree.fromstring(original, _editing_parser())
    encoding = root.getroottree().docinfo.encoding or "UTF-8"
    text = original.decode(encoding)
    _edit_videos(root, before, annotations, _indent_unit(root))
    body: str = etree.tostring(root, encoding="unicode")
    start, end = _root_span(text)
    if "\r\n" in text[start:end]:  # the parser made every line ending \n
        body = body.replace("\n", "\r\n")
    return (text[:start] + body + text[end:]).encode(encoding, "xmlcharrefreplace")


def _editing_parser() -> etree.XMLParser:
    """A parser keeping white space and comments, as safe as the reader's (whose checks
    the document has passed: no DTD, no entity declaration)."""
    return etree.XMLParser(
        resolve_entities=False,
        no_network=True,
        load_dtd=False,
        dtd_validation=False,
        huge_tree=False,
        remove_blank_text=False,
        remove_comments=False,
        remove_pis=False,
        strip_cdata=False,
        collect_ids=False,
    )


def _root_span(text: str) -> tuple[int, int]:
    """Where the root element starts and ends in a document's text (the rest being
    declaration, comments, processing instructions and white space)."""
    prolog = _AROUND_ROOT.match(text, 1 if text.startswith("\ufeff") else 0)
    assert prolog is not None  # the pattern matches the empty text
    start = prolog.end()
    for close in reversed(list(_ROOT_END.finditer(text, start))):
        if _AROUND_ROOT.fullmatch(text, close.end()):  # not inside a trailing comment
            return start, close.end()
    empty = _EMPTY_ROOT.match(text, start)
    assert empty is not None  # a valid document's root is <tagset>…</tagset> or <tagset/>
    return start, empty.end()


def _indent_unit(root: etree._Element) -> str | None:
    """The indentation of one level: what follows the last line break before the first
    child of ``<tagset>`` (two spaces when it has none), or ``None`` for a document
    written without line breaks."""
    lead = root.text or ""
    if "\n" not in lead:
        return None
    return lead.rsplit("\n", 1)[1] if len(root) else "  "


def _edit_videos(
    root: etree._Element, before: AnnotationSet, after: AnnotationSet, unit: str | None
) -> None:
    """Change the videos under ``root`` (holding ``before``) to hold ``after``."""
    nodes = {_video_name(node): node for node in root.iterchildren("video")}
    for name, node in nodes.items():
        if name not in after.videos:
            _remove(node)
    for video in after:
        node = nodes.get(video.name)
        if node is None:
            _append(root, _video_element(video), unit, 1)
            continue
        old = {action.number: action for action in before.videos[video.name].actions}
        kept = {action.number for action in video.actions}
        actions = {int(a.get("nr")): a for a in node.iterchildren("action")}
        for number, action_node in actions.items():
            if number not in kept:
                _remove(action_node)
        for action in video.actions:
            if action.number not in actions:
                _append(node, _action_element(action), unit, 2)
            elif not action.same_as(old[action.number]):
                _edit_action(actions[action.number], old[action.number], action, unit)


def _edit_action(node: etree._Element, old: Action, new: Action, unit: str | None) -> None:
    """Change ``node`` (holding ``old``) to hold ``new``, keeping what did not change."""
    if new.action_class != old.action_class:
        node.set("class", str(new.action_class))
    boxes = {int(b.get("framenr")): b for b in node.iterchildren("bbox")}
    for frame in [f for f in boxes if not new.first <= f <= new.last]:
        _remove(boxes.pop(frame))
    present = list(boxes)
    in_order = present == sorted(present)
    for frame, values, filled in zip(
        new.frames.tolist(), new.boxes.tolist(), new.interpolated.tolist()
    ):
        box = boxes.get(frame)
        if box is None:
            boxes[frame] = _box_element(frame, values, filled)
            if in_order and frame - 1 in boxes:
                _insert_after(boxes[frame - 1], boxes[frame])
            elif in_order and present and frame < present[0]:
                _insert_before(boxes[present[0]], boxes[frame])
            else:
                _append(node, boxes[frame], unit, 3)
            continue
        was = old.boxes[frame - old.first].tolist()
        for name, value, old_value in zip(_BOX_VALUES, values, was):
            if value != old_value:
                box.set(name, str(value))
        if filled != bool(old.interpolated[frame - old.first]):
            if filled:
                box.set("interpolated", "1")
            else:
                del box.attrib["interpolated"]


def _video_name(node: etree._Element) -> str:
    return (node.find("videoName").text or "").strip(XML_SPACE)


def _append(parent: etree._Element, child: etree._Element, unit: str | None, level: int) -> None:
    """Add ``child`` after the last child of ``parent``, spaced as the children before it;
    with ``unit``, ``child`` (at depth ``level``) and its inside are indented by it."""
    if unit is not None and len(child):
        etree.indent(child, space=unit, level=level)
    if len(parent):
        _insert_after(parent[-1], child)
    else:
        child.tail = parent.text
        parent.text = None if unit is None else "\n" + unit * level
        parent.append(child)


def _insert_after(previous: etree._Element, child: etree._Element) -> None:
    """Add ``child`` just after ``previous``, spaced as ``previous`` is from the node before."""
    parent, before = previous.getparent(), previous.getprevious()
    child.tail = previous.tail
    previous.tail = before.tail if before is not None else parent.text
    parent.insert(parent.index(previous) + 1, child)


def _insert_before(following: etree._Element, child: etree._Element) -> None:
    """Add ``child`` just before ``following``, preceded by the same white space."""
    parent, before = following.getparent(), following.getprevious()
    child.tail = before.tail if before is not None else parent.text
    parent.insert(parent.index(following), child)


def _remove(child: etree._Element) -> None:
    """Remove ``child`` and the white space after it; for the last child, the white space
    before it instead, so that the closing tag stays where it was."""
    parent, before = child.getparent(), child.getprevious()
    if child.getnext() is None:
        if before is None:
            parent.text = child.tail
        else:
            before.tail = child.tail
    parent.remove(child)


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
