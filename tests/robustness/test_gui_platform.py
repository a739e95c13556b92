"""Before Qt starts: which system libraries Qt's xcb plugin lacks, and whether there is a display.

The parser is checked on real ``ldd`` output (captured on a Debian machine that
lacked two of the plugin's libraries) and on real ``ldd`` runs on this machine,
against the dynamic loader: of the plugin as installed, and of a copy of it moved
away from the Qt libraries it needs, which are then missing on any machine. A
machine that lacks libraries is simulated with an ``ldd`` that prints the captured
output and a loader that cannot open the cursor library; ``referee gui`` is run
with that ``ldd``.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from referee.gui.platform_check import (
    CURSOR_LIBRARY,
    display_problem,
    ldd_output,
    library_problem,
    missing_libraries,
    missing_libraries_message,
    packages_for,
    would_use_xcb,
    xcb_missing_libraries,
    xcb_plugin,
)
from tests.robustness.conftest import assert_refused, run_referee
from tests.robustness.gui_cases import without_display

#: ``ldd .../PySide6/Qt/plugins/platforms/libqxcb.so`` (PySide6 6.11) on Debian without
#: libxcb-icccm4 and libxcb-keysyms1, as printed (addresses and the PySide6 folder kept).
LDD_WITHOUT_ICCCM_AND_KEYSYMS = """\
	linux-vdso.so.1 (0x00007f06d6af7000)
	libQt6XcbQpa.so.6 => /root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/PySide6/Qt/plugins/platforms/../../lib/libQt6XcbQpa.so.6 (0x00007f06d6a29000)
	libQt6Gui.so.6 => /root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/PySide6/Qt/plugins/platforms/../../lib/libQt6Gui.so.6 (0x00007f06d5e00000)
	libGL.so.1 => /lib/x86_64-linux-gnu/libGL.so.1 (0x00007f06d6999000)
	libQt6Core.so.6 => /root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/PySide6/Qt/plugins/platforms/../../lib/libQt6Core.so.6 (0x00007f06d5600000)
	libxkbcommon.so.0 => /lib/x86_64-linux-gnu/libxkbcommon.so.0 (0x00007f06d6951000)
	libxkbcommon-x11.so.0 => /lib/x86_64-linux-gnu/libxkbcommon-x11.so.0 (0x00007f06d6946000)
	libxcb-cursor.so.0 => /lib/x86_64-linux-gnu/libxcb-cursor.so.0 (0x00007f06d693f000)
	libxcb-icccm.so.4 => not found
	libxcb-util.so.1 => /lib/x86_64-linux-gnu/libxcb-util.so.1 (0x00007f06d6937000)
	libxcb-image.so.0 => /lib/x86_64-linux-gnu/libxcb-image.so.0 (0x00007f06d6931000)
	libxcb-keysyms.so.1 => not found
	libxcb-randr.so.0 => /lib/x86_64-linux-gnu/libxcb-randr.so.0 (0x00007f06d691e000)
	libxcb-render-util.so.0 => /lib/x86_64-linux-gnu/libxcb-render-util.so.0 (0x00007f06d5200000)
	libxcb-shm.so.0 => /lib/x86_64-linux-gnu/libxcb-shm.so.0 (0x00007f06d6919000)
	libxcb-sync.so.1 => /lib/x86_64-linux-gnu/libxcb-sync.so.1 (0x00007f06d6911000)
	libxcb-xfixes.so.0 => /lib/x86_64-linux-gnu/libxcb-xfixes.so.0 (0x00007f06d5df7000)
	libxcb-render.so.0 => /lib/x86_64-linux-gnu/libxcb-render.so.0 (0x00007f06d5de9000)
	libxcb-shape.so.0 => /lib/x86_64-linux-gnu/libxcb-shape.so.0 (0x00007f06d5de4000)
	libxcb-xkb.so.1 => /lib/x86_64-linux-gnu/libxcb-xkb.so.1 (0x00007f06d5dc7000)
	libxcb.so.1 => /lib/x86_64-linux-gnu/libxcb.so.1 (0x00007f06d5d9d000)
	libX11-xcb.so.1 => /lib/x86_64-linux-gnu/libX11-xcb.so.1 (0x00007f06d5d98000)
	libX11.so.6 => /lib/x86_64-linux-gnu/libX11.so.6 (0x00007f06d54be000)
	libstdc++.so.6 => /lib/x86_64-linux-gnu/libstdc++.so.6 (0x00007f06d4e00000)
	libm.so.6 => /lib/x86_64-linux-gnu/libm.so.6 (0x00007f06d5120000)
	libgcc_s.so.1 => /lib/x86_64-linux-gnu/libgcc_s.so.1 (0x00007f06d5d78000)
	libc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x00007f06d4c1e000)
	libxcb-icccm.so.4 => not found
	libxcb-keysyms.so.1 => not found
	libglib-2.0.so.0 => /lib/x86_64-linux-gnu/libglib-2.0.so.0 (0x00007f06d4ae6000)
	libgthread-2.0.so.0 => /lib/x86_64-linux-gnu/libgthread-2.0.so.0 (0x00007f06d5d71000)
	libEGL.so.1 => /lib/x86_64-linux-gnu/libEGL.so.1 (0x00007f06d5d5b000)
	libfontconfig.so.1 => /lib/x86_64-linux-gnu/libfontconfig.so.1 (0x00007f06d5473000)
	libQt6DBus.so.6 => /root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/PySide6/Qt/plugins/platforms/../../lib/libQt6DBus.so.6 (0x00007f06d5045000)
	libz.so.1 => /lib/x86_64-linux-gnu/libz.so.1 (0x00007f06d5d3a000)
	libfreetype.so.6 => /lib/x86_64-linux-gnu/libfreetype.so.6 (0x00007f06d4a1c000)
	libGLdispatch.so.0 => /lib/x86_64-linux-gnu/libGLdispatch.so.0 (0x00007f06d4963000)
	libGLX.so.0 => /lib/x86_64-linux-gnu/libGLX.so.0 (0x00007f06d543f000)
	libicui18n.so.73 => /root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/PySide6/Qt/plugins/platforms/../../lib/libicui18n.so.73 (0x00007f06d4600000)
	libicuuc.so.73 => /root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/PySide6/Qt/plugins/platforms/../../lib/libicuuc.so.73 (0x00007f06d4200000)
	libicudata.so.73 => /root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/PySide6/Qt/plugins/platforms/../../lib/libicudata.so.73 (0x00007f06d2200000)
	libzstd.so.1 => /lib/x86_64-linux-gnu/libzstd.so.1 (0x00007f06d4544000)
	/lib64/ld-linux-x86-64.so.2 (0x00007f06d6af9000)
	libXau.so.6 => /lib/x86_64-linux-gnu/libXau.so.6 (0x00007f06d543a000)
	libXdmcp.so.6 => /lib/x86_64-linux-gnu/libXdmcp.so.6 (0x00007f06d1e00000)
	libpcre2-8.so.0 => /lib/x86_64-linux-gnu/libpcre2-8.so.0 (0x00007f06d44aa000)
	libexpat.so.1 => /lib/x86_64-linux-gnu/libexpat.so.1 (0x00007f06d540f000)
	libdbus-1.so.3 => /lib/x86_64-linux-gnu/libdbus-1.so.3 (0x00007f06d4454000)
	libpng16.so.16 => /lib/x86_64-linux-gnu/libpng16.so.16 (0x00007f06d441e000)
	libbrotlidec.so.1 => /lib/x86_64-linux-gnu/libbrotlidec.so.1 (0x00007f06d5038000)
	libpthread.so.0 => /lib/x86_64-linux-gnu/libpthread.so.0 (0x00007f06d5408000)
	libdl.so.2 => /lib/x86_64-linux-gnu/libdl.so.2 (0x00007f06d5033000)
	libbsd.so.0 => /lib/x86_64-linux-gnu/libbsd.so.0 (0x00007f06d501d000)
	libsystemd.so.0 => /lib/x86_64-linux-gnu/libsystemd.so.0 (0x00007f06d4130000)
	libbrotlicommon.so.1 => /lib/x86_64-linux-gnu/libbrotlicommon.so.1 (0x00007f06d410d000)
	libmd.so.0 => /lib/x86_64-linux-gnu/libmd.so.0 (0x00007f06d4956000)
	libcap.so.2 => /lib/x86_64-linux-gnu/libcap.so.2 (0x00007f06d4101000)
	libgcrypt.so.20 => /lib/x86_64-linux-gnu/libgcrypt.so.20 (0x00007f06d20b9000)
	liblzma.so.5 => /lib/x86_64-linux-gnu/liblzma.so.5 (0x00007f06d40d2000)
	liblz4.so.1 => /lib/x86_64-linux-gnu/liblz4.so.1 (0x00007f06d40ac000)
	libgpg-error.so.0 => /lib/x86_64-linux-gnu/libgpg-error.so.0 (0x00007f06d2091000)
