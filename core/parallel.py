"""The one map over chunks of frames, on threads, processes or a Dask cluster.

Confusion counts, score histograms and pseudo sums all add up over frames, so
a long computation splits every video into contiguous frame ranges
(:func:`frame_chunks`, sized by :func:`chunk_size`), runs a module-level
function on each range (:func:`map_chunks`) and adds the pieces up. The result
is identical to a run in one process.

Work that mostly decodes images runs on threads (OpenCV's decoders release the
interpreter lock, and threads cost nothing to start); work that mostly runs
Python runs in worker processes. Inside :func:`referee.core.cluster.connected`
every map runs on that Dask cluster instead.
"""

from __future__ import annotations

import atexit
import concurrent.futures as cf
import math
import os
import select
import signal
import sys
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from referee.core import cluster
from referee.core.errors import CancelledError, InvalidOptionError
from referee.core.progress import CancelToken, ProgressCallback, check, report

if TYPE_CHECKING:
    import multiprocessing.context
    import multiprocessing.synchronize

#: Chunks per worker: a worker that draws a slow chunk does not keep the others idle
#: for long at the end, and each chunk still amortizes its start-up.
CHUNKS_PER_WORKER = 4
#: The smallest chunk, in frames: below this, sending work and results costs more
#: than the frames themselves.
MIN_CHUNK_FRAMES = 16
#: The largest chunk, in frames: progress and cancellation stay prompt, and a failed
#: chunk on a cluster costs little to compute again.
MAX_CHUNK_FRAMES = 1000
#: How often a waiting map checks for cancellation, in seconds.
_POLL_SECONDS = 0.1

Chunk = TypeVar("Chunk")
Piece = TypeVar("Piece")


