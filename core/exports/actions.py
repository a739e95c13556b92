"""LIRIS action evaluation results as text, JSON and CSV (docs/measures.md §4).

Input is a :class:`referee.core.measures.action_scores.ActionEvaluation`; nothing is
computed here beyond formatting.

* Terminal report: the matching's reading, counts, recall, precision and F at
  ε, the four integrated measures and the final score; optionally per video and
  the class confusion matrix.
* JSON: everything. An undefined value is ``{"value": null, "reason": ...}``;
  in curve arrays it is ``null`` (its reason is that of the point values:
  no ground-truth action, or no detection).
* Pair CSV: one row per assigned pair, miss and false alarm; ``failed``
  lists the failing tests of a vetoed pair, separated by ``;``.
* Curves CSV: one row per scope (``overall`` or a video), varied threshold
  and grid value, with the accepted count (ground-truth actions whose pair is
  accepted), recall, precision and F.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from referee.core.errors import RefereeError
from referee.core.exports.header import json_header
from referee.core.exports.text_table import grid
from referee.core.formats.text_files import format_csv, write_text
from referee.core.measures.action_matching import CRITERIA
from referee.core.measures.action_scores import (
    ActionEvaluation,
    ActionScores,
    ClassConfusion,
    OperatingPoint,
    PairRow,
)
from referee.core.measures.indicators import IndicatorValue
from referee.core.measures.liris_parameters import BEST_PARTNER, ONE_TO_ONE, THRESHOLD_KEYS
from referee.core.model.annotations import ACTION_CLASSES

FORMAT_NAME = "referee-actions"
FORMAT_VERSION = 1

#: Symbols of the integrated measures, by threshold key.
INTEGRAL_SYMBOLS: dict[str, str] = {key: f"I_{key}" for key in THRESHOLD_KEYS}

#: What each reading of the matching does (docs/measures.md §4), for the terminal and the report.
MATCHING_WORDING: dict[str, str] = {
    ONE_TO_ONE: "pairs taken greedily by Dice overlap within a class, each action in at "
    "most one pair",
    BEST_PARTNER: "each action paired with its partner of highest Dice overlap within a "
    "class, with no one-to-one rule (an action may be the partner of several)",
}

PAIR_COLUMNS: tuple[str, ...] = (
    "video",
    "outcome",
    "gt_index",
    "gt_nr",
    "gt_class",
    "det_index",
    "det_nr",
    "det_class",
    "dice",
    "spatial_recall",
    "spatial_precision",
    "temporal_recall",
    "temporal_precision",
    "failed",
)
CURVE_COLUMNS: tuple[str, ...] = (
    "scope",
    "video",
    "varied",
    "criterion",
    "threshold",
    "epsilon",
    "accepted",
    "n_gt",
    "n_det",
    "recall",
    "precision",
    "f",
)


# --- numbers ---------------------------------------------------------------------------------


def _number(value: float | None) -> float | int | None:
    if value is None or math.isnan(value) or math.isinf(value):
        return None
    if float(value).is_integer() and abs(value) < 2**53:
        return int(value)
    return float(value)


def _cell(value: float | None) -> str:
    number = _number(value)
    if number is None:
        return ""
    return repr(number) if isinstance(number, float) else str(number)


def _shown(value: IndicatorValue) -> str:
    if value.defined:
        return f"{value.value:.4f}"
    return f"undefined ({(value.reason or '').removeprefix('undefined: ')})"


# --- terminal --------------------------------------------------------------------------------


def format_report(
    evaluation: ActionEvaluation, per_video: bool = False, confusion: bool = False
) -> str:
    """The terminal summary: point values at ε, integrals, final score (docs/measures.md §4)."""
    params, overall = evaluation.parameters, evaluation.overall
    point = overall.point
    eps = f"{params.epsilon:g}"
    lines = [
        f"LIRIS action localization (docs/measures.md §4): {len(evaluation.matching.videos)} videos, "
        f"{point.n_gt} ground-truth actions, {point.n_det} detections",
        f"Matching: {params.matching}, {MATCHING_WORDING[params.matching]}",
        *_counts_lines(point, params.matching, eps),
        f"  Recall          {_shown(point.recall)}",
        f"  Precision       {_shown(point.precision)}",
        f"  F               {_shown(point.f)}",
        f"Integrated measures: mean F over the varied threshold t = "
        f"{', '.join(f'{t:g}' for t in params.grid)}, the others at ε:",
    ]
    for key in THRESHOLD_KEYS:
        label = f"{INTEGRAL_SYMBOLS[key]} ({CRITERIA[key]})"
        lines.append(f"  {label:<28}  {_shown(overall.integrals[key])}")
    lines.append(f"  {'Final score (mean of the 4)':<28}  {_shown(overall.final)}")
    blocks = ["\n".join(lines)]
    if per_video:
        blocks.append(format_video_table(evaluation.per_video, params.matching))
    if confusion:
        blocks.append(
            "Class confusion (matching without the class condition, accepted at "
            f"ε = {eps}; rows: ground truth, columns: detected; unmatched actions "
            "not counted)\n" + format_confusion(evaluation.confusion)
        )
    return "\n\n".join(blocks)


def _counts_lines(point: OperatingPoint, reading: str, eps: str) -> list[str]:
    """The counts at ε: pairs one-to-one; each side's partners best-partner."""
    if reading == ONE_TO_ONE:
        return [
            f"  {point.assigned} pairs assigned",
            f"At ε = {eps} (t_sr = t_sp = t_tr = t_tp = {eps}):",
            f"  accepted        {point.accepted}",
            f"  vetoed pairs    {point.vetoed}",
            f"  missed          {point.missed} ground-truth actions "
            f"({point.n_gt - point.assigned} unassigned, {point.vetoed} in vetoed pairs)",
            f"  false alarms    {point.false_alarms} detections "
            f"({point.n_det - point.assigned} unassigned, {point.vetoed} in vetoed pairs)",
        ]
    return [
        f"  {point.assigned} ground-truth actions and {point.det_assigned} detections "
        "have a partner",
        f"At ε = {eps} (t_sr = t_sp = t_tr = t_tp = {eps}):",
        f"  found           {point.accepted} ground-truth actions (pair accepted)",
        f"  correct         {point.det_accepted} detections (pair accepted)",
        f"  missed          {point.missed} ground-truth actions "
        f"({point.n_gt - point.assigned} without a partner, {point.vetoed} with a vetoed pair)",
        f"  false alarms    {point.false_alarms} detections "
        f"({point.n_det - point.det_assigned} without a partner, {point.det_vetoed} with a "
        "vetoed pair)",
    ]


