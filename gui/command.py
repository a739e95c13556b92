"""``referee gui``: open the desktop application (Qt is imported only when it runs)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from referee.core.cli.common import refuse_overwrite
from referee.core.demo.project import default_demo_dir
from referee.core.errors import RefereeError


def add_commands(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "gui",
        help="open the desktop application (also what 'referee' alone does)",
        description="Open the desktop application on a project file (*.referee.json), a CDnet "
        "dataset or video folder, or a video file; without PATH, on the built-in "
        "demo project (generated into Referee's data folder the first time).",
    )
    parser.add_argument(
        "path",
        nargs="?",
        type=Path,
        metavar="PATH",
        help="project file, dataset folder or video (default: the demo project)",
    )
    parser.add_argument(
        "--screenshot",
        type=Path,
        metavar="FILE.png",
        help="load, evaluate, save a picture of the window to FILE.png and quit",
    )
    parser.add_argument(
        "--demo-dir",
        type=Path,
        metavar="DIR",
        help="where the demo project lives (default: Referee's user data folder)",
    )
    parser.add_argument(
        "--force", action="store_true", help="overwrite the screenshot file if it exists"
    )
    parser.set_defaults(run=run_gui)


def run_gui(args: argparse.Namespace) -> int:
    refuse_overwrite([args.screenshot], args.force)
    if not _has_display():
        if args.screenshot is None:
            raise RefereeError(
                "no display to open the window on (DISPLAY and WAYLAND_DISPLAY "
                "are unset); use --screenshot FILE.png to render without one"
            )
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
    from referee.gui.app import run

    return run(args.path, args.demo_dir or default_demo_dir(), args.screenshot)


def _has_display() -> bool:
    """Whether Qt can open a window: a chosen platform plugin, a display, or not Linux."""
    if os.environ.get("QT_QPA_PLATFORM") or not sys.platform.startswith("linux"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
