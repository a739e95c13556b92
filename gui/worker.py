"""One way to run long core functions off the GUI thread, with progress and cancellation.

A core function takes ``progress`` and ``cancel`` keyword arguments (see
``referee.core.progress``). :class:`JobRunner` runs it on a ``QThreadPool``;
the :class:`Job` it returns emits ``progress``, ``finished``, ``failed`` and
``cancelled`` on the GUI thread. A newer job of the same kind cancels the
older one, whose result, if it still arrives, is dropped. Jobs run at a lower
priority than the GUI thread, so that a busy machine still answers the user.

A job's outcome reaches the GUI thread as one event: its handlers run, then the
job ends (``ended``, and it leaves :attr:`JobRunner.jobs`). Whoever waits for
"no job running" therefore never sees the runner idle before a result was
handled, nor between a stage and the job its handler starts.
"""

from __future__ import annotations

import contextlib
import sys
import time
import traceback
from collections.abc import Callable, Iterator
from typing import Any

from PySide6.QtCore import QObject, QThread, QThreadPool, QTimer, Signal, Slot

from referee.core import thread_priority
from referee.core.errors import CancelledError, RefereeError
from referee.core.progress import CancelToken

#: A core function as the runner calls it: ``fn(progress=..., cancel=...)``.
JobFunction = Callable[..., Any]

#: Progress signals are sent at most this often (seconds), plus the final one.
PROGRESS_INTERVAL = 0.05
#: Threads for ordinary jobs, at least: the stages that compute in the window's process take
#: turns (``session.py``) and one waiting for its turn holds a thread; with four, the others
#: (most wait on worker processes, and come early in the graph's order) seldom wait behind.
ORDINARY_THREADS = 4
#: Threads for urgent jobs (see :meth:`JobRunner.run`).
URGENT_THREADS = 2


def lower_thread_priority() -> None:
    """Run the calling thread (a job's) below the GUI thread, which then gets a core first:
    Linux niceness (Qt's thread priorities do nothing under Linux's default scheduler),
    elsewhere Qt's ``LowPriority``."""
    if not thread_priority.lower_thread_priority():
        QThread.currentThread().setPriority(QThread.Priority.LowPriority)


