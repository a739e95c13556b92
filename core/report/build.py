"""Build a :class:`~referee.core.report.document.Report` of a project.

:func:`build_report` computes everything (:func:`~.compute.compute_results`)
and :func:`assemble_report` lays the results out: what was evaluated and with
which parameters, the agreement between annotators, per-video tables, summaries against the CDnet procedure,
ROC and PR, LIRIS actions, counting, pseudo ground truth, frames to annotate
next, estimates from labelled frames, significance, and the definitions of every
indicator used.
"""

from __future__ import annotations

from datetime import datetime

from referee.core import __version__
from referee.core.cache.store import FrameCache
from referee.core.exports.text_table import TABLE_INDICATORS
from referee.core.measures.indicators import get_indicator
from referee.core.model.frame_set import as_frame_set
from referee.core.model.origins import frames_by_source
from referee.core.model.project import Project
from referee.core.progress import CancelToken, ProgressCallback
from referee.core.report.compute import INTERVALS, ReportResults, compute_results
from referee.core.report.definitions import definitions_section
from referee.core.report.document import SHOWN_DIGITS, Block, Paragraph, Report, Section, Table
from referee.core.report.options import ReportOptions
from referee.core.report.sections_agreement import agreement_section
from referee.core.report.sections_detections import (
    actions_section,
    boxes_section,
    counts_section,
)
from referee.core.report.sections_estimates import (
    PSEUDO_INDICATORS,
    annotate_section,
    pseudo_section,
    significance_section,
)
from referee.core.report.sections_labelled import labelled_estimates_section
from referee.core.report.sections_pixels import (
    per_video_section,
    roc_pr_section,
    summary_section,
)
from referee.core.significance.choices import AUTO_TEST, TRACKING_MEASURES
from referee.core.significance.hypothesis_tests import TEST_NAMES
from referee.core.versions import library_versions
from referee.core.workflow.options import AnalysisOptions
from referee.core.workflow.results import ProjectResults

#: What each skipped part is called in the report.
PART_NAMES: dict[str, str] = {
    "pixels": "pixel masks",
    "curves": "ROC and PR curves of scores",
    "actions": "actions",
    "boxes": "per-frame boxes",
    "counts": "counting",
    "pseudo": "pseudo ground truth",
    "ranking": "frames to annotate next",
    "significance": "significance",
    "estimate": "estimates from labelled frames",
    "agreement": "agreement between annotators",
    INTERVALS: "intervals of the tracking measures",
}


def build_report(
    project: Project,
    options: ReportOptions | None = None,
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
    created: datetime | None = None,
    computed: ProjectResults | None = None,
    cache: FrameCache | None = None,
) -> Report:
    """Compute every result of ``project`` and lay it out as a report.

    ``progress(done, total)`` runs to ``total = 1000``; ``created`` defaults to now;
    results in ``computed`` made with the same options are reused, and the per-frame
    counts of unchanged frames are taken from ``cache``.

    Raises
    ------
    RefereeError
        Bad input files, named in the message.
    CancelledError
        If ``cancel`` is set.
    """
    options = options or ReportOptions()
    results = compute_results(project, options, progress, cancel, computed, cache)
    return assemble_report(project, results, options, created)


def assemble_report(
    project: Project,
    results: ReportResults,
    options: ReportOptions | None = None,
    created: datetime | None = None,
) -> Report:
    """Lay computed ``results`` out as a report (no computation beyond formatting)."""
    options = options or ReportOptions()
    created_text = (created or datetime.now().astimezone()).isoformat(timespec="seconds")
    sections = [
        evaluated_section(project, results),
        agreement_section(results),
        per_video_section(results),
        summary_section(results),
        roc_pr_section(results),
        actions_section(results),
        boxes_section(results),
        counts_section(results),
        pseudo_section(results),
        annotate_section(results),
        labelled_estimates_section(results),
        significance_section(results),
        definitions_section(_indicators_used(options)),
    ]
    return Report(
        title=options.title or f"Referee report — {project.name}",
        created=created_text,
        version=__version__,
        facts=facts(project, results, options, created_text),
        sections=tuple(s for s in sections if s is not None),
        versions=tuple(library_versions().items()),
    )


def _indicators_used(options: ReportOptions) -> tuple[str, ...]:
    keys = [*TABLE_INDICATORS, *PSEUDO_INDICATORS]
    rank_by = options.analysis.pixels.rank_by
    rank_key = "f1" if rank_by == "fmeasure" else get_indicator(rank_by).key
    return tuple(dict.fromkeys([*keys, rank_key]))


def _default(value: object, default: object) -> str:
    return " (default)" if value == default else ""


