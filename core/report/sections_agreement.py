"""The report section of the agreement between annotators (docs/measures.md §13)."""

from __future__ import annotations

from referee.core.exports.agreement import (
    PAIR_COLUMNS,
    QUALITY_COLUMNS,
    TWO_ANNOTATORS,
    compared_sentence,
    pair_cells,
)
from referee.core.report.compute import ReportResults
from referee.core.report.document import Block, Paragraph, Section, Table


def agreement_section(results: ReportResults) -> Section | None:
    """Each pair of annotators' κ and Dice, and each annotator against the STAPLE
    consensus; ``None`` when the project names no annotators."""
    agreement = results.agreement
    if agreement is None:
        return None
    blocks: list[Block] = [
        Paragraph(compared_sentence(agreement)),
        Table(
            "agreement-pairs",
            "Pairs of annotators, counts pooled over every frame",
            PAIR_COLUMNS,
            tuple(pair_cells(p) for p in agreement.pairs()),
        ),
    ]
    if len(agreement.videos) > 1:
        blocks.append(
            Table(
                "agreement-videos",
                "Pairs of annotators per video",
                ("video", *PAIR_COLUMNS),
                tuple((v.label, *pair_cells(p)) for v in agreement.videos for p in v.pairs()),
            )
        )
    blocks.append(
        Table(
            "agreement-consensus",
            "Each annotator against the STAPLE consensus of all (EM per video, expected "
            "counts pooled over videos)",
            QUALITY_COLUMNS,
            tuple((q.name, q.sensitivity, q.specificity) for q in agreement.qualities()),
        )
    )
    if not agreement.identifiable:
        blocks.append(Paragraph(f"Note: {TWO_ANNOTATORS}."))
    if agreement.left_out:
        blocks.append(
            Table(
                "agreement-left-out",
                "Videos without a frame that every annotator labelled",
                ("video", "reason"),
                agreement.left_out,
            )
        )
    return Section("agreement", "Agreement between annotators", tuple(blocks))