"""


def test_not_found_lines_of_real_ldd_output_give_each_missing_library_once() -> None:
    missing = missing_libraries(LDD_WITHOUT_ICCCM_AND_KEYSYMS)
    assert missing == ["libxcb-icccm.so.4", "libxcb-keysyms.so.1"]
    assert packages_for(missing) == ["libxcb-icccm4", "libxcb-keysyms1"]


def test_found_libraries_and_the_loader_line_are_not_missing() -> None:
    found = LDD_WITHOUT_ICCCM_AND_KEYSYMS.replace("not found", "/lib/x86_64-linux-gnu/x.so")
    assert missing_libraries(found) == []
    assert missing_libraries("\tstatically linked\n") == []


def test_the_message_is_one_line_naming_libraries_and_packages() -> None:
    message = missing_libraries_message(["libxcb-icccm.so.4", "libxcb-keysyms.so.1"])
    assert "\n" not in message
    assert "libxcb-icccm.so.4, libxcb-keysyms.so.1" in message
    assert "sudo apt install libxcb-icccm4 libxcb-keysyms1" in message


def test_a_library_without_a_known_package_is_named_as_it_is() -> None:
    message = missing_libraries_message(["libxcb-cursor.so.0", "libfancy.so.7"])
    assert "sudo apt install libxcb-cursor0" in message
    assert "the packages that provide libfancy.so.7" in message


@pytest.mark.parametrize(
    ("environ", "system", "xcb"),
    [
        ({}, "linux", True),
        ({"DISPLAY": ":0"}, "linux", True),
        ({"QT_QPA_PLATFORM": "xcb"}, "linux", True),
        ({"QT_QPA_PLATFORM": "xcb:nomitshm;wayland"}, "linux", True),
        ({"QT_QPA_PLATFORM": "offscreen"}, "linux", False),
        ({"QT_QPA_PLATFORM": "wayland"}, "linux", False),
        ({"WAYLAND_DISPLAY": "wayland-0", "DISPLAY": ":0"}, "linux", False),
        ({"XDG_SESSION_TYPE": "wayland"}, "linux", False),
        ({}, "darwin", False),
        ({}, "win32", False),
    ],
)
def test_when_qt_would_use_its_xcb_plugin(environ: dict[str, str], system: str, xcb: bool) -> None:
    assert would_use_xcb(environ, system) is xcb


@pytest.mark.parametrize(
    ("environ", "words"),
    [
        ({}, "DISPLAY and WAYLAND_DISPLAY are unset"),
        ({"QT_QPA_PLATFORM": "xcb", "WAYLAND_DISPLAY": "w"}, "QT_QPA_PLATFORM is xcb"),
        ({"QT_QPA_PLATFORM": "wayland", "DISPLAY": ":0"}, "QT_QPA_PLATFORM is wayland"),
        ({"DISPLAY": ":0"}, None),
        ({"WAYLAND_DISPLAY": "wayland-0"}, None),
        ({"QT_QPA_PLATFORM": "offscreen"}, None),
    ],
)
def test_when_there_is_no_display(environ: dict[str, str], words: str | None) -> None:
    problem = display_problem(environ, "linux")
    assert (problem is None) if words is None else (words in (problem or ""))
    assert display_problem(environ, "darwin") is None


def _loader_error(library: str | Path) -> str | None:
    """What the dynamic loader says when a new process (which has loaded no Qt library yet)
    opens ``library``, or ``None`` if it opens."""
    done = subprocess.run(
        [sys.executable, "-c", "import ctypes, sys; ctypes.CDLL(sys.argv[1])", str(library)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    return None if done.returncode == 0 else done.stderr.strip().splitlines()[-1]


def _ldd_agrees_with_the_loader(library: Path) -> list[str]:
    """The libraries a real ``ldd`` run finds missing for ``library``, checked against the
    dynamic loader: it opens ``library`` when none is missing, else fails on one of them,
    and cannot open any of them."""
    text = ldd_output(library)
    assert "libxcb.so.1" in text, text  # ldd ran and listed the plugin's libraries
    missing = missing_libraries(text)
    error = _loader_error(library)
    if not missing:
        assert error is None, f"ldd finds every library, yet {error}"
    else:
        assert error is not None, f"ldd finds {missing} missing, yet {library} opens"
        assert any(error.startswith(f"OSError: {name}: ") for name in missing), error
    for name in missing:
        assert _loader_error(name) is not None, f"ldd finds {name} missing, yet it opens"
    return missing


def test_a_real_ldd_run_on_this_machine_agrees_with_the_dynamic_loader(tmp_path: Path) -> None:
    plugin = xcb_plugin()
    assert plugin is not None, "PySide6 ships no libqxcb.so"
    assert set(_ldd_agrees_with_the_loader(plugin)) <= set(xcb_missing_libraries())
    # The plugin copied away from PySide6: the Qt libraries its RUNPATH ($ORIGIN/../../lib)
    # finds are missing for real, here too, whatever the system has installed.
    moved = tmp_path / "plugins" / "platforms" / plugin.name
    moved.parent.mkdir(parents=True)
    shutil.copy(plugin, moved)
    missing = _ldd_agrees_with_the_loader(moved)
    assert "libQt6Core.so.6" in missing and "libQt6XcbQpa.so.6" in missing
    assert all(name.startswith("libQt6") for name in missing), missing


def _fake_ldd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``ldd`` (first on PATH) prints the captured Debian output above, whatever it is asked."""
    tools = tmp_path / "bin"
    tools.mkdir()
    (tools / "ldd").write_text(
        f"#!/bin/sh\ncat <<'END'\n{LDD_WITHOUT_ICCCM_AND_KEYSYMS}END\n", encoding="utf-8"
    )
    (tools / "ldd").chmod(0o755)
    monkeypatch.setenv("PATH", f"{tools}{os.pathsep}{os.environ['PATH']}")


