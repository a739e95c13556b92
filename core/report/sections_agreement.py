"""The report section of the agreement between annotators (docs/measures.md §13)."""

from __future__ import annotations

from referee.core.exports.agreement import TWO_ANNOTATORS
from referee.core.pseudo.agreement import PairAgreement
from referee.core.report.compute import ReportResults
from referee.core.report.document import Block, Cell, Paragraph, Section, Table

_PAIR_COLUMNS = ("first", "second", "both", "first only", "second only", "neither", "κ", "Dice")


def _pair_row(pair: PairAgreement) -> tuple[Cell, ...]:
    cm = pair.cm
    return (pair.first, pair.second, cm.tp, cm.fn, cm.fp, cm.tn, pair.kappa, pair.dice)


def agreement_section(results: ReportResults) -> Section | None:
    """Each pair of annotators' κ and Dice, and each annotator against the STAPLE
    consensus; ``None`` when the project names no annotators."""
    agreement = results.agreement
    if agreement is None:
        return None
    blocks: list[Block] = [
        Paragraph(
            f"{len(agreement.annotators)} annotators ({', '.join(agreement.annotators)}) "
            f"compared on the {agreement.frames} frames of {len(agreement.videos)} videos "
            "that every one of them labelled, over the pixels inside the ROI that every one "
            "labelled 0, 50 or 255; motion is 255 (docs/measures.md §13)."
        ),
        Table(
            "agreement-pairs",
            "Pairs of annotators, counts pooled over every frame",
            _PAIR_COLUMNS,
            tuple(_pair_row(p) for p in agreement.pairs()),
        ),
    ]
    if len(agreement.videos) > 1:
        blocks.append(
            Table(
                "agreement-videos",
                "Pairs of annotators per video",
                ("video", *_PAIR_COLUMNS),
                tuple((v.label, *_pair_row(p)) for v in agreement.videos for p in v.pairs()),
            )
        )
    blocks.append(
        Table(
            "agreement-consensus",
            "Each annotator against the STAPLE consensus of all (EM per video, expected "
            "counts pooled over videos)",
            ("annotator", "sensitivity", "specificity"),
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
