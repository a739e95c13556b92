"""Per-frame box results of several trackers on a MOTChallenge benchmark as text, JSON and
CSV (docs/measures.md §5): one block per tracker, then the trackers side by side."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from referee.core.exports.boxes import (
    CSV_COLUMNS,
    FRAMES_CSV_COLUMNS,
    boxes_title,
    evaluation_dict,
    format_boxes_grid,
    frames_csv_rows,
    set_aside_counts,
    summary_csv_rows,
    totals_row,
)
from referee.core.exports.header import json_header
from referee.core.exports.text_table import grid
from referee.core.formats.mot_benchmark import Benchmark
from referee.core.formats.text_files import format_csv
from referee.core.measures.boxes import BoxEvaluation
from referee.core.model.videos import AnnotatedFrames

BENCHMARK_FORMAT = "referee-boxes-benchmark"
FORMAT_VERSION = 1


def benchmark_heading(benchmark: Benchmark, trackers: int) -> str:
    """What was evaluated: ``MOTChallenge benchmark MOT17-train (seqmap …): 3 sequences,
    2 trackers``, and how the sequences are pooled."""
    sequences = len(benchmark.sequences)
    return (
        f"MOTChallenge benchmark {benchmark.split} (seqmap {benchmark.seqmap}): "
        f"{sequences} sequence{'' if sequences == 1 else 's'}, {trackers} "
        f"tracker{'' if trackers == 1 else 's'}; all videos pooled = the frames of every "
        "sequence together, counts summed as in TrackEval's COMBINED_SEQ"
    )


def format_benchmark_report(
    evaluations: Mapping[str, BoxEvaluation],
    benchmark: Benchmark,
    rules: str | None = None,
    annotated: Mapping[str, AnnotatedFrames] | None = None,
) -> str:
    """The terminal report of ``referee boxes`` on a benchmark: the parameters, the
    benchmark and the ground-truth ``rules``, one table per tracker (a row per sequence,
    then all sequences pooled), then, for several trackers, their pooled rows."""
    first = next(iter(evaluations.values()))
    lines = [boxes_title(first), benchmark_heading(benchmark, len(evaluations))]
    lines += [rules] if rules else []
    for name, result in evaluations.items():
        lines += ["", f"Tracker {name}:", format_boxes_grid(result, annotated)]
    if len(evaluations) > 1:
        header = ["tracker", "frames", "GT", "det", "TP", "FP", "misses"]
        header += ["SFDA", "MODA", "N-MODP"]
        rows = [totals_row(name, r.overall) for name, r in evaluations.items()]
        if any(r.detections_removed for r in evaluations.values()):
            header.append("det removed")
            rows = [
                [*row, str(set_aside_counts(r)[1])] for row, r in zip(rows, evaluations.values())
            ]
        lines += ["", "All sequences pooled, trackers side by side:", grid(header, rows)]
    return "\n".join(lines)


def benchmark_to_dict(
    evaluations: Mapping[str, BoxEvaluation],
    benchmark: Benchmark,
    parameters: dict[str, Any],
    annotated: Mapping[str, AnnotatedFrames] | None = None,
) -> dict[str, Any]:
    """Everything ``referee boxes`` computed on a benchmark, JSON-ready: the benchmark
    (folder, seqmap, split, sequences) and, per tracker, ``overall`` (all sequences
    pooled) and ``videos`` (one per sequence) as in ``referee-boxes`` files."""
    return {
        **json_header(BENCHMARK_FORMAT, FORMAT_VERSION),
        "parameters": parameters,
        "benchmark": {
            "folder": str(benchmark.root),
            "seqmap": str(benchmark.seqmap),
            "split": benchmark.split,
            "sequences": list(benchmark.sequences),
        },
        "trackers": [
            {"name": name, **evaluation_dict(result, annotated)}
            for name, result in evaluations.items()
        ],
    }


def format_benchmark_csv(evaluations: Mapping[str, BoxEvaluation]) -> str:
    """CSV, per tracker one row per sequence then ``all videos`` (the sequences pooled),
    the columns of ``referee boxes --csv`` after a ``tracker`` column."""
    rows = [
        [name, *row] for name, result in evaluations.items() for row in summary_csv_rows(result)
    ]
    return format_csv([["tracker", "video", *CSV_COLUMNS], *rows])


def format_benchmark_frames_csv(evaluations: Mapping[str, BoxEvaluation]) -> str:
    """CSV, per tracker one row per frame with a box, after a ``tracker`` column."""
    rows = [[name, *row] for name, result in evaluations.items() for row in frames_csv_rows(result)]
    return format_csv([["tracker", *FRAMES_CSV_COLUMNS], *rows])
