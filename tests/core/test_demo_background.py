"""The demo project prepared in the background, in a process of its own (as the desktop
application starts it, before loading its libraries), then waited for by the one who
opens it."""

from __future__ import annotations

from pathlib import Path

import pytest

from referee.core.demo import project as demo
from referee.core.demo.dataset import MARKER_NAME
from referee.core.errors import CancelledError
from referee.core.progress import CancelToken


def test_opening_the_demo_waits_for_its_preparation_and_passes_its_progress_on(
    tmp_path: Path,
) -> None:
    root = tmp_path / "demo"
    demo.prepare_in_background(root)
    demo.prepare_in_background(root)  # started once only
    assert list(demo._PREPARATIONS) == [root]
    calls: list[tuple[int, int]] = []
    project = demo.ensure_demo_project(root, lambda done, total: calls.append((done, total)))
    assert demo._PREPARATIONS == {}
    assert project == demo.ensure_demo_project(root)  # the same project, now reused
    total = calls[-1][1]
    assert total > 0 and calls[-1] == (total, total)
    assert [done for done, _ in calls] == sorted(done for done, _ in calls)
    demo.prepare_in_background(root)  # ready: nothing to prepare
    assert demo._PREPARATIONS == {}


def test_cancelling_the_wait_stops_the_preparation_and_removes_its_files(
    tmp_path: Path,
) -> None:
    root = tmp_path / "demo"
    token = CancelToken()

    def progress(done: int, total: int) -> None:
        token.cancel()

    demo.prepare_in_background(root)
    with pytest.raises(CancelledError):
        demo.ensure_demo_project(root, progress, token)
    assert demo._PREPARATIONS == {}
    assert not (root / MARKER_NAME).exists()
    assert not any(root.iterdir())


def test_without_a_process_the_preparation_runs_on_its_thread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_process(*args: object, **kwargs: object) -> None:
        raise OSError("no semaphores here")

    monkeypatch.setattr(demo, "run_in_process", no_process)
    root = tmp_path / "demo"
    demo.prepare_in_background(root)
    project = demo.ensure_demo_project(root)
    assert project.file == root / demo.DEMO_PROJECT_NAME and project.dataset is not None
