"""Reading the JSON files annotators' tools make (COCO, labelme), strictly (docs/measures.md §10, §11).

:func:`read_json` reads a regular file of at most
:data:`~referee.core.limits.MAX_TEXT_FILE_BYTES` bytes of UTF-8 and refuses a
key given twice in one object, ``NaN`` and ``Infinity``, and whole numbers of
more than :data:`MAX_DIGITS` digits. :class:`Node` walks the document: each
value knows where it is (``annotations[3].bbox``), and a value of the wrong
type or range is an :class:`~referee.core.errors.InputFileError` naming the
file and that key.
"""

from __future__ import annotations

import json
import math
import os
import stat
from pathlib import Path
from typing import Any

import numpy as np

from referee.core.errors import InputFileError
from referee.core.formats.text_files import read_text
from referee.core.limits import MAX_JSON_DEPTH

#: Most digits of a whole number (ids, sizes, RLE counts need far fewer).
MAX_DIGITS = 30
#: How much of a file :func:`json_head` reads to tell its format.
HEAD_BYTES = 64 * 2**10


class _Refused(Exception):
    """Raised by the parser's hooks; becomes an :class:`InputFileError` naming the file."""


def read_json(path: str | Path) -> Any:
    """The JSON document of ``path``.

    Raises
    ------
    InputFileError
        If the file cannot be read, is too large or not UTF-8, is not JSON (the
        message gives the line and column), or holds a key twice in one object,
        ``NaN``, ``Infinity``, a whole number of more than :data:`MAX_DIGITS` digits
        or lists and objects nested deeper than ``MAX_JSON_DEPTH``.
    """
    text = read_text(path)
    try:
        document = json.loads(
            text,
            object_pairs_hook=_unique_keys,
            parse_int=_whole_number,
            parse_constant=_no_constant,
        )
    except json.JSONDecodeError as error:
        raise InputFileError(
            path, f"not valid JSON: line {error.lineno}, column {error.colno}: {error.msg}"
        ) from None
    except _Refused as refused:
        raise InputFileError(path, str(refused)) from None
    except RecursionError:
        document, deep = None, True
    else:
        deep = _depth(document) > MAX_JSON_DEPTH
    if deep:
        raise InputFileError(
            path,
            f"lists and objects are nested deeper than {MAX_JSON_DEPTH} levels (MAX_JSON_DEPTH)",
        )
    return document


