"""Whole-process speed of ``referee evaluate`` against the official CDnet C++ comparator.

One run, side by side, on the real CDnet highway video (the 1,231 frames of
its temporal ROI) and the masks of five OpenCV detectors (MOG2, KNN, bgsegm
MOG, bgsegm CNT, frame differencing: ``highway_detectors.py``, computed once
into a cache outside the repository). Every row times whole processes, start-up
included, as the wall time of ``subprocess.run``; the rows take turns within
each round (the machine is shared and noisy) and the median of ``--rounds``
rounds is kept:

* decode-only: a minimal process that decodes the same ground-truth and
  result PNGs and nothing else, once as a C++ program (``cv::imread``, built
  like the comparator), once as a Python one (``cv2.imread``) and once with
  Referee's reader (``images.load_grey``, which decodes these grey PNGs with
  ``png_decode.decode_grey_png``, as ``referee evaluate`` does), for 1 and for
  5 methods; and the same files decoded in this process from memory (no
  start-up, no file access), OpenCV against Referee's decoder, their arrays
  checked identical;
* the CDnet comparator for 1 method (MOG2), and run once per method for 5;
* ``referee evaluate DATASET M1`` and ``referee evaluate DATASET M1 … M5``
  (``--quiet``), with ``--workers 1`` and with all available cores.

Before timing, it checks that the comparator's counts (TP, FP, FN, TN and
shadow errors) equal ``referee evaluate``'s for every method, and prints
whether they do. Then it prints the ratios set as targets: ``referee evaluate``
on all cores / the comparator, for one method (<= 0.45), and for 5 methods /
the comparator run once per method (<= 0.3).

The comparator is built (``comparator_build.py``) from the public source of
changedetection.net's 2014 utilities, given with ``--comparator-source DIR``
(the utilities' ``c++ code`` folder, holding ``mainComparator.cpp``,
``Comparator.*``, ``VideoFolder.*`` and ``types.h``; the archive is mirrored
unchanged in the first commit of https://github.com/nsuja/CD2014_process_results),
or given built with ``--comparator BINARY``. It writes its ``stats.txt`` into
the video folder it is given, so it is given a folder of the cache made of
symbolic links to the dataset's ``groundtruth/``, ``ROI.bmp`` and
``temporalROI.txt``: the dataset is read in place and never written. When the compiler, the OpenCV headers or the source
is missing, one line says which and the other rows are still timed.

Usage: python benchmarks/cdnet_comparator.py [--comparator-source DIR | --comparator BINARY]
       [--rounds N] [--cache DIR] [--build-cache DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from comparator_build import Build, build_comparator, build_decoder, find_toolchain
from highway_detectors import DEFAULT_CACHE, HIGHWAY, highway_results

from referee.core.formats.cdnet import load_video, read_grey
from referee.core.formats.png_decode import decode_grey_png
from referee.core.model.videos import GROUNDTRUTH_DIR, ROI_FILE, TEMPORAL_ROI_FILE, VideoSpec

#: tp, fp, fn, tn and shadow errors, in the comparator's order.
Counts = tuple[int, int, int, int, int]

PYTHON_DECODE = """\
import sys
import cv2
first, last, gt, *results = sys.argv[1:]
pixels = 0
for i in range(int(first), int(last) + 1):
    pixels += cv2.imread(f"{gt}/gt{i:06d}.png", cv2.IMREAD_GRAYSCALE).size
    for folder in results:
        pixels += cv2.imread(f"{folder}/bin{i:06d}.png", cv2.IMREAD_GRAYSCALE).size
print(pixels)
"""
FAST_DECODE = """\
import sys
from referee.core.formats.images import load_grey
first, last, gt, *results = sys.argv[1:]
pixels = 0
for i in range(int(first), int(last) + 1):
    pixels += load_grey(f"{gt}/gt{i:06d}.png", "ground truth", i).size
    for folder in results:
        pixels += load_grey(f"{folder}/bin{i:06d}.png", "result", i).size
