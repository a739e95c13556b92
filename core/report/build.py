"""Build a :class:`~referee.core.report.document.Report` of a project.

:func:`build_report` computes everything (:func:`~.compute.compute_results`)
and :func:`assemble_report` lays the results out: what was evaluated and with
which parameters, per-video tables, summaries against the CDnet procedure,
ROC and PR, LIRIS actions, counting, pseudo ground truth, frames to annotate
next, significance, and the definitions of every indicator used.
"""

from __future__ import annotations

from datetime import datetime

from referee.core import __version__
from referee.core.measures.indicators import get_indicator
from referee.core.model.project import Project
from referee.core.progress import CancelToken, ProgressCallback
from referee.core.ranking.scores import video_label
from referee.core.report.compute import ProjectResults, compute_results
from referee.core.report.definitions import definitions_section
from referee.core.report.document import SHOWN_DIGITS, Paragraph, Report, Section, Table
from referee.core.report.options import ReportOptions
from referee.core.report.sections_more import (
    PSEUDO_INDICATORS,
    actions_section,
    annotate_section,
    counts_section,
    pseudo_section,
    significance_section,
)
from referee.core.report.sections_pixels import (
    TABLE_INDICATORS,
    per_video_section,
    roc_pr_section,
    summary_section,
)
from referee.core.significance.sweep import DEFAULT_THRESHOLDS

#: What each skipped part is called in the report.
PART_NAMES: dict[str, str] = {
    "pixels": "pixel masks",
    "curves": "ROC and PR curves of scores",
    "actions": "actions",
    "counts": "counting",
    "pseudo": "pseudo ground truth",
    "truth": "pseudo against truth",
    "annotate": "frames to annotate next",
    "significance": "significance",
}


def build_report(
    project: Project,
    options: ReportOptions = ReportOptions(),
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
    created: datetime | None = None,
) -> Report:
    """Compute every result of ``project`` and lay it out as a report.

    ``progress(done, total)`` runs to ``total = 1000``; ``created`` defaults to now.

    Raises
    ------
    RefereeError
        Bad input files, named in the message.
    CancelledError
        If ``cancel`` is set.
    """
    results = compute_results(project, options, progress, cancel)
    return assemble_report(project, results, options, created)


def assemble_report(
    project: Project,
    results: ProjectResults,
    options: ReportOptions = ReportOptions(),
    created: datetime | None = None,
) -> Report:
    """Lay computed ``results`` out as a report (no computation beyond formatting)."""
    created = (created or datetime.now().astimezone()).isoformat(timespec="seconds")
    sections = [
        evaluated_section(project, results),
        per_video_section(results),
        summary_section(results),
        roc_pr_section(results),
        actions_section(results),
        counts_section(results, options),
        pseudo_section(results),
        annotate_section(results, options),
        significance_section(results),
        definitions_section(_indicators_used(options)),
    ]
    return Report(
        title=options.title or f"Referee report — {project.name}",
        created=created,
        version=__version__,
        facts=facts(project, results, options, created),
        sections=tuple(s for s in sections if s is not None),
    )


def _indicators_used(options: ReportOptions) -> tuple[str, ...]:
    keys = [*TABLE_INDICATORS, *PSEUDO_INDICATORS]
    rank_key = "f1" if options.rank_by == "fmeasure" else get_indicator(options.rank_by).key
    return tuple(dict.fromkeys([*keys, rank_key]))


def facts(
    project: Project, results: ProjectResults, options: ReportOptions, created: str
) -> tuple[tuple[str, str], ...]:
    """What was evaluated and every parameter, defaults included, as (name, value) pairs."""
    detectors = (
        "; ".join(
            f"{d.name} ({', '.join(k for k in ('masks', 'scores', 'actions') if getattr(d, k))})"
            for d in project.detectors
        )
        or "none"
    )
    threshold = (
        "a mask pixel is positive iff it is 255 (default)"
        if options.threshold is None
        else f"a mask pixel is positive iff it is ≥ {options.threshold}"
    )
    committee = options.committee.describe(
        [d.name for d in project.detectors if d.masks is not None]
    )
    test = (
        options.significance_test
        or "paired t-test for two detectors, repeated-measures ANOVA for more (default)"
    )
    rows = [
        ("project", project.name + (f" ({project.file})" if project.file else "")),
        ("Referee version", __version__),
        ("created", created),
        ("dataset", str(project.dataset) if project.dataset else "none"),
        (
            "videos",
            f"{len(results.videos)}: "
            + ", ".join(f"{video_label(v)} frames {v.first}–{v.last}" for v in results.videos)
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
        ("ranking indicator", options.rank_by + (" (default)" if options.rank_by == "f1" else "")),
        (
            "LIRIS",
            f"ε = {options.liris.epsilon:g}; grid "
            f"{', '.join(f'{t:g}' for t in options.liris.grid)}",
        ),
        (
            "counting window",
            f"±{options.count_window} frame"
            f"{'' if options.count_window == 1 else 's'} (SPEC sets no default)",
        ),
        ("pseudo ground truth", committee),
        ("consensus thumbnails", f"{options.heatmap_frames} per video"),
        (
            "frames to annotate",
            f"criterion {options.ranking_criterion}, top "
            f"{options.ranking_top}, gap ±{options.ranking_gap} frames",
        ),
        (
            "significance",
            f"cases: {options.significance_cases}; test: {test}; α = "
            f"{options.alpha:g}; τ = {options.tau:g}; {DEFAULT_THRESHOLDS} "
            f"thresholds t_k = k·max d / {DEFAULT_THRESHOLDS}",
        ),
        ("numbers shown", f"{SHOWN_DIGITS} decimals; CSV and JSON keep every digit"),
    ]
    return tuple(rows)


def _weights_text(options: ReportOptions, results: ProjectResults) -> str:
    text = options.weights + (" (default)" if options.weights == "auto" else "")
    if options.weights == "auto" and results.methods:
        text += f", which resolves to {next(iter(results.methods.values())).summary.scheme}"
    return text


def _groundtruth_sources(project: Project, results: ProjectResults) -> str:
    parts = []
    if results.videos:
        parts.append(
            "CDnet ground-truth masks (groundtruth/gt%06d.png, ROI.bmp, "
            "temporalROI.txt) of each video"
        )
    if project.actions_groundtruth:
        parts.append(f"actions: {project.actions_groundtruth}")
    if project.counts:
        parts.append(f"counts: {project.counts}/<category>_<video>/groundtruth.csv")
    return "; ".join(parts) or "none"


def evaluated_section(project: Project, results: ProjectResults) -> Section:
    """The videos and their frame ranges, and what the project could not provide."""
    rows = tuple((v.category, v.name, v.first, v.last, v.n_frames) for v in results.videos)
    blocks: list = [
        Paragraph(
            f"Project {project.name}: {len(results.videos)} videos with ground truth, "
            f"{len(project.detectors)} detectors. Every parameter and default is listed "
            f"above."
        ),
        Table(
            "videos",
            "Videos and evaluated frames (temporal ROI)",
            ("category", "video", "first frame", "last frame", "frames"),
            rows,
        ),
    ]
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
