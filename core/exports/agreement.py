"""Agreement between annotators (docs/measures.md §13) as text tables and JSON.

Input is an :class:`~referee.core.pseudo.agreement.AgreementResult`; nothing is
computed here beyond reading the values it gives.

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


def _pair_rows(pairs: Sequence[PairAgreement], first: Sequence[str] = ()) -> list[list[str]]:
    return [
        [
            *first,
            p.first,
            p.second,
            *(_count(c) for c in (p.cm.tp, p.cm.fn, p.cm.fp, p.cm.tn)),
            _value(p.kappa),
            _value(p.dice),
        ]
        for p in pairs
    ]


_PAIR_HEADER = ["first", "second", "both", "first only", "second only", "neither", "kappa", "Dice"]


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
            ["annotator", "sensitivity", "specificity"],
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
    if result.consensus_folder is not None:
        blocks.append(
            f"Consensus written as ground truth to {result.consensus_folder} "
            f"({result.frames} frame(s), motion where W >= 0.5)"
        )
    return "\n\n".join(blocks)


def _frames_table(videos: Sequence[VideoAgreement]) -> str:
    rows = [
        (v, int(frame), float(share))
        for v in videos
        for frame, share in zip(v.frames, v.disagreement)
        if not math.isnan(share)
    ]
    rows.sort(key=lambda row: -row[2])
    shown = []
    for v, frame, share in rows[:SHOWN_FRAMES]:
        worst = min(v.pairs(frame), key=lambda p: p.kappa.value if p.kappa.defined else math.inf)
        shown.append(
            [
                v.label,
                str(frame),
                f"{share:.4f}",
                _value(worst.kappa),
                f"{worst.first}–{worst.second}",
            ]
        )
    title = (
        f"Frames, most disagreement first (at most {SHOWN_FRAMES}): the share of counted "
        "pixels a pair labels differently, averaged over pairs"
    )
    header = ["video", "frame", "disagreement", "lowest kappa", "pair"]
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
