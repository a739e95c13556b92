"""The job runner: work off the GUI thread at a lower priority, progress, cancellation,
newest wins, errors."""

from __future__ import annotations

import os
import threading
import time

from PySide6.QtCore import QThreadPool, QTimer

from referee.core.errors import InputFileError
from referee.core.evaluation.batch import evaluate_method
from referee.core.formats.cdnet import discover_videos
from referee.core.progress import check
from referee.core.thread_priority import BACKGROUND_NICENESS
from referee.gui.worker import JobRunner


def _slow_count(n: int, progress, cancel) -> int:
    for i in range(n):
        check(cancel)
        time.sleep(0.01)
        progress(i + 1, n)
    return n


def test_full_demo_evaluation_runs_while_the_event_loop_keeps_ticking(qtbot, demo) -> None:
    videos = discover_videos(demo.dataset)
    threads: list[int] = []

    def evaluate_all(progress, cancel):
        threads.append(threading.get_ident())
        return {
            name: evaluate_method(videos, root, progress=progress, cancel=cancel)
            for name, root in demo.results.items()
        }

    ticks: list[float] = []
    timer = QTimer()
    timer.timeout.connect(lambda: ticks.append(time.monotonic()))
    timer.start(5)
    runner = JobRunner()
    progress: list[tuple[int, int]] = []
    job = runner.run("evaluate", "Evaluating", evaluate_all)
    job.progress.connect(lambda d, t: progress.append((d, t)))
    with qtbot.waitSignal(job.finished, timeout=60000) as blocker:
        pass
    timer.stop()
    assert threads and threads[0] != threading.get_ident()
    assert set(blocker.args[0]) == set(demo.results)
    # The timer fired all along: many ticks, none of them starved for the whole run.
    assert len(ticks) >= 10
    assert progress and progress[-1][0] == progress[-1][1]


def test_cancel_stops_the_job_and_drops_its_result(qtbot) -> None:
    runner = JobRunner()
    results: list[int] = []
    job = runner.run(
        "count",
        "Counting",
        lambda progress, cancel: _slow_count(500, progress, cancel),
        on_done=results.append,
    )
    qtbot.waitUntil(lambda: job.done > 0, timeout=5000)
    with qtbot.waitSignal(job.cancelled, timeout=5000):
        job.cancel()
    assert job.state == job.CANCELLED and results == []
    assert runner.jobs == ()


def test_a_newer_job_of_the_same_kind_cancels_the_older(qtbot) -> None:
    runner = JobRunner()
    done: list[int] = []
    first = runner.run(
        "count",
        "first",
        lambda progress, cancel: _slow_count(500, progress, cancel),
        on_done=done.append,
    )
    other = runner.run(
        "other",
        "other kind",
        lambda progress, cancel: _slow_count(50, progress, cancel),
        on_done=done.append,
    )
    runner.run(
        "count",
        "second",
        lambda progress, cancel: _slow_count(3, progress, cancel),
        on_done=done.append,
    )
    qtbot.waitUntil(lambda: len(done) == 2 and first.state == first.CANCELLED, timeout=10000)
    assert sorted(done) == [3, 50] and other.state == other.DONE


def test_errors_arrive_as_messages(qtbot, tmp_path) -> None:
    runner = JobRunner()
    messages: list[str] = []

    def bad_file(progress, cancel):
        raise InputFileError(tmp_path / "x.png", "is not an image")

    def bug(progress, cancel):
        return 1 / 0

    runner.run("a", "Reading", bad_file, on_error=messages.append)
    qtbot.waitUntil(lambda: len(messages) == 1, timeout=5000)
    runner.run("b", "Computing", bug, on_error=messages.append)
    qtbot.waitUntil(lambda: len(messages) == 2, timeout=5000)
    assert messages[0] == f"{tmp_path / 'x.png'}: is not an image"
    assert messages[1].startswith("Unexpected error in Computing: ZeroDivisionError")


def test_a_job_ends_only_once_its_outcome_was_handled(qtbot) -> None:
    """Whoever waits for "no job running" (a screenshot, a test) never finds the runner idle
    before a result or an error was handled, nor between a stage and the job it starts."""
    runner = JobRunner()
    handled: list[str] = []
    seen_at_end: dict[str, tuple[list[str], list[str]]] = {}

    def then_next(result: str) -> None:
        handled.append(result)
        runner.run("next", "Next stage", lambda progress, cancel: "next")

    def fail(progress, cancel):
        raise InputFileError("x.png", "is not an image")

    jobs = {
        "stage": runner.run("stage", "Stage", lambda progress, cancel: "stage", then_next),
        "bad": runner.run("bad", "Bad", fail, on_error=lambda message: handled.append("bad")),
    }
    for name, job in jobs.items():
        job.ended.connect(
            lambda name=name: seen_at_end.update(
                {name: (list(handled), [running.kind for running in runner.jobs])}
            )
        )
    qtbot.waitUntil(lambda: len(seen_at_end) == 2 and not runner.jobs, timeout=10000)
    stage_handled, running = seen_at_end["stage"]
    assert "stage" in stage_handled
    assert "next" in running  # started by the handler, before "stage" ended
    assert "bad" in seen_at_end["bad"][0]


