"""Reading and writing the text files of every format, with errors that name the file."""

from __future__ import annotations

import csv
import io
import os
import re
import stat
import tempfile
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path

from referee.core.errors import InputFileError
from referee.core.limits import MAX_COUNT, MAX_TEXT_FILE_BYTES

#: A whole number as written in a file: ASCII digits, an optional sign, nothing else.
WHOLE_NUMBER = re.compile(r"[+-]?[0-9]+")
#: A decimal number as written in a file (``12``, ``-3.5``, ``.5``, ``1e3``); no ``inf``,
#: ``nan``, ``_`` or non-ASCII digits.
DECIMAL_NUMBER = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")

#: First characters that make a spreadsheet read a CSV cell as a formula (CSV injection).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
#: Whether :func:`write_bytes` may replace an existing file (see :func:`keeping_existing`).
_REPLACE_EXISTING: ContextVar[bool] = ContextVar("replace_existing", default=True)
#: Serializes the umask round-trip of :func:`current_umask` where /proc is missing.
_UMASK_LOCK = threading.Lock()


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
    """The UTF-8 text of ``path`` (a byte-order mark is dropped, line endings become ``\\n``).

    Raises
    ------
    InputFileError
        If the file is missing, unreadable, not a regular file, larger than
        :data:`~referee.core.limits.MAX_TEXT_FILE_BYTES` or not UTF-8 text.
    """
    return decode_text(read_file_bytes(path), path)


def decode_text(data: bytes, path: str | Path, keep_endings: bool = False) -> str:
    """``data`` as UTF-8 text read from ``path``: a byte-order mark dropped, every line
    ending made ``\\n`` unless ``keep_endings`` (as the readers read a file).

    Raises
    ------
    InputFileError
        If ``data`` holds more than :data:`~referee.core.limits.MAX_TEXT_FILE_BYTES`
        bytes or is not UTF-8, naming ``path``.
    """
    if len(data) > MAX_TEXT_FILE_BYTES:
        raise InputFileError(
            path,
            f"is {len(data) / 2**20:,.0f} MiB; Referee reads text files of at most "
            f"{MAX_TEXT_FILE_BYTES // 2**20} MiB (MAX_TEXT_FILE_BYTES)",
        )
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputFileError(
            path, f"cannot read the file ({exc}); check that it exists and is a UTF-8 text file"
        ) from exc
    return text if keep_endings else text.replace("\r\n", "\n").replace("\r", "\n")


def read_file_bytes(path: str | Path, limit: int = MAX_TEXT_FILE_BYTES) -> bytes:
    """The bytes of the regular file ``path``, at most ``limit`` of them.

    Raises
    ------
    InputFileError
        If the file is missing, unreadable, not a regular file or larger than ``limit``.
    """
    size = check_regular_file(path).st_size
    if size > limit:
        raise InputFileError(
            path,
            f"is {size / 2**20:,.0f} MiB; Referee reads such files up to {limit / 2**20:,.0f} MiB",
        )
    try:
        with open(path, "rb") as handle:
            data = handle.read(limit + 1)
    except OSError as exc:
        raise InputFileError(
            path, f"cannot read the file ({exc.strerror}); check that it exists and is readable"
        ) from exc
    if len(data) > limit:
        raise InputFileError(path, f"grew beyond {limit / 2**20:,.0f} MiB while being read")
    return data


def write_bytes(path: str | Path, data: bytes, sync: bool = True) -> None:
    """Write ``data`` to ``path`` atomically: a crash leaves the old file or the new one.

    The data goes to a temporary file in the same folder, is flushed to disk
    (unless ``sync`` is false: a cache, which a power cut may only lose), then
    takes the name ``path``. A new file gets the mode ``0o666`` less the
    umask, as any program's; a replaced file keeps its mode. Inside
    :func:`keeping_existing` an existing ``path`` is never replaced, even one
    that appears while the data is written.

    Raises
    ------
    InputFileError
        If the folder does not exist or is not writable, ``path`` is a folder
        or not a regular file, or it exists inside :func:`keeping_existing`.
    """
    target = Path(path)
    replace = _REPLACE_EXISTING.get()
    existing = _existing_output(target, replace)
    mode = stat.S_IMODE(existing.st_mode) if existing is not None else 0o666 & ~current_umask()
    try:
        handle, temporary = tempfile.mkstemp(
            prefix=f".{target.name}.", suffix=".tmp", dir=target.parent
        )
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(data)
                if sync:
                    out.flush()
                    os.fsync(out.fileno())
            os.chmod(temporary, mode)
            if replace:
                os.replace(temporary, target)
            else:
                _link_new(temporary, target, mode)
        finally:
            Path(temporary).unlink(missing_ok=True)
    except FileExistsError:
        raise exists_error(target) from None
    except OSError as exc:
        raise InputFileError(
            target,
            f"cannot write the file ({exc.strerror}); check that the folder exists and is writable",
        ) from exc


def remove_stale_temporaries(folder: Path, names: str) -> int:
    """Remove the temporary files :func:`write_bytes` left in ``folder`` when it was stopped
    before renaming them (a kill, a power cut): ``.<name>.<random>.tmp`` for the file
    names matching the regular expression ``names``. Returns how many were removed;
    a folder that cannot be listed is left alone.
    """
    temporary = re.compile(rf"\.(?:{names})\.[A-Za-z0-9_]+\.tmp")
    removed = 0
    try:
        with os.scandir(folder) as entries:
            stale = [e.path for e in entries if temporary.fullmatch(e.name) and e.is_file()]
    except OSError:
        return 0
    for path in stale:
        try:
            os.unlink(path)
            removed += 1
        except OSError:
            pass
    return removed