def _depth(document: Any) -> int:
    """The nesting depth of lists and objects (1 for a flat one), without recursion."""
    deepest = 0
    stack = [(document, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict):
            value = list(value.values())
        if isinstance(value, list):
            deepest = max(deepest, depth)
            if depth <= MAX_JSON_DEPTH:
                stack.extend((child, depth + 1) for child in value)
    return deepest


def format_json(document: Any, indent: int | None = None) -> bytes:
    """``document`` as UTF-8 JSON text ending with a newline; ``NaN`` and infinities refused."""
    separators = (",", ": ") if indent else (",", ":")
    text = json.dumps(
        document, ensure_ascii=False, allow_nan=False, indent=indent, separators=separators
    )
    return (text + "\n").encode("utf-8")


def json_head(path: Path) -> bytes:
    """The first :data:`HEAD_BYTES` bytes of the regular file ``path``, without leading
    white space; empty when it is not a readable regular file (to tell a format cheaply)."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return b""
        with open(path, "rb") as handle:
            return handle.read(HEAD_BYTES).lstrip(b"\xef\xbb\xbf \t\r\n")
    except OSError:
        return b""


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    document: dict[str, Any] = {}
    for key, value in pairs:
        if key in document:
            raise _Refused(f"the key {key[:40]!r} is given twice in one object; keep one")
        document[key] = value
    return document


def _whole_number(text: str) -> int:
    if len(text.lstrip("-")) > MAX_DIGITS:
        raise _Refused(f"a number has {len(text.lstrip('-')):,} digits, more than {MAX_DIGITS}")
    return int(text)


def _no_constant(name: str) -> None:
    raise _Refused(f"{name} is not a number JSON allows; give a finite number")


_TYPE_NAMES: dict[type, str] = {
    bool: "true/false",
    int: "a number",
    float: "a number",
    str: "a string",
    list: "a list",
    dict: "an object",
    type(None): "null",
}


class Node:
    """A value of a JSON document read from ``file``, found at ``where`` (``images[2].id``)."""

    def __init__(self, value: Any, file: Path, where: str = "") -> None:
        self.value = value
        self.file = file
        self.where = where

    def fail(self, problem: str) -> InputFileError:
        """The error for ``problem`` with this value, naming the file and the key."""
        return InputFileError(self.file, f"{self.where}: {problem}" if self.where else problem)

    def _child(self, value: Any, key: str | int) -> Node:
        if isinstance(key, int):
            return Node(value, self.file, f"{self.where}[{key}]")
        return Node(value, self.file, f"{self.where}.{key}" if self.where else key)

    def _object(self) -> dict[str, Any]:
        if not isinstance(self.value, dict):
            raise self.fail(f"must be an object {{…}}, not {json_type(self.value)}")
        return self.value

    def has(self, key: str) -> bool:
        """Whether this object holds ``key`` with a value other than ``null``."""
        return self._object().get(key) is not None

    def key(self, key: str) -> Node:
        """The value of ``key`` of this object.

        Raises
        ------
        InputFileError
            If this is not an object or ``key`` is missing or ``null``.
        """
        found = self._object()
        if found.get(key) is None:
            problem = "is null" if key in found else "is missing"
            raise self._child(None, key).fail(f"{problem}; every entry needs it")
        return self._child(found[key], key)

    def optional(self, key: str) -> Node | None:
        """The value of ``key`` of this object, or ``None`` when absent or ``null``."""
        value = self._object().get(key)
        return None if value is None else self._child(value, key)

    def items(self) -> list[Node]:
        """The entries of this list.

        Raises
        ------
        InputFileError
            If this is not a list.
        """
        if not isinstance(self.value, list):
            raise self.fail(f"must be a list […], not {json_type(self.value)}")
        return [self._child(value, k) for k, value in enumerate(self.value)]

    def text(self) -> str:
        """This string."""
        if not isinstance(self.value, str):
            raise self.fail(f"must be a string, not {json_type(self.value)}")
        return self.value

    def whole(self, low: int, high: int) -> int:
        """This whole number, within ``low..high``."""
        value = self.value
        if not isinstance(value, int) or isinstance(value, bool):
            raise self.fail(f"must be a whole number, not {_shown(value)}")
        if not low <= value <= high:
            raise self.fail(f"is {value}; it must be within {low:,}..{high:,}")
        return value

    def number(self, limit: float) -> float:
        """This finite number, at most ``limit`` in absolute value."""
        value = self.value
        if not isinstance(value, int | float) or isinstance(value, bool):
            raise self.fail(f"must be a number, not {_shown(value)}")
        if not math.isfinite(value) or abs(value) > limit:
            raise self.fail(f"is {_shown(value)}, beyond {limit:,g} in size")
        return float(value)

    def numbers(self, limit: float, count: int | None = None) -> np.ndarray:
        """This list of finite numbers (``count`` of them if given) as ``float64``, each at
        most ``limit`` in absolute value."""
        values = self.value
        if not isinstance(values, list):
            raise self.fail(f"must be a list of numbers, not {json_type(values)}")
        if count is not None and len(values) != count:
            raise self.fail(f"holds {len(values)} values; it must hold {count}")
        for k, value in enumerate(values):
            if not isinstance(value, int | float) or isinstance(value, bool):
                raise self._child(value, k).fail(f"must be a number, not {_shown(value)}")
        array = np.array(values, dtype=np.float64)
        bad = ~np.isfinite(array) | (np.abs(array) > limit)
        if bad.any():
            k = int(np.argmax(bad))
            raise self._child(values[k], k).fail(
                f"is {_shown(values[k])}, beyond {limit:,g} in size"
            )
        return array


def json_type(value: Any) -> str:
    """How a JSON value's type is named in messages ("a list", "true/false", …)."""
    return _TYPE_NAMES.get(type(value), type(value).__name__)


def _shown(value: Any) -> str:
    """A value as quoted in messages: numbers and short strings whole, others by type."""
    if isinstance(value, bool) or value is None or isinstance(value, list | dict):
        return json_type(value)
    text = repr(value)
    return text if len(text) <= 30 else text[:30] + "…"