def _niceness(thread_id: int) -> int:
    return os.getpriority(os.PRIO_PROCESS, thread_id)


def test_jobs_run_below_the_gui_thread(qtbot) -> None:
    # Linux: each thread has its own niceness; a job's is the process's plus BACKGROUND_NICENESS.
    gui = _niceness(threading.get_native_id())
    runner = JobRunner(QThreadPool())
    seen: list[tuple[int, int]] = []

    def report(progress, cancel) -> tuple[int, int]:
        thread = threading.get_native_id()
        return thread, _niceness(thread)

    for count, kind in enumerate(("first", "second"), start=1):  # the second may reuse
        runner.run(kind, kind, report, on_done=seen.append)  # the first's pool thread
        qtbot.waitUntil(lambda count=count: len(seen) == count)
    assert all(thread != threading.get_native_id() for thread, _ in seen)
    assert [niceness for _, niceness in seen] == [min(gui + BACKGROUND_NICENESS, 19)] * 2
    assert _niceness(threading.get_native_id()) == gui  # the GUI thread's is untouched


def test_an_urgent_job_runs_while_every_thread_of_the_others_is_taken(qtbot) -> None:
    pool = QThreadPool()
    pool.setMaxThreadCount(1)
    runner = JobRunner(pool)
    release = threading.Event()
    blocking = runner.run("stage", "A long stage", lambda progress, cancel: release.wait(30))
    queued = runner.run("other", "Queued behind it", lambda progress, cancel: "late")
    urgent = runner.run("reader", "Opening a video", lambda progress, cancel: "now", urgent=True)
    with qtbot.waitSignal(urgent.finished, timeout=10000) as blocker:
        pass
    assert blocker.args == ["now"]
    assert blocking.running and queued.running  # the only ordinary thread is still taken
    release.set()
    qtbot.waitUntil(lambda: not runner.jobs, timeout=10000)
    assert queued.state == queued.DONE
    assert runner.wait(10000)


def test_a_held_runner_lists_ordinary_jobs_but_runs_them_only_once_released(qtbot) -> None:
    runner = JobRunner()
    ran: list[str] = []

    def work(name: str):
        def fn(progress, cancel) -> str:
            ran.append(name)
            return name

        return fn

    runner.hold(60_000)
    first = runner.run("pixels", "Evaluating masks", work("first"))
    second = runner.run("curves", "Sweeping curves", work("second"))
    urgent = runner.run("reader", "Opening a video", work("urgent"), urgent=True)
    qtbot.waitUntil(lambda: not urgent.running, timeout=10000)
    qtbot.wait(200)  # time enough for a held job to run, were it started
    assert ran == ["urgent"]
    assert runner.held and runner.jobs == (first, second)
    runner.release()
    qtbot.waitUntil(lambda: not runner.jobs, timeout=10000)
    assert sorted(ran) == ["first", "second", "urgent"]
    assert first.state == second.state == first.DONE and not runner.held
    assert runner.wait(10000)


def test_a_hold_ends_by_itself_after_its_longest_wait(qtbot) -> None:
    runner = JobRunner()
    runner.hold(300)
    started = time.monotonic()
    job = runner.run("pixels", "Evaluating masks", lambda progress, cancel: time.monotonic())
    with qtbot.waitSignal(job.finished, timeout=10000) as blocker:
        pass
    assert blocker.args[0] - started >= 0.25  # not before the hold ends (Qt may end it 5 % early)
    assert not runner.held


def test_cancelling_every_job_of_a_held_runner_ends_the_held_ones_unrun(qtbot) -> None:
    runner = JobRunner()
    ran: list[int] = []
    runner.hold(60_000)
    job = runner.run("pixels", "Evaluating masks", lambda progress, cancel: ran.append(1))
    runner.cancel_all()
    qtbot.waitUntil(lambda: not runner.jobs, timeout=10000)
    assert job.state == job.CANCELLED and ran == [] and not runner.held
    assert runner.wait(10000)


def test_jobs_run_together_start_when_the_block_ends(qtbot) -> None:
    runner = JobRunner()
    ran: list[str] = []
    with runner.together():
        job = runner.run("pixels", "Evaluating masks", lambda progress, cancel: ran.append("a"))
        time.sleep(0.2)  # time enough for the job to run, were it started
        assert ran == [] and runner.held
    assert not runner.held
    qtbot.waitUntil(lambda: not job.running, timeout=10000)
    assert ran == ["a"]
    runner.hold(60_000)
    with runner.together():
        held = runner.run("curves", "Sweeping curves", lambda progress, cancel: ran.append("b"))
    assert runner.held and held.running  # a held runner stays held
    runner.release()
    qtbot.waitUntil(lambda: not held.running, timeout=10000)
    assert ran == ["a", "b"]
