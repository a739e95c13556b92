"""The window's session starts its jobs from the stage graph: after one annotated frame is
saved, only the stages that depend on it run again, and only that frame is read."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from referee.core.annotation.document import GroundTruthDocument
from referee.core.annotation.saving import save
from referee.core.cache import stamps
from referee.core.demo.project import DEMO_PROJECT_NAME
from referee.core.workflow.graph import STAGES, settled
from referee.core.workflow.projects import list_project, open_path
from referee.gui import session as session_module
from referee.gui.session import ProjectSession
from referee.gui.worker import JobRunner


def _settle(qtbot, session: ProjectSession) -> None:
    qtbot.waitUntil(
        lambda: not session.runner.jobs and all(settled(session.results, s.key) for s in STAGES),
        timeout=180000,
    )


def test_a_saved_frame_runs_again_only_what_depends_on_it(
    qtbot, demo_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(stamps, "RACY_SECONDS", 0.0)  # the copy's files were just written
    runner = JobRunner()
    session = ProjectSession(runner)
    session.open(list_project(open_path(demo_copy / DEMO_PROJECT_NAME)))
    _settle(qtbot, session)
    assert session.estimate is not None and session.estimate.videos, session.results.skipped
    before = {s.key: getattr(session.results, s.key) for s in STAGES}
    video = session.estimate.videos[0]
    label, frame = video.video, int(video.next_frame)

    document = GroundTruthDocument(session.project, session.videos)
    label_map = document.label_map(label, frame).copy()
    label_map[10:20, 10:30] = 255
    document.replace_label_map(label, frame, label_map)
    document.set_review(label, frame, document.accepted(label, frame, "now"))
    outcome = save(document)
    started: list[str] = []
    runner.job_started.connect(lambda job: started.append(job.kind))
    session.cache.computed.clear()
    listed_on_gui_thread: list[bool] = []

    def listing(project):
        listed_on_gui_thread.append(threading.current_thread() is threading.main_thread())
        return list_project(project)

    monkeypatch.setattr(session_module, "list_project", listing)
    assert frame not in session.annotated()[label]
    session.annotations_saved(outcome.project, outcome.files)
    _settle(qtbot, session)

    # The annotators' agreement reads mask ground truth too (the demo names none: skipped);
    # the videos are listed again off the GUI thread, with the saved frame annotated.
    assert sorted(started) == sorted(
        [
            *("pixels", "curves", "boxes", "pseudo", "ranking", "significance", "estimate"),
            *("agreement", "videos"),
        ]
    )
    assert listed_on_gui_thread == [False]
    assert frame in session.annotated()[label]
    assert frame in next(v for v in session.videos if v.label == label).truth_frames
    for what in ("counts", "histograms"):  # masks and score maps: that frame only
        assert session.cache.computed_of(what) == {label: [frame]}, what
    assert session.cache.computed_of("scores") == {}  # the ranking kept its scores
    for key in ("actions", "counts"):  # read no mask ground truth: kept as they were
        assert getattr(session.results, key) is before[key]
    assert session.results.pseudo.result is before["pseudo"].result  # its consensus kept
    assert frame not in [r.frame for r in session.ranking if r.video == label]
    assert session.estimate.videos[0].labels == video.labels + 1
    assert session.previous_results is not None
    assert session.previous_results.estimate is before["estimate"]
    runner.wait()


def test_f5_computes_everything_again_from_the_cache(
    qtbot, demo_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from PySide6.QtCore import Qt

    from referee.gui.main_window import MainWindow

    monkeypatch.setattr(stamps, "RACY_SECONDS", 0.0)
    window = MainWindow(remember_layout=False)
    qtbot.addWidget(window)
    window.show()
    window.open_project(open_path(demo_copy / DEMO_PROJECT_NAME))
    _settle(qtbot, window.session)
    started: list[str] = []
    window.runner.job_started.connect(lambda job: started.append(job.kind))
    window.session.cache.computed.clear()
    qtbot.keyClick(window, Qt.Key.Key_F5)
    _settle(qtbot, window.session)
    assert sorted(started) == sorted([*(stage.key for stage in STAGES), "videos"])  # relisted
    for what in ("counts", "histograms", "scores"):  # every frame from the cache
        assert window.session.cache.computed_of(what) == {}, what
    window.runner.cancel_all()
    window.runner.wait()


def test_the_stages_that_compute_in_the_windows_process_take_turns(
    qtbot, demo_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    here = {s.key for s in STAGES if not s.apart}
    running: set[str] = set()
    together: list[set[str]] = []
    lock = threading.Lock()
    stage_run = session_module.run_stage

    def recorded(stage, *args, **kwargs):
        if stage.key not in here:
            return stage_run(stage, *args, **kwargs)
        with lock:
            running.add(stage.key)
            together.append(set(running))
        try:
            time.sleep(0.2)  # long enough for another stage to start meanwhile, were it let
            return stage_run(stage, *args, **kwargs)
        finally:
            with lock:
                running.discard(stage.key)

    monkeypatch.setattr(session_module, "run_stage", recorded)
    session = ProjectSession(JobRunner())
    session.open(list_project(open_path(demo_copy / DEMO_PROJECT_NAME)))
    _settle(qtbot, session)
    assert {key for seen in together for key in seen} == here  # every such stage ran
    assert all(len(seen) == 1 for seen in together), together
