"""Bad autosave sidecars and ground truth that cannot be edited, in the window (pytest-qt).

A sidecar is checked against the project before recovery is offered: one that does not
fit (another project's, a label map of another size, a frame beyond the video, a named
pipe) is said in one dialog, the project opens and stays usable, and the sidecar stays
on disk; a member larger than any label map is refused before it is read. A frame whose
ground truth cannot be read (16 bits per sample) is said in a dialog; no exception
escapes a Qt slot (pytest-qt fails the test if one does).
"""

from __future__ import annotations

import json
import os
import shutil
import tracemalloc
import zipfile
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np
import pytest
from PySide6.QtWidgets import QMessageBox

from referee.core.annotation.autosave import autosave_path, read_autosave, write_autosave
from referee.core.annotation.document import GroundTruthDocument
from referee.core.demo.dataset import DemoLayout
from referee.core.errors import InputFileError
from referee.core.formats.project_json import read_project
from referee.core.workflow.projects import project_videos
from referee.gui.app import dispose
from referee.gui.main_window import MainWindow
from tests.gui.conftest import opened
from tests.robustness.gui_cases import one_video, project_file
from tests.robustness.test_gui_faults import _dialogs, _settle, isolated_settings

__all__ = ["isolated_settings"]  # the fixture, used by every test here

PLAZA = "plaza"


def _sidecar(project: Path, change: Callable[[dict], None], members: dict[str, bytes]) -> Path:
    """A real autosave of ``project`` (one painted frame), its index changed by ``change``."""
    opened = read_project(project)
    document = GroundTruthDocument(opened, project_videos(opened))
    document.label_map(PLAZA, 40)[0, 0] = 255
    document.mask_changed(PLAZA, 40)
    sidecar = write_autosave(document)
    assert sidecar is not None
    with zipfile.ZipFile(sidecar) as archive:
        kept = {name: archive.read(name) for name in archive.namelist()}
    index = json.loads(kept["autosave.json"])
    change(index)
    kept.update(members, **{"autosave.json": json.dumps(index).encode()})
    with zipfile.ZipFile(sidecar, "w") as archive:
        for name, data in kept.items():
            archive.writestr(name, data)
    os.utime(project, ns=(1, 1))  # the sidecar is newer: recovery would be offered
    return sidecar


def _wrong_size(index: dict) -> None:
    index["masks"] = [[PLAZA, 40, "large.png"]]


CASES: dict[str, tuple[Callable[[dict], None], dict[str, bytes], str]] = {
    "another project's": (lambda i: i.update(name="holiday"), {}, "'holiday'"),
    "a label map of another size": (
        _wrong_size,
        {"large.png": cv2.imencode(".png", np.zeros((240, 320), np.uint8))[1].tobytes()},
        "320x240",
    ),
    "a frame beyond the video": (
        lambda i: i.update(masks=[[PLAZA, 99_999, "masks/0.png"]]),
        {},
        "frame 99999",
    ),
    "a list where an object belongs": (lambda i: i.update(counts=[1, 2]), {}, "'counts'"),
}


@pytest.fixture
def window(qtbot) -> MainWindow:
    window = MainWindow(remember_layout=False)
    window.show()
    yield window
    window.close()
    dispose(window)


@pytest.mark.parametrize("case", list(CASES))
def test_a_sidecar_that_does_not_fit_is_refused_in_one_dialog(
    qtbot, window: MainWindow, demo: DemoLayout, tmp_path: Path, case: str, monkeypatch
) -> None:
    asked: list[str] = []
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: asked.append(a[2]))
    project = project_file(tmp_path, "p", dataset=one_video(demo, tmp_path))
    change, members, problem = CASES[case]
    sidecar = _sidecar(project, change, members)
    assert opened(qtbot, window.open(project))
    _settle(qtbot, window)
    dialogs = _dialogs(window)
    assert len(dialogs) == 1, [box.text() for box in dialogs]
    text = dialogs[0].text()
    assert sidecar.name in text and "cannot be recovered" in text and problem in text
    assert not asked  # nothing offered
    assert sidecar.exists() and not window.annotation.editor.modified
    assert window.viewer.layers is not None  # the project is open and shown


def test_a_named_pipe_as_the_sidecar_is_refused_without_hanging(
    qtbot, window: MainWindow, demo: DemoLayout, tmp_path: Path
) -> None:
    project = project_file(tmp_path, "p", dataset=one_video(demo, tmp_path))
    os.mkfifo(autosave_path(project))
    assert opened(qtbot, window.open(project))
    _settle(qtbot, window)
    (dialog,) = _dialogs(window)
    assert "not a regular file" in dialog.text()


def test_16_bit_ground_truth_is_said_without_an_exception_in_a_slot(
    qtbot, window: MainWindow, demo: DemoLayout, tmp_path: Path
) -> None:
    video = one_video(demo, tmp_path)
    first = int((video / "temporalROI.txt").read_text(encoding="utf-8").split()[0])
    gt = video / "groundtruth" / f"gt{first:06d}.png"
    deep = cv2.imread(str(gt), cv2.IMREAD_UNCHANGED).astype(np.uint16) * 257
    cv2.imwrite(str(gt), deep)
    shutil.rmtree(video.parent / "results", ignore_errors=True)
    opened(qtbot, window.open(video))  # the first frame shown is the deep one
    _settle(qtbot, window)
    texts = [box.text() for box in _dialogs(window)]
    assert texts and all("16 bits" in text for text in texts), texts
    assert window.annotation.current_video() is None  # nothing to paint on that frame


#: Python allocations allowed while a sidecar with a huge member is refused (the member
#: used to be read whole: 1 GB of member took 2.1 GB).
SIDECAR_MEMORY_BYTES = 32 * 2**20


def test_a_huge_member_is_refused_before_it_is_read(demo: DemoLayout, tmp_path: Path) -> None:
    project = project_file(tmp_path, "p", dataset=one_video(demo, tmp_path))
    sidecar = _sidecar(project, lambda i: i.update(masks=[[PLAZA, 40, "huge.png"]]), {})
    with (
        zipfile.ZipFile(sidecar, "a", zipfile.ZIP_DEFLATED) as archive,
        archive.open("huge.png", "w", force_zip64=True) as out,
    ):
        for _ in range(300):
            out.write(bytes(2**20))  # 300 MiB of zeros: a few hundred KiB compressed
    opened = read_project(project)
    document = GroundTruthDocument(opened, project_videos(opened))
    tracemalloc.start()
    try:
        with pytest.raises(InputFileError, match=r"huge\.png is 314,572,800 bytes"):
            read_autosave(sidecar, document)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < SIDECAR_MEMORY_BYTES
