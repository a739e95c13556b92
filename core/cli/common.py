"""What every ``referee`` command shares: the options declared once, output checks,
progress bars and how results are written."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeAlias

from referee.core.errors import InputFileError, InvalidOptionError
from referee.core.formats.text_files import write_text
from referee.core.progress import ProgressCallback
from referee.core.significance.sweep import TESTS
from referee.core.workflow.options import (
    SCHEMES,
    PixelOptions,
    RankingOptions,
    SignificanceOptions,
)

Parser = argparse.ArgumentParser
#: What ``add_subparsers`` returns: each command module adds its commands to it.
Commands: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"


# --- options declared once ---------------------------------------------------------------------


def add_force(parser: Parser) -> None:
    """``--force``: replace output files that exist."""
    parser.add_argument(
        "--force", action="store_true", help="overwrite output files that already exist"
    )


def add_quiet(parser: Parser) -> None:
    """``--quiet``: no progress bar."""
    parser.add_argument("--quiet", action="store_true", help="no progress bar")


def add_workers(parser: Parser) -> None:
    """``--workers N``: worker processes."""
    parser.add_argument(
        "--workers",
        type=whole_number(1),
        default=PixelOptions.workers,
        metavar="N",
        help=f"number of worker processes (default {PixelOptions.workers})",
    )


def add_threshold(parser: Parser, what: str = "a mask pixel") -> None:
    """``--threshold T``: the detection rule of masks (docs/measures.md §1)."""
    parser.add_argument(
        "--threshold",
        type=int,
        metavar="T",
        help=f"{what} is a detection iff its value >= T (soft or lossy masks); "
        "default: iff it is exactly 255",
    )


def add_weights(parser: Parser) -> None:
    """``--weights``: how videos weigh in summaries (docs/measures.md §2)."""
    parser.add_argument(
        "--weights",
        choices=SCHEMES,
        default=PixelOptions.weights,
        help="how videos are weighted in the summary (docs/measures.md §2): 'video' "
        "uniform, 'category' 1/C per category split over its videos, 'pixels' pooled "
        "counts; 'auto' (default) is 'category' when videos have categories, else 'video'",
    )


def add_pair(parser: Parser, what: str) -> None:
    """``--a NAME --b NAME``: the two detectors compared."""
    parser.add_argument("--a", metavar="NAME", help=f"first detector {what} (with --b)")
    parser.add_argument("--b", metavar="NAME", help=f"second detector {what} (with --a)")


def add_ranking_list(parser: Parser) -> None:
    """``--top``, ``--gap``, ``--include-annotated``: the list of frames to annotate
    (docs/measures.md §8)."""
    parser.add_argument(
        "--top",
        type=whole_number(1),
        metavar="N",
        help="frames to annotate: list at most N (default: every frame left by the gap rule)",
    )
    parser.add_argument(
        "--gap",
        type=whole_number(0),
        default=RankingOptions.gap,
        metavar="G",
        help=f"frames to annotate: drop frames within ±G frames of a chosen one (default "
        f"{RankingOptions.gap}; 0 keeps every frame)",
    )
    parser.add_argument(
        "--include-annotated",
        action="store_true",
        help="frames to annotate: also rank frames that already have ground truth "
        "(default: they are left out)",
    )


def add_test(parser: Parser) -> None:
    """``--test`` and ``--alpha`` of the discriminative evaluation (docs/measures.md §9)."""
    parser.add_argument(
        "--test",
        choices=TESTS,
        default=SignificanceOptions.test,
        help="auto (default): the paired t-test for two methods, the repeated-measures "
        "ANOVA for more; or t, wilcoxon, welch for two, anova, friedman for more",
    )
    parser.add_argument(
        "--alpha",
        type=fraction,
        default=SignificanceOptions.alpha,
        metavar="A",
        help=f"significance level (default {SignificanceOptions.alpha})",
    )


def add_outputs(parser: Parser, json_help: str, csv_help: str | None = None) -> None:
    """``--json FILE`` (and ``--csv FILE``), with ``--force``."""
    parser.add_argument("--json", type=Path, metavar="FILE", help=json_help)
    if csv_help is not None:
        parser.add_argument("--csv", type=Path, metavar="FILE", help=csv_help)
    add_force(parser)


def chosen_pair(args: argparse.Namespace) -> tuple[str, str] | None:
    """The ``--a``/``--b`` detectors, or ``None`` when neither is given.

    Raises
    ------
    InvalidOptionError
        Only one of them, or the same detector twice.
    """
    if (args.a is None) != (args.b is None):
        raise InvalidOptionError("give both --a and --b, or neither")
    if args.a is None:
        return None
    if args.a == args.b:
        raise InvalidOptionError(f"--a and --b are both {args.a!r}; choose two different methods")
    return (args.a, args.b)


def whole_number(minimum: int) -> Callable[[str], int]:
    """An argument type: a whole number ``>= minimum``."""

    def parse(value: str) -> int:
        try:
            number = int(value)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {value!r}") from None
        if number < minimum:
            raise argparse.ArgumentTypeError(
                "must be at least 1" if minimum == 1 else f"must be {minimum} or more"
            )
        return number

    return parse


def fraction(value: str) -> float:
    """An argument type: a number strictly between 0 and 1."""
    try:
        number = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {value!r}") from None
    if not 0 < number < 1:
        raise argparse.ArgumentTypeError("must be between 0 and 1 (exclusive)")
    return number


# --- outputs and progress ------------------------------------------------------------------------


def refuse_overwrite(paths: Sequence[Path | None], force: bool) -> None:
    """Raise if an output file exists and ``--force`` was not given."""
    for path in paths:
        if path is not None and path.exists() and path.is_file() and not force:
            raise InputFileError(
                path, "already exists; choose another name or add --force to overwrite it"
            )


def write_json(path: Path, document: dict[str, Any]) -> None:
    """``document`` as JSON in ``path``, atomically."""
    write_text(path, json.dumps(document, indent=1, ensure_ascii=False) + "\n")


@contextmanager
def progress_bar(description: str, unit: str, quiet: bool = False) -> Iterator[ProgressCallback]:
    """A progress callback drawing a bar on stderr, closed when the block ends."""
    from tqdm import tqdm

    bar = tqdm(
        desc=description,
        unit=unit,
        disable=quiet or None,
        file=sys.stderr,
        dynamic_ncols=True,
        leave=False,
    )

    def progress(done: int, total: int) -> None:
        if bar.total != total:
            bar.total = total
        bar.n = done
        bar.refresh()

    try:
        yield progress
    finally:
        bar.close()
