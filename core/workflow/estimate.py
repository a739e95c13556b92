"""Estimates with intervals from a few labelled frames (docs/measures.md §12).

The consensus (``run_pseudo``) gives every evaluated frame expected counts; the
labelled frames give true counts, read from the ground truth of those frames
only. With ``simulate`` the sampler draws the labelled frames of a fully
annotated dataset, as an annotator would be asked to label them (``repeat``
times, with successive seeds). Without, each video is a stratum: a video with
ground truth on every frame is counted whole, and a partly annotated one is
estimated from its labelled frames, the start of the sampler's sequence of draws
of that video that has ground truth (``drawn``) or every frame with ground truth
(``annotated``, refused where those frames were evidently chosen where the
detectors disagree).
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from referee.core.errors import InvalidOptionError, RefereeError, UnavailableError
from referee.core.estimation.choices import DRAWN, PLAIN
from referee.core.estimation.design import SampleDesign
from referee.core.estimation.estimators import Sample, labelled_sample
from referee.core.estimation.result import (
    EstimateResult,
    VideoEstimate,
    accuracy,
    estimate_detectors,
    estimate_video,
    labelled_frames,
)
from referee.core.estimation.sampler import (
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
from referee.core.workflow.pseudo import run_pseudo, run_pseudo_with_pixels
from referee.core.workflow.results import PixelResult, PseudoOutcome

#: What :attr:`EstimateResult.design` says of labelled frames that were not drawn.
ANNOTATED, NONE = "annotated", "none"
#: Annotated frames whose mean disagreement is this many standard errors from their
#: video's are not taken as a uniform sample (``--labelled annotated``).
SKEW_LIMIT = 3.0


@dataclass(frozen=True)
class _Population:
    """Every evaluated frame: its video and number, the consensus's counts ``(N, D, 3)``
    and the video (stratum) of each frame."""

    methods: tuple[str, ...]
    frames: list[tuple[VideoSpec, int]]
    surrogate: np.ndarray
    video_of: np.ndarray

    @property
    def keys(self) -> list[tuple[str, int]]:
        return [(video.label, i) for video, i in self.frames]


@dataclass(frozen=True)
class _Labelled:
    """The labelled frames' design, and per sampled video (stratum) the frame to label
    next and the annotated frames left out."""

    design: SampleDesign
    nexts: Mapping[int, int | None] = field(default_factory=dict)
    left_out: Mapping[int, int] = field(default_factory=dict)


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
    are reused when given, else computed. A simulation that computes both on a
    dataset with ground truth on every frame does so in one pass over the frames,
    which also gives the drawn frames' true counts; otherwise progress runs over
    the consensus, then over the true values.

    Raises
    ------
    UnavailableError
        Fewer than two detectors with masks; a simulation on a partly annotated
        video; ``annotated`` frames that are no uniform sample of their video.
    InvalidOptionError
        More draws than frames.
    """
    options = options or EstimateOptions()
    consensus = PseudoOptions(workers=options.workers, entropy=False, compare_with_truth=False)
    together = False  # the consensus and every frame's true counts from one pass
    if options.simulate and pseudo is None and pixels is None:
        both = run_pseudo_with_pixels(project, consensus, progress, cancel)
        if both is not None:
            (pseudo, pixels), together = both, True
    share = 2 if options.simulate and pixels is None else 1

    def first(done: int, total: int) -> None:
        report(progress, done, total * share)

    if pseudo is None:
        pseudo = run_pseudo(project, consensus, first, cancel)
    population = _population(project, pseudo)
    threshold = pseudo.options.committee.threshold
    if options.simulate:
        return _simulations(
            project,
            population,
            options,
            threshold=threshold,
            pixels=pixels,
            counted=together,
            progress=progress,
            cancel=cancel,
        )
    if options.labelled == DRAWN:
        labelled = _drawn_sample(population, options)
        sampled_any = any(f > 0 for f in labelled.design.factors)
        name = NONE if options.labels == 0 else options.sampler if sampled_any else ANNOTATED
    else:
        labelled = _annotated_sample(population, options)
        name = ANNOTATED if labelled.design.drawn.size else NONE
    chosen = [population.frames[i] for i in labelled.design.drawn]
    truth = _true_counts(
        project,
        population.methods,
        chosen,
        threshold=threshold,
        workers=options.workers,
        cancel=cancel,
        pixels=pixels,
    )
    return _result(population, labelled, truth, name=name, options=options)