print(pixels)
"""
#: The five detectors of the 5-method rows (the first of them alone for 1 method).
FIVE_METHODS: tuple[str, ...] = ("mog2", "knn", "mog", "cnt", "framediff")
#: The targets: referee evaluate on all cores / the comparator, for 1 method and for
#: 5 methods against the comparator run once per method.
TARGETS = {1: 0.45, 5: 0.3}


@dataclass(frozen=True)
class Row:
    """One line of the table: processes run one after the other, their wall times summed."""

    label: str
    commands: tuple[tuple[str, ...], ...]
    before_each: Callable[[], None] | None = None
    #: What the (single) process must print when checked before timing, if anything.
    expected_output: str | None = None


def referee_program() -> str:
    """The ``referee`` console script of this Python (not a shim that would add its own start-up)."""
    beside = Path(sys.executable).with_name("referee")
    found = str(beside) if beside.is_file() else shutil.which("referee")
    if found is None:
        raise SystemExit("referee is not installed (no 'referee' next to python or on PATH)")
    return found


def run_checked(command: list[str] | tuple[str, ...]) -> str:
    """Run one untimed process and return what it printed; stop with its error if it fails."""
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        error = (done.stderr.strip().splitlines() or ["no message"])[-1]
        raise SystemExit(f"{' '.join(command)} failed ({done.returncode}): {error}")
    return done.stdout


def comparator_video_folder(video: VideoSpec, build_cache: Path) -> Path:
    """A video folder for the comparator: links to the dataset's files, so that the
    ``stats.txt`` it appends to lands in the cache, not in the dataset."""
    folder = build_cache / f"video-{video.name}"
    folder.mkdir(parents=True, exist_ok=True)
    for name in (GROUNDTRUTH_DIR, ROI_FILE, TEMPORAL_ROI_FILE):
        link = folder / name
        if link.is_symlink() and link.resolve() == (video.folder / name).resolve():
            continue
        link.unlink(missing_ok=True)
        link.symlink_to(video.folder / name)
    return folder


def comparator_counts(comparator: Path, video_folder: Path, results: Path) -> Counts:
    """Run the comparator once and read the confusion matrix of its ``stats.txt``
    (``cm: TP FP FN TN SE``)."""
    stats = video_folder / "stats.txt"
    stats.unlink(missing_ok=True)
    run_checked([str(comparator), str(video_folder), str(results)])
    if not stats.is_file():
        raise SystemExit(f"the comparator wrote no {stats} for {results}")
    fields = stats.read_text().rsplit("cm:", 1)[-1].split()
    tp, fp, fn, tn, se = (int(f) for f in fields)
    return tp, fp, fn, tn, se


def referee_counts(referee: str, results: dict[str, Path], work: Path) -> dict[str, Counts]:
    """Each method's counts from one ``referee evaluate --json`` run over all of them."""
    output = work / "referee-counts.json"
    output.unlink(missing_ok=True)
    command = [referee, "evaluate", str(HIGHWAY), *map(str, results.values())]
    run_checked([*command, "--quiet", "--json", str(output)])
    counts = {}
    for method in json.loads(output.read_text())["methods"]:
        (video,) = method["videos"]
        c = video["counts"]
        counts[method["method"]] = (c["tp"], c["fp"], c["fn"], c["tn"], c["se"])
    return counts


def check_outputs(rows: list[Row]) -> None:
    """Run each row that has an expected output once, untimed, and check what it prints."""
    for row in rows:
        if row.expected_output is None:
            continue
        (command,) = row.commands
        printed = run_checked(command)
        if printed.strip() != row.expected_output:
            raise SystemExit(f"{row.label}: printed {printed!r}, expected {row.expected_output}")


