"""Progress reporting and cancellation for long computations.

Every long function in ``referee.core`` accepts ``progress`` (called with
``(done, total)``) and ``cancel`` (a :class:`CancelToken`). Neither needs an
event loop, so such functions are tested directly and run unchanged in the
GUI's worker threads, in CLI worker processes and on Dask workers.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from referee.core.errors import CancelledError

ProgressCallback = Callable[[int, int], None]


class CancelToken:
    """A thread-safe flag that a long computation polls between steps."""

    def __init__(self) -> None:
        self._event = threading.Event()

    def cancel(self) -> None:
        """Ask the computation to stop at its next check."""
        self._event.set()

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()

    def raise_if_cancelled(self) -> None:
        """Raise :class:`CancelledError` if :meth:`cancel` was called."""
        if self._event.is_set():
            raise CancelledError("cancelled by the user")


def check(cancel: CancelToken | None) -> None:
    """Raise :class:`CancelledError` if ``cancel`` is set; do nothing for ``None``."""
    if cancel is not None:
        cancel.raise_if_cancelled()


def report(progress: ProgressCallback | None, done: int, total: int) -> None:
    """Call ``progress(done, total)`` if a callback was given."""
    if progress is not None:
        progress(done, total)


def part(progress: ProgressCallback | None, index: int, count: int) -> ProgressCallback:
    """The progress of the ``index``-th of ``count`` equal parts of a job, reported on the
    whole job's scale (part ``k`` of ``n``, ``done`` of ``total``: ``k·total + done`` of
    ``n·total``)."""

    def step(done: int, total: int) -> None:
        report(progress, index * total + done, count * total)

    return step


def shifted(progress: ProgressCallback | None, offset: int, total: int) -> ProgressCallback:
    """The progress of a piece of a job that starts after ``offset`` of its ``total`` units."""

    def step(done: int, _piece_total: int) -> None:
        report(progress, offset + done, total)

    return step


def scaled(
    progress: ProgressCallback | None, start: int, width: int, total: int
) -> ProgressCallback:
    """The progress of a step that takes ``width`` units of a job's ``total``, from ``start``:
    its own ``done`` of ``step_total`` becomes ``start + width·done/step_total``."""

    def step(done: int, step_total: int) -> None:
        fraction = min(done, step_total) / max(step_total, 1)
        report(progress, start + int(width * fraction), total)

    return step
