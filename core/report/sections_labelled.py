"""Report section of the estimates from a few labelled frames (docs/measures.md §12).

Each detector's F1, precision and recall over every evaluated frame with their
intervals, how the labelled frames were chosen and which they are, each pair's F1
difference, and what to make of the consensus and of too few draws. The sentences
are the command line's (:mod:`referee.core.exports.estimate`), which the desktop
application's estimates panel shows too.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from referee.core.estimation.choices import SAMPLERS
from referee.core.estimation.estimators import MEASURES
from referee.core.estimation.result import Estimate, EstimateResult
from referee.core.exports.estimate import (
    BEATS_BASIS,
    TITLES,
    VIDEOS_TITLE,
    accuracy_title,
    consensus_sentences,
    heading_lines,
    labelled_frames_text,
    pair_verdict,
    pairs_text,
    trust_sentences,
)
from referee.core.report.compute import ReportResults
from referee.core.report.document import Block, Cell, Paragraph, Section, Table
from referee.core.significance.wording import sentence

#: The section's key and title.
SECTION_KEY, SECTION_TITLE = "labelled", "Estimates from labelled frames"
#: What the workflow's stage is called in ``results.skipped``.
STAGE = "estimate"
#: What a blank interval means.
NO_INTERVAL_NOTE = (
    "A blank interval: there is none, without labelled draws (or with fewer than two)."
)


def labelled_estimates_section(results: ReportResults) -> Section | None:
    """The estimates from labelled frames, or why there are none (``None`` when the stage
    did not run and says nothing)."""
    result = results.estimate
    if result is None:
        reason = results.skipped.get(STAGE)
        if reason is None:
            return None
        return Section(
            SECTION_KEY,
            SECTION_TITLE,
            (Paragraph(f"No estimates from labelled frames (docs/measures.md §12): {reason}."),),
        )
    blocks: list[Block] = [
        Paragraph(_design_paragraph(result)),
        _estimates_table(result),
        *(Paragraph(text) for text in (*consensus_sentences(result), *trust_sentences(result))),
    ]
    if result.frames:
        blocks.append(Paragraph(sentence(labelled_frames_text(result))))
    if result.videos:
        blocks.append(_videos_table(result))
    if len(result.methods) > 1:
        blocks.append(_pairs_table(result))
    if result.repeats:
        blocks.append(_accuracy_table(result))
    return Section(SECTION_KEY, SECTION_TITLE, tuple(blocks))


def _design_paragraph(result: EstimateResult) -> str:
    """What is estimated, from how many labelled frames of how many, and how they were
    chosen (the command line's heading)."""
    if result.design == "none":
        source = "the consensus alone (docs/measures.md §7)"
    else:
        if result.design in SAMPLERS:
            distinct = _plural(len(result.frames), "distinct frame")
            count = f"{_plural(result.labels, 'labelled draw')} ({distinct})"
        else:
            count = _plural(result.labels, "annotated frame")
        source = f"{count} and the consensus (docs/measures.md §7)"
    return (
        "Every mask detector's F1, precision and recall over every evaluated frame, "
        f"estimated from {source}. " + sentence("; ".join(heading_lines(result)))
    )


def _plural(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _interval(e: Estimate) -> tuple[Cell, Cell]:
    """The interval's bounds, blank without one."""
    return (None, None) if math.isnan(e.low) else (e.low, e.high)


def _blank_note(estimates: Iterable[Estimate]) -> tuple[str, ...]:
    """:data:`NO_INTERVAL_NOTE` when an estimate is defined but has no interval."""
    blank = any(math.isnan(e.low) and not math.isnan(e.estimate) for e in estimates)
    return (NO_INTERVAL_NOTE,) if blank else ()


def _confidence(result: EstimateResult) -> str:
    return f"{result.confidence:.0%}"


def _estimates_table(result: EstimateResult) -> Table:
    """Per detector and measure: the estimate, its interval and, simulated, the true value."""
    level = _confidence(result)
    columns = ["detector", "measure", "estimate", f"{level} low", f"{level} high"]
    if result.simulated:
        columns.append("true")
    rows: list[tuple[Cell, ...]] = []
    for method in result.methods:
        for measure in MEASURES:
            e = result.estimates[method][measure]
            row: list[Cell] = [method, TITLES[measure], e.estimate, *_interval(e)]
            if result.simulated:
                row.append(math.nan if e.true is None else e.true)
            rows.append(tuple(row))
    return Table(
        "labelled-estimates",
        f"Each detector over every frame, with {level} intervals",
        tuple(columns),
        tuple(rows),
        notes=_blank_note(e for m in result.estimates.values() for e in m.values()),
    )


def _videos_table(result: EstimateResult) -> Table:
    """Each partly annotated video's F1 per detector, its labelled draws and the next frame."""
    level = _confidence(result)
    rows: list[tuple[Cell, ...]] = []
    for video in result.videos:
        for method in result.methods:
            e = video.estimates[method]["f1"]
            low, high = _interval(e)
            rows.append(
                (
                    video.video,
                    method,
                    e.estimate,
                    low,
                    high,
                    video.labels,
                    video.frames,
                    video.next_frame,
                )
            )
    return Table(
        "labelled-videos",
        VIDEOS_TITLE,
        (
            "video",
            "detector",
            "F1",
            f"{level} low",
            f"{level} high",
            "labelled draws",
            "frames",
            "next frame",
        ),
        tuple(rows),
        notes=_blank_note(v.estimates[m]["f1"] for v in result.videos for m in result.methods),
    )


def _pairs_table(result: EstimateResult) -> Table:
    """Each pair's F1 difference with its interval, P(A beats B) and the test's verdict."""
    level = _confidence(result)
    rows: list[tuple[Cell, ...]] = []
    for pair in result.pairs:
        low, high = _interval(pair.difference)
        rows.append(
            (pair.a, pair.b, pair.difference.estimate, low, high, pair.p_beats, pair_verdict(pair))
        )
    return Table(
        "labelled-pairs",
        "Pairs of detectors",
        (
            "A",
            "B",
            "F1 A − B",
            f"{level} low",
            f"{level} high",
            "P(A beats B)",
            "test on the labelled frames",
        ),
        tuple(rows),
        notes=(
            f"{pairs_text(result)}; P(A beats B) on F1, {BEATS_BASIS}.",
            *_blank_note(p.difference for p in result.pairs),
        ),
    )


def _accuracy_table(result: EstimateResult) -> Table:
    """A repeated simulation: RMSE, bias and coverage of each detector's F1."""
    rows = tuple(
        (method, a.rmse, a.bias, a.coverage, a.intervals) for method, a in result.accuracy.items()
    )
    return Table(
        "labelled-accuracy",
        accuracy_title(result),
        ("detector", "RMSE", "bias", "coverage", "intervals"),
        rows,
    )