def available_cores() -> int:
    """The cores this process may run on (its CPU affinity, else every core)."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


def check_workers(workers: int | None) -> int | None:
    """``workers`` if it is ``None`` (every available core) or a whole number >= 1.

    Raises
    ------
    InvalidOptionError
        Otherwise.
    """
    if workers is None:
        return None
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise InvalidOptionError(f"workers must be a whole number >= 1, not {workers!r}")
    return workers


def resolve_workers(workers: int | None) -> int:
    """How many workers a map uses: the cluster's threads inside
    :func:`referee.core.cluster.connected`, else ``workers``.

    ``None`` is every available core for a computation run from the main thread
    (a command), and one for a computation run on another thread: the desktop
    application runs several jobs side by side on threads of its own, so they
    share the cores without each starting workers that compete with the window.
    """
    check_workers(workers)
    spread = cluster.worker_threads()
    if spread is not None:
        return spread
    if workers is not None:
        return workers
    return available_cores() if threading.current_thread() is threading.main_thread() else 1


def chunk_size(total_frames: int, workers: int) -> int:
    """Frames per chunk for ``total_frames`` frames on ``workers`` processes.

    :data:`CHUNKS_PER_WORKER` chunks per worker over the whole job, never fewer
    than :data:`MIN_CHUNK_FRAMES` nor more than :data:`MAX_CHUNK_FRAMES` frames each.
    """
    even = math.ceil(total_frames / (CHUNKS_PER_WORKER * workers))
    return min(MAX_CHUNK_FRAMES, max(MIN_CHUNK_FRAMES, even))


def frame_chunks(first: int, last: int, size: int) -> list[tuple[int, int]]:
    """Split ``first..last`` (inclusive) into contiguous ranges of at most ``size`` frames."""
    if size < 1:
        raise ValueError(f"chunk size must be positive, got {size}")
    return [(a, min(a + size - 1, last)) for a in range(first, last + 1, size)]


def video_chunks(n_frames: int, sources: Iterable[object], size: int) -> list[tuple[int, int]]:
    """Positions ``first..last`` (inclusive) of one video's ``n_frames`` frames, in runs of at
    most ``size``; a single run when one of ``sources`` decodes sequentially (a video file,
    ``random_access`` false), which would otherwise decode from the start for every run."""
    sequential = any(not getattr(source, "random_access", True) for source in sources)
    return frame_chunks(0, n_frames - 1, n_frames if sequential else size)


def _pool_context(preload: Sequence[str]) -> multiprocessing.context.BaseContext:
    """How worker processes start: never a plain fork of this process.

    Forking a process that runs threads (the GUI) is unsafe. ``forkserver``
    forks workers from a clean server process that has ``preload`` imported,
    so workers start in milliseconds; frozen apps and Windows use ``spawn``.
    """
    import multiprocessing  # here: threads and clusters need none of it

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
    for process in list((executor._processes or {}).values()):  # None once shut down
        process.kill()
    executor.shutdown(wait=True, cancel_futures=True)


def map_chunks(
    function: Callable[[Chunk], Piece],
    chunks: Sequence[Chunk],
    frames: Sequence[int],
    workers: int | None,
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
    *,
    threads: bool = False,
    on_failure: Callable[[Chunk, BaseException], Piece] | None = None,
) -> list[Piece]:
    """``function`` of every chunk, computed by ``workers`` workers, in the order of ``chunks``.

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
        Workers (``None``: every available core); on a cluster, its own.
    progress, cancel
        Progress in frames as chunks finish; cancellation is checked while
        waiting. On cancellation, an error, Ctrl+C or SIGTERM the workers are
        stopped at once (they only read and compute) and the exception goes on.
    threads
        Run on threads of this process rather than in worker processes: for
        work that mostly decodes images, which releases the interpreter lock.
    on_failure
        On a cluster, the piece of a chunk that still fails after its retries
        (the run goes on without it); ``None`` raises the failure.

    Raises
    ------
    CancelledError
        If ``cancel`` is set.
    """
    client = cluster.current_client()
    if client is not None:
        return cluster.map_on_cluster(
            client, function, chunks, frames, progress, cancel, on_failure
        )
    workers = resolve_workers(workers)
    if threads:
        with cf.ThreadPoolExecutor(workers, thread_name_prefix="referee-chunk") as threads_pool:
            pending = {threads_pool.submit(function, chunk): k for k, chunk in enumerate(chunks)}
            try:
                pieces = _collect(pending, frames, progress, cancel)
            except BaseException:  # the chunks not started are dropped; running ones end soon
                threads_pool.shutdown(wait=False, cancel_futures=True)
                raise
        return [pieces[k] for k in range(len(chunks))]
    executor = cf.ProcessPoolExecutor(
        max_workers=workers,
        mp_context=_pool_context([function.__module__]),
        initializer=_init_worker,
        initargs=(os.getpid(),),
    )
    try:
        pending = {executor.submit(function, chunk): k for k, chunk in enumerate(chunks)}
        pieces = _collect(pending, frames, progress, cancel)
    except BaseException:  # an error, cancellation, Ctrl+C or SIGTERM: stop now
        _stop_workers(executor)
        raise
    executor.shutdown(wait=True)
    return [pieces[k] for k in range(len(chunks))]


def _collect(
    pending: dict[cf.Future[Piece], int],
    frames: Sequence[int],
    progress: ProgressCallback | None,
    cancel: CancelToken | None,
) -> Mapping[int, Piece]:
    """Each chunk's piece by position, as the futures finish, with progress in frames.

    When a chunk fails, the chunks not started are dropped, the running ones
    finish, and the error of the earliest failing chunk is raised: the same
    error (the first bad file in frame order) whatever the timing.
    """
    total = sum(frames)
    pieces: dict[int, Piece] = {}
    failed: dict[int, BaseException] = {}
    done = 0
    while pending and not failed:
        check(cancel)
        finished, _ = cf.wait(pending, timeout=_POLL_SECONDS, return_when=cf.FIRST_COMPLETED)
        for future in finished:
            k = pending.pop(future)
            error = future.exception()
            if error is not None:
                failed[k] = error
                continue
            pieces[k] = future.result()
            done += frames[k]
            report(progress, done, total)
    if failed:
        for future in pending:
            future.cancel()
        cf.wait(pending)
        for future, k in pending.items():
            if not future.cancelled() and (error := future.exception()) is not None:
                failed[k] = error
        raise failed[min(failed)]
    return pieces


# --- one long function in a process of its own -----------------------------------------------

#: In a process of :func:`run_in_process`: where its function's progress goes, a shared
#: ``[done, total]`` array of integers.
_process_progress: Any = None
#: ... and the event that asks it to stop.
_process_stop: multiprocessing.synchronize.Event | None = None


def run_in_process(
    function: Callable[..., Piece],
    *args: object,
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> Piece:
    """``function(*args, progress=..., cancel=...)``, run in a new process of its own.

    For long work that runs Python while this process has other work to do (the desktop
    application loading its libraries): a thread would share the interpreter lock with
    that work, and each would wait for the other thousands of times. The process is
    started afresh (``spawn``), so this process's threads and the fork server's preloaded
    modules are left alone. The function's progress is passed on as it changes (the
    latest ``done`` of ``total`` every few hundredths of a second); ``cancel`` is seen at
    the function's next check, and its :class:`~referee.core.errors.CancelledError`, as
    any error it raises, reaches the caller. Ctrl+C or SIGTERM kills the process.

    ``function``, ``args`` and what it returns must pickle.
    """
    import multiprocessing

    context = multiprocessing.get_context("spawn")
    shared = context.Array("q", 2, lock=False)
    stop = context.Event()
    executor = cf.ProcessPoolExecutor(
        1,
        mp_context=context,
        initializer=_init_process,
        initargs=(os.getpid(), shared, stop),
    )
    try:
        future = executor.submit(_run_function, function, args)
        passed_on: tuple[int, int] | None = None
        while True:
            if cancel is not None and cancel.cancelled:
                stop.set()
            try:
                result = future.result(timeout=_POLL_SECONDS / 2)
            except cf.TimeoutError:
                pass
            else:
                break
            finally:
                done, total = shared[0], shared[1]
                if total and (done, total) != passed_on:
                    passed_on = (done, total)
                    report(progress, done, total)
    except BaseException:
        _stop_workers(executor)
        raise
    executor.shutdown(wait=True)
    return result


def _init_process(owner: int, shared: Any, stop: multiprocessing.synchronize.Event) -> None:
    global _process_progress, _process_stop
    _init_worker(owner)
    _process_progress, _process_stop = shared, stop


def _run_function(function: Callable[..., Piece], args: Sequence[object]) -> Piece:
    """In the process of :func:`run_in_process`: ``function`` with progress and cancellation
    that reach the caller."""
    token = CancelToken()
    stop = _process_stop
    if stop is not None:

        def watch() -> None:
            stop.wait()
            token.cancel()

        threading.Thread(target=watch, name="referee-stop-watch", daemon=True).start()
    return function(*args, progress=_report_to_caller, cancel=token)


def _report_to_caller(done: int, total: int) -> None:
    shared = _process_progress
    if shared is not None:
        shared[0], shared[1] = done, total


# --- one function in a standing worker process --------------------------------------------

#: The worker processes of :func:`run_in_worker`, started at its first call and kept.
_standing: cf.ProcessPoolExecutor | None = None
_standing_lock = threading.Lock()


def run_in_worker(
    function: Callable[..., Piece], *args: object, cancel: CancelToken | None = None
) -> Piece:
    """``function(*args)``, run in one of this process's standing worker processes.

    For short computations that mostly run Python, asked for while this process has
    other work for the interpreter (the desktop application's window): on a thread, the
    two would take turns at the interpreter lock. The workers (one per available core)
    start at the first call, from the fork server, and are kept for the next calls, so a
    call costs the pickling of its arguments and result. ``cancel`` is checked while
    waiting: a cancelled call returns at once (its
    :class:`~referee.core.errors.CancelledError`), and if its function had started, its
    worker finishes it and drops the result, so keep these calls short. An error the
    function raises reaches the caller unchanged. A call whose workers were stopped
    meanwhile (a worker that died, :func:`stop_standing_workers`) starts over on new ones,
    at most :data:`_STANDING_ATTEMPTS` times; when none can start (the interpreter is
    exiting), it raises :class:`~referee.core.errors.CancelledError`.

    ``function`` must be module-level; ``args`` and what it returns must pickle.
    """
    from concurrent.futures.process import BrokenProcessPool

    for attempt in range(1, _STANDING_ATTEMPTS + 1):
        executor = _standing_pool(function.__module__)
        try:
            return _wait_in(executor, function, args, cancel)
        except (_ShutDown, BrokenProcessPool) as error:  # stopped meanwhile, or a worker died
            _discard_standing(executor)
            if attempt == _STANDING_ATTEMPTS:
                if isinstance(error, _ShutDown):  # no new workers: the interpreter is exiting
                    raise CancelledError("this process is ending") from None
                raise
            check(cancel)
    raise AssertionError("unreachable: the last attempt returns or raises")


#: How many times :func:`run_in_worker` starts over when its workers were stopped meanwhile.
_STANDING_ATTEMPTS = 3


class _ShutDown(Exception):
    """The standing workers were shut down before they took the call."""


def _wait_in(
    executor: cf.ProcessPoolExecutor,
    function: Callable[..., Piece],
    args: Sequence[object],
    cancel: CancelToken | None,
) -> Piece:
    """``function(*args)`` on ``executor``'s workers, checking ``cancel`` while it runs."""
    try:
        future = executor.submit(function, *args)
    except RuntimeError:  # shut down (the interpreter's exit, a worker that died)
        raise _ShutDown from None
    try:
        while True:
            check(cancel)
            try:
                return future.result(timeout=_POLL_SECONDS)
            except cf.TimeoutError:
                continue
    except BaseException:
        # Not started: it never will be. Running: it ends on its own and its result is
        # dropped; its worker is not killed, which could leave the pool's queue of calls
        # blocked on a large argument it was still sending.
        future.cancel()
        raise


def _standing_pool(module: str) -> cf.ProcessPoolExecutor:
    """The standing workers, started if need be (the fork server, when it starts with
    them, imports ``module`` once for all of them)."""
    global _standing
    with _standing_lock:
        if _standing is None:
            # Stopped before the interpreter tears its modules down, where the pool's own
            # clean-up would print an ignored exception.
            atexit.unregister(stop_standing_workers)  # registered once
            atexit.register(stop_standing_workers)
            _standing = cf.ProcessPoolExecutor(
                max_workers=available_cores(),
                mp_context=_pool_context([module]),
                initializer=_init_worker,
                initargs=(os.getpid(),),
            )
        return _standing


def _discard_standing(executor: cf.ProcessPoolExecutor) -> None:
    """Stop ``executor``'s workers, unless another call did; the next
    :func:`run_in_worker` starts new ones."""
    global _standing
    with _standing_lock:
        if _standing is not executor:
            return
        _standing = None
    _stop_workers(executor)


def stop_standing_workers() -> None:
    """Stop the workers of :func:`run_in_worker`, if any (when the application ends)."""
    executor = _standing
    if executor is not None:
        _discard_standing(executor)