def _population(project: Project, pseudo: PseudoOutcome) -> _Population:
    specs = {v.key: v for v in project_videos(project, require_groundtruth=False)}
    videos = pseudo.result.videos
    frames = [(specs[v.key], int(i)) for v in videos for i in v.frames]
    surrogate = np.concatenate(
        [np.stack([v.per_frame[m][:, 1:4] for m in pseudo.methods], axis=1) for v in videos]
    )
    video_of = np.repeat(np.arange(len(videos)), [v.frames.size for v in videos])
    return _Population(pseudo.methods, frames, surrogate, video_of)


def _result(
    population: _Population,
    labelled: _Labelled,
    truth: np.ndarray,
    *,
    name: str,
    options: EstimateOptions,
    true_totals: np.ndarray | None = None,
) -> EstimateResult:
    design = labelled.design
    sample = labelled_sample(population.surrogate, design, truth)
    keys = population.keys
    found = estimate_detectors(
        population.methods,
        keys,
        sample,
        drawn=design.drawn,
        truth=truth,
        estimator=options.estimator,
        true_totals=true_totals,
    )
    # The labels are the draws of sampled videos; ``annotated`` lists every annotated frame.
    used = design.drawn if name == ANNOTATED else design.sampled()
    videos = (
        ()
        if design.strata is None or name == NONE
        else _video_estimates(population, sample, labelled, options)
    )
    return EstimateResult(
        methods=population.methods,
        design=name,
        estimator=options.estimator,
        labels=int(used.size),
        population=len(keys),
        frames=tuple(labelled_frames(keys, used)),
        estimates=found.estimates,
        beats=found.beats,
        pairs=found.pairs,
        consensus=found.consensus,
        seed=options.seed,
        uniform_share=options.uniform_share,
        simulated=options.simulate,
        videos=videos,
    )


def _simulations(
    project: Project,
    population: _Population,
    options: EstimateOptions,
    *,
    threshold: int | None,
    pixels: PixelResult | None,
    counted: bool,
    progress: ProgressCallback | None,
    cancel: CancelToken | None,
) -> EstimateResult:
    """``options.repeat`` simulated samples, seeds ``seed`` onwards; the true counts of every
    drawn frame read once, then the true values over every frame.

    ``counted``: ``pixels`` come from the consensus's own pass over every frame, and
    give the drawn frames' true counts too (the same numbers, nothing read again).
    """
    seeded = [replace(options, seed=options.seed + r) for r in range(options.repeat)]
    designs = [_draws(population, o) for o in seeded]
    union = np.unique(np.concatenate([d.drawn for d in designs]))
    chosen = [population.frames[i] for i in union]
    counts = _true_counts(
        project,
        population.methods,
        chosen,
        threshold=threshold,
        workers=options.workers,
        cancel=cancel,
        pixels=pixels if counted else None,
    )
    row = {int(i): k for k, i in enumerate(union)}
    if pixels is None:

        def second(done: int, total: int) -> None:
            report(progress, total + done, 2 * total)

        pixel_options = PixelOptions(threshold=threshold, workers=options.workers)
        pixels = run_pixels(project, pixel_options, second, cancel)
    true_totals = _true_totals(pixels, population.methods, population.frames)
    results = [
        _result(
            population,
            _Labelled(design),
            counts[[row[int(i)] for i in design.drawn]].reshape(
                len(design.drawn), len(population.methods), 3
            ),
            name=options.sampler,
            options=o,
            true_totals=true_totals,
        )
        for o, design in zip(seeded, designs)
    ]
    if options.repeat == 1:
        return results[0]
    return replace(
        results[0], repeats=tuple(results), accuracy=accuracy(population.methods, results)
    )


