"""Estimates with intervals (docs/measures.md §12) as a terminal report and as JSON.

JSON: ``labels`` (draws, or annotated frames used), ``trusted`` (at least
:data:`~referee.core.estimation.result.TRUSTED_DRAWS` draws), ``frames`` (the
distinct labelled frames, ``{"video", "frame"}``), ``detectors`` (per detector
and measure ``{"estimate", "low", "high"}``, plus ``"true"`` when an annotator
was simulated; ``null`` where undefined or without an interval), ``consensus``
(per detector its F1 and its bias with an interval), ``beats`` (P(A beats B) on
F1), ``significance`` (per pair the F1 difference with its interval and §9's
test on the labelled frames) and ``videos``; a repeated simulation adds
``draws`` (each sample in this schema) and ``accuracy`` (per detector RMSE,
bias and coverage of F1). The format and the library versions come first.
"""

from __future__ import annotations

import json
import math
import textwrap
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from referee.core.errors import RefereeError
from referee.core.estimation.choices import RANDOM, SAMPLERS
from referee.core.estimation.estimators import MEASURES
from referee.core.estimation.result import (
    TRUSTED_DRAWS,
    Estimate,
    EstimateResult,
    PairComparison,
    VideoEstimate,
)
from referee.core.exports.header import json_header
from referee.core.exports.summary import json_number
from referee.core.exports.text_table import grid
from referee.core.formats.text_files import write_text
from referee.core.model.frame_set import FrameSet
from referee.core.significance.wording import verdict_text

FORMAT_NAME = "referee-estimate"
FORMAT_VERSION = 2
#: Column titles of the measures.
TITLES = {"f1": "F1", "precision": "precision", "recall": "recall"}
#: How the labelled frames were chosen, in words.
DESIGNS = {
    "balanced": "drawn by the balanced sampler",
    "active": "drawn by the active sampler",
    "random": "drawn uniformly at random",
    "annotated": "the frames that have ground truth, weighted as a uniform sample of each video",
    "none": "none: the consensus alone, without interval",
}
#: What a simulation's heading says of the true values.
SIMULATED_TEXT = (
    "simulated annotator: ground truth read for the drawn frames only; "
    "'true' is the value over every frame"
)
#: What P(A beats B) is computed from.
BEATS_BASIS = "from the F1 difference and its standard error"
#: Title of the table of each partly annotated video's F1.
VIDEOS_TITLE = "F1 of each partly annotated video, from its own labelled frames"


# --- JSON --------------------------------------------------------------------------------------


def _estimate(e: Estimate) -> dict[str, Any]:
    out = {
        "estimate": json_number(e.estimate),
        "low": json_number(e.low),
        "high": json_number(e.high),
    }
    if e.true is not None:
        out["true"] = json_number(e.true)
    return out


def _pair(p: PairComparison) -> dict[str, Any]:
    return {
        "a": p.a,
        "b": p.b,
        "p_a_beats_b": json_number(p.p_beats),
        "f1_difference": _estimate(p.difference),
        "cases": 0 if p.test is None else len(p.test.cases),
        "differ": None if p.test is None else p.test.differ,
        "verdict": pair_verdict(p),
    }


