"""Agreement between annotators (docs/measures.md §13) as text tables and JSON, and the
columns, rows and sentences that the command, the report and the window's Agreement dock
share (:data:`PAIR_COLUMNS`, :func:`pair_cells`, :func:`frame_rows`...).

Input is an :class:`~referee.core.pseudo.agreement.AgreementResult`; nothing is
computed here beyond reading the values it gives (and choosing each frame's pair of
lowest κ).

JSON (``referee-agreement`` version 1): ``annotators``; ``identifiable`` (three
annotators or more); ``pairs`` (pooled over every frame) each ``{"first", "second",
"counts": {"tp", "fp", "fn", "tn"}, "kappa", "dice"}`` with counts of ``second``
against ``first``; ``consensus`` (pooled) each ``{"annotator", "expected_counts",
"sensitivity", "specificity"}``; ``videos`` each with its ``model`` (prior and each
annotator's fitted sensitivity and specificity), its ``pairs`` and ``consensus``, and
``per_frame`` rows ``{"frame", "pixels", "disagreement", "pairs", "consensus"}``;
``left_out`` (videos without a frame every annotator labelled, and why) and
``consensus_folder``. An undefined value is ``{"value": null, "reason": "undefined: …"}``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from referee.core.exports.header import json_header
from referee.core.exports.summary import json_matrix, json_number, json_value
from referee.core.exports.text_table import grid
from referee.core.formats.text_files import write_text
from referee.core.measures.indicators import IndicatorValue
from referee.core.pseudo.agreement import (
    AgreementResult,
    AnnotatorQuality,
    PairAgreement,
    VideoAgreement,
)

FORMAT_NAME = "referee-agreement"
FORMAT_VERSION = 1
#: Frames listed in the terminal, most disagreement first.
SHOWN_FRAMES = 10

#: Said when two annotators cannot determine the STAPLE model (docs/measures.md §7, §13).
TWO_ANNOTATORS = (
    "with two annotators the vote patterns do not determine the STAPLE model: the "
    "sensitivities and specificities depend on where EM starts (0.9 each); κ and Dice "
    "do not. Add a third annotator to trust them"
)


def _value(value: IndicatorValue) -> str:
    return f"{value.value:.4f}" if value.defined else value.reason or "undefined"


def _count(value: float) -> str:
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:,.1f}"


#: A pair's columns: the two annotators, their counts (``second`` against ``first``), κ, Dice.
PAIR_COLUMNS = ("first", "second", "both", "first only", "second only", "neither", "κ", "Dice")
#: An annotator's columns against the STAPLE consensus.
QUALITY_COLUMNS = ("annotator", "sensitivity", "specificity")
#: A frame's columns in the list of frames, most disagreement first (:func:`frame_rows`).
FRAME_COLUMNS = ("video", "frame", "disagreement", "lowest κ", "pair")
#: What the ``disagreement`` of a frame is.
FRAME_DISAGREEMENT = "the share of counted pixels a pair labels differently, averaged over pairs"

#: A pair's row: names, counts, κ and Dice.
PairCells = tuple[str, str, float, float, float, float, IndicatorValue, IndicatorValue]


def pair_cells(pair: PairAgreement) -> PairCells:
    """The row of ``pair`` under :data:`PAIR_COLUMNS`."""
    cm = pair.cm
    return (pair.first, pair.second, cm.tp, cm.fn, cm.fp, cm.tn, pair.kappa, pair.dice)


@dataclass(frozen=True)
class FrameRow:
    """One compared frame: the mean share of pixels a pair labels differently, and the
    pair of lowest κ there."""

    video: VideoAgreement
    frame: int
    disagreement: float
    worst: PairAgreement


def frame_rows(videos: Sequence[VideoAgreement], limit: int | None = None) -> list[FrameRow]:
    """The frames of ``videos`` with a counted pixel, most disagreement first (at most
    ``limit``), each with its pair of lowest κ (an undefined κ counts as the highest)."""
    rows = [
        (v, int(frame), float(share))
        for v in videos
        for frame, share in zip(v.frames, v.disagreement)
        if not math.isnan(share)
    ]
    rows.sort(key=lambda row: -row[2])
    return [
        FrameRow(v, frame, share, _lowest_kappa(v.pairs(frame))) for v, frame, share in rows[:limit]
    ]


def counted_frames(videos: Sequence[VideoAgreement]) -> int:
    """How many frames of ``videos`` have a counted pixel: the rows :func:`frame_rows` has
    without a limit, counted without finding each frame's pair of lowest κ."""
    return sum(not math.isnan(share) for v in videos for share in v.disagreement)


def _lowest_kappa(pairs: Sequence[PairAgreement]) -> PairAgreement:
    """The pair of lowest κ (an undefined κ counts as the highest)."""
    kappas = [pair.kappa for pair in pairs]
    values = [k.value if k.defined else math.inf for k in kappas]
    return pairs[values.index(min(values))]


def compared_sentence(result: AgreementResult) -> str:
    """What ``result`` compared, in one sentence."""
    return (
        f"{len(result.annotators)} annotators ({', '.join(result.annotators)}) "
        f"compared on the {result.frames} frames of {len(result.videos)} videos "
        "that every one of them labelled, over the pixels inside the ROI that every one "
        "labelled 0, 50 or 255; motion is 255 (docs/measures.md §13)."
    )


