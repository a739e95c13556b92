"""``referee gui``: open the desktop application (Qt is imported only when it runs)."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from referee.core.errors import InvalidOptionError, RefereeError

#: Window size of ``--screenshot`` unless ``--size`` says otherwise (a common laptop).
DEFAULT_SIZE = "1366x768"
#: Smallest and largest window side ``--size`` accepts, in pixels.
SIZE_LIMITS = (320, 8192)

#: FFmpeg's log level inside OpenCV: quiet. The GUI reports an unreadable video in a dialog
#: (and ``--screenshot`` in one line); FFmpeg's own console lines would only add noise.
OPENCV_FFMPEG_QUIET = "-8"


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
        "--size",
        default=DEFAULT_SIZE,
        metavar="WIDTHxHEIGHT",
        help="window size of the screenshot, in pixels (default: %(default)s)",
    )
    parser.add_argument("--dark", action="store_true", help="take the screenshot in the dark theme")
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
    from referee.core.cli.common import refuse_overwrite
    from referee.core.cli.input_checks import absent
    from referee.core.workflow.opening import missing_error

    size = window_size(args.size)  # a bad one is said in one line, before Qt starts
    refuse_overwrite([args.screenshot], args.force)
    if args.screenshot is not None and args.path is not None and absent(args.path):
        # Said before Qt and the libraries load, as the window would say it; without
        # --screenshot the window opens and says it in a dialog.
        raise missing_error(args.path)
    from referee.core.demo.project import default_demo_dir, prepare_in_background
    from referee.gui.platform_check import display_problem, library_problem

    no_display = display_problem(os.environ)
    if no_display is not None:
        if args.screenshot is None:
            raise RefereeError(f"{no_display}; use --screenshot FILE.png to render without one")
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
    # Said before Qt starts: Qt itself would abort the process without saying what to install.
    missing = library_problem(os.environ)
    if missing is not None:
        raise RefereeError(missing)
    os.environ.setdefault("OPENCV_FFMPEG_LOGLEVEL", OPENCV_FFMPEG_QUIET)
    demo_root = args.demo_dir or default_demo_dir()
    if args.path is None:  # the demo: prepared (written the first time) while Qt loads
        prepare_in_background(demo_root)
    from referee.gui.app import run

    return run(
        args.path,
        demo_root,
        args.screenshot,
        size=size,
        dark=args.dark,
    )


def window_size(text: str) -> tuple[int, int]:
    """``WIDTHxHEIGHT`` as two whole numbers of pixels within :data:`SIZE_LIMITS`; raises
    :class:`InvalidOptionError` naming ``--size`` otherwise."""
    low, high = SIZE_LIMITS
    parts = text.lower().split("x")
    if len(parts) != 2 or not all(p.strip().isdigit() for p in parts):
        raise InvalidOptionError(f"--size {text!r} is not WIDTHxHEIGHT, e.g. 1366x768")
    width, height = (int(p) for p in parts)
    if not (low <= width <= high and low <= height <= high):
        raise InvalidOptionError(f"--size {text!r}: each side must be {low} to {high} pixels")
    return width, height