def estimate_to_dict(
    result: EstimateResult, parameters: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """Plain JSON-ready structure of an estimate (NaN becomes ``None``)."""
    out = {
        **json_header(FORMAT_NAME, FORMAT_VERSION),
        "parameters": dict(parameters or {}),
        **_run(result),
    }
    if result.repeats:
        out["draws"] = [_run(r) for r in result.repeats]
        out["accuracy"] = {
            m: {
                "rmse": json_number(a.rmse),
                "bias": json_number(a.bias),
                "coverage": json_number(a.coverage),
                "intervals": a.intervals,
            }
            for m, a in result.accuracy.items()
        }
    return out


def _run(result: EstimateResult) -> dict[str, Any]:
    """One sample's estimates, as a single run writes them."""
    return {
        "design": result.design,
        "estimator": result.estimator,
        "seed": result.seed,
        "uniform_share": result.uniform_share,
        "simulated": result.simulated,
        "confidence": result.confidence,
        "population_frames": result.population,
        "labels": result.labels,
        "trusted": result.trusted,
        "frames": [{"video": f.video, "frame": f.frame} for f in result.frames],
        "detectors": {
            m: {k: _estimate(result.estimates[m][k]) for k in MEASURES} for m in result.methods
        },
        "consensus": {
            m: {"f1": json_number(c.consensus), "bias": _estimate(c.bias), "large": c.large}
            for m, c in result.consensus.items()
        },
        "beats": {
            a: {b: json_number(p) for b, p in row.items()} for a, row in result.beats.items()
        },
        "significance": [_pair(p) for p in result.pairs],
        "videos": [_video(v) for v in result.videos],
    }


def _video(v: VideoEstimate) -> dict[str, Any]:
    return {
        "video": v.video,
        "frames": v.frames,
        "labels": v.labels,
        "next_frame": v.next_frame,
        "annotated_left_out": v.left_out,
        "detectors": {m: {k: _estimate(e[k]) for k in MEASURES} for m, e in v.estimates.items()},
    }


def write_estimate_json(
    path: str | Path, result: EstimateResult, parameters: Mapping[str, Any] | None = None
) -> None:
    """Write :func:`estimate_to_dict` to ``path`` (strict JSON: no NaN literal)."""
    try:
        text = json.dumps(
            estimate_to_dict(result, parameters), indent=1, ensure_ascii=False, allow_nan=False
        )
    except (TypeError, ValueError) as exc:
        raise RefereeError(f"cannot write the estimates as JSON: {exc}") from exc
    write_text(path, text + "\n")


# --- text --------------------------------------------------------------------------------------


def _number(value: float, undefined: str = "undef.") -> str:
    return undefined if math.isnan(value) else f"{value:.4f}"


def estimate_cell(e: Estimate, undefined: str = "undef.") -> str:
    """``0.8123 [0.7900, 0.8346]``; the estimate alone without an interval; ``undefined``
    when the estimate is."""
    if math.isnan(e.estimate) or math.isnan(e.low):
        return _number(e.estimate, undefined)
    return f"{_number(e.estimate)} [{_number(e.low)}, {_number(e.high)}]"


def design_text(result: EstimateResult) -> str:
    """How the labelled frames were chosen: the design, with a sampler's seed and uniform
    share."""
    design = DESIGNS[result.design]
    if result.design in SAMPLERS:
        design += f" (seed {result.seed}"
        design += "" if result.design == RANDOM else f", uniform share {result.uniform_share:g}"
        design += ")"
        if not result.simulated:
            design += (
                " in each partly annotated video, up to its first draw without ground truth; "
                "videos annotated on every frame counted whole"
            )
    return design


def heading_lines(result: EstimateResult) -> list[str]:
    """The intervals, the estimator, the frames estimated over and the design; with a
    simulation, what 'true' means."""
    heading = [
        f"Estimates with {result.confidence:.0%} intervals (docs/measures.md §12), "
        f"estimator {result.estimator}, over {result.population} frames",
        f"labelled frames: {design_text(result)}",
    ]
    if result.simulated:
        heading.append(SIMULATED_TEXT)
    return heading


def pairs_text(result: EstimateResult) -> str:
    """What each pair's line or row gives (no final punctuation)."""
    return (
        "Each pair: the difference of F1 over every frame (first − second) with its "
        f"{result.confidence:.0%} interval, and the discriminative test (docs/measures.md "
        "§9) of per-frame F1 on the labelled frames"
    )


def pair_verdict(p: PairComparison) -> str:
    """The verdict of a pair's test on the labelled frames, or why it could not run."""
    return p.reason if p.test is None else verdict_text(p.test)


def format_estimate_report(result: EstimateResult) -> str:
    """The heading, the table of estimates, what can be trusted, the labelled frames, the
    pairs (P(A beats B), F1 differences, tests) and, for repeated samples, their accuracy."""
    heading = heading_lines(result)
    header = ["detector"]
    for k in MEASURES:
        header += [TITLES[k]] + (["true"] if result.simulated else [])
    rows = []
    for m in result.methods:
        row = [m]
        for k in MEASURES:
            e = result.estimates[m][k]
            row += [estimate_cell(e)] + ([_number(e.true)] if e.true is not None else [])
        rows.append(row)
    blocks = ["\n".join(heading), grid(header, rows)]
    notes = [*consensus_sentences(result), *trust_sentences(result)]
    if notes:
        blocks.append("\n".join(textwrap.fill(n, 100) for n in notes))
    if result.frames:
        blocks.append(textwrap.fill(labelled_frames_text(result), 100))
    if result.videos:
        blocks.append(_videos_table(result))
    if len(result.methods) > 1:
        blocks.append(_beats_table(result))
        blocks.append(
            textwrap.fill(pairs_text(result) + ":", 100)
            + "\n"
            + "\n".join(
                f"  {p.a} − {p.b}: {estimate_cell(p.difference)}; {pair_verdict(p)}"
                for p in result.pairs
            )
        )
    if result.repeats:
        blocks.append(_accuracy_table(result))
    return "\n\n".join(blocks)


def consensus_sentences(result: EstimateResult) -> list[str]:
    """What to make of the consensus: with no labelled frame, that errors every detector
    shares are invisible to it; with some, each detector whose F1 it reads far off."""
    invisible = (
        "errors that every detector makes alike are invisible to it, so a detector can "
        "look better or worse than it is, and the ranking can be wrong."
    )
    if result.design == "none":
        return [
            f"Without labelled frames these are the consensus's values: {invisible} "
            "Label a few frames to check."
        ]
    if result.labels == 0:
        return [
            "No labelled draw yet: the partly annotated videos are read by the consensus "
            f"alone, and {invisible} Label the frame the sampler proposes to check."
        ]
    if result.design == "annotated" and all(
        math.isnan(c.bias.low) for c in result.consensus.values()
    ):
        return []
    out = []
    for method, check in result.consensus.items():
        if check.large:
            b = check.bias
            verb = "over-reads" if b.estimate > 0 else "under-reads"
            half = (b.high - b.low) / 2
            out.append(
                f"The consensus {verb} {method}'s F1 by {abs(b.estimate):.2f} ± {half:.2f} "
                f"(it reads {check.consensus:.4f}): trust the estimate, not the consensus."
            )
    return out


def trust_sentences(result: EstimateResult) -> list[str]:
    """When the intervals rest on too few draws, and which annotated frames were left out."""
    out = []
    if not result.trusted:
        out.append(
            f"Only {result.labels} labelled draw{'s' if result.labels != 1 else ''}: below "
            f"{TRUSTED_DRAWS} the intervals are approximate (in Referee's measurements they "
            "covered the truth less than 90% of the time for some detectors)."
        )
    for video in result.videos:
        if video.left_out:
            out.append(
                f"{video.left_out} annotated frame{'s' if video.left_out != 1 else ''} of "
                f"{video.video} {'were' if video.left_out != 1 else 'was'} not drawn by the "
                "sampler and left out: frames chosen by hand may not represent the video "
                "(--labelled annotated takes every annotated frame, if they were chosen evenly)."
            )
    return out


def accuracy_title(result: EstimateResult) -> str:
    """What the table of a repeated simulation's accuracy gives."""
    first, count = result.seed, len(result.repeats)
    return (
        f"F1 over {count} simulated samples (seeds {first}–{first + count - 1}) against the true F1"
    )


def _accuracy_table(result: EstimateResult) -> str:
    """RMSE, bias and coverage of each detector's F1 over the repeated samples."""
    rows = [
        [m, _number(a.rmse), _number(a.bias), _number(a.coverage), str(a.intervals)]
        for m, a in result.accuracy.items()
    ]
    return f"{accuracy_title(result)}\n" + grid(
        ["detector", "RMSE", "bias", "coverage", "intervals"], rows
    )


def labelled_frames_text(result: EstimateResult) -> str:
    """Drawn frames in the order drawn; annotated frames as runs per video."""
    if result.design in SAMPLERS:
        listed = ", ".join(
            f"{f.video}:{f.frame}" + (f" (×{f.draws})" if f.draws > 1 else "")
            for f in result.frames
        )
        return f"Labelled frames ({len(result.frames)} distinct of {result.labels} draws): {listed}"
    per_video: dict[str, list[int]] = {}
    for f in result.frames:
        per_video.setdefault(f.video, []).append(f.frame)
    listed = "; ".join(
        f"{video} "
        + ", ".join(f"{a}" if a == b else f"{a}–{b}" for a, b in FrameSet.of(numbers).runs)
        for video, numbers in per_video.items()
    )
    return f"Labelled frames ({len(result.frames)}): {listed}"


def _videos_table(result: EstimateResult) -> str:
    """Each partly annotated video's F1, its labelled draws and the frame to label next."""
    header = ["video", "labelled", "next frame", *result.methods]
    rows = [
        [
            v.video,
            f"{v.labels} of {v.frames}",
            "—" if v.next_frame is None else str(v.next_frame),
            *(estimate_cell(v.estimates[m]["f1"]) for m in result.methods),
        ]
        for v in result.videos
    ]
    return VIDEOS_TITLE + "\n" + grid(header, rows)


def _beats_table(result: EstimateResult) -> str:
    names = result.methods
    rows = [[a, *("—" if a == b else _number(result.beats[a][b]) for b in names)] for a in names]
    return f"P(row beats column on F1), {BEATS_BASIS}\n" + grid(["", *names], rows)
