"""Estimates with intervals from a few labelled frames (docs/measures.md §12).

The consensus (``run_pseudo``) gives every evaluated frame expected counts; the
labelled frames give true counts, read from the ground truth of those frames
only. With ``simulate`` the sampler draws the labelled frames of a fully
annotated dataset, as an annotator would be asked to label them. Without, each
video is a stratum: a video with ground truth on every frame is counted whole,
and a partly annotated one is estimated from its labelled frames, the start of
the sampler's sequence of draws of that video that has ground truth (``drawn``)
or every frame with ground truth (``annotated``).
"""

from __future__ import annotations

import zlib
from collections.abc import Mapping, Sequence
from dataclasses import replace

import numpy as np

from referee.core.errors import InvalidOptionError, RefereeError, UnavailableError
from referee.core.estimation.estimators import PLAIN
from referee.core.estimation.result import (
    EstimateResult,
    VideoEstimate,
    estimate_detectors,
    estimate_video,
    labelled_frames,
)
from referee.core.estimation.sampler import (
    DRAWN,
    acquisition_scores,
    draw,
    labelled_sequence,
    probabilities,
)
from referee.core.evaluation.batch import evaluate_methods
from referee.core.formats.annotated import frames_with_ground_truth
from referee.core.frames.results import result_sources
from referee.core.model.frame_set import FrameSet
from referee.core.model.project import Project
from referee.core.model.videos import VideoSpec
from referee.core.progress import CancelToken, ProgressCallback, report
from referee.core.workflow.options import EstimateOptions, PixelOptions, PseudoOptions
from referee.core.workflow.pixels import run_pixels
from referee.core.workflow.projects import project_videos
from referee.core.workflow.pseudo import run_pseudo
from referee.core.workflow.results import PixelResult, PseudoOutcome

#: What :attr:`EstimateResult.design` says of labelled frames that were not drawn.
ANNOTATED, NONE = "annotated", "none"


def run_estimate(
    project: Project,
    options: EstimateOptions | None = None,
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
    pseudo: PseudoOutcome | None = None,
    pixels: PixelResult | None = None,
) -> EstimateResult:
    """Every mask detector's F1, precision and recall over every evaluated frame, estimated
    from the consensus and a few labelled frames, with 95% intervals.

    ``pseudo`` (the consensus of the project's mask detectors) and, with
    ``options.simulate``, ``pixels`` (their true counts, for the true values)
    are reused when given, else computed. Progress runs over the consensus,
    then over the true values.

    Raises
    ------
    UnavailableError
        Fewer than two detectors with masks; a simulation on a partly annotated video.
    InvalidOptionError
        More draws than frames.
    """
    options = options or EstimateOptions()
    share = 2 if options.simulate and pixels is None else 1

    def first(done: int, total: int) -> None:
        report(progress, done, total * share)

    if pseudo is None:
        pseudo_options = PseudoOptions(
            workers=options.workers, entropy=False, compare_with_truth=False
        )
        pseudo = run_pseudo(project, pseudo_options, first, cancel)
    methods = pseudo.methods
    specs = {v.key: v for v in project_videos(project, require_groundtruth=False)}
    frames = [(specs[v.key], int(i)) for v in pseudo.result.videos for i in v.frames]
    surrogate = np.concatenate(
        [np.stack([v.per_frame[m][:, 1:4] for m in methods], axis=1) for v in pseudo.result.videos]
    )
    nexts: dict[int, int | None] = {}
    if options.simulate:
        design, (drawn, q, strata, factors) = options.sampler, _draws(specs, surrogate, options)
    elif options.labelled == DRAWN:
        (drawn, q, strata, factors), nexts = _drawn_sample(pseudo, frames, surrogate, options)
        sampled_any = any(f > 0 for f in factors)
        design = NONE if options.labels == 0 else options.sampler if sampled_any else ANNOTATED
    else:
        drawn, q, strata, factors = _annotated_sample(pseudo, frames, options)
        design = ANNOTATED if drawn.size else NONE
    threshold = pseudo.options.committee.threshold
    evaluated = None if options.simulate else pixels  # a simulation reads the drawn frames
    chosen = [frames[i] for i in drawn]
    truth = _true_counts(project, methods, chosen, threshold, options.workers, cancel, evaluated)
    true_totals = None
    if options.simulate:
        if pixels is None:

            def second(done: int, total: int) -> None:
                report(progress, total + done, 2 * total)

            pixel_options = PixelOptions(threshold=threshold, workers=options.workers)
            pixels = run_pixels(project, pixel_options, second, cancel)
        true_totals = _true_totals(pixels, methods, frames)
    keys = [(video.label, i) for video, i in frames]
    estimates, table, pairs = estimate_detectors(
        methods, keys, surrogate, drawn, truth, q, options.estimator, strata, factors, true_totals
    )
    # The labels are the draws of sampled videos; ``annotated`` lists every annotated frame.
    sampled_only = strata is not None and design != ANNOTATED
    used = drawn[np.asarray(factors)[strata] > 0] if sampled_only else drawn
    videos = (
        ()
        if strata is None
        else _video_estimates(
            pseudo, frames, surrogate, (drawn, truth, q, strata, factors), nexts, options
        )
    )
    return EstimateResult(
        methods,
        design,
        options.estimator,
        int(used.size),
        len(frames),
        tuple(labelled_frames(keys, used)),
        estimates,
        table,
        tuple(pairs),
        options.seed,
        options.uniform_share,
        options.simulate,
        videos,
    )


