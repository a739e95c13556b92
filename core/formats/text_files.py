"""Reading and writing the text files of every format, with errors that name the file."""

from __future__ import annotations

import csv
import io
import os
import stat
import tempfile
from pathlib import Path

from referee.core.errors import InputFileError
from referee.core.limits import MAX_TEXT_FILE_BYTES


def check_regular_file(path: str | Path) -> os.stat_result:
    """The status of ``path`` if it is a regular file (so reading it cannot block).

    A named pipe, a device or a socket would make a read wait forever.

    Raises
    ------
    InputFileError
        If ``path`` is missing, unreadable, a folder or not a regular file.
    """
    try:
        status = os.stat(path)
    except OSError as exc:
        raise InputFileError(path, f"cannot read the file ({exc.strerror})") from None
    if stat.S_ISDIR(status.st_mode):
        raise InputFileError(path, "is a folder, not a file")
    if not stat.S_ISREG(status.st_mode):
        raise InputFileError(
            path, "is not a regular file (a named pipe, device or socket); give a file"
        )
    return status


def read_text(path: str | Path) -> str:
    """The UTF-8 text of ``path`` (a byte-order mark is dropped).

    Raises
    ------
    InputFileError
        If the file is missing, unreadable, not a regular file, larger than
        :data:`~referee.core.limits.MAX_TEXT_FILE_BYTES` or not UTF-8 text.
    """
    size = check_regular_file(path).st_size
    if size > MAX_TEXT_FILE_BYTES:
        raise InputFileError(
            path,
            f"is {size / 2**20:,.0f} MiB; Referee reads text files of at most "
            f"{MAX_TEXT_FILE_BYTES // 2**20} MiB (MAX_TEXT_FILE_BYTES)",
        )
    try:
        return Path(path).read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputFileError(
            path, f"cannot read the file ({exc}); check that it exists and is a UTF-8 text file"
        ) from exc


def write_bytes(path: str | Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically: a crash leaves the old file or the new one.

    The data goes to a temporary file in the same folder, is flushed to disk,
    then replaces ``path``.

    Raises
    ------
    InputFileError
        If the folder does not exist or is not writable.
    """
    target = Path(path)
    try:
        handle, temporary = tempfile.mkstemp(
            prefix=f".{target.name}.", suffix=".tmp", dir=target.parent
        )
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(data)
                out.flush()
                os.fsync(out.fileno())
            os.replace(temporary, target)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
    except OSError as exc:
        raise InputFileError(
            target,
            f"cannot write the file ({exc.strerror}); check that the folder exists and is writable",
        ) from exc


def write_text(path: str | Path, text: str) -> None:
    """Write ``text`` as UTF-8 to ``path`` atomically (see :func:`write_bytes`)."""
    write_bytes(path, text.encode("utf-8"))


def parse_count(cell: str, name: str, path: str | Path, line: int) -> int:
    """A non-negative whole number read from ``cell`` of line ``line`` of ``path``.

    Raises
    ------
    InputFileError
        Naming the file, the line and the column ``name``.
    """
    try:
        value = int(cell)
    except ValueError:
        shown = repr(cell) if cell else "empty"
        raise InputFileError(
            path,
            f"line {line}: {name} is {shown}, not a whole number; counts are non-negative integers",
        ) from None
    if value < 0:
        raise InputFileError(path, f"line {line}: {name} is {value}; counts cannot be negative")
    return value


def numbered_csv_rows(text: str) -> list[tuple[int, list[str]]]:
    """CSV rows of ``text``, each with the 1-based line number it starts on (for messages)."""
    reader = csv.reader(io.StringIO(text))
    rows = []
    start = 1
    for row in reader:
        rows.append((start, row))
        start = reader.line_num + 1
    return rows