def write_text(path: str | Path, text: str) -> None:
    """Write ``text`` as UTF-8 to ``path`` atomically (see :func:`write_bytes`)."""
    write_bytes(path, text.encode("utf-8"))


@contextmanager
def keeping_existing(keep: bool = True) -> Iterator[None]:
    """Within the block, :func:`write_bytes` refuses to replace an existing file if ``keep``.

    The command line writes its outputs inside ``keeping_existing(not force)``.
    """
    token = _REPLACE_EXISTING.set(not keep)
    try:
        yield
    finally:
        _REPLACE_EXISTING.reset(token)


def exists_error(path: str | Path) -> InputFileError:
    """The error for an output file that exists and may not be replaced."""
    return InputFileError(
        path, "already exists; choose another name or add --force to overwrite it"
    )


def current_umask() -> int:
    """The process's umask (the permissions a new file does not get).

    Read from ``/proc/self/status`` where the system has it; elsewhere set and
    restored at once, under a lock so that two threads never interleave.
    """
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    with _UMASK_LOCK:
        mask = os.umask(0o022)
        os.umask(mask)
    return mask


def _existing_output(target: Path, replace: bool) -> os.stat_result | None:
    """The status of the file ``target`` replaces, or ``None`` if it is new."""
    try:
        status = os.stat(target)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise InputFileError(
            target, f"cannot write the file ({exc.strerror}); check the path and its folder"
        ) from exc
    if stat.S_ISDIR(status.st_mode):
        raise InputFileError(target, "is a folder; give the name of a file to write")
    if not stat.S_ISREG(status.st_mode):
        raise InputFileError(
            target,
            "is not a regular file (a device, named pipe or socket); give the name of a file",
        )
    if not replace:
        raise exists_error(target)
    return status


def _link_new(temporary: str, target: Path, mode: int) -> None:
    """Give the finished ``temporary`` the name ``target`` if, and only if, it is free.

    Raises
    ------
    FileExistsError
        If ``target`` exists.
    """
    try:
        os.link(temporary, target)  # atomic, and fails if the name is taken
    except FileExistsError:
        raise
    except OSError:  # no hard links on this file system (FAT, some network shares)
        os.close(os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode))  # claim the name
        os.replace(temporary, target)


def parse_count(cell: str, name: str, path: str | Path, line: int) -> int:
    """A non-negative whole number read from ``cell`` of line ``line`` of ``path``.

    Raises
    ------
    InputFileError
        Naming the file, the line and the column ``name``; counts above
        :data:`~referee.core.limits.MAX_COUNT` are refused.
    """
    text = cell.strip()
    shown = text if len(text) <= 30 else text[:30] + "…"
    if not WHOLE_NUMBER.fullmatch(text):
        shown = repr(shown) if cell else "empty"
        raise InputFileError(
            path,
            f"line {line}: {name} is {shown}, not a whole number; counts are non-negative integers",
        )
    digits = text.lstrip("+-").lstrip("0") or "0"
    if text.startswith("-") and digits != "0":
        raise InputFileError(path, f"line {line}: {name} is {shown}; counts cannot be negative")
    if len(digits) > len(str(MAX_COUNT)) or int(digits) > MAX_COUNT:  # no int() of 5000 digits
        raise InputFileError(
            path,
            f"line {line}: {name} is {shown}, beyond 2**53 = {MAX_COUNT:,}, the largest count "
            "Referee reads (MAX_COUNT)",
        )
    return int(digits)


def header_columns(header: list[str], path: str | Path, line: int) -> dict[str, int]:
    """Lower-case column name → index of a CSV header row.

    Raises
    ------
    InputFileError
        If a non-empty name is given twice (which column would count is unclear).
    """
    columns: dict[str, int] = {}
    for index, cell in enumerate(header):
        name = cell.strip().lower()
        if name and name in columns:
            raise InputFileError(
                path, f"line {line}: the column {cell.strip()!r} appears twice; keep one"
            )
        columns[name] = index
    return columns


def numbered_csv_rows(text: str) -> Iterator[tuple[int, list[str]]]:
    """CSV rows of ``text``, each with the 1-based line number it starts on (for messages),
    one at a time (a large file's rows are not all held at once)."""
    reader = csv.reader(io.StringIO(text))
    start = 1
    for row in reader:
        yield start, row
        start = reader.line_num + 1


def format_csv(rows: Iterable[Iterable[object]]) -> str:
    """CSV text of ``rows`` (``\\n`` line ends), every cell made safe for spreadsheets.

    Every CSV Referee writes goes through here: a cell is ``str()`` of its
    value (``None`` is empty) passed through :func:`neutralize_formula`.
    """
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerows(
        [neutralize_formula("" if cell is None else str(cell)) for cell in row] for row in rows
    )
    return out.getvalue()


def neutralize_formula(text: str) -> str:
    """``text`` as a CSV cell that no spreadsheet runs as a formula.

    A cell starting with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return
    (after any apostrophes) gets one more leading apostrophe, which spreadsheets
    show as text; a number (``-0.5``, ``1e-05``) stays a number.
    :func:`restore_formula` undoes it.
    """
    if text.lstrip("'").startswith(FORMULA_STARTS) and not DECIMAL_NUMBER.fullmatch(text):
        return "'" + text
    return text


def restore_formula(cell: str) -> str:
    """The text :func:`neutralize_formula` turned into ``cell``."""
    if cell.startswith("'") and cell.lstrip("'").startswith(FORMULA_STARTS):
        return cell[1:]
    return cell