def run_seconds(row: Row) -> float:
    """Wall time of the row's processes, start-up included (the preparation excluded)."""
    total = 0.0
    for command in row.commands:
        if row.before_each is not None:
            row.before_each()
        start = time.perf_counter()
        done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        total += time.perf_counter() - start
        if done.returncode != 0:
            error = (done.stderr.decode(errors="replace").strip().splitlines() or ["no message"])[
                -1
            ]
            raise SystemExit(
                f"{row.label}: {' '.join(command)} failed ({done.returncode}): {error}"
            )
    return total


def time_rows(rows: list[Row], rounds: int) -> dict[str, list[float]]:
    """Each row's times over ``rounds`` rounds; the starting row turns from round to round."""
    times: dict[str, list[float]] = {row.label: [] for row in rows}
    for r in range(rounds):
        shift = r % len(rows)
        for row in rows[shift:] + rows[:shift]:
            times[row.label].append(run_seconds(row))
    return times


def prepared_comparator(args: argparse.Namespace) -> tuple[Path | None, list[str]]:
    """The comparator to time, and the lines that say how it was obtained or what is missing."""
    if args.comparator is not None:
        if os.access(args.comparator, os.X_OK) and args.comparator.is_file():
            return args.comparator, [f"comparator: {args.comparator} (given built)"]
        return None, [f"comparator: skipped, {args.comparator} is not an executable file"]
    if args.comparator_source is None:
        return None, [
            "comparator: skipped, no source (give --comparator-source DIR, the folder of "
            "changedetection.net's comparator source, or --comparator BINARY)"
        ]
    toolchain = find_toolchain()
    if isinstance(toolchain, str):
        return None, [f"comparator: skipped, {toolchain}"]
    built = build_comparator(args.comparator_source, toolchain, args.build_cache)
    if isinstance(built, str):
        return None, [f"comparator: skipped, {built}"]
    return built.binary, _build_lines("comparator", built, f"OpenCV {toolchain.opencv_version}")


def prepared_decoder(build_cache: Path) -> tuple[Path | None, list[str]]:
    """The decode-only C++ program, and the lines that say how it was built or what is missing."""
    toolchain = find_toolchain()
    if isinstance(toolchain, str):
        return None, [f"decode-only C++: skipped, {toolchain}"]
    built = build_decoder(toolchain, build_cache)
    if isinstance(built, str):
        return None, [f"decode-only C++: skipped, {built}"]
    return built.binary, _build_lines(
        "decode-only C++", built, f"OpenCV {toolchain.opencv_version}"
    )


def _build_lines(what: str, built: Build, against: str) -> list[str]:
    state = "reused" if built.reused else "built"
    lines = [f"{what}: {state} {built.binary} ({against})", f"  build: {' '.join(built.command)}"]
    lines += [f"  adapted {text}" for text in built.adaptations]
    return lines


def _methods(count: int) -> str:
    return f"{count} method{'s' if count > 1 else ''}"


def comparator_label(count: int) -> str:
    """The comparator's row for ``count`` methods."""
    return f"CDnet comparator, {_methods(count)}" + (", run once per method" * (count > 1))


def referee_label(count: int, workers: int) -> str:
    """``referee evaluate``'s row for ``count`` methods and ``workers`` workers."""
    return f"referee evaluate, {_methods(count)}, --workers {workers}"


def decode_rows(
    video: VideoSpec, method_sets: list[dict[str, Path]], decoder: Path | None, image_pixels: int
) -> list[Row]:
    """Decode-only rows, Python and (when built) C++, for each set of methods; each must
    print the number of pixels of the frames' ground-truth and result images."""
    rows = []
    frames = (str(video.first), str(video.last), str(video.folder / GROUNDTRUTH_DIR))
    for methods in method_sets:
        folders = tuple(map(str, methods.values()))
        programs: list[tuple[str, tuple[str, ...]]] = [
            ("Python cv2.imread", (sys.executable, "-c", PYTHON_DECODE)),
            ("Python load_grey", (sys.executable, "-c", FAST_DECODE)),
        ]
        if decoder is not None:
            programs.insert(0, ("C++ cv::imread", (str(decoder),)))
        for language, program in programs:
            label = f"decode-only, {language}, GT + {_methods(len(methods))}"
            pixels = video.n_frames * (1 + len(methods)) * image_pixels
            rows.append(Row(label, ((*program, *frames, *folders),), None, str(pixels)))
    return rows