def _draws(population: _Population, options: EstimateOptions) -> SampleDesign:
    """The sampler's draws, with replacement: one stratum, factor 1."""
    partly = [v.label for v, _ in population.frames if v.partly_annotated]
    if partly:
        raise UnavailableError(
            f"a simulation needs ground truth on every frame, but the project records "
            f"only some frames of {partly[0]} as annotated; estimate without simulating"
        )
    labels, n = options.labels or 0, population.surrogate.shape[0]
    if labels > n:
        raise InvalidOptionError(f"{labels} draws for {n} frames; draw at most {n}")
    q = probabilities(options.sampler, population.surrogate, options.uniform_share)
    draws = draw(q, labels, np.random.default_rng(options.seed))
    return SampleDesign.with_replacement(draws)


def _annotated_sample(population: _Population, options: EstimateOptions) -> _Labelled:
    """The annotated frames, each video's a uniform sample of it without replacement.

    Raises
    ------
    UnavailableError
        A partly annotated video whose annotated frames lie where the detectors
        disagree (or agree) far more than its frames do: they are no uniform sample.
    """
    drawn = np.zeros(0, dtype=np.int64) if options.labels == 0 else _annotated(population)
    video_of = population.video_of
    sizes = np.bincount(video_of)
    labelled = np.bincount(video_of[drawn], minlength=sizes.size)
    if drawn.size and options.estimator == PLAIN and not labelled.all():
        without = population.frames[int(np.flatnonzero(video_of == np.argmin(labelled))[0])][0]
        raise UnavailableError(
            f"the plain estimator needs annotated frames in every video, and {without.label} "
            "has none; use the tuned or surrogate estimator"
        )
    for h in np.flatnonzero((labelled > 0) & (labelled < sizes)):
        _check_uniform(population, drawn[video_of[drawn] == h], np.flatnonzero(video_of == h))
    strata = video_of[drawn]
    factors = list(1.0 - labelled / sizes)
    return _Labelled(SampleDesign(drawn, 1.0 / sizes[strata], strata, factors, video_of))


def _check_uniform(population: _Population, chosen: np.ndarray, video: np.ndarray) -> None:
    """Refuse annotated frames of one video that are evidently not a uniform sample of it:
    their mean disagreement (the sampler's acquisition score) is more than
    :data:`SKEW_LIMIT` standard errors from the video's, as it would rarely be for frames
    chosen evenly or at random."""
    scores = acquisition_scores(population.surrogate[video])
    n, big_n = chosen.size, video.size
    spread = float(np.std(scores, ddof=1)) if big_n > 1 else 0.0
    if spread == 0 or n < 2:
        return
    error = spread / math.sqrt(n) * math.sqrt((big_n - n) / (big_n - 1))
    mine, everyone = float(np.mean(scores[np.isin(video, chosen)])), float(np.mean(scores))
    z = (mine - everyone) / error
    if abs(z) > SKEW_LIMIT:
        label = population.frames[int(video[0])][0].label
        ratio = mine / everyone if everyone > 0 else math.inf
        where = "disagree" if z > 0 else "agree"
        raise UnavailableError(
            f"the {n} annotated frames of {label} are no uniform sample of its {big_n} frames: "
            f"their mean disagreement is {ratio:.1f}× the video's ({abs(z):.1f} standard "
            f"errors away), as for frames chosen where the detectors {where}; taking them as "
            "a uniform sample would bias the estimate, so use --labelled drawn (the sampler's "
            "frames)"
        )


