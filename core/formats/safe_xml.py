"""Parsing untrusted XML safely, and the schemas Referee ships (docs/measures.md §10, §11).

Every XML format Referee reads (LIRIS, CVAT) goes through here: a document with
a DOCTYPE or entity declarations is refused before the parser sees it; the
parser resolves no entity, loads no DTD, touches no network and refuses any
external resource; elements nested deeper than the format allows are refused
while parsing, before the tree grows. Schemas are compiled from
``referee.resources`` once per thread (lxml's validators are not shared
between threads). What a message calls the format comes from its
:class:`XmlDialect`; every error names the file and, where known, the line.
"""

from __future__ import annotations

import importlib.resources
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import NoReturn

from lxml import etree

from referee.core.errors import InputFileError

#: White space as XML defines it (stripped from names and values).
XML_SPACE = " \t\r\n"
_FORBIDDEN_MARKUP: tuple[str, ...] = ("<!DOCTYPE", "<!ENTITY")
_ENCODINGS: tuple[str, ...] = ("utf-8", "utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be")
_CHUNK_BYTES = 1 << 20


@dataclass(frozen=True)
class XmlDialect:
    """How messages speak of one XML format.

    Attributes
    ----------
    document
        The format's documents, as a sentence names them ("a LIRIS file").
    shape_hint
        What a document looks like, added to messages about its shape.
    max_depth
        The deepest element nesting accepted.
    depth_needed
        The nesting the format needs, for the message ("4 (tagset, video, action, bbox)").
    error
        ``error(path, detail, line)``: the format's error for a problem at ``line``.
    """

    document: str
    shape_hint: str
    max_depth: int
    depth_needed: str
    error: Callable[[str | Path, str, int | None], InputFileError]


def refuse_declarations(data: bytes, path: str | Path, dialect: XmlDialect) -> None:
    """Refuse DOCTYPE and entity declarations (in any Unicode encoding) before any parser
    sees them."""
    for encoding in _ENCODINGS:
        for markup in _FORBIDDEN_MARKUP:
            at = data.find(markup.encode(encoding))
            if at >= 0:
                line = data[:at].count("\n".encode(encoding)) + 1
                raise dialect.error(
                    path,
                    f"the document contains {markup}; DTDs and entity declarations are "
                    f"refused for safety, and {dialect.document} needs none",
                    line,
                )


class _RefuseResolver(etree.Resolver):  # type: ignore[misc]  # lxml has no type stubs
    """Refuse every external resource (DTD, entity, XInclude) the parser might ask for."""

    def resolve(self, system_url: str, public_id: str | None, context: object) -> NoReturn:
        raise etree.XMLSyntaxError(f"external resource {system_url!r} refused", None, 0, 0)


def safe_parser() -> etree.XMLPullParser:
    """A pull parser reporting start and end events, with entities, DTDs, the network and
    external resources off, comments, processing instructions and blank text dropped."""
    parser = etree.XMLPullParser(
        events=("start", "end"),
        resolve_entities=False,
        no_network=True,
        load_dtd=False,
        dtd_validation=False,
        huge_tree=False,
        remove_comments=True,
        remove_pis=True,
        remove_blank_text=True,
        collect_ids=False,
        attribute_defaults=False,
    )
    parser.resolvers.add(_RefuseResolver())
    return parser


def parse_tree(data: bytes, path: str | Path, dialect: XmlDialect) -> etree._Element:
    """The root element of ``data``, refusing malformed XML, DTDs and deep nesting.

    Call :func:`refuse_declarations` first.
    """
    parser = safe_parser()
    depth = 0
    etree.clear_error_log()  # this thread's log, so a failure below reports only its own errors
    try:
        for start in range(0, max(len(data), 1), _CHUNK_BYTES):
            parser.feed(data[start : start + _CHUNK_BYTES])
            depth = _follow_depth(parser, depth, path, dialect)
        root = parser.close()
        _follow_depth(parser, depth, path, dialect)
    except etree.XMLSyntaxError as exc:
        if not data.strip():
            raise dialect.error(path, f"the file is empty; {dialect.shape_hint}", None) from None
        line, message = _syntax_problem(exc, dialect)
        raise dialect.error(path, message, line) from None
    if root is None:
        raise dialect.error(path, f"the document has no root element; {dialect.shape_hint}", None)
    docinfo = root.getroottree().docinfo
    if docinfo.doctype or docinfo.internalDTD is not None:
        raise dialect.error(
            path,
            "the document has a DOCTYPE; DTDs are refused for safety, and "
            f"{dialect.document} needs none",
            1,
        )
    return root


def _follow_depth(
    parser: etree.XMLPullParser, depth: int, path: str | Path, dialect: XmlDialect
) -> int:
    for event, element in parser.read_events():
        if event == "end":
            depth -= 1
            continue
        depth += 1
        if depth > dialect.max_depth:
            raise dialect.error(path, _too_deep(dialect), element.sourceline)
    return depth


def _syntax_problem(exc: etree.XMLSyntaxError, dialect: XmlDialect) -> tuple[int | None, str]:
    """Line and reason of a parse failure (the error log is more precise than the exception)."""
    errors = [e for e in exc.error_log if e.level >= etree.ErrorLevels.ERROR]
    line, message = (
        (errors[0].line, errors[0].message) if errors else (exc.lineno, str(exc.msg or exc))
    )
    message = re.sub(r",? line \d+, column \d+$", "", message.strip()) or "no reason given"
    if "depth" in message.lower():
        return line or None, _too_deep(dialect)
    return line or None, f"not well-formed XML: {message}"


def _too_deep(dialect: XmlDialect) -> str:
    return (
        f"elements are nested deeper than {dialect.max_depth} levels; "
        f"{dialect.document} needs {dialect.depth_needed}"
    )


# --------------------------------------------------------------------------- schemas


@lru_cache(maxsize=8)
def _schema_document(package: str, name: str) -> bytes:
    return importlib.resources.files(package).joinpath(name).read_bytes()


_local = threading.local()


def compiled_schema(resource: tuple[str, str]) -> etree.XMLSchema:
    """The shipped schema ``(package, file name)``, compiled once per thread."""
    schemas: dict[tuple[str, str], etree.XMLSchema] = _local.__dict__.setdefault("schemas", {})
    schema = schemas.get(resource)
    if schema is None:
        parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False)
        schema = etree.XMLSchema(etree.fromstring(_schema_document(*resource), parser))
        schemas[resource] = schema
    return schema


def element_at(root: etree._Element, xpath: str | None, line: int) -> etree._Element:
    """The element a schema error points at: by its path, else the first on its line."""
    try:
        found = root.getroottree().xpath(xpath) if xpath else []
    except etree.XPathError:
        found = []
    if found and isinstance(found[0], etree._Element):
        return found[0]
    for element in root.iter():
        if element.sourceline == line and isinstance(element.tag, str):
            return element
    return root


def lxml_message(message: str) -> str:
    """An lxml message without its trailing full stop."""
    return message.strip().rstrip(".")