def consensus_written(result: AgreementResult) -> str | None:
    """Where the consensus of ``result`` was written, in words (``None``: it was not)."""
    if result.consensus_folder is None:
        return None
    return (
        f"Consensus written as ground truth to {result.consensus_folder} "
        f"({result.frames} frame(s), motion where W >= 0.5)"
    )


def _pair_rows(pairs: Sequence[PairAgreement], first: Sequence[str] = ()) -> list[list[str]]:
    rows = []
    for pair in pairs:
        cells = pair_cells(pair)
        rows.append([*first, *cells[:2], *map(_count, cells[2:6]), *map(_value, cells[6:])])
    return rows


#: The pairs' header in a terminal, where κ may not print.
_PAIR_HEADER = [*PAIR_COLUMNS[:6], "kappa", "Dice"]


def format_agreement(result: AgreementResult) -> str:
    """What ``referee agreement`` prints: pairs pooled and per video, each annotator
    against the consensus, the frames of most disagreement, and what was left out."""
    names = ", ".join(result.annotators)
    blocks = [
        f"Agreement between annotators (docs/measures.md §13): {names}\n"
        f"{len(result.videos)} video(s), {result.frames} frame(s) labelled by every "
        "annotator; pixels inside the ROI that every annotator labelled 0, 50 or 255 "
        "(motion: 255)",
        "Pairs, counts pooled over every frame\n" + grid(_PAIR_HEADER, _pair_rows(result.pairs())),
    ]
    if len(result.videos) > 1:
        rows = [row for v in result.videos for row in _pair_rows(v.pairs(), (v.label,))]
        blocks.append("Pairs per video\n" + grid(["video", *_PAIR_HEADER], rows))
    blocks.append(
        "Each annotator against the STAPLE consensus (EM per video, expected counts pooled)\n"
        + grid(
            list(QUALITY_COLUMNS),
            [[q.name, _value(q.sensitivity), _value(q.specificity)] for q in result.qualities()],
        )
    )
    blocks.append(_frames_table(result.videos))
    if not result.identifiable:
        blocks.append(f"note: {TWO_ANNOTATORS}.")
    if result.left_out:
        blocks.append(
            "Videos left out:\n" + "\n".join(f"  {label}: {why}" for label, why in result.left_out)
        )
    written = consensus_written(result)
    if written is not None:
        blocks.append(written)
    return "\n\n".join(blocks)


def _frames_table(videos: Sequence[VideoAgreement]) -> str:
    shown = [
        [
            row.video.label,
            str(row.frame),
            f"{row.disagreement:.4f}",
            _value(row.worst.kappa),
            f"{row.worst.first}–{row.worst.second}",
        ]
        for row in frame_rows(videos, SHOWN_FRAMES)
    ]
    title = f"Frames, most disagreement first (at most {SHOWN_FRAMES}): {FRAME_DISAGREEMENT}"
    header = [*FRAME_COLUMNS[:3], "lowest kappa", "pair"]
    return title + "\n" + grid(header, shown)


def _pair_json(p: PairAgreement) -> dict[str, Any]:
    return {
        "first": p.first,
        "second": p.second,
        "counts": json_matrix(p.cm),
        "kappa": json_value(p.kappa),
        "dice": json_value(p.dice),
    }


def _quality_json(q: AnnotatorQuality) -> dict[str, Any]:
    return {
        "annotator": q.name,
        "expected_counts": json_matrix(q.cm),
        "sensitivity": json_value(q.sensitivity),
        "specificity": json_value(q.specificity),
    }


def _video_json(v: VideoAgreement) -> dict[str, Any]:
    model = v.model
    return {
        "category": v.category,
        "video": v.name,
        "frames": int(v.frames.size),
        "model": {
            "prior": model.prior,
            "sensitivity": dict(zip(v.annotators, model.sensitivity)),
            "specificity": dict(zip(v.annotators, model.specificity)),
            "iterations": model.iterations,
            "converged": model.converged,
        },
        "pairs": [_pair_json(p) for p in v.pairs()],
        "consensus": [_quality_json(q) for q in v.qualities()],
        "per_frame": [
            {
                "frame": int(frame),
                "pixels": json_number(float(pixels)),
                "disagreement": json_number(float(share)),
                "pairs": [_pair_json(p) for p in v.pairs(int(frame))],
                "consensus": [_quality_json(q) for q in v.qualities(int(frame))],
            }
            for frame, pixels, share in zip(v.frames, v.pixels, v.disagreement)
        ],
    }


def agreement_document(
    result: AgreementResult, parameters: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """The JSON object of ``result`` (see the module's docstring)."""
    folder = result.consensus_folder
    return {
        **json_header(FORMAT_NAME, FORMAT_VERSION),
        "parameters": dict(parameters or {}),
        "annotators": list(result.annotators),
        "identifiable": result.identifiable,
        "pairs": [_pair_json(p) for p in result.pairs()],
        "consensus": [_quality_json(q) for q in result.qualities()],
        "videos": [_video_json(v) for v in result.videos],
        "left_out": [{"video": label, "reason": why} for label, why in result.left_out],
        "consensus_folder": None if folder is None else str(folder),
    }


def write_agreement_json(
    path: Path, result: AgreementResult, parameters: Mapping[str, Any] | None = None
) -> None:
    """Write :func:`agreement_document` to ``path`` atomically (strict JSON: no NaN)."""
    document = agreement_document(result, parameters)
    write_text(path, json.dumps(document, indent=1, ensure_ascii=False, allow_nan=False) + "\n")
