"""What every ``referee`` command shares: the options declared once, output checks,
progress bars and how results are written."""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeAlias

from referee.core.cli.input_checks import check_inputs
from referee.core.errors import InputFileError, InvalidOptionError
from referee.core.formats.text_files import exists_error, keeping_existing, write_text
from referee.core.model.videos import FrameRange
from referee.core.progress import ProgressCallback
from referee.core.pseudo.committee_options import CONSENSUS, STAPLE, CommitteeOptions
from referee.core.significance.choices import MIN_SEQUENCES, TESTS
from referee.core.workflow.options import (
    SCHEMES,
    BoxOptions,
    PixelOptions,
    RankingOptions,
    SignificanceOptions,
)

if TYPE_CHECKING:
    from referee.core.cache.store import FrameCache
    from referee.core.evaluation.batch import MissingResult

Parser = argparse.ArgumentParser
#: What ``add_subparsers`` returns: each command module adds its commands to it.
Commands: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"
#: Namespace attribute listing a command's output options (see :func:`add_output`).
OUTPUTS = "outputs"
#: The package of the core's own commands.
_PACKAGE = __name__.rpartition(".")[0]


# --- options declared once ---------------------------------------------------------------------


def add_force(parser: Parser, help: str = "overwrite output files that already exist") -> None:
    """``--force``: replace output files that exist."""
    parser.add_argument("--force", action="store_true", help=help)


def add_quiet(parser: Parser) -> None:
    """``--quiet``: no progress bar."""
    parser.add_argument("--quiet", action="store_true", help="no progress bar")


def add_cache(parser: Parser, what: str = "confusion counts") -> None:
    """``--cache DIR``: per-frame results (``what``) kept between runs."""
    parser.add_argument(
        "--cache",
        type=Path,
        metavar="DIR",
        help=f"keep per-frame {what} in DIR between runs: one table per video (and "
        "detector), each frame's row keyed by the size, inode and times of the files it "
        "was read from, with the ROI, the options that matter and Referee's version; a "
        "later run reads again only the frames whose files changed, with identical results. "
        "Safe to delete; bounded to 256 MiB (least recently used tables deleted first)",
    )


def open_cache(folder: Path | None) -> FrameCache | None:
    """The cache in ``folder`` (created if needed), or ``None`` without one.

    Raises
    ------
    InputFileError
        If ``folder`` is not a folder or cannot be created.
    """
    if folder is None:
        return None
    from referee.core.cache.store import FrameCache

    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputFileError(
            folder, f"cannot use it as the cache folder ({exc.strerror or exc})"
        ) from None
    return FrameCache(folder)


def add_workers(parser: Parser) -> None:
    """``--workers N``, or ``--scheduler ADDRESS`` / ``--dask-local N`` for a Dask cluster."""
    from referee.core.parallel import available_cores

    parser.add_argument(
        "--workers",
        type=whole_number(1),
        default=PixelOptions.workers,
        metavar="N",
        help=f"workers on this machine (default: every available core, {available_cores()} here)",
    )
    cluster = parser.add_mutually_exclusive_group()
    cluster.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="run on the Dask cluster whose scheduler is at ADDRESS (tcp://host:8786); "
        "every worker must see the dataset and results at the same paths (README: "
        "'Scale out')",
    )
    cluster.add_argument(
        "--dask-local",
        type=whole_number(1),
        metavar="N",
        help="run on a Dask cluster of N worker processes started on this machine",
    )


@contextmanager
def on_cluster(args: argparse.Namespace) -> Iterator[None]:
    """Run the block on the Dask cluster ``--scheduler`` or ``--dask-local`` names, if any.

    Raises
    ------
    InvalidOptionError
        ``--workers`` with a cluster (the cluster's workers are used).
    """
    scheduler, local = getattr(args, "scheduler", None), getattr(args, "dask_local", None)
    if scheduler is None and local is None:
        yield
        return
    if args.workers is not None:
        raise InvalidOptionError(
            "--workers counts workers on this machine; with --scheduler or --dask-local "
            "the cluster's workers are used: drop --workers"
        )
    from referee.core.cluster import connected, dashboard_link

    with connected(scheduler, local):
        if not getattr(args, "quiet", False):
            link = dashboard_link()
            print(
                f"Dask dashboard: {link}"
                if link
                else "Dask dashboard: not running (it needs bokeh: pip install 'referee[dask]')",
                file=sys.stderr,
            )
        yield