class Job(QObject):
    """One run of a core function; its signals arrive on the GUI thread.

    ``finished(result)``, ``failed(message)`` or ``cancelled()`` is emitted once, with
    the job no longer running; ``ended()`` follows, after their handlers have run.
    """

    progress = Signal(int, int)
    finished = Signal(object)
    failed = Signal(str)
    cancelled = Signal()
    ended = Signal()
    #: The outcome, sent from the job's thread: the final state and the result or message.
    #: One signal, one queued event: the outcome's handlers and the end are never apart.
    _outcome = Signal(str, object)

    RUNNING, DONE, FAILED, CANCELLED = "running", "done", "failed", "cancelled"

    def __init__(self, kind: str, title: str, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.kind = kind
        self.title = title
        self.token = CancelToken()
        self.state = self.RUNNING
        self.done, self.total = 0, 0
        self._outcome.connect(self._conclude)  # queued: the job lives on the GUI thread
        self.progress.connect(self._remember_progress)

    def cancel(self) -> None:
        """Ask the function to stop at its next check; ``cancelled`` follows."""
        self.token.cancel()

    @property
    def running(self) -> bool:
        return self.state == self.RUNNING

    def _remember_progress(self, done: int, total: int) -> None:
        self.done, self.total = done, total

    @Slot(str, object)
    def _conclude(self, state: str, value: object) -> None:
        self.state = state
        if state == self.DONE:
            self.finished.emit(value)
        elif state == self.FAILED:
            self.failed.emit(value)
        else:
            self.cancelled.emit()
        self.ended.emit()


class _JobCall:
    """Calls the function on a pool thread and routes the outcome to the job's signals.

    A plain callable, not a ``QRunnable``: the pool keeps it alive while it runs and
    Python's garbage collector never races Qt for it.
    """

    def __init__(self, job: Job, fn: JobFunction) -> None:
        self._job = job
        self._fn = fn
        self._last_progress = 0.0

    def _progress(self, done: int, total: int) -> None:
        now = time.monotonic()
        if done >= total or now - self._last_progress >= PROGRESS_INTERVAL:
            self._last_progress = now
            with contextlib.suppress(RuntimeError):  # the job went with its window
                self._job.progress.emit(int(done), int(total))

    def __call__(self) -> None:
        job = self._job
        lower_thread_priority()
        outcome: tuple[str, object]
        try:
            if job.token.cancelled:  # cancelled while it waited for a thread: not run
                raise CancelledError(job.title)
            result = self._fn(progress=self._progress, cancel=job.token)
        except CancelledError:
            outcome = (Job.CANCELLED, None)
        except RefereeError as error:
            outcome = (Job.CANCELLED, None) if job.token.cancelled else (Job.FAILED, str(error))
        except Exception as error:  # a bug: keep the GUI alive, say so, log the traceback
            traceback.print_exc(file=sys.stderr)
            message = f"Unexpected error in {job.title}: {type(error).__name__}: {error}"
            outcome = (Job.FAILED, message)
        else:
            outcome = (Job.CANCELLED, None) if job.token.cancelled else (Job.DONE, result)
        with contextlib.suppress(RuntimeError):  # the job went with its window: nobody waits
            job._outcome.emit(*outcome)


class JobRunner(QObject):
    """Starts jobs on a thread pool; the newest job of a kind cancels the older one.

    The runner can be held (:meth:`hold`): ordinary jobs started meanwhile are listed
    as running but wait for :meth:`release` to get a thread, so that what the user waits
    on to see (a new project's first frame) is drawn while no job competes with the GUI
    thread for the interpreter lock. Urgent jobs are never held.
    """

    job_started = Signal(object)

    def __init__(self, pool: QThreadPool | None = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        if pool is None:  # the application's pool: a job stuck in a call is left behind on quit
            pool = QThreadPool.globalInstance()
            pool.setMaxThreadCount(max(ORDINARY_THREADS, pool.maxThreadCount()))
        self._pool = pool
        #: The threads of urgent jobs, which the user waits on: never queued behind the others.
        self._urgent_pool = QThreadPool(self)
        self._urgent_pool.setMaxThreadCount(URGENT_THREADS)
        self._jobs: list[Job] = []
        self._held: list[_JobCall] | None = None
        self._hold_timer = QTimer(self)
        self._hold_timer.setSingleShot(True)
        self._hold_timer.timeout.connect(self.release)

    @property
    def jobs(self) -> tuple[Job, ...]:
        """Jobs still running, oldest first."""
        return tuple(job for job in self._jobs if job.running)

    def run(
        self,
        kind: str,
        title: str,
        fn: JobFunction,
        on_done: Callable[[Any], None] | None = None,
        on_error: Callable[[str], None] | None = None,
        urgent: bool = False,
    ) -> Job:
        """Run ``fn(progress=..., cancel=...)`` off the GUI thread.

        ``on_done(result)`` and ``on_error(message)`` are called on the GUI
        thread; a cancelled job calls neither. An ``urgent`` job (one the user waits on to
        see anything: opening a project, reading a video) runs on threads of its own, not
        after the computations already queued.
        """
        for job in self.jobs:
            if job.kind == kind:
                job.cancel()
        job = Job(kind, title, self)
        if on_done is not None:
            job.finished.connect(on_done)
        if on_error is not None:
            job.failed.connect(on_error)
        job.ended.connect(lambda: self._forget(job))
        self._jobs.append(job)
        self.job_started.emit(job)
        call = _JobCall(job, fn)
        if urgent:
            self._urgent_pool.start(call)
        elif self._held is not None:
            self._held.append(call)
        else:
            self._pool.start(call)
        return job

    @property
    def held(self) -> bool:
        """Whether ordinary jobs wait for :meth:`release`."""
        return self._held is not None

    def hold(self, at_most_ms: int) -> None:
        """Let ordinary jobs started from now on wait for :meth:`release`, which comes by
        itself after ``at_most_ms`` (a later hold starts that wait again)."""
        if self._held is None:
            self._held = []
        self._hold_timer.start(at_most_ms)

    def release(self) -> None:
        """Start the jobs that waited, in the order they were started; hold no more."""
        held, self._held = self._held or [], None
        self._hold_timer.stop()
        for call in held:
            self._pool.start(call)

    @contextlib.contextmanager
    def together(self) -> Iterator[None]:
        """Start the ordinary jobs run within the block at its end, together: the GUI thread
        starts them all before any of them competes with it for the interpreter lock (a
        held runner stays held)."""
        if self._held is not None:
            yield
            return
        self._held = []
        try:
            yield
        finally:
            self.release()

    def cancel_all(self) -> None:
        """Cancel every running job (held ones end at once, cancelled)."""
        for job in self.jobs:
            job.cancel()
        self.release()

    def wait(self, timeout_ms: int = 30000) -> bool:
        """Block until every job's thread is idle, for up to ``timeout_ms`` in all (for
        shutdown and tests)."""
        deadline = time.monotonic() + timeout_ms / 1000
        if not self._urgent_pool.waitForDone(timeout_ms):
            return False
        left = max(0, round((deadline - time.monotonic()) * 1000))
        return self._pool.waitForDone(left)

    def _forget(self, job: Job) -> None:
        if job in self._jobs:
            self._jobs.remove(job)


def progress_text(job: Job) -> str:
    """``"<title> 40 %"`` or ``"<title>…"`` when the total is not known yet."""
    if job.total > 0:
        return f"{job.title} {100 * job.done // job.total} %"
    return f"{job.title}…"
