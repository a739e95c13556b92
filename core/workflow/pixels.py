"""Masks and score maps against the ground truth (docs/measures.md §1–§3)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from referee.core.cache.store import FrameCache
from referee.core.errors import UnavailableError
from referee.core.evaluation.batch import MissingResult
from referee.core.evaluation.cached_rows import evaluate_methods_cached, histograms_methods_cached
from referee.core.evaluation.masks import VideoEvaluation, summarized_histogram_curves
from referee.core.frames.results import result_sources
from referee.core.measures.curve_areas import curve_areas
from referee.core.measures.summarize import compare_rankings, summarize_method
from referee.core.model.confusion import VideoConfusion
from referee.core.model.project import Project
from referee.core.model.videos import AnnotatedFrames
from referee.core.progress import CancelToken, ProgressCallback
from referee.core.workflow.options import CurveOptions, PixelOptions
from referee.core.workflow.projects import project_videos
from referee.core.workflow.results import CurvesResult, PixelResult


def run_pixels(
    project: Project,
    options: PixelOptions | None = None,
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
    cache: FrameCache | None = None,
) -> PixelResult:
    """Every mask detector on every video against the ground truth, summarized.

    One pass decodes each ground-truth frame once for every detector; progress
    counts frames. With ``cache``, the counts of frames whose files are unchanged
    are taken from it and only the others computed. On a cluster, a detector's video that kept failing is left
    out of its summary and named in :attr:`PixelResult.missing`.

    A video without any frame of ground truth yet is left out (and named in
    :attr:`PixelResult.annotated_only`).

    Raises
    ------
    UnavailableError
        If the project has no CDnet dataset, no detector with masks, or no frame of
        ground truth.
    RefereeError
        Missing or malformed files, named in the message.
    """
    options = options or PixelOptions()
    detectors = project.mask_detectors()
    if project.dataset is None:
        raise UnavailableError("the project has no CDnet dataset with ground truth")
    if not detectors:
        raise UnavailableError("no detector has masks")
    every = project_videos(project)
    videos = [video for video in every if len(video.truth_frames)]
    if not videos:
        raise UnavailableError("no frame of any video has ground truth yet; annotate some first")
    sources = {
        name: result_sources(videos, root, options.pattern, options.offset)
        for name, root in detectors.items()
    }
    found = evaluate_methods_cached(
        videos, sources, options.threshold, options.workers, progress, cancel, cache
    )
    partial = {v.label: subset for v in every if (subset := v.annotated_subset()) is not None}
    return summarize_evaluations(found.results, options, found.missing, partial)


def summarize_evaluations(
    evaluations: Mapping[str, list[VideoEvaluation]],
    options: PixelOptions | None = None,
    missing: tuple[MissingResult, ...] = (),
    annotated_only: Mapping[str, AnnotatedFrames] | None = None,
) -> PixelResult:
    """Every detector's evaluated videos with their summaries (:func:`summarize_pixels`);
    ``annotated_only``: the partly annotated videos, by label, and the frames evaluated.

    A detector left with no video (every one ``missing``) is not summarized.
    """
    options = options or PixelOptions()
    kept = {name: found for name, found in evaluations.items() if found}
    if not kept:
        raise UnavailableError(
            "no result could be evaluated: " + "; ".join(m.reason for m in missing[:3])
        )
    confusions = {name: [e.confusion for e in found] for name, found in kept.items()}
    summarized = summarize_pixels(confusions, options)
    return PixelResult(
        options, kept, summarized.methods, summarized.ranking, missing, dict(annotated_only or {})
    )


def summarize_pixels(
    confusions: Mapping[str, Sequence[VideoConfusion]], options: PixelOptions | None = None
) -> PixelResult:
    """Per-video confusion matrices of every detector, summarized over videos both ways.

    The blended summary with ``options.weights`` (or its custom weights), the
    CDnet procedure, and the ranking of the detectors by ``options.rank_by``
    under each. The result has no per-frame evaluations.
    """
    options = options or PixelOptions()
    methods = {
        name: summarize_method(name, videos, options.scheme, options.custom_weights)
        for name, videos in confusions.items()
    }
    ranking = compare_rankings(
        {m: r.summary for m, r in methods.items()},
        {m: r.cdnet for m, r in methods.items()},
        options.rank_by,
    )
    return PixelResult(options, {}, methods, ranking)


def resummarize(result: PixelResult, options: PixelOptions) -> PixelResult:
    """``result`` summarized again with other weights or ranking indicator (no frame is read)."""
    if result.evaluations:
        return summarize_evaluations(
            result.evaluations, options, result.missing, result.annotated_only
        )
    return summarize_pixels({name: m.videos for name, m in result.methods.items()}, options)


def run_curves(
    project: Project,
    options: CurveOptions | None = None,
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
    cache: FrameCache | None = None,
) -> CurvesResult:
    """ROC and PR curves of every detector with soft scores, per video and summarized, and
    the summarized curves' areas; with ``cache``, the histograms of frames whose files are
    unchanged come from it.

    Raises
    ------
    UnavailableError
        If the project has no dataset or no detector with scores.
    """
    options = options or CurveOptions()
    soft = {d.name: d.scores for d in project.detectors if d.scores is not None}
    if project.dataset is None or not soft:
        raise UnavailableError("no detector has soft scores (0–255) for ROC and PR curves")
    videos = project_videos(project)
    sources = {name: result_sources(videos, root) for name, root in soft.items()}
    found = histograms_methods_cached(videos, sources, options.workers, progress, cancel, cache)
    histograms = {name: found for name, found in found.results.items() if found}
    if not histograms:
        raise UnavailableError(
            "no result could be evaluated: " + "; ".join(m.reason for m in found.missing[:3])
        )
    summaries = {
        name: summarized_histogram_curves(found, options.weights)
        for name, found in histograms.items()
    }
    areas = {name: curve_areas(curves) for name, (_, curves) in summaries.items()}
    return CurvesResult(options, histograms, summaries, areas, found.missing)