def add_frames(parser: Parser) -> None:
    """``--frames FIRST:LAST``: only these frames of each video's temporal ROI
    (docs/measures.md §1); the value is a :class:`FrameRange` or ``None``."""
    parser.add_argument(
        "--frames",
        type=frame_range,
        metavar="FIRST:LAST",
        help="read only frames FIRST to LAST (1-based, inclusive, CDnet's numbers) of each "
        "video's temporal ROI: the frames in both temporalROI.txt and the range; 'FIRST:' "
        "or ':LAST' leaves an end open (default: the whole temporal ROI; docs/measures.md §1)",
    )


def frames_parameter(frames: FrameRange | None) -> str | None:
    """How outputs record ``--frames``: ``FIRST:LAST``, or ``None`` for whole temporal ROIs."""
    return None if frames is None else str(frames)


def refuse_frames(frames: FrameRange | None, inputs: str) -> None:
    """Raise if ``--frames`` is given with ``inputs`` that are not a dataset's videos."""
    if frames is not None:
        raise InvalidOptionError(
            f"--frames chooses frames of a CDnet dataset's videos (DATASET RESULTS...), "
            f"not of {inputs}; leave it out"
        )


def add_consensus(parser: Parser) -> None:
    """``--consensus``: how pseudo ground truth is estimated (docs/measures.md §7)."""
    parser.add_argument(
        "--consensus",
        choices=CONSENSUS,
        default=CommitteeOptions.consensus,
        help="pseudo ground truth: 'staple', the posterior of a model of each detector's "
        "sensitivity and specificity fitted to each video's vote patterns by EM; "
        "'committee', the seed's mean vote, with the trivial all-ones and all-zeros "
        f"members unless --no-trivial (default {CommitteeOptions.consensus}, measured "
        "closer to the truth; README)",
    )


