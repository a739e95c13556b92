"""The one process-pool map over chunks of frames.

Confusion counts, score histograms and pseudo sums all add up over frames, so
a long computation splits every video into contiguous frame ranges
(:func:`frame_chunks`, sized by :func:`chunk_size`), runs a module-level
function on each range in worker processes (:func:`map_chunks`) and adds the
pieces up. The result is identical to a run in one process.
"""

from __future__ import annotations

import concurrent.futures as cf
import math
import multiprocessing
import multiprocessing.context
import sys
from collections.abc import Callable, Sequence
from typing import TypeVar

from referee.core.errors import InvalidOptionError
from referee.core.progress import CancelToken, ProgressCallback, check, report

#: Chunks per worker: a worker that draws a slow chunk does not keep the others idle
#: for long at the end, and each chunk still amortizes its start-up.
CHUNKS_PER_WORKER = 4
#: The smallest chunk, in frames: below this, sending work and results costs more
#: than the frames themselves.
MIN_CHUNK_FRAMES = 16
#: How often a waiting map checks for cancellation, in seconds.
_POLL_SECONDS = 0.1

Chunk = TypeVar("Chunk")
Piece = TypeVar("Piece")


def check_workers(workers: int) -> int:
    """``workers`` if it is a whole number >= 1.

    Raises
    ------
    InvalidOptionError
        Otherwise.
    """
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise InvalidOptionError(f"workers must be a whole number >= 1, not {workers!r}")
    return workers


def chunk_size(total_frames: int, workers: int) -> int:
    """Frames per chunk for ``total_frames`` frames on ``workers`` processes.

    :data:`CHUNKS_PER_WORKER` chunks per worker over the whole job, never fewer
    than :data:`MIN_CHUNK_FRAMES` frames each.
    """
    return max(MIN_CHUNK_FRAMES, math.ceil(total_frames / (CHUNKS_PER_WORKER * workers)))


def frame_chunks(first: int, last: int, size: int) -> list[tuple[int, int]]:
    """Split ``first..last`` (inclusive) into contiguous ranges of at most ``size`` frames."""
    if size < 1:
        raise ValueError(f"chunk size must be positive, got {size}")
    return [(a, min(a + size - 1, last)) for a in range(first, last + 1, size)]


def _pool_context(preload: Sequence[str]) -> multiprocessing.context.BaseContext:
    """How worker processes start: never a plain fork of this process.

    Forking a process that runs threads (the GUI) is unsafe. ``forkserver``
    forks workers from a clean server process that has ``preload`` imported,
    so workers start in milliseconds; frozen apps and Windows use ``spawn``.
    """
    methods = multiprocessing.get_all_start_methods()
    if getattr(sys, "frozen", False) or "forkserver" not in methods:
        return multiprocessing.get_context("spawn")
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload([__name__, *preload])
    return context


def _init_worker() -> None:
    import cv2

    cv2.setNumThreads(1)  # one process per core already


def map_chunks(
    function: Callable[[Chunk], Piece],
    chunks: Sequence[Chunk],
    frames: Sequence[int],
    workers: int,
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> list[Piece]:
    """``function`` of every chunk, computed by ``workers`` processes, in the order of ``chunks``.

    Parameters
    ----------
    function
        A module-level function (workers import its module); the chunks and
        what it returns must pickle. A :class:`~referee.core.errors.RefereeError`
        it raises reaches the caller unchanged.
    chunks
        The work, one item per frame range.
    frames
        The number of frames of each chunk, for progress.
    workers
        Worker processes.
    progress, cancel
        Progress in frames as chunks finish; cancellation is checked while
        waiting and stops the chunks not yet started.

    Raises
    ------
    CancelledError
        If ``cancel`` is set.
    """
    check_workers(workers)
    total = sum(frames)
    pieces: dict[int, Piece] = {}
    executor = cf.ProcessPoolExecutor(
        max_workers=workers,
        mp_context=_pool_context([function.__module__]),
        initializer=_init_worker,
    )
    try:
        pending = {executor.submit(function, chunk): k for k, chunk in enumerate(chunks)}
        done = 0
        while pending:
            check(cancel)
            finished, _ = cf.wait(pending, timeout=_POLL_SECONDS, return_when=cf.FIRST_COMPLETED)
            for future in finished:
                k = pending.pop(future)
                pieces[k] = future.result()
                done += frames[k]
                report(progress, done, total)
    finally:
        executor.shutdown(wait=True, cancel_futures=True)
    return [pieces[k] for k in range(len(chunks))]
