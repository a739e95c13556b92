"""Tracking measures and detection AP as text and JSON (docs/measures.md §5): HOTA, CLEAR
MOT, the identity measures and VACE's ATA of each tracker, combined over the sequences
and per sequence; COCO's twelve AP and AR numbers of each detector."""

from __future__ import annotations

import math
import textwrap
from collections.abc import Mapping
from typing import Any

from referee.core.exports.summary import json_number
from referee.core.exports.text_table import grid
from referee.core.measures.detection_ap import UNDEFINED, APSummary, DetectionAP
from referee.core.measures.tracking import TrackingEvaluation, TrackingScores

#: The columns of the terminal table: heading and how to read the value.
COLUMNS: tuple[tuple[str, str], ...] = (
    ("HOTA", "hota"),
    ("DetA", "det_a"),
    ("AssA", "ass_a"),
    ("LocA", "loc_a"),
    ("MOTA", "mota"),
    ("MOTP", "motp"),
    ("IDF1", "idf1"),
    ("ATA", "ata"),
    ("IDSW", "idsw"),
    ("Frag", "frag"),
    ("MT", "mt"),
    ("PT", "pt"),
    ("ML", "ml"),
)


#: How the tracking measures are computed, in one sentence.
CONVENTIONS = (
    "HOTA averaged over α = 0.05 … 0.95; CLEAR MOT, IDF1 and ATA at IoU ≥ 0.5; sequences "
    "combined as TrackEval combines each measure."
)


def tracking_values(scores: TrackingScores) -> dict[str, float]:
    """Every tracking measure of one sequence (or several combined), by key: HOTA's
    α-averages and its values at the lowest α, CLEAR MOT's, the identity measures, VACE's
    ATA and STDA."""
    h, c, i, v = scores.hota, scores.clear, scores.identity, scores.vace
    return {
        "hota": h.mean_hota,
        "det_a": h.mean_det_a,
        "det_re": h.mean_det_re,
        "det_pr": h.mean_det_pr,
        "ass_a": h.mean_ass_a,
        "ass_re": h.mean_ass_re,
        "ass_pr": h.mean_ass_pr,
        "loc_a": h.mean_loc_a,
        "owta": h.mean_owta,
        "hota_0": h.hota_0,
        "loc_a_0": h.loc_a_0,
        "mota": c.mota,
        "motp": c.motp,
        "moda": c.moda,
        "clr_recall": c.recall,
        "clr_precision": c.precision,
        "tp": c.tp,
        "fn": c.fn,
        "fp": c.fp,
        "idsw": c.idsw,
        "frag": c.frag,
        "mt": c.mt,
        "pt": c.pt,
        "ml": c.ml,
        "idf1": i.idf1,
        "idp": i.idp,
        "idr": i.idr,
        "idtp": i.idtp,
        "idfn": i.idfn,
        "idfp": i.idfp,
        "ata": v.ata,
        "stda": v.stda,
    }


def _cell(key: str, value: float) -> str:
    if math.isnan(value):  # ATA without any identity
        return "undef."
    if key in ("idsw", "frag", "mt", "pt", "ml"):
        return f"{int(value):,}"
    return f"{value:.4f}"


def format_tracking_table(evaluations: Mapping[str, TrackingEvaluation]) -> str:
    """Each tracker's measures combined over its sequences, a row per tracker, then each
    tracker's sequences."""
    header = ["tracker", *(title for title, _ in COLUMNS)]
    rows = []
    for name, evaluation in evaluations.items():
        values = tracking_values(evaluation.combined)
        rows.append([name, *(_cell(key, values[key]) for _, key in COLUMNS)])
    lines = [
        *textwrap.wrap(f"Tracking (docs/measures.md §5): {CONVENTIONS}", 84),
        grid(header, rows),
    ]
    for name, evaluation in evaluations.items():
        if len(evaluation.sequences) < 2:
            continue
        sequence_rows = [
            [sequence, *(_cell(k, tracking_values(s)[k]) for _, k in COLUMNS)]
            for sequence, s in evaluation.sequences.items()
        ]
        lines += ["", f"{name}, per sequence:", grid(["sequence", *header[1:]], sequence_rows)]
    return "\n".join(lines)


def tracking_dict(evaluation: TrackingEvaluation) -> dict[str, Any]:
    """One tracker's measures for JSON: ``combined`` and ``sequences`` (undefined: null)."""

    def numbers(scores: TrackingScores) -> dict[str, float | int | None]:
        return {key: json_number(value) for key, value in tracking_values(scores).items()}

    return {
        "combined": numbers(evaluation.combined),
        "sequences": {name: numbers(s) for name, s in evaluation.sequences.items()},
    }


#: COCO's twelve numbers: heading and field of :class:`APSummary`, in COCO's order.
AP_COLUMNS: tuple[tuple[str, str], ...] = (
    ("AP", "ap"),
    ("AP50", "ap50"),
    ("AP75", "ap75"),
    ("APs", "ap_small"),
    ("APm", "ap_medium"),
    ("APl", "ap_large"),
    ("AR1", "ar1"),
    ("AR10", "ar10"),
    ("AR100", "ar100"),
    ("ARs", "ar_small"),
    ("ARm", "ar_medium"),
    ("ARl", "ar_large"),
)


def _ap_cell(value: float) -> str:
    return "undef." if value == UNDEFINED else f"{value:.4f}"


def format_ap_table(results: Mapping[str, DetectionAP]) -> str:
    """Each detector's COCO numbers, a row each, then a row per category when there are
    several (the overall row is their mean)."""
    rows = []
    for name, r in results.items():
        rows.append([name, *(_ap_cell(getattr(r.overall, key)) for _, key in AP_COLUMNS)])
        if len(r.categories) > 1:
            rows += [
                [f"  class {c}", *(_ap_cell(getattr(r.per_category[c], k)) for _, k in AP_COLUMNS)]
                for c in r.categories
            ]
    return "\n".join(
        [
            "Detection AP (COCO; docs/measures.md §5): IoU 0.50:0.05:0.95, 101 recall points,",
            "small < 32², large > 96² pixels; undef.: no ground-truth box of that size.",
            grid(["detector", *(title for title, _ in AP_COLUMNS)], rows),
        ]
    )


def ap_dict(result: DetectionAP) -> dict[str, Any]:
    """The twelve numbers for JSON (undefined: null), and under ``per_category`` each
    category's when there are several."""

    def numbers(summary: APSummary) -> dict[str, float | None]:
        return {
            key: None if getattr(summary, key) == UNDEFINED else getattr(summary, key)
            for _, key in AP_COLUMNS
        }

    found: dict[str, Any] = numbers(result.overall)
    if len(result.categories) > 1:
        found["per_category"] = {str(c): numbers(result.per_category[c]) for c in result.categories}
    return found
