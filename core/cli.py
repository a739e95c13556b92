"""The ``referee`` command line.

Every sub-command is a thin layer over library functions: parse the options,
call ``referee.core``, print or write the result. A :class:`RefereeError`
(bad input, bad option) is printed as one line and exits with status 2;
there is never a traceback for a user's mistake.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from . import __version__
from .errors import InputFileError, RefereeError
from .summarize import WEIGHT_SCHEMES

EXIT_USER_ERROR = 2
EXIT_INTERRUPTED = 130

DESCRIPTION = """\
Referee evaluates video-analysis algorithms against ground truth.

Typical use:
  referee                              open the desktop application on the demo project
  referee gui PATH                     open a project, dataset folder or video in it
  referee demo                         make a small demo dataset and evaluate it
  referee evaluate DATASET RESULTS...  evaluate background-subtraction results
  referee summarize CM.csv...          summarize published per-video counts
  referee actions GT.xml DET.xml       LIRIS HARL action localization
  referee boxes GT DET                 per-frame boxes (SFDA, MODA, N-MODP)
  referee counts GT.csv EST.csv -w W   counting (CCR_WCC)
  referee pseudo DATASET RESULTS...    quality without ground truth (pseudo ground truth)
  referee rank DATASET RESULTS...      which frames to annotate next
  referee significance DATASET A B --a A --b B   do two methods really differ?
  referee report PROJECT --html FILE --pdf FILE  a stand-alone report of everything
"""


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``referee`` command; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not hasattr(args, "run"):  # no command: the desktop application on the demo
        from .cli_gui import run_gui

        args = argparse.Namespace(path=None, screenshot=None, demo_dir=None, force=False)
        args.run = run_gui
    try:
        return args.run(args)
    except RefereeError as error:
        print(f"referee: error: {error}", file=sys.stderr)
        return EXIT_USER_ERROR
    except KeyboardInterrupt:
        print("referee: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every sub-command."""
    parser = argparse.ArgumentParser(
        prog="referee",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"referee {__version__}")
    commands = parser.add_subparsers(title="commands", metavar="COMMAND")
    # Each family of commands lives in its own module.
    from . import (
        cli_actions,
        cli_boxes_counts,
        cli_gui,
        cli_pixels,
        cli_pseudo,
        cli_rank,
        cli_report,
        cli_significance,
    )

    cli_pixels.add_commands(commands)
    cli_actions.add_commands(commands)
    cli_boxes_counts.add_commands(commands)
    cli_pseudo.add_commands(commands)
    cli_rank.add_commands(commands)
    cli_significance.add_commands(commands)
    cli_report.add_commands(commands)
    cli_gui.add_commands(commands)
    return parser


def add_output_options(parser: argparse.ArgumentParser) -> None:
    """Options shared by every command that summarizes confusion matrices."""
    parser.add_argument(
        "--weights",
        choices=[s for s in WEIGHT_SCHEMES if s != "custom"],
        default="auto",
        help="how videos are weighted in the summary (SPEC §2): 'video' uniform, 'category' "
        "1/C per category split over its videos, 'pixels' pooled counts; 'auto' "
        "(default) is 'category' when videos have categories, else 'video'",
    )
    parser.add_argument(
        "--weights-csv",
        type=Path,
        metavar="FILE",
        help="custom weights: CSV 'category,video,weight' (overrides --weights)",
    )
    parser.add_argument(
        "--rank-by",
        default="f1",
        metavar="INDICATOR",
        help="indicator used to compare the rankings of the two procedures (default: f1)",
    )
    parser.add_argument(
        "--json", type=Path, metavar="FILE", help="write every result, machine-readable, to FILE"
    )
    parser.add_argument(
        "--csv",
        type=Path,
        metavar="FILE",
        help="write one row per video and method plus summary rows to FILE",
    )
    parser.add_argument(
        "--stats-txt",
        type=Path,
        metavar="PATH",
        help="write CDnet's official stats.txt; with several methods, PATH is a folder "
        "that gets <method>/stats.txt",
    )
    parser.add_argument(
        "--per-video", action="store_true", help="also print the per-video table of each method"
    )
    parser.add_argument(
        "--force", action="store_true", help="overwrite output files that already exist"
    )


def refuse_overwrite(paths: Sequence[Path | None], force: bool) -> None:
    """Raise if an output file exists and ``--force`` was not given."""
    for path in paths:
        if path is not None and path.exists() and path.is_file() and not force:
            raise InputFileError(
                path, "already exists; choose another name or add --force to overwrite it"
            )


def tqdm_progress(
    description: str, unit: str, enabled: bool = True
) -> tuple[Callable[[int, int], None], Callable[[], None]]:
    """A progress callback that drives a tqdm bar on stderr, and a function closing it."""
    from tqdm import tqdm

    bar = tqdm(
        desc=description,
        unit=unit,
        disable=not enabled or None,
        file=sys.stderr,
        dynamic_ncols=True,
        leave=False,
    )

    def progress(done: int, total: int) -> None:
        if bar.total != total:
            bar.total = total
        bar.n = done
        bar.refresh()

    return progress, bar.close


def parse_workers(value: str) -> int:
    """``--workers`` value: a positive integer."""
    try:
        workers = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {value!r}") from None
    if workers < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return workers


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
