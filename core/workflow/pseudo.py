"""Detectors judged by their consensus, without ground truth (docs/measures.md §7)."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np

from referee.core.errors import CancelledError, RefereeError, RefereeWarning, UnavailableError
from referee.core.formats.datasets import has_truth_files
from referee.core.frames.results import result_sources
from referee.core.model.project import Project
from referee.core.model.videos import VideoSpec
from referee.core.progress import CancelToken, ProgressCallback, check, report
from referee.core.pseudo.dataset import pseudo_evaluate, pseudo_evaluate_with_truth
from referee.core.pseudo.truth import compare_with_truth
from referee.core.pseudo.video import PseudoVideoResult, consensus_map
from referee.core.workflow.options import PixelOptions, PseudoOptions
from referee.core.workflow.pixels import run_pixels, summarize_evaluations
from referee.core.workflow.projects import project_videos
from referee.core.workflow.results import PixelResult, PseudoOutcome

#: Why there is no comparison with the truth on a project without complete ground truth.
NO_GROUND_TRUTH = "no complete ground truth (groundtruth/, ROI.bmp and temporalROI.txt)"


def run_pseudo(
    project: Project,
    options: PseudoOptions | None = None,
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
    pixels: PixelResult | None = None,
) -> PseudoOutcome:
    """Every mask detector against the consensus of all of them, and, when every video
    has ground truth, the pseudo values against the true ones.

    The true values come from ``pixels`` when it holds every committee member
    evaluated with the committee's detection rule; otherwise they are computed.
    Progress runs over the consensus, then over the true values. Ground truth
    that cannot be evaluated (a missing or unreadable frame...) leaves the pseudo
    values alone: the outcome says why in ``truth_problem``, and a
    :class:`RefereeWarning` names the file.

    Raises
    ------
    UnavailableError
        If the project has no dataset or fewer than two detectors with masks.
    """
    options = options or PseudoOptions()
    detectors = _committee(project, options)
    videos = project_videos(project, require_groundtruth=False)
    with_truth = options.compare_with_truth and _has_ground_truth(videos)
    reuse = pixels is not None and _covers(pixels, detectors, options)
    share = 2 if with_truth and not reuse else 1

    def first(done: int, total: int) -> None:
        report(progress, done, total * share)

    result = pseudo_evaluate(
        videos,
        detectors,
        options.committee,
        workers=options.workers,
        progress=first,
        cancel=cancel,
        scheme=options.weights,
        entropy=options.entropy,
    )
    problem = None if with_truth or not options.compare_with_truth else NO_GROUND_TRUTH
    outcome = PseudoOutcome(options, result, truth_problem=problem)
    if not with_truth:
        return outcome
    if pixels is None or not reuse:

        def second(done: int, total: int) -> None:
            report(progress, total + done, 2 * total)

        pixel_options = PixelOptions(
            threshold=options.committee.threshold, weights=options.weights, workers=options.workers
        )
        try:
            pixels = run_pixels(project, pixel_options, second, cancel)
        except CancelledError:
            raise
        except RefereeError as error:  # the pseudo values need no ground truth: keep them
            warnings.warn(
                f"pseudo values only, no comparison with the ground truth: {error}",
                RefereeWarning,
                stacklevel=2,
            )
            return replace(outcome, truth_problem=str(error))
    return compare_pseudo_with_truth(outcome, pixels)


def run_pseudo_with_pixels(
    project: Project,
    options: PseudoOptions | None = None,
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> tuple[PseudoOutcome, PixelResult] | None:
    """What :func:`run_pseudo` gives and every committee member's true counts, those of
    :func:`~referee.core.workflow.pixels.run_pixels` under the committee's detection
    rule, from one pass over the frames: each mask and each ground-truth frame is
    decoded once for both. Progress counts frames.

    ``None`` (no frame read) unless every video has ground truth on every frame of
    its temporal ROI (the project's record, else the files), an ``ROI.bmp`` and a
    ``temporalROI.txt``: the two then come from :func:`run_pseudo` and
    ``run_pixels``, which read different frames.

    Raises
    ------
    UnavailableError
        As :func:`run_pseudo`.
    RefereeError
        Missing or malformed masks or ground truth, named in the message.
    """
    options = options or PseudoOptions()
    detectors = _committee(project, options)
    videos = project_videos(project, require_groundtruth=False)
    if not _complete_ground_truth(project, videos):
        return None
    result, evaluations = pseudo_evaluate_with_truth(
        videos,
        detectors,
        options.committee,
        workers=options.workers,
        progress=progress,
        cancel=cancel,
        scheme=options.weights,
        entropy=options.entropy,
    )
    pixel_options = PixelOptions(
        threshold=options.committee.threshold, weights=options.weights, workers=options.workers
    )
    pixels = summarize_evaluations(evaluations, pixel_options)
    outcome = PseudoOutcome(options, result, truth_problem=None)
    if options.compare_with_truth:
        outcome = compare_pseudo_with_truth(outcome, pixels)
    return outcome, pixels


def _committee(project: Project, options: PseudoOptions) -> dict[str, Path]:
    """The committee's results roots by detector name.

    Raises
    ------
    UnavailableError
        If the project has no dataset, fewer than two detectors with masks, or
        ``options`` names detectors without masks.
    """
    roots = project.mask_detectors()
    if project.dataset is None or len(roots) < 2:
        raise UnavailableError("pseudo ground truth needs at least two detectors with masks")
    unknown = [m for m in options.methods or () if m not in roots]
    if unknown:
        raise UnavailableError(
            f"no masks for {', '.join(unknown)}; detectors with masks: {', '.join(roots)}"
        )
    return {m: roots[m] for m in options.methods or roots}


def compare_pseudo_with_truth(outcome: PseudoOutcome, pixels: PixelResult) -> PseudoOutcome:
    """``outcome`` with its pseudo values correlated with the true values of ``pixels``.

    A project whose true results do not cover the committee keeps no comparison
    and says why in :attr:`PseudoOutcome.truth_problem`.
    """
    try:
        truth = compare_with_truth(outcome.result, pixels.evaluations)
    except RefereeError as error:
        return replace(outcome, truth=None, truth_problem=str(error))
    return replace(outcome, truth=truth, truth_problem=None)


def consensus_maps(
    project: Project,
    outcome: PseudoOutcome,
    frames: Callable[[PseudoVideoResult], Sequence[int]],
    cancel: CancelToken | None = None,
) -> list[tuple[VideoSpec, int, np.ndarray]]:
    """The consensus ``P`` (NaN outside the ROI) of ``frames(video result)`` in every
    video, for display: the committee's, or the posterior of the video's fitted model."""
    roots = project.mask_detectors()
    committee = outcome.options.committee
    maps = []
    for video in project_videos(project, require_groundtruth=False):
        sources = {m: result_sources([video], roots[m])[0] for m in outcome.methods}
        result = outcome.result.video(video.key)
        for frame in frames(result):
            check(cancel)
            maps.append(
                (video, frame, consensus_map(video, frame, sources, committee, result.model))
            )
    return maps


def spread(frames: Sequence[int] | np.ndarray, count: int) -> list[int]:
    """``count`` frames evenly spaced over ``frames`` (all of them if there are fewer)."""
    numbers = np.asarray(frames)
    if count <= 0 or numbers.size == 0:
        return []
    picks = np.linspace(0, numbers.size - 1, num=min(count, numbers.size)).round().astype(int)
    return [int(numbers[i]) for i in np.unique(picks)]


def _has_ground_truth(videos: Sequence[VideoSpec]) -> bool:
    """Whether every video has what true values need: ground truth, ROI, temporal ROI
    (a LASIESTA sequence: its ground truth)."""
    return bool(videos) and all(has_truth_files(v) for v in videos)


def _complete_ground_truth(project: Project, videos: Sequence[VideoSpec]) -> bool:
    """Whether every video has ground truth on every frame of its temporal ROI (the
    project's record, else the files), ``ROI.bmp`` and ``temporalROI.txt``: the frames
    of the consensus are then those ``run_pixels`` compares with the ground truth."""
    if not _has_ground_truth(videos):
        return False
    try:
        annotated = project_videos(project)  # partly annotated by the files, too
    except RefereeError:
        return False
    return [v.key for v in annotated] == [v.key for v in videos] and not any(
        v.partly_annotated for v in (*videos, *annotated)
    )


def _covers(pixels: PixelResult, detectors: Mapping[str, object], options: PseudoOptions) -> bool:
    """Whether ``pixels`` holds every committee member under the committee's detection rule."""
    return pixels.options.threshold == options.committee.threshold and all(
        name in pixels.evaluations for name in detectors
    )