#: The labelled frames (indices into the population), the probability of each within its
#: stratum, the stratum of each (``None``: one), and each stratum's finite-population factor.
_Sample = tuple[np.ndarray, np.ndarray, np.ndarray | None, Sequence[float]]


def _draws(
    specs: Mapping[tuple[str, str], VideoSpec], surrogate: np.ndarray, options: EstimateOptions
) -> _Sample:
    """The sampler's draws, with replacement: one stratum, factor 1."""
    partly = [v.label for v in specs.values() if v.partly_annotated]
    if partly:
        raise UnavailableError(
            f"a simulation needs ground truth on every frame, but the project records "
            f"only some frames of {partly[0]} as annotated; estimate without simulating"
        )
    labels, n = options.labels or 0, surrogate.shape[0]
    if labels > n:
        raise InvalidOptionError(f"{labels} draws for {n} frames; draw at most {n}")
    q = probabilities(options.sampler, acquisition_scores(surrogate), options.uniform_share)
    draws = draw(q, labels, np.random.default_rng(options.seed))
    return draws.indices, draws.q, None, (1.0,)


def _annotated_sample(
    pseudo: PseudoOutcome, frames: Sequence[tuple[VideoSpec, int]], options: EstimateOptions
) -> _Sample:
    """The annotated frames, each video's a uniform sample of it without replacement."""
    drawn = np.zeros(0, dtype=np.int64) if options.labels == 0 else _annotated(frames)
    video_of = np.repeat(
        np.arange(len(pseudo.result.videos)), [v.frames.size for v in pseudo.result.videos]
    )
    sizes = np.bincount(video_of)
    labelled = np.bincount(video_of[drawn], minlength=sizes.size)
    if drawn.size and options.estimator == PLAIN and not labelled.all():
        without = frames[int(np.flatnonzero(video_of == np.argmin(labelled))[0])][0]
        raise UnavailableError(
            f"the plain estimator needs annotated frames in every video, and {without.label} "
            "has none; use the surrogate estimator"
        )
    strata = video_of[drawn]
    return drawn, 1.0 / sizes[strata], strata, list(1.0 - labelled / sizes)


def _drawn_sample(
    pseudo: PseudoOutcome,
    frames: Sequence[tuple[VideoSpec, int]],
    surrogate: np.ndarray,
    options: EstimateOptions,
) -> tuple[_Sample, dict[int, int | None]]:
    """Each video a stratum: whole when every frame has ground truth, else the labelled
    start of its own sequence of draws; and, per sampled video, the frame to label next."""
    annotated = np.zeros(len(frames), dtype=bool)
    annotated[_annotated(frames)] = True
    parts: list[tuple[np.ndarray, np.ndarray]] = []
    factors: list[float] = []
    nexts: dict[int, int | None] = {}
    start = 0
    for h, video in enumerate(pseudo.result.videos):
        rows = np.arange(start, start + video.frames.size)
        start += video.frames.size
        if options.labels == 0:  # the consensus alone
            parts.append((rows[:0], np.zeros(0)))
            factors.append(1.0)
            continue
        if annotated[rows].all():
            parts.append((rows, np.full(rows.size, 1.0 / rows.size)))
            factors.append(0.0)
            continue
        q = probabilities(
            options.sampler, acquisition_scores(surrogate[rows]), options.uniform_share
        )
        label = frames[int(rows[0])][0].label
        rng = np.random.default_rng([options.seed, zlib.crc32(label.encode())])
        sequence = labelled_sequence(q, annotated[rows], rng)
        parts.append((rows[sequence.draws.indices], sequence.draws.q))
        factors.append(1.0)
        nexts[h] = None if sequence.next is None else int(video.frames[sequence.next])
    strata = np.repeat(np.arange(len(parts)), [p[0].size for p in parts])
    drawn = np.concatenate([p[0] for p in parts]).astype(np.int64)
    if options.estimator == PLAIN and any(
        f > 0 and not np.any(strata == h) for h, f in enumerate(factors)
    ):
        raise UnavailableError(
            "the plain estimator needs labelled frames in every partly annotated video; "
            "use the surrogate estimator"
        )
    return (drawn, np.concatenate([p[1] for p in parts]), strata, factors), nexts


