"""Why Qt could not open a window on Linux, found before Qt aborts with
"no Qt platform plugin could be initialized": no display, or system libraries that
Qt's xcb platform plugin needs and that are not installed (with the Debian/Ubuntu
packages that hold them). Nothing here imports Qt.
"""

from __future__ import annotations

import ctypes
import importlib.util
import subprocess
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path

#: Library → Debian/Ubuntu package, for the libraries a stock system may lack.
DEBIAN_PACKAGES: dict[str, str] = {
    "libxcb-icccm.so.4": "libxcb-icccm4",
    "libxcb-keysyms.so.1": "libxcb-keysyms1",
    "libxcb-cursor.so.0": "libxcb-cursor0",
    "libxkbcommon-x11.so.0": "libxkbcommon-x11-0",
    "libxkbcommon.so.0": "libxkbcommon0",
    "libxcb-image.so.0": "libxcb-image0",
    "libxcb-render-util.so.0": "libxcb-render-util0",
    "libxcb-shape.so.0": "libxcb-shape0",
    "libxcb-randr.so.0": "libxcb-randr0",
    "libxcb-xkb.so.1": "libxcb-xkb1",
    "libxcb-util.so.1": "libxcb-util1",
    "libEGL.so.1": "libegl1",
    "libGL.so.1": "libgl1",
    "libfontconfig.so.1": "libfontconfig1",
    "libdbus-1.so.3": "libdbus-1-3",
    "libX11-xcb.so.1": "libx11-xcb1",
}

#: Loaded by Qt ≥ 6.5 at run time (dlopen), so ``ldd`` may not list it.
CURSOR_LIBRARY = "libxcb-cursor.so.0"

#: How long ``ldd`` may take (seconds).
LDD_TIMEOUT = 20


def missing_libraries(ldd_output: str) -> list[str]:
    """Libraries that ``ldd`` reports as ``not found``, each once, in the order listed."""
    missing: list[str] = []
    for line in ldd_output.splitlines():
        name, arrow, where = line.strip().partition("=>")
        if arrow and where.strip() == "not found" and name.strip() not in missing:
            missing.append(name.strip())
    return missing


def packages_for(libraries: Iterable[str]) -> list[str]:
    """The Debian/Ubuntu package of each library, each once (unknown libraries are skipped)."""
    packages: list[str] = []
    for library in libraries:
        package = DEBIAN_PACKAGES.get(library)
        if package is not None and package not in packages:
            packages.append(package)
    return packages


def missing_libraries_message(libraries: list[str]) -> str:
    """One line: what is missing, and what to install."""
    advice = []
    packages = packages_for(libraries)
    if packages:
        advice.append(f"on Debian or Ubuntu: sudo apt install {' '.join(packages)}")
    unknown = [library for library in libraries if library not in DEBIAN_PACKAGES]
    if unknown:
        advice.append(f"install the packages that provide {', '.join(unknown)}")
    return (
        "the window cannot open: Qt's xcb platform plugin needs "
        f"{', '.join(libraries)}, which {'is' if len(libraries) == 1 else 'are'} not installed; "
        + "; ".join(advice)
    )


def would_use_xcb(environ: Mapping[str, str], system: str = sys.platform) -> bool:
    """Whether Qt would open its windows with the xcb (X11) platform plugin.

    On Linux, when ``QT_QPA_PLATFORM`` is ``xcb``, or unset outside a Wayland
    session (there Qt tries its Wayland plugin first).
    """
    if not system.startswith("linux"):
        return False
    platform = _chosen_platform(environ)
    if platform:
        return platform == "xcb"
    wayland = environ.get("WAYLAND_DISPLAY") or environ.get("XDG_SESSION_TYPE") == "wayland"
    return not wayland


def display_problem(environ: Mapping[str, str], system: str = sys.platform) -> str | None:
    """Why no window can open for lack of a display, or ``None`` (a display, or not needed)."""
    if not system.startswith("linux"):
        return None
    platform = _chosen_platform(environ)
    if platform == "xcb" and not environ.get("DISPLAY"):
        return "no display to open the window on: QT_QPA_PLATFORM is xcb but DISPLAY is unset"
    if platform == "wayland" and not environ.get("WAYLAND_DISPLAY"):
        return (
            "no display to open the window on: QT_QPA_PLATFORM is wayland "
            "but WAYLAND_DISPLAY is unset"
        )
    if not platform and not (environ.get("DISPLAY") or environ.get("WAYLAND_DISPLAY")):
        return "no display to open the window on (DISPLAY and WAYLAND_DISPLAY are unset)"
    return None


def library_problem(environ: Mapping[str, str], system: str = sys.platform) -> str | None:
    """Why Qt's xcb plugin would fail to load, or ``None`` (it loads, or is not used)."""
    if not would_use_xcb(environ, system):
        return None
    missing = xcb_missing_libraries()
    return missing_libraries_message(missing) if missing else None


def xcb_missing_libraries() -> list[str]:
    """System libraries that PySide6's xcb platform plugin needs and cannot find."""
    plugin = xcb_plugin()
    missing = missing_libraries(ldd_output(plugin)) if plugin is not None else []
    if CURSOR_LIBRARY not in missing and not _loads(CURSOR_LIBRARY):
        missing.append(CURSOR_LIBRARY)
    return missing


def xcb_plugin() -> Path | None:
    """PySide6's ``libqxcb.so``, if PySide6 ships one."""
    spec = importlib.util.find_spec("PySide6")
    if spec is None or spec.origin is None:
        return None
    plugin = Path(spec.origin).parent / "Qt" / "plugins" / "platforms" / "libqxcb.so"
    return plugin if plugin.is_file() else None


def ldd_output(library: Path) -> str:
    """What ``ldd`` prints for ``library`` (empty without ``ldd``)."""
    try:
        done = subprocess.run(
            ["ldd", str(library)],
            capture_output=True,
            text=True,
            timeout=LDD_TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return done.stdout


def _loads(library: str) -> bool:
    try:
        ctypes.CDLL(library)
    except OSError:
        return False
    return True


def _chosen_platform(environ: Mapping[str, str]) -> str:
    """The first platform plugin ``QT_QPA_PLATFORM`` names, without its options ("" if unset)."""
    first = environ.get("QT_QPA_PLATFORM", "").split(";")[0]
    return first.split(":")[0].strip().lower()