def count_columns(reading: str, assigned: bool = False) -> tuple[str, ...]:
    """Titles of a table row's counts: one-to-one the ``accepted`` pairs, best-partner the
    ground-truth actions ``found`` and the ``correct`` detections (their pair accepted);
    with ``assigned``, first the actions with a partner (one-to-one: the pairs)."""
    if reading == ONE_TO_ONE:
        return ("assigned", "accepted") if assigned else ("accepted",)
    partners = ("GT with a partner", "detections with a partner") if assigned else ()
    return (*partners, "found", "correct")


def count_cells(point: OperatingPoint, reading: str, assigned: bool = False) -> tuple[int, ...]:
    """The counts :func:`count_columns` names, of ``point``."""
    if reading == ONE_TO_ONE:
        return (point.assigned, point.accepted) if assigned else (point.accepted,)
    partners = (point.assigned, point.det_assigned) if assigned else ()
    return (*partners, point.accepted, point.det_accepted)


def format_video_table(per_video: Mapping[str, ActionScores], reading: str = ONE_TO_ONE) -> str:
    """One row per video: counts, R, P, F at ε and the integrated measures."""
    header = [
        "video",
        "GT",
        "det",
        *count_columns(reading),
        "R",
        "P",
        "F",
        *(INTEGRAL_SYMBOLS[k] for k in THRESHOLD_KEYS),
        "final",
    ]

    def short(value: IndicatorValue) -> str:
        return f"{value.value:.4f}" if value.defined else "undef."

    rows = [
        [
            name,
            str(s.point.n_gt),
            str(s.point.n_det),
            *(str(n) for n in count_cells(s.point, reading)),
            short(s.point.recall),
            short(s.point.precision),
            short(s.point.f),
            *(short(s.integrals[k]) for k in THRESHOLD_KEYS),
            short(s.final),
        ]
        for name, s in per_video.items()
    ]
    return "Per video\n" + grid(header, rows)


