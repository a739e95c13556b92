"""One long function in a process of its own: its result, its errors, its progress and
its cancellation reach the caller."""

from __future__ import annotations

import os
import time

import pytest

from referee.core.errors import CancelledError, InputFileError
from referee.core.parallel import run_in_process
from referee.core.progress import CancelToken, ProgressCallback, check


def _square_elsewhere(x: int, progress: ProgressCallback, cancel: CancelToken) -> tuple[int, int]:
    progress(1, 1)
    return x * x, os.getpid()


def _refuse(name: str, progress: ProgressCallback, cancel: CancelToken) -> None:
    raise InputFileError(name, "is not there")


def _count_until_cancelled(progress: ProgressCallback, cancel: CancelToken) -> None:
    for done in range(1, 10_000):
        progress(done, 10_000)
        check(cancel)
        time.sleep(0.01)


def test_the_result_comes_from_another_process_with_its_progress() -> None:
    calls: list[tuple[int, int]] = []
    square, pid = run_in_process(
        _square_elsewhere, 7, progress=lambda done, total: calls.append((done, total))
    )
    assert square == 49 and pid != os.getpid()
    assert calls[-1] == (1, 1)


def test_an_error_reaches_the_caller_unchanged() -> None:
    with pytest.raises(InputFileError, match="nowhere: is not there"):
        run_in_process(_refuse, "nowhere")


def test_cancelling_stops_the_function_at_its_next_check() -> None:
    token = CancelToken()

    def progress(done: int, total: int) -> None:
        if done >= 3:
            token.cancel()

    with pytest.raises(CancelledError):
        run_in_process(_count_until_cancelled, progress=progress, cancel=token)