def comparator_rows(
    comparator: Path, folder: Path, method_sets: list[dict[str, Path]]
) -> list[Row]:
    """The comparator for one method, and run once per method for several; its
    ``stats.txt`` is removed before each run, as CDnet's ``processFolder.py`` does."""
    stats = folder / "stats.txt"
    rows = []
    for methods in method_sets:
        commands = tuple((str(comparator), str(folder), str(r)) for r in methods.values())
        rows.append(
            Row(comparator_label(len(methods)), commands, lambda: stats.unlink(missing_ok=True))
        )
    return rows


def referee_rows(
    referee: str, method_sets: list[dict[str, Path]], workers: tuple[int, ...]
) -> list[Row]:
    """``referee evaluate --quiet`` on each set of methods with each number of workers."""
    rows = []
    for methods in method_sets:
        command = (referee, "evaluate", str(HIGHWAY), *map(str, methods.values()), "--quiet")
        for n in workers:
            label = referee_label(len(methods), n)
            rows.append(Row(label, ((*command, "--workers", str(n)),)))
    return rows


def print_counts(comparator: Path, folder: Path, referee: str, results: dict[str, Path]) -> None:
    """Whether the comparator's counts equal ``referee evaluate``'s, method by method."""
    theirs = {m: comparator_counts(comparator, folder, r) for m, r in results.items()}
    ours = referee_counts(referee, results, folder.parent)
    verdict = "agree" if all(theirs[m] == ours.get(m) for m in results) else "DISAGREE"
    print(f"counts (tp fp fn tn shadow-errors), comparator vs referee evaluate: {verdict}")
    for m in results:
        same = "same" if theirs[m] == ours.get(m) else f"referee: {ours.get(m)}"
        print(f"  {m:<10} {' '.join(map(str, theirs[m]))}  ({same})")


def print_table(times: dict[str, list[float]], rounds: int) -> None:
    """Median, minimum and maximum of each row."""
    print(f"\nwhole processes, wall time in seconds, median of {rounds} rounds")
    print(f"{'':<60} {'median':>7} {'min':>7} {'max':>7}")
    for label, ts in times.items():
        print(f"{label:<60} {statistics.median(ts):7.3f} {min(ts):7.3f} {max(ts):7.3f}")


def print_ratios(medians: dict[str, float], n: int, workers: tuple[int, ...]) -> None:
    """The ratios set as targets (on all cores), the same with one worker, and decode-only
    with Referee's decoder against OpenCV's."""
    print()
    for count in (1, n):
        fast = medians[f"decode-only, Python load_grey, GT + {_methods(count)}"]
        opencv = medians[f"decode-only, Python cv2.imread, GT + {_methods(count)}"]
        print(
            f"decode-only processes, {_methods(count)}, load_grey / cv2.imread: {fast / opencv:.3f}"
        )
    for count, target in ((1, TARGETS[1]), (n, TARGETS[5])):
        comparator = comparator_label(count)
        for w in workers:
            name = f"{referee_label(count, w)} / {comparator}"
            if comparator not in medians:
                print(f"{name}: n/a, the comparator was skipped")
                continue
            ratio = medians[referee_label(count, w)] / medians[comparator]
            verdict = ("met" if ratio <= target else "NOT met") if w == workers[-1] else ""
            goal = f"(target <= {target} on all cores: {verdict})" if verdict else "(no target)"
            print(f"{name}: {ratio:.3f} {goal}")


