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
import os
import select
import signal
import sys
import threading
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


def _init_worker(owner: int) -> None:
    """Prepare a worker: one OpenCV thread, no Ctrl+C of its own, an end with ``owner``."""
    # Ctrl+C reaches the whole process group: the owner stops the workers itself, and a
    # worker interrupted on its own would print a traceback.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _end_with(owner)
    import cv2

    cv2.setNumThreads(1)  # one process per core already


def _end_with(owner: int) -> None:
    """Linux: end this worker as soon as process ``owner`` (the one running the pool) ends.

    Otherwise a worker whose owner was killed (SIGKILL, a crash) would wait for
    work forever, and the forkserver, which lives as long as one of the
    processes it started, with it. A thread waits on a pidfd of ``owner`` (Linux
    5.3 or later); elsewhere nothing is done.
    """
    if sys.platform != "linux":
        return
    try:
        handle = os.pidfd_open(owner)
    except ProcessLookupError:  # the owner ended before this worker started
        os._exit(1)
    except OSError:  # no pidfd in this kernel
        return
    threading.Thread(
        target=_exit_when_ended, args=(handle,), name="referee-owner-watch", daemon=True
    ).start()


def _exit_when_ended(pidfd: int) -> None:
    select.select([pidfd], [], [])  # readable once the process has ended
    os._exit(1)


def _stop_workers(executor: cf.ProcessPoolExecutor) -> None:
    """Stop the pool at once: drop the chunks not started and kill the workers.

    Workers only read files and compute, so killing one loses nothing.
    """
    for process in list(executor._processes.values()):
        process.kill()
    executor.shutdown(wait=True, cancel_futures=True)


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
        waiting. On cancellation, an error, Ctrl+C or SIGTERM the workers are
        killed at once (they only read and compute) and the exception goes on.

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
        initargs=(os.getpid(),),
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
    except BaseException:  # an error, cancellation, Ctrl+C or SIGTERM: stop now
        _stop_workers(executor)
        raise
    executor.shutdown(wait=True)
    return [pieces[k] for k in range(len(chunks))]