def committee_options(
    args: argparse.Namespace, weights: tuple[float, ...] | None = None
) -> CommitteeOptions:
    """The pseudo ground truth's options from ``--consensus``, ``--no-trivial``,
    ``--leave-one-out`` and ``--threshold`` (and detector ``weights``).

    Raises
    ------
    InvalidOptionError
        ``--no-trivial`` or detector weights with the model-based consensus.
    """
    if args.consensus == STAPLE:
        for given, flag in ((args.no_trivial, "--no-trivial"), (weights, "--weights-detectors")):
            if given:
                raise InvalidOptionError(
                    f"{flag} applies to --consensus committee; the model-based consensus "
                    "(staple) has no trivial members and weighs detectors by their "
                    "estimated reliability"
                )
    return CommitteeOptions(
        include_trivial=not args.no_trivial,
        leave_one_out=args.leave_one_out,
        weights=weights,
        threshold=args.threshold,
        consensus=args.consensus,
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


def add_block_length(parser: Parser, applies: str) -> None:
    """``--block-length L``: frames per block of the per-block tracking measures
    (docs/measures.md §5, "Tracking: intervals and tests"); ``None`` when not given."""
    parser.add_argument(
        "--block-length",
        type=int,
        metavar="L",
        help=f"{applies}: with fewer than {MIN_SEQUENCES} sequences, cut each sequence into "
        f"blocks of L consecutive frames, each evaluated once (tracks are cut at the "
        f"borders; default {BoxOptions.tracking_block})",
    )


def block_length(args: argparse.Namespace) -> int | None:
    """``--block-length``, or its default (:attr:`BoxOptions.tracking_block`)."""
    given: int | None = args.block_length
    return BoxOptions.tracking_block if given is None else given


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
    add_output(parser, "--json", json_help)
    if csv_help is not None:
        add_output(parser, "--csv", csv_help)
    add_force(parser)


#: What an output option names: a file, a folder of files, or either (see :func:`add_output`).
OutputKind = Literal["file", "folder", "file or folder"]


@dataclass(frozen=True)
class OutputOption:
    """An option naming something a command writes."""

    dest: str
    flag: str
    kind: OutputKind = "file"


def add_output(
    parser: Parser, flag: str, help: str, metavar: str = "FILE", kind: OutputKind = "file"
) -> None:
    """An output option; :func:`check_outputs` checks it before the command runs.

    A ``"file or folder"`` output is checked as a folder to be; the command
    checks the rest once it knows which.
    """
    action = parser.add_argument(flag, type=Path, metavar=metavar, help=help)
    declared = parser.get_default(OUTPUTS) or ()
    parser.set_defaults(**{OUTPUTS: (*declared, OutputOption(action.dest, flag, kind))})


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


def frame_range(value: str) -> FrameRange:
    """An argument type: ``FIRST:LAST``, ``FIRST:`` or ``:LAST``, whole numbers from 1."""
    ends = re.fullmatch(r"\s*([0-9]*)\s*:\s*([0-9]*)\s*", value)
    if ends is None or not any(ends.groups()):
        raise argparse.ArgumentTypeError(
            f"expected FIRST:LAST, FIRST: or :LAST with whole frame numbers, got {value!r}"
        )
    try:
        return FrameRange(*(int(end) if end else None for end in ends.groups()))
    except InvalidOptionError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


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


def run_command(args: argparse.Namespace) -> int:
    """Run the command parsed into ``args``; return its exit status.

    Its outputs are checked first (:func:`check_outputs`), then that its inputs exist
    (:func:`~referee.core.cli.input_checks.check_inputs`). A core command
    without ``--force`` replaces no existing file, not even one that appears
    while it runs; a plugin's command (the desktop application) writes as it chooses.
    """
    keep = is_core_command(args) and not getattr(args, "force", False)
    with keeping_existing(keep):
        check_outputs(args)
        check_inputs(args)
        with on_cluster(args):
            return int(args.run(args))


def is_core_command(args: argparse.Namespace) -> bool:
    """Whether ``args`` runs one of the core's own commands (not a plugin's)."""
    return str(args.run.__module__).startswith(_PACKAGE + ".")


def check_outputs(args: argparse.Namespace) -> None:
    """Check every output option of ``args`` before any work (see :func:`add_output`).

    Refuses two outputs at one path, an output that is one of the inputs, a
    missing or read-only folder, a folder where a file is written and the
    reverse, and, without ``--force``, an output file that exists. Writing
    checks existence again (another program may create the file meanwhile).

    Raises
    ------
    InputFileError, InvalidOptionError
        Naming the path.
    """
    given = [
        (option, Path(getattr(args, option.dest)))
        for option in getattr(args, OUTPUTS, ())
        if getattr(args, option.dest) is not None
    ]
    _refuse_shared_paths(args, given)
    force = getattr(args, "force", False)
    for option, path in given:
        if option.kind == "file":
            check_output_file(path, force)
        else:
            check_output_folder(path, option.flag, option.kind == "folder")


def check_output_file(path: Path, force: bool) -> None:
    """Raise unless ``path`` can be written: a new file in a writable folder, or, with
    ``force``, an existing regular file."""
    if path.is_dir():
        raise InputFileError(path, "is a folder; give the name of a file to write")
    if path.exists() and not path.is_file():
        raise InputFileError(
            path, "is not a regular file (a device, named pipe or socket); give a file name"
        )
    if path.exists() and not force:
        raise exists_error(path)
    _check_writable_folder(path, path.parent)


def check_output_folder(path: Path, flag: str, only_folder: bool = True) -> None:
    """Raise unless ``path`` is a folder, or can be made one, where files can be written.

    With ``only_folder`` false, an existing file is let through (for the command to check).
    """
    if only_folder and path.exists() and not path.is_dir():
        raise InputFileError(path, f"is a file; {flag} takes a folder")
    folder = path.parent if path.is_file() else path
    existing = next(p for p in (folder, *folder.absolute().parents) if p.exists())
    _check_writable_folder(path, existing)


def refuse_overwrite(paths: Sequence[Path | None], force: bool) -> None:
    """Raise if an output file exists and ``--force`` was not given."""
    for path in paths:
        if path is not None and path.exists() and path.is_file() and not force:
            raise exists_error(path)


def _check_writable_folder(path: Path, folder: Path) -> None:
    where = folder if str(folder) else Path(".")
    if not where.is_dir():
        raise InputFileError(
            path, f"cannot write here: {where} is not an existing folder; create it first"
        )
    if not os.access(where, os.W_OK | os.X_OK):
        raise InputFileError(
            path, f"cannot write here: the folder {where} is not writable; choose another place"
        )


def _refuse_shared_paths(
    args: argparse.Namespace, given: Sequence[tuple[OutputOption, Path]]
) -> None:
    """Two outputs at one path, or an output over an input file, would lose one of them."""
    seen: dict[str, OutputOption] = {}
    for option, path in given:
        key = _identity(path)
        if key in seen:
            raise InvalidOptionError(
                f"{seen[key].flag} and {option.flag} both write {path}; "
                "give each output its own name"
            )
        seen[key] = option
    files = {key: option for key, option in seen.items() if option.kind != "folder"}
    outputs = {option.dest for option, _ in given}
    for dest, value in vars(args).items():
        for item in value if isinstance(value, list) else [value]:
            if dest not in outputs and isinstance(item, Path) and _identity(item) in files:
                raise InvalidOptionError(
                    f"{files[_identity(item)].flag} {item} would overwrite the input {item}; "
                    "write the output elsewhere"
                )


def _identity(path: Path) -> str:
    """The file ``path`` names, symbolic links and ``..`` resolved."""
    return os.path.normcase(os.path.realpath(path))


#: The exit status of a run on a cluster that left results out (each named on stderr).
EXIT_INCOMPLETE = 3


def report_missing(missing: Sequence[MissingResult]) -> int:
    """Warn, one line each, of the results a cluster run left out; the exit status."""
    for found in missing:
        print(
            f"referee: warning: {found.method} on {found.video} is left out of the summaries: "
            f"{found.reason}",
            file=sys.stderr,
        )
    return EXIT_INCOMPLETE if missing else 0


def missing_parameters(missing: Sequence[MissingResult]) -> dict[str, object]:
    """What an output file records of the results left out (nothing when none is)."""
    if not missing:
        return {}
    return {
        "missing": [{"method": m.method, "video": m.video, "reason": m.reason} for m in missing]
    }


#: JSON up to this many characters is written indented, one value a line; longer JSON on
#: one line (Python's indenting encoder is about seven times slower).
INDENTED_JSON_LIMIT = 1_000_000


def write_json(path: Path, document: dict[str, Any]) -> None:
    """``document`` as JSON in ``path``, atomically: indented when it is short
    (:data:`INDENTED_JSON_LIMIT`), else on one line."""
    text = json.dumps(document, ensure_ascii=False)
    if len(text) <= INDENTED_JSON_LIMIT:
        text = json.dumps(document, indent=1, ensure_ascii=False)
    write_text(path, text + "\n")


@contextmanager
def progress_bar(description: str, unit: str, quiet: bool = False) -> Iterator[ProgressCallback]:
    """A progress callback drawing a bar on stderr, closed when the block ends; with
    ``quiet``, one that draws nothing (and the bar's library is not even imported)."""
    if quiet:
        yield lambda done, total: None
        return
    from tqdm import tqdm

    bar = tqdm(
        desc=description,
        unit=unit,
        disable=None,  # no bar when stderr is not a terminal
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