def format_confusion(confusion: ClassConfusion) -> str:
    """Counts and row percentages of the class confusion matrix."""
    codes = [ACTION_CLASSES[c][0] for c in confusion.classes]
    header = ["GT \\ det", *codes, "total"]
    rows = []
    for r, c in enumerate(confusion.classes):
        counts = confusion.counts[r]
        cells = [
            (f"{n} ({p:.0f}%)" if n else "·") if not math.isnan(p) else "·"
            for n, p in zip(counts, confusion.percentages[r])
        ]
        rows.append([f"{c} {codes[r]}", *cells, str(int(counts.sum()))])
    return grid(header, rows)


# --- JSON ------------------------------------------------------------------------------------


def _value(v: IndicatorValue) -> dict[str, Any]:
    return {"value": _number(v.value), "reason": v.reason}


def _array(values: np.ndarray) -> list[float | int | None]:
    return [_number(float(x)) for x in np.asarray(values, dtype=float)]


def _scores_to_dict(scores: ActionScores) -> dict[str, Any]:
    point, curves = scores.point, scores.curves
    return {
        "n_gt": point.n_gt,
        "n_det": point.n_det,
        "assigned": point.assigned,
        "accepted": point.accepted,
        "vetoed": point.vetoed,
        "det_assigned": point.det_assigned,
        "det_accepted": point.det_accepted,
        "det_vetoed": point.det_vetoed,
        "missed": point.missed,
        "false_alarms": point.false_alarms,
        "at_epsilon": {
            "thresholds": point.thresholds,
            "recall": _value(point.recall),
            "precision": _value(point.precision),
            "f": _value(point.f),
        },
        "integrals": {
            key: {
                "symbol": INTEGRAL_SYMBOLS[key],
                "varied": CRITERIA[key],
                **_value(scores.integrals[key]),
            }
            for key in THRESHOLD_KEYS
        },
        "final": _value(scores.final),
        "curves": {
            "grid": _array(curves.grid),
            **{
                key: {
                    "accepted": [int(a) for a in curves.accepted[k]],
                    "det_accepted": [int(a) for a in curves.det_accepted[k]],
                    "recall": _array(curves.recall[k]),
                    "precision": _array(curves.precision[k]),
                    "f": _array(curves.f[k]),
                }
                for k, key in enumerate(THRESHOLD_KEYS)
            },
        },
    }


def _confusion_to_dict(confusion: ClassConfusion) -> dict[str, Any]:
    return {
        "classes": list(confusion.classes),
        "codes": [ACTION_CLASSES[c][0] for c in confusion.classes],
        "counts": confusion.counts.tolist(),
        "row_percentages": [_array(row) for row in confusion.percentages],
    }


def _pair_to_dict(row: PairRow) -> dict[str, Any]:
    return {
        "video": row.video,
        "outcome": row.outcome,
        "gt": None
        if row.gt_index is None
        else {"index": row.gt_index, "nr": row.gt_number, "class": row.gt_class},
        "det": None
        if row.det_index is None
        else {"index": row.det_index, "nr": row.det_number, "class": row.det_class},
        "dice": _number(row.dice),
        "spatial_recall": _number(row.spatial_recall),
        "spatial_precision": _number(row.spatial_precision),
        "temporal_recall": _number(row.temporal_recall),
        "temporal_precision": _number(row.temporal_precision),
        "failed": list(row.failed),
    }


