"""``referee gui PATH --screenshot FILE.png`` on bad input, through the real entry point.

A load that fails ends at once with exit status 2 and one line naming the
file, and writes no picture; a picture that cannot be written leaves the old
file whole; without a display ``referee gui`` says so in one line instead of
Qt aborting (and test_gui_platform.py: without the xcb plugin's libraries).
"""

from __future__ import annotations

import resource
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from referee.core.demo.dataset import DemoLayout
from tests.robustness.conftest import Outcome, assert_refused, run_referee
from tests.robustness.gui_cases import BAD_INPUTS, one_video, without_display

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
#: Room for the child's error line and small caches, not for a picture of the window.
SMALL_FILE_LIMIT = 16 * 1024


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
    outcome = _screenshot(one_video(demo, tmp_path), picture, tmp_path)
    assert outcome.status == 0, outcome.stderr
    assert not outcome.stderr.strip(), outcome.stderr
    assert picture.read_bytes().startswith(PNG_SIGNATURE)


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