def facts(
    project: Project, results: ReportResults, options: ReportOptions, created: str
) -> tuple[tuple[str, str], ...]:
    """What was evaluated and every parameter, defaults included, as (name, value) pairs."""
    a, defaults = options.analysis, AnalysisOptions()
    kinds = ("masks", "scores", "actions", "boxes")
    detectors = (
        "; ".join(
            f"{d.name} ({', '.join(k for k in kinds if getattr(d, k))})" for d in project.detectors
        )
        or "none"
    )
    threshold = (
        "a mask pixel is positive iff it is 255 (default)"
        if a.pixels.threshold is None
        else f"a mask pixel is positive iff it is ≥ {a.pixels.threshold}"
    )
    committee = a.pseudo.committee.describe(list(project.mask_detectors()))
    test = (
        "paired t-test for two detectors, repeated-measures ANOVA for more (default)"
        if a.significance.test == AUTO_TEST
        else TEST_NAMES[a.significance.test]
    )
    ranking = a.ranking
    criterion = (
        results.ranking.criterion + " (the project's default)"
        if ranking.criterion is None and results.ranking is not None
        else ranking.criterion or "the project's default"
    )
    window = a.counts.window
    rows = [
        ("project", project.name + (f" ({project.file})" if project.file else "")),
        ("Referee version", __version__),
        ("created", created),
        (
            "library versions",
            ", ".join(f"{name} {version}" for name, version in library_versions().items()),
        ),
        ("dataset", str(project.dataset) if project.dataset else "none"),
        (
            "videos",
            f"{len(results.videos)}: "
            + ", ".join(
                f"{v.label} frames {v.first}–{v.last}"
                + (f" ({len(v.truth_frames):,} annotated)" if v.partly_annotated else "")
                for v in results.videos
            )
            if results.videos
            else "none",
        ),
        (
            "video files without ground truth",
            ", ".join(str(p) for p in project.video_files) or "none",
        ),
        ("ground truth", _groundtruth_sources(project, results)),
        ("detectors", detectors),
        ("detection rule", threshold),
        ("summarization weights", _weights_text(options, results)),
        (
            "ranking indicator",
            a.pixels.rank_by + _default(a.pixels.rank_by, defaults.pixels.rank_by),
        ),
        (
            "LIRIS",
            f"ε = {a.actions.liris.epsilon:g}; grid "
            f"{', '.join(f'{t:g}' for t in a.actions.liris.grid)}"
            + (
                ""
                if a.actions.liris.matching == defaults.actions.liris.matching
                else f"; matching {a.actions.liris.matching}"
            )
            + _default(a.actions, defaults.actions),
        ),
        (
            "per-frame boxes",
            f"IoU ≥ {a.boxes.iou:g}, {a.boxes.mapping} mapping"
            + (", classes must agree" if a.boxes.class_aware else "")
            + _default(a.boxes, defaults.boxes),
        ),
        (
            "counting window",
            f"±{window} frame{'' if window == 1 else 's'}"
            + _default(window, defaults.counts.window),
        ),
        ("pseudo ground truth", committee),
        ("consensus thumbnails", f"{options.heatmap_frames} per video"),
        (
            "frames to annotate",
            f"criterion {criterion}; "
            + ("every frame left by the gap" if ranking.top is None else f"top {ranking.top}")
            + f"; gap ±{ranking.gap} frames; frames that already have ground truth "
            + ("included" if ranking.include_annotated else "left out (default)"),
        ),
        (
            "significance",
            f"cases: {a.significance.cases}"
            + (
                f" ({TRACKING_MEASURES[a.significance.tracking_measure]})"
                if a.significance.cases == "tracking"
                else ""
            )
            + f"; test: {test}; α = {a.significance.alpha:g}; "
            f"τ = {a.significance.tau:g}; {a.significance.thresholds} thresholds "
            f"t_k = k·max d / {a.significance.thresholds}",
        ),
        ("numbers shown", f"{SHOWN_DIGITS} decimals; CSV and JSON keep every digit"),
    ]
    return tuple(rows)


def _weights_text(options: ReportOptions, results: ReportResults) -> str:
    weights = options.analysis.pixels.weights
    text = weights + (" (default)" if weights == "auto" else "")
    if weights == "auto" and results.pixels is not None:
        text += f", which resolves to {results.pixels.scheme}"
    return text


def _groundtruth_sources(project: Project, results: ReportResults) -> str:
    parts = []
    if results.videos:
        parts.append(
            "CDnet ground-truth masks (groundtruth/gt%06d.png, ROI.bmp, "
            "temporalROI.txt) of each video"
        )
    if project.actions_groundtruth:
        parts.append(f"actions: {project.actions_groundtruth}")
    if project.boxes_groundtruth:
        parts.append(f"boxes: {project.boxes_groundtruth}")
    if project.counts:
        parts.append(f"counts: {project.counts}/<video>/groundtruth.csv")
    if project.annotators:
        parts.append(
            "annotators (§13): " + ", ".join(f"{a.name} ({a.root})" for a in project.annotators)
        )
    return "; ".join(parts) or "none"


def evaluated_section(project: Project, results: ReportResults) -> Section:
    """The videos and their frame ranges, and what the project could not provide."""
    rows = tuple(
        (v.category, v.name, v.first, v.last, v.n_frames, len(v.truth_frames))
        for v in results.videos
    )
    blocks: list[Block] = [
        Paragraph(
            f"Project {project.name}: {len(results.videos)} videos with ground truth, "
            f"{len(project.detectors)} detectors. Every parameter and default is listed "
            f"above."
        ),
        Table(
            "videos",
            "Videos, their temporal ROI and the annotated frames evaluated in it",
            ("category", "video", "first frame", "last frame", "frames", "annotated frames"),
            rows,
        ),
    ]
    sources = [
        (v.label, source, count)
        for v in results.videos
        if project.origins_of(v.label)
        for source, count in sorted(
            frames_by_source(project.origins_of(v.label), as_frame_set(v.truth_frames)).items()
        )
    ]
    if sources:
        blocks.append(
            Table(
                "annotation-sources",
                "Where the annotated frames came from: painted by hand, accepted blank, "
                "accepted from the consensus or a detector's mask (after correction or not), "
                "or recorded before Referee kept track (docs/measures.md §8)",
                ("video", "source", "frames"),
                tuple(sources),
            )
        )
    if results.skipped:
        blocks.append(
            Table(
                "not-evaluated",
                "Not in this report, and why",
                ("part", "reason"),
                tuple((PART_NAMES.get(k, k), reason) for k, reason in results.skipped.items()),
            )
        )
    return Section("evaluated", "What was evaluated", tuple(blocks))