def evaluation_to_dict(
    evaluation: ActionEvaluation, inputs: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """Plain JSON-ready structure of everything in ``evaluation``.

    ``inputs`` (e.g. the file names) is stored as given under ``parameters``.
    """
    params = evaluation.parameters
    return {
        **json_header(FORMAT_NAME, FORMAT_VERSION),
        "parameters": {
            "epsilon": params.epsilon,
            "grid": list(params.grid),
            "matching": params.matching,
            "thresholds": {key: CRITERIA[key] for key in THRESHOLD_KEYS},
            **dict(inputs or {}),
        },
        "overall": _scores_to_dict(evaluation.overall),
        "confusion": _confusion_to_dict(evaluation.confusion),
        "videos": [
            {
                "video": v.video,
                "assigned": [list(p) for p in v.assigned],
                "det_assigned": [list(p) for p in v.det_assigned],
                "assigned_any_class": [list(p) for p in v.assigned_any_class],
                "scores": _scores_to_dict(evaluation.per_video[v.video]),
                "confusion": _confusion_to_dict(evaluation.confusion_per_video[v.video]),
            }
            for v in evaluation.matching.videos
        ],
        "pairs": [_pair_to_dict(row) for row in evaluation.pairs],
    }


def format_json(evaluation: ActionEvaluation, inputs: Mapping[str, Any] | None = None) -> str:
    """The JSON text of :func:`evaluation_to_dict` (strict JSON: no NaN literal)."""
    try:
        return (
            json.dumps(
                evaluation_to_dict(evaluation, inputs),
                indent=2,
                ensure_ascii=False,
                allow_nan=False,
            )
            + "\n"
        )
    except (TypeError, ValueError) as exc:
        raise RefereeError(f"cannot write the action results as JSON: {exc}") from exc


def write_json(
    path: str | Path, evaluation: ActionEvaluation, inputs: Mapping[str, Any] | None = None
) -> None:
    """Write :func:`format_json` to ``path`` atomically."""
    write_text(path, format_json(evaluation, inputs))


# --- CSV -------------------------------------------------------------------------------------


def _optional(value: int | None) -> str:
    return "" if value is None else str(value)


def format_pairs_csv(rows: Sequence[PairRow]) -> str:
    """The per-pair explanation table as CSV (:data:`PAIR_COLUMNS`)."""
    lines: list[Sequence[object]] = [PAIR_COLUMNS]
    for r in rows:
        lines.append(
            [
                r.video,
                r.outcome,
                _optional(r.gt_index),
                _optional(r.gt_number),
                _optional(r.gt_class),
                _optional(r.det_index),
                _optional(r.det_number),
                _optional(r.det_class),
                _cell(r.dice),
                _cell(r.spatial_recall),
                _cell(r.spatial_precision),
                _cell(r.temporal_recall),
                _cell(r.temporal_precision),
                ";".join(r.failed),
            ]
        )
    return format_csv(lines)


def write_pairs_csv(path: str | Path, evaluation: ActionEvaluation) -> None:
    """Write the per-pair table of ``evaluation`` to ``path`` atomically."""
    write_text(path, format_pairs_csv(evaluation.pairs))


def format_curves_csv(evaluation: ActionEvaluation) -> str:
    """Performance-vs-quality curves, overall then per video, as CSV (:data:`CURVE_COLUMNS`)."""
    lines: list[Sequence[object]] = [CURVE_COLUMNS]
    eps = _cell(evaluation.parameters.epsilon)
    scopes = [
        ("overall", "", evaluation.overall),
        *(("video", name, s) for name, s in evaluation.per_video.items()),
    ]
    for scope, video, scores in scopes:
        curves, point = scores.curves, scores.point
        for k, key in enumerate(THRESHOLD_KEYS):
            for g, t in enumerate(curves.grid):
                lines.append(
                    [
                        scope,
                        video,
                        key,
                        CRITERIA[key],
                        _cell(float(t)),
                        eps,
                        str(int(curves.accepted[k, g])),
                        str(point.n_gt),
                        str(point.n_det),
                        _cell(curves.recall[k, g]),
                        _cell(curves.precision[k, g]),
                        _cell(curves.f[k, g]),
                    ]
                )
    return format_csv(lines)


def write_curves_csv(path: str | Path, evaluation: ActionEvaluation) -> None:
    """Write :func:`format_curves_csv` to ``path`` atomically."""
    write_text(path, format_curves_csv(evaluation))
