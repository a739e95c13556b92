"""``referee gui PATH --screenshot FILE.png`` on bad input, through the real entry point.

A load that fails ends at once with exit status 2 and one line naming the
file, and writes no picture; a picture that cannot be written leaves the old
file whole; no question waits for an answer (a pending recovery of unsaved
annotation is said in one line and not offered; any other question ends the
run at once, answering nothing); without a display ``referee gui`` says so in
one line instead of Qt aborting (and test_gui_platform.py: without the xcb
plugin's libraries).
"""

from __future__ import annotations

import os
import resource
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import cv2
import numpy as np
import pytest

from referee.core.annotation.autosave import autosave_path
from referee.core.demo.dataset import DemoLayout
from tests.robustness.conftest import TIMEOUT_SECONDS, Outcome, assert_refused, run_referee
from tests.robustness.gui_cases import BAD_INPUTS, one_video, project_file, without_display

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
#: Room for the child's error line and small caches, not for a picture of the window.
SMALL_FILE_LIMIT = 16 * 1024
#: Fewest distinct colours in a picture of the window showing a video (it has thousands).
MANY_COLOURS = 100


def _offscreen(tmp_path: Path) -> dict[str, str]:
    """Render without a display, with settings and data inside the test's folder."""
    return {
        "QT_QPA_PLATFORM": "offscreen",
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
    }


def _screenshot(path: Path, picture: Path, tmp_path: Path, *options: str) -> Outcome:
    return run_referee("gui", path, "--screenshot", picture, *options, env=_offscreen(tmp_path))


@pytest.mark.parametrize("case", list(BAD_INPUTS))
def test_a_load_that_fails_ends_at_once_naming_the_file(
    demo: DemoLayout, tmp_path: Path, case: str
) -> None:
    folder = tmp_path / "bad"
    folder.mkdir()
    path, names = BAD_INPUTS[case](demo, folder)
    picture = tmp_path / "shot.png"
    outcome = _screenshot(path, picture, tmp_path)
    assert_refused(outcome, *names)
    assert not picture.exists()


def test_a_good_load_saves_the_picture(demo: DemoLayout, tmp_path: Path) -> None:
    picture = tmp_path / "shot.png"
    # Not the default size, so that a picture of a window of another size is caught.
    outcome = _screenshot(one_video(demo, tmp_path), picture, tmp_path, "--size", "1280x800")
    assert outcome.status == 0, outcome.stderr
    assert not outcome.stderr.strip(), outcome.stderr
    assert picture.read_bytes().startswith(PNG_SIGNATURE)
    image = cv2.imread(str(picture), cv2.IMREAD_COLOR)
    assert image is not None, "OpenCV cannot read the picture"
    assert image.shape == (800, 1280, 3)  # the window of the size asked for
    # The window drawn: menus, docks, text and the video's frame give many colours, none of
    # them covering most of the picture (a blank or unpainted window is one or two).
    colours, counts = np.unique(image.reshape(-1, 3), axis=0, return_counts=True)
    assert len(colours) >= MANY_COLOURS, len(colours)
    assert counts.max() < image.shape[0] * image.shape[1] / 2


def _png_size(data: bytes) -> tuple[int, int]:
    """Width and height of a PNG: its first chunk, IHDR, starts at byte 8 with its length
    (4 bytes) and type (4 bytes), then the width and the height, 4 big-endian bytes each."""
    assert data.startswith(PNG_SIGNATURE) and data[12:16] == b"IHDR", data[:16]
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


def test_the_picture_of_the_demo_has_the_size_asked_for(demo: DemoLayout, tmp_path: Path) -> None:
    # The offscreen platform does not fit a window to a screen: a window whose minimum
    # size exceeds --size comes out larger than asked.
    root = Path(shutil.copytree(demo.root, tmp_path / "demo"))  # the demo project is added
    picture = tmp_path / "shot.png"
    outcome = run_referee(
        "gui",
        "--screenshot",
        picture,
        "--size",
        "1366x768",
        "--demo-dir",
        root,
        env=_offscreen(tmp_path),
    )
    assert outcome.status == 0, outcome.stderr
    assert _png_size(picture.read_bytes()) == (1366, 768)


@pytest.mark.parametrize("size", ["12x", "1366x768x2", "100x100"])
def test_a_bad_size_is_refused_in_one_line(demo: DemoLayout, tmp_path: Path, size: str) -> None:
    picture = tmp_path / "shot.png"
    outcome = _screenshot(one_video(demo, tmp_path), picture, tmp_path, "--size", size)
    assert_refused(outcome, "--size", repr(size))
    assert not picture.exists()