def _drawn_sample(population: _Population, options: EstimateOptions) -> _Labelled:
    """Each video a stratum: whole when every frame has ground truth, else the labelled
    start of its own sequence of draws; per sampled video, the frame to label next and the
    annotated frames the sequence has not reached."""
    annotated = np.zeros(len(population.frames), dtype=bool)
    annotated[_annotated(population)] = True
    parts: list[tuple[np.ndarray, np.ndarray]] = []
    factors: list[float] = []
    nexts: dict[int, int | None] = {}
    left_out: dict[int, int] = {}
    for h in range(int(population.video_of.max()) + 1 if population.frames else 0):
        rows = np.flatnonzero(population.video_of == h)
        if options.labels == 0:  # the consensus alone
            parts.append((rows[:0], np.zeros(0)))
            factors.append(1.0)
            continue
        if annotated[rows].all():
            parts.append((rows, np.full(rows.size, 1.0 / rows.size)))
            factors.append(0.0)
            continue
        q = probabilities(options.sampler, population.surrogate[rows], options.uniform_share)
        label = population.frames[int(rows[0])][0].label
        rng = np.random.default_rng([options.seed, zlib.crc32(label.encode())])
        sequence = labelled_sequence(q, annotated[rows], rng)
        parts.append((rows[sequence.draws.indices], sequence.draws.q))
        factors.append(1.0)
        if sequence.next is not None:
            nexts[h] = population.frames[int(rows[sequence.next])][1]
        else:
            nexts[h] = None
        left_out[h] = int(annotated[rows].sum()) - int(np.unique(sequence.draws.indices).size)
    strata = np.repeat(np.arange(len(parts)), [p[0].size for p in parts])
    drawn = np.concatenate([p[0] for p in parts]).astype(np.int64) if parts else np.zeros(0, int)
    if options.estimator == PLAIN and any(
        f > 0 and not np.any(strata == h) for h, f in enumerate(factors)
    ):
        raise UnavailableError(
            "the plain estimator needs labelled frames in every partly annotated video; "
            "use the tuned or surrogate estimator"
        )
    q_all = np.concatenate([p[1] for p in parts]) if parts else np.zeros(0)
    design = SampleDesign(drawn, q_all, strata, factors, population.video_of)
    return _Labelled(design, nexts, left_out)


def _video_estimates(
    population: _Population, sample: Sample, labelled: _Labelled, options: EstimateOptions
) -> tuple[VideoEstimate, ...]:
    """The estimates of each video estimated from a sample, with its F1 after each draw."""
    design = labelled.design
    assert design.strata is not None
    out = []
    for h, factor in enumerate(design.factors):
        if factor == 0:
            continue
        mine = design.strata == h
        rows = np.flatnonzero(population.video_of == h)
        own = Sample(
            sample.observed[mine],
            sample.predicted[mine],
            np.zeros(int(mine.sum()), np.int64),
            sample.consensus[h : h + 1],
            np.array([factor]),
        )
        estimates, trace = estimate_video(
            population.methods, own, options.estimator, trace=h in labelled.nexts
        )
        label = population.frames[int(rows[0])][0].label
        out.append(
            VideoEstimate(
                video=label,
                frames=rows.size,
                labels=int(mine.sum()),
                estimates=estimates,
                next_frame=labelled.nexts.get(h),
                trace=trace,
                left_out=labelled.left_out.get(h, 0),
            )
        )
    return tuple(out)


def _annotated(population: _Population) -> np.ndarray:
    """Indices of the frames that have ground truth (the project's record, else the files)."""
    found: dict[tuple[str, str], FrameSet] = {}
    for video, _ in population.frames:
        if video.key not in found:
            found[video.key] = frames_with_ground_truth(video)
    return np.array(
        [k for k, (video, i) in enumerate(population.frames) if i in found[video.key]],
        dtype=np.int64,
    )


def _true_counts(
    project: Project,
    methods: Sequence[str],
    chosen: Sequence[tuple[VideoSpec, int]],
    *,
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