def _video_estimates(
    pseudo: PseudoOutcome,
    frames: Sequence[tuple[VideoSpec, int]],
    surrogate: np.ndarray,
    sample: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, Sequence[float]],
    nexts: Mapping[int, int | None],
    options: EstimateOptions,
) -> tuple[VideoEstimate, ...]:
    """The estimates of each video estimated from a sample, with its F1 after each draw;
    ``sample`` is the draws, their true counts and probabilities, strata and factors."""
    drawn, truth, q, strata, factors = sample
    out = []
    start = 0
    for h, video in enumerate(pseudo.result.videos):
        size, offset = video.frames.size, start
        start += size
        if factors[h] == 0:
            continue
        mine = strata == h
        estimates, trace = estimate_video(
            pseudo.methods,
            surrogate[offset : offset + size],
            drawn[mine] - offset,
            truth[mine],
            q[mine],
            options.estimator,
            factors[h],
            trace=h in nexts,
        )
        label = frames[offset][0].label
        out.append(VideoEstimate(label, size, int(mine.sum()), estimates, nexts.get(h), trace))
    return tuple(out)


def _annotated(frames: Sequence[tuple[VideoSpec, int]]) -> np.ndarray:
    """Indices of the frames that have ground truth (the project's record, else the files)."""
    found: dict[tuple[str, str], FrameSet] = {}
    for video, _ in frames:
        if video.key not in found:
            found[video.key] = frames_with_ground_truth(video)
    return np.array(
        [k for k, (video, i) in enumerate(frames) if i in found[video.key]], dtype=np.int64
    )


def _true_counts(
    project: Project,
    methods: Sequence[str],
    chosen: Sequence[tuple[VideoSpec, int]],
    threshold: int | None,
    workers: int | None,
    cancel: CancelToken | None,
    pixels: PixelResult | None = None,
) -> np.ndarray:
    """``(K, D, 3)`` true ``tp, fp, fn`` of the chosen frames: from ``pixels`` where they
    were evaluated with ``threshold``, else reading only the chosen frames' ground truth
    (once per frame for every detector)."""
    roots = project.mask_detectors()
    counts: dict[tuple[tuple[str, str], int], np.ndarray] = {}
    if pixels is not None and pixels.options.threshold == threshold:
        counts = _evaluated_counts(pixels, methods, {(v.key, i) for v, i in chosen})
    wanted: dict[tuple[str, str], tuple[VideoSpec, set[int]]] = {}
    for video, i in chosen:
        if (video.key, i) not in counts:
            wanted.setdefault(video.key, (video, set()))[1].add(i)
    subset = [replace(video, annotated=FrameSet.of(numbers)) for video, numbers in wanted.values()]
    if subset:
        sources = {method: result_sources(subset, roots[method]) for method in methods}
        found = evaluate_methods(subset, sources, threshold, workers, cancel=cancel)
        if found.missing:
            first = found.missing[0]
            raise RefereeError(f"{first.method} on {first.video}: {first.reason}")
        for v, video in enumerate(subset):
            rows = [found.results[method][v].per_frame for method in methods]
            for k, frame in enumerate(rows[0][:, 0].tolist()):
                counts[(video.key, frame)] = np.stack([r[k, 1:4] for r in rows]).astype(np.float64)
    out = np.zeros((len(chosen), len(methods), 3))
    for k, (video, i) in enumerate(chosen):
        out[k] = counts[(video.key, i)]
    return out


def _evaluated_counts(
    pixels: PixelResult, methods: Sequence[str], wanted: set[tuple[tuple[str, str], int]]
) -> dict[tuple[tuple[str, str], int], np.ndarray]:
    """The ``(D, 3)`` counts of each wanted frame that every detector's evaluation has."""
    per_method = []
    for method in methods:
        rows = {}
        for e in pixels.evaluations.get(method, []):
            for row in e.per_frame:
                key = (e.key, int(row[0]))
                if key in wanted:
                    rows[key] = row[1:4].astype(np.float64)
        per_method.append(rows)
    common = set.intersection(*(set(r) for r in per_method)) if per_method else set()
    return {key: np.stack([r[key] for r in per_method]) for key in common}


def _true_totals(
    pixels: PixelResult, methods: Sequence[str], frames: Sequence[tuple[VideoSpec, int]]
) -> np.ndarray:
    """``(D, 3)`` true totals over ``frames`` from evaluated masks.

    Raises
    ------
    UnavailableError
        If ``pixels`` lacks a detector or a frame.
    """
    wanted: dict[tuple[str, str], list[int]] = {}
    for video, i in frames:
        wanted.setdefault(video.key, []).append(i)
    out = np.zeros((len(methods), 3))
    for j, method in enumerate(methods):
        found = {e.key: e for e in pixels.evaluations.get(method, [])}
        for key, numbers in wanted.items():
            if key not in found or not np.isin(numbers, found[key].frames).all():
                raise UnavailableError(
                    f"the true counts of {method} do not cover every frame of {key[1]}"
                )
            rows = found[key].per_frame
            out[j] += rows[np.isin(rows[:, 0], numbers), 1:4].sum(axis=0)
    return out