def test_the_library_problem_follows_what_is_missing_here(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # This machine, as it is.
    missing = xcb_missing_libraries()
    expected = missing_libraries_message(missing) if missing else None
    assert library_problem({"DISPLAY": ":0"}, "linux") == expected
    # A machine where ldd misses two libraries (the Debian output above) and the loader
    # cannot open the cursor library, which Qt opens at run time (ldd may not list it).
    _fake_ldd(tmp_path, monkeypatch)
    opened: list[str] = []
    real_cdll = ctypes.CDLL

    def cdll(name: str, *args: object, **kwargs: object) -> ctypes.CDLL:
        opened.append(name)
        if name == CURSOR_LIBRARY:
            raise OSError(f"{name}: cannot open shared object file: No such file or directory")
        return real_cdll(name, *args, **kwargs)

    monkeypatch.setattr(ctypes, "CDLL", cdll)
    assert xcb_missing_libraries() == [
        "libxcb-icccm.so.4",
        "libxcb-keysyms.so.1",
        "libxcb-cursor.so.0",
    ]
    assert opened == [CURSOR_LIBRARY]  # asked the loader, not a list
    assert library_problem({"DISPLAY": ":0"}, "linux") == (
        "the window cannot open: Qt's xcb platform plugin needs libxcb-icccm.so.4, "
        "libxcb-keysyms.so.1, libxcb-cursor.so.0, which are not installed; "
        "on Debian or Ubuntu: sudo apt install libxcb-icccm4 libxcb-keysyms1 libxcb-cursor0"
    )
    # Where Qt would not use its xcb plugin, what it lacks does not matter.
    assert library_problem({"QT_QPA_PLATFORM": "offscreen"}, "linux") is None
    assert library_problem({"DISPLAY": ":0"}, "darwin") is None


def test_referee_gui_names_the_missing_libraries_and_packages_before_qt_starts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As on the Debian machine whose ``ldd`` output is above (where Qt itself aborts)."""
    _fake_ldd(tmp_path, monkeypatch)
    without_display(monkeypatch)
    env = {"DISPLAY": ":99", "XDG_CONFIG_HOME": str(tmp_path / "config")}
    outcome = run_referee("gui", tmp_path, env=env)
    assert_refused(
        outcome, "xcb", "libxcb-icccm.so.4", "libxcb-keysyms.so.1", "libxcb-icccm4 libxcb-keysyms1"
    )