@contextmanager
def _file_size_limit(limit: int) -> Iterator[None]:
    """Files written by children started meanwhile cannot grow past ``limit`` bytes
    (as on a full disk: the write fails, Python ignores SIGXFSZ)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))


def test_a_picture_that_cannot_be_written_leaves_the_old_file_whole(
    demo: DemoLayout, tmp_path: Path
) -> None:
    video = one_video(demo, tmp_path)
    shots = tmp_path / "shots"
    shots.mkdir()
    picture = shots / "shot.png"
    picture.write_bytes(b"the previous picture")
    with _file_size_limit(SMALL_FILE_LIMIT):
        outcome = _screenshot(video, picture, tmp_path, "--force")
    assert_refused(outcome, picture)
    assert picture.read_bytes() == b"the previous picture"
    assert sorted(p.name for p in shots.iterdir()) == ["shot.png"]  # no partial file left


# --- no one answers questions in a screenshot run -------------------------------------------------


def _project_with_newer_autosave(demo: DemoLayout, folder: Path) -> tuple[Path, Path]:
    """A project file and an autosave sidecar beside it, written after it (a recovery pends)."""
    project = project_file(folder, "unsaved", dataset=one_video(demo, folder))
    sidecar = autosave_path(project)
    sidecar.write_bytes(b"annotation the user has not saved")
    saved = project.stat().st_mtime_ns
    os.utime(sidecar, ns=(saved + 10**9, saved + 10**9))
    return project, sidecar


def test_a_pending_recovery_is_said_in_one_line_and_not_offered(
    demo: DemoLayout, tmp_path: Path
) -> None:
    project, sidecar = _project_with_newer_autosave(demo, tmp_path)
    kept = sidecar.read_bytes(), sidecar.stat().st_mtime_ns
    picture = tmp_path / "shot.png"
    outcome = _screenshot(project, picture, tmp_path)
    assert not outcome.timed_out, "the screenshot run waited for an answer"
    assert outcome.status == 0, outcome.stderr
    assert picture.read_bytes().startswith(PNG_SIGNATURE)
    [line] = outcome.stderr_lines
    assert line.startswith(f"referee: {sidecar}: ") and "not offered" in line, line
    assert "screenshot run" in line, line
    assert (sidecar.read_bytes(), sidecar.stat().st_mtime_ns) == kept  # left for the user


#: ``referee gui ...`` in a process where opening a project asks a question.
_ASKING = """
import sys
from PySide6.QtWidgets import QMessageBox
from referee.core.cli.main import main
from referee.gui import session
opened = session.ProjectSession.open
def asking(self, listed):
    opened(self, listed)
    QMessageBox.question(None, "A question", "Shall we wait for an answer?")
session.ProjectSession.open = asking
raise SystemExit(main(sys.argv[1:]))
"""


def test_a_question_ends_a_screenshot_run_at_once_unanswered(
    demo: DemoLayout, tmp_path: Path
) -> None:
    picture = tmp_path / "shot.png"
    arguments = ["gui", str(one_video(demo, tmp_path)), "--screenshot", str(picture)]
    try:
        done = subprocess.run(
            [sys.executable, "-c", _ASKING, *arguments],
            env={**os.environ, **_offscreen(tmp_path)},
            capture_output=True,
            text=True,
            timeout=TIMEOUT_SECONDS,
        )
    except subprocess.TimeoutExpired:
        pytest.fail("the screenshot run waited for an answer")
    outcome = Outcome(done.returncode, done.stdout, done.stderr, 0.0, timed_out=False)
    assert_refused(outcome, "A question: Shall we wait for an answer?", "screenshot run")
    assert not picture.exists()


# --- before Qt starts: a display, and the xcb plugin's libraries ---------------------------------


def test_no_display_is_said_in_one_line(
    demo: DemoLayout, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    without_display(monkeypatch)
    env = {"XDG_DATA_HOME": str(tmp_path / "data"), "XDG_CONFIG_HOME": str(tmp_path / "config")}
    outcome = run_referee("gui", one_video(demo, tmp_path), env=env)
    assert_refused(outcome, "no display", "DISPLAY", "WAYLAND_DISPLAY", "--screenshot")


def test_xcb_chosen_without_a_display_is_said_in_one_line(
    demo: DemoLayout, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    without_display(monkeypatch)
    env = {"QT_QPA_PLATFORM": "xcb", "XDG_CONFIG_HOME": str(tmp_path / "config")}
    outcome = run_referee("gui", one_video(demo, tmp_path), env=env)
    assert_refused(outcome, "QT_QPA_PLATFORM is xcb", "DISPLAY is unset")
