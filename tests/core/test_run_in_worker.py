"""Short functions in standing worker processes: the result, errors and cancellation reach
the caller, the workers are kept from call to call, and a stage marked ``apart`` gives
in a worker what it gives on the caller's thread."""

from __future__ import annotations

import concurrent.futures as cf
import os
import signal
import threading
import time
from pathlib import Path

import pytest

from referee.core import parallel
from referee.core.demo.dataset import DemoLayout
from referee.core.demo.project import demo_project
from referee.core.errors import CancelledError, InputFileError
from referee.core.parallel import run_in_worker, stop_standing_workers
from referee.core.progress import CancelToken
from referee.core.workflow.graph import BY_KEY, STAGES, run_stage
from referee.core.workflow.options import AnalysisOptions
from referee.core.workflow.results import ProjectResults


def _square_and_pid(x: int) -> tuple[int, int]:
    return x * x, os.getpid()


def _refuse(name: str) -> None:
    raise InputFileError(name, "is not there")


def _sleep_and_pid(seconds: float) -> int:
    time.sleep(seconds)
    return os.getpid()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A killed worker may linger as a zombie until its pool reaps it.
    status = Path(f"/proc/{pid}/status")
    return not (status.exists() and "\nState:\tZ" in status.read_text())


def _worker_pids() -> list[int]:
    executor = parallel._standing
    assert executor is not None
    return [p.pid for p in (executor._processes or {}).values() if p.pid is not None]


@pytest.fixture(autouse=True)
def _fresh_workers() -> object:
    stop_standing_workers()
    yield
    stop_standing_workers()


def test_results_come_from_other_processes_that_are_kept() -> None:
    found = [run_in_worker(_square_and_pid, x) for x in range(8)]
    assert [square for square, _ in found] == [x * x for x in range(8)]
    pids = {pid for _, pid in found}
    assert os.getpid() not in pids
    # One pool of at most one worker per core served all eight calls.
    assert len(pids) <= parallel.available_cores()


def test_an_error_reaches_the_caller_unchanged_and_the_workers_stay() -> None:
    _, before = run_in_worker(_square_and_pid, 2)
    with pytest.raises(InputFileError, match="nowhere: is not there"):
        run_in_worker(_refuse, "nowhere")
    pids = {run_in_worker(_square_and_pid, x)[1] for x in range(4)}
    assert before in pids or len(pids) <= parallel.available_cores()
    assert all(_alive(pid) for pid in pids)


def test_cancelling_a_running_call_returns_at_once_and_the_workers_stay() -> None:
    token = CancelToken()
    timer = threading.Timer(0.3, token.cancel)
    timer.start()
    with pytest.raises(CancelledError):
        run_in_worker(_sleep_and_pid, 2.0, cancel=token)  # returns long before 2 s
    timer.join()
    # The other worker answers meanwhile; the busy one finishes the cancelled call.
    square, pid = run_in_worker(_square_and_pid, 3)
    assert square == 9 and _alive(pid)


def test_workers_shut_down_meanwhile_are_replaced() -> None:
    _, before = run_in_worker(_square_and_pid, 2)
    assert parallel._standing is not None
    parallel._standing.shutdown(wait=True)  # as the interpreter's exit shuts pools down
    square, after = run_in_worker(_square_and_pid, 5)
    assert square == 25 and after != before


def test_a_call_whose_worker_died_starts_over_on_new_workers() -> None:
    _, victim = run_in_worker(_square_and_pid, 1)
    found: list[object] = []
    other = threading.Thread(target=lambda: found.append(run_in_worker(_sleep_and_pid, 1.0)))
    other.start()
    time.sleep(0.3)
    for pid in _worker_pids():  # a crash of every worker while the call runs
        os.kill(pid, signal.SIGKILL)
    other.join()
    (pid,) = found  # computed again on new workers
    assert isinstance(pid, int) and pid != victim and _alive(pid)


def test_a_call_while_the_process_ends_is_cancelled(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*_args: object, **_kwargs: object) -> None:
        raise RuntimeError("cannot schedule new futures after interpreter shutdown")

    monkeypatch.setattr(cf.ProcessPoolExecutor, "submit", refuse)
    with pytest.raises(CancelledError, match="this process is ending"):
        run_in_worker(_square_and_pid, 2)


def test_the_stages_marked_apart_read_no_cache() -> None:
    # A worker process has no per-frame cache of the caller: only stages that do not read
    # one may run apart (the pixel, curve and ranking stages do).
    assert {stage.key for stage in STAGES if stage.apart} == {
        "actions",
        "boxes",
        "counts",
        "estimate",
    }


def test_a_stage_apart_gives_what_it_gives_on_this_thread(demo: DemoLayout) -> None:
    project, options = demo_project(demo), AnalysisOptions()
    here = run_stage(BY_KEY["boxes"], project, options, None, None, ProjectResults())
    apart = run_stage(BY_KEY["boxes"], project, options, None, None, ProjectResults(), apart=True)
    # Computed in two processes; every field, counts and measures, printed alike.
    assert repr(apart) == repr(here)
    assert "tracking" in repr(here) and here.evaluations
