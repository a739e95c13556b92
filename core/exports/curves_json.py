"""ROC and PR curves of soft outputs as JSON (docs/measures.md §3): per method, each
video's and the summarized curve's areas, and the summarized curve's best threshold."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from referee.core.exports.curves_csv import CurveRow
from referee.core.exports.header import json_header
from referee.core.exports.summary import json_number, json_value
from referee.core.measures.curve_areas import average_precision, roc_auc
from referee.core.measures.curves import Curves, best_f1_threshold
from referee.core.measures.indicators import f1_scores

CURVES_FORMAT = "referee-curves"
FORMAT_VERSION = 1


def _areas(curves: Curves) -> dict[str, Any]:
    """A curve's ROC AUC and average precision (undefined: ``null`` with the reason)."""
    return {
        "roc_auc": json_value(roc_auc(curves)),
        "average_precision": json_value(average_precision(curves)),
    }


def _best(curves: Curves) -> dict[str, Any]:
    """The threshold of highest F1 and the curve's values there."""
    best = best_f1_threshold(curves)
    tp, fp, fn = (curves.confusions[:, k] for k in range(3))
    return {
        "threshold": int(curves.thresholds[best]),
        "f1": json_number(float(f1_scores(tp, fp, fn)[best])),
        "tpr": json_number(float(curves.tpr[best])),
        "fpr": json_number(float(curves.fpr[best])),
        "precision": json_number(float(curves.precision[best])),
    }


def curves_to_dict(
    rows: Sequence[CurveRow], parameters: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """Every method's curves: ``videos`` (category, video, positive and negative pixels,
    areas) and ``summary`` (weights, areas, best threshold), every digit kept."""
    methods: dict[str, dict[str, Any]] = {}
    for method, row, category, video, curves in rows:
        entry = methods.setdefault(method, {"method": method, "videos": []})
        if row == "video":
            entry["videos"].append(
                {
                    "category": category,
                    "video": video,
                    "positives": json_number(float(curves.positives)),
                    "negatives": json_number(float(curves.negatives)),
                    **_areas(curves),
                }
            )
        else:
            weights = row.removeprefix("summary:")
            entry["summary"] = {"weights": weights, **_areas(curves), "best": _best(curves)}
    return {
        **json_header(CURVES_FORMAT, FORMAT_VERSION),
        "parameters": dict(parameters or {}),
        "methods": list(methods.values()),
    }
