"""Counting results as text and JSON."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from referee.core.exports.boxes import FORMAT_VERSION, _value
from referee.core.exports.header import json_header
from referee.core.formats.counts_csv import CountSeries
from referee.core.measures.counting import CountingResult

COUNTS_FORMAT = "referee-counts"
_LISTED = 12  # instants printed per term before "… (k more)"


def _changes(instants: Sequence[int], first_frame: int) -> str:
    shown = [f"{first_frame + n}→{first_frame + n + 1}" for n in instants[:_LISTED]]
    more = len(instants) - _LISTED
    return ", ".join(shown) + (f", … ({more} more)" if more > 0 else "") if shown else "none"


def format_counts_report(result: CountingResult, gt: CountSeries, estimate: CountSeries) -> str:
    """The terminal report of ``referee counts``; instants shown as frame changes a→b."""
    first = gt.first_frame
    value = result.ccr_wcc
    ccr = (
        f"{value.value:.4f}  ({result.numerator} / {result.denominator})"
        if value.defined
        else f"undef.  ({value.reason})"
    )
    changed, spurious, unpaired = result.denominator_terms
    frames = "frame" if result.window == 1 else "frames"
    rows = [
        ("CCR_WCC", ccr, ""),
        (
            "  numerator",
            str(result.numerator),
            f"GT changes matched exactly: {_changes(result.numerator_instants, first)}",
        ),
        ("  denominator", str(result.denominator), "sum of the three terms below"),
        (
            "    GT changes",
            str(changed),
            f"frames where the GT count changes: {_changes(result.changed_instants, first)}",
        ),
        (
            "    missed no-change",
            str(spurious),
            (
                "GT constant but no zero change estimated in the window: "
                f"{_changes(result.spurious_instants, first)}"
            ),
        ),
        (
            "    unpaired (M)",
            str(unpaired),
            (
                "estimated changes paired with no GT instant: "
                f"{_changes(result.unpaired_instants, first)}"
            ),
        ),
        ("MAE of counts", f"{result.mae_counts:.4f}", f"over {len(gt)} frames"),
        (
            "MAE of count changes",
            f"{result.mae_changes:.4f}",
            f"over {len(gt) - 1} changes, same frame",
        ),
    ]
    width = max(len(r[0]) for r in rows)
    value_width = max(len(r[1]) for r in rows)
    title = (
        f"Counting (docs/measures.md §6): {gt.path or 'ground truth'} vs "
        f"{estimate.path or 'estimate'}, frames {gt.first_frame}–{gt.last_frame}, "
        f"window ±{result.window} {frames}"
    )
    lines = [title]
    lines += [
        f"{name.ljust(width)}  {text.ljust(value_width)}  {note}".rstrip()
        for name, text, note in rows
    ]
    return "\n".join(lines)


def counts_to_dict(
    result: CountingResult, gt: CountSeries, estimate: CountSeries
) -> dict[str, Any]:
    """Everything ``referee counts`` computed, JSON-ready.

    Instants are change indices n (from frame ``first_frame + n`` to the next).
    """
    changed, spurious, unpaired = result.denominator_terms
    return {
        **json_header(COUNTS_FORMAT, FORMAT_VERSION),
        "parameters": {"gt": str(gt.path), "estimate": str(estimate.path), "window": result.window},
        "first_frame": gt.first_frame,
        "last_frame": gt.last_frame,
        "ccr_wcc": _value(result.ccr_wcc),
        "numerator": result.numerator,
        "denominator": {
            "total": result.denominator,
            "gt_changes": changed,
            "missed_no_change": spurious,
            "unpaired_estimated_changes": unpaired,
        },
        "instants": {
            "numerator": list(result.numerator_instants),
            "gt_changes": list(result.changed_instants),
            "missed_no_change": list(result.spurious_instants),
            "unpaired_estimated_changes": list(result.unpaired_instants),
        },
        "offsets": list(result.offsets),
        "mae_counts": result.mae_counts,
        "mae_changes": result.mae_changes,
    }