def print_decoding_in_process(video: VideoSpec, results: dict[str, Path], rounds: int = 5) -> None:
    """Decode-only in this process, from memory: OpenCV and Referee's decoder on the ground
    truth and on the first method's masks, median of alternating rounds; arrays checked."""
    print(f"\ndecode-only in this process, files read beforehand, median of {rounds} rounds")
    first = next(iter(results.values()))
    for name, paths in (
        ("ground truth", [video.gt_path(i) for i in video.frames]),
        (f"{first.name} masks", [first / f"bin{i:06d}.png" for i in video.frames]),
    ):
        datas = [path.read_bytes() for path in paths]
        decoders = {
            "cv2.imdecode": lambda d: cv2.imdecode(
                np.frombuffer(d, np.uint8), cv2.IMREAD_GRAYSCALE
            ),
            "png_decode": decode_grey_png,
        }
        same = all(
            (a := decoders["png_decode"](d)) is not None
            and np.array_equal(a, b := decoders["cv2.imdecode"](d))
            and a.dtype == b.dtype
            for d in datas
        )
        times: dict[str, list[float]] = {label: [] for label in decoders}
        for r in range(rounds):
            for label in list(decoders)[r % 2 :] + list(decoders)[: r % 2]:
                start = time.perf_counter()
                for data in datas:
                    decoders[label](data)
                times[label].append(time.perf_counter() - start)
        slow, fast = (statistics.median(times[label]) for label in decoders)
        print(
            f"  {name:<14} {len(datas)} files: cv2.imdecode {slow:.3f} s, png_decode "
            f"{fast:.3f} s ({slow / fast:.1f}x faster), arrays {'identical' if same else 'DIFFERENT'}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    source = parser.add_mutually_exclusive_group()
    source.add_argument(
        "--comparator-source",
        type=Path,
        metavar="DIR",
        help="folder of the CDnet comparator's public source, built here with g++ -O3",
    )
    source.add_argument(
        "--comparator", type=Path, metavar="BINARY", help="an already built comparator"
    )
    parser.add_argument("--rounds", type=int, default=5, help="rounds; medians are kept")
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE, help="detectors' masks")
    parser.add_argument(
        "--build-cache",
        type=Path,
        default=DEFAULT_CACHE.parent / "cdnet-comparator",
        help="builds, the comparator's video folder and referee's JSON",
    )
    args = parser.parse_args()

    video = load_video(HIGHWAY)
    results = highway_results(args.cache, FIVE_METHODS)
    first = next(iter(results))
    method_sets = [{first: results[first]}, results]
    cores = len(os.sched_getaffinity(0))
    workers = (1, cores) if cores > 1 else (1,)
    referee = referee_program()
    args.build_cache.mkdir(parents=True, exist_ok=True)
    height, width = read_grey(video.gt_path(video.first)).shape

    comparator, lines = prepared_comparator(args)
    decoder, decoder_lines = prepared_decoder(args.build_cache)
    print(
        f"highway ({HIGHWAY}), frames {video.first}-{video.last} ({video.n_frames} frames, "
        f"{width}x{height}); methods: {' '.join(results)}"
    )
    print(
        f"machine: {cores} cores available (os.cpu_count() = {os.cpu_count()}), "
        f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())} at start"
    )
    print(f"referee: {referee}")
    print("\n".join(lines + decoder_lines))

    print_decoding_in_process(video, results, args.rounds)
    rows = decode_rows(video, method_sets, decoder, width * height)
    check_outputs(rows)
    if comparator is None:
        print("counts: not compared (no comparator)")
    else:
        folder = comparator_video_folder(video, args.build_cache)
        print_counts(comparator, folder, referee, results)
        rows += comparator_rows(comparator, folder, method_sets)
    rows += referee_rows(referee, method_sets, workers)

    times = time_rows(rows, args.rounds)
    print_table(times, args.rounds)
    print_ratios(
        {label: statistics.median(ts) for label, ts in times.items()}, len(results), workers
    )


if __name__ == "__main__":
    main()
