"""What every ``referee`` command shares: output checks, progress bars, option parsers."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from referee.core.errors import InputFileError, RefereeError


def refuse_overwrite(paths: Sequence[Path | None], force: bool) -> None:
    """Raise if an output file exists and ``--force`` was not given."""
    for path in paths:
        if path is not None and path.exists() and path.is_file() and not force:
            raise InputFileError(
                path, "already exists; choose another name or add --force to overwrite it"
            )


def tqdm_progress(
    description: str, unit: str, enabled: bool = True
) -> tuple[Callable[[int, int], None], Callable[[], None]]:
    """A progress callback that drives a tqdm bar on stderr, and a function closing it."""
    from tqdm import tqdm

    bar = tqdm(
        desc=description,
        unit=unit,
        disable=not enabled or None,
        file=sys.stderr,
        dynamic_ncols=True,
        leave=False,
    )

    def progress(done: int, total: int) -> None:
        if bar.total != total:
            bar.total = total
        bar.n = done
        bar.refresh()

    return progress, bar.close


def parse_workers(value: str) -> int:
    """``--workers`` value: a positive integer."""
    try:
        workers = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {value!r}") from None
    if workers < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return workers


def method_name(path: Path, taken: dict) -> str:
    resolved = path.resolve()
    name = (resolved.stem if resolved.is_file() else resolved.name) or str(path)
    if name in taken:
        raise RefereeError(
            f"two methods are both named {name!r} (after their folders or "
            "files); rename one so results can be told apart"
        )
    return name
