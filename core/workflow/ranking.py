"""Which frames to annotate next (docs/measures.md §8).

One rule for frames that already have ground truth, wherever the list is
shown: a frame is annotated when its ground-truth file exists; annotated frames
are left out of the list unless ``include_annotated`` is set, and when every
frame is annotated the list is empty and :attr:`RankingResult.all_annotated`
says so. Boxes and actions carry no per-frame annotation status: nothing is
left out.
"""

from __future__ import annotations

from referee.core.cache.store import FrameCache
from referee.core.errors import InvalidOptionError, UnavailableError
from referee.core.formats import registry
from referee.core.formats.annotated import frames_with_ground_truth
from referee.core.frames.results import result_sources
from referee.core.model.frame_set import FrameSet
from referee.core.model.project import Project
from referee.core.progress import CancelToken, ProgressCallback
from referee.core.ranking.cached_scores import mask_scores_cached
from referee.core.ranking.choices import (
    CLASSES,
    MASK_CRITERIA,
    PAIRWISE_DICE,
    PAIRWISE_FDA,
    VOTE_ENTROPY,
)
from referee.core.ranking.criteria import FrameScores
from referee.core.ranking.order import rank_frames
from referee.core.ranking.scores import box_scores, class_scores
from referee.core.workflow.detections import pair_single_videos, read_detections
from referee.core.workflow.options import RankingOptions
from referee.core.workflow.projects import project_videos
from referee.core.workflow.results import RankingResult


def default_criterion(project: Project) -> str:
    """``vote-entropy`` for a project with masks, ``pairwise-fda`` for one with only boxes.

    Raises
    ------
    UnavailableError
        If fewer than two detectors have masks, boxes or actions.
    """
    if project.dataset is not None and len(project.mask_detectors()) >= 2:
        return VOTE_ENTROPY
    if len(project.box_detectors()) >= 2:
        return PAIRWISE_FDA
    raise UnavailableError("ranking frames needs at least two detectors with masks or boxes")


def run_ranking(
    project: Project,
    options: RankingOptions | None = None,
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
    cache: FrameCache | None = None,
) -> RankingResult:
    """Every frame scored by how much the detectors disagree, then ranked; with ``cache``,
    the scores of frames whose masks are unchanged are taken from it.

    Raises
    ------
    UnavailableError
        If the project lacks the detectors the criterion needs.
    InvalidOptionError
        An unknown detector in ``options.pair``.
    """
    options = options or RankingOptions()
    criterion = options.criterion or default_criterion(project)
    if criterion in MASK_CRITERIA:
        return _rank_masks(project, options, criterion, progress, cancel, cache)
    if criterion == PAIRWISE_FDA:
        names = list(project.box_detectors())
        a, b = _pair(names, options.pair, "boxes or actions")
        sources = project.box_detectors()
        a_videos, a_format = read_detections(project, sources[a])
        b_videos, b_format = read_detections(project, sources[b])
        b_videos = pair_single_videos(a_videos, b_videos, (a_format, b_format))
        scores = box_scores(
            a_videos, b_videos, (a, b), options.mapping, progress=progress, cancel=cancel
        )
        return _ranked(options, criterion, (a, b), scores, {})
    names = list(project.action_detectors())
    if len(names) < 2:
        raise UnavailableError("class disagreement needs at least two detectors with actions")
    annotations = {
        name: registry.read(path, registry.ACTIONS)[0]
        for name, path in project.action_detectors().items()
    }
    return _ranked(options, CLASSES, tuple(names), class_scores(annotations, cancel), {})


def _rank_masks(
    project: Project,
    options: RankingOptions,
    criterion: str,
    progress: ProgressCallback | None,
    cancel: CancelToken | None,
    cache: FrameCache | None,
) -> RankingResult:
    roots = project.mask_detectors()
    if project.dataset is None or len(roots) < 2:
        raise UnavailableError("ranking frames by their masks needs at least two detectors")
    names = list(roots)
    a, b = _pair(names, options.pair, "masks")
    videos = project_videos(project, require_groundtruth=False)
    annotated = {v.label: frames_with_ground_truth(v).within(v.first, v.last) for v in videos}
    considered = sum(v.n_frames for v in videos)
    methods = (a, b) if criterion == PAIRWISE_DICE else tuple(names)
    if not options.include_annotated and considered and _count(annotated) == considered:
        return RankingResult(options, criterion, methods, [], [], considered, considered)
    read = [a, b] if criterion == PAIRWISE_DICE else names
    sources = {name: result_sources(videos, roots[name]) for name in read}
    scores = mask_scores_cached(
        videos,
        sources,
        criterion,
        (a, b),
        options.threshold,
        progress,
        cancel,
        options.workers,
        cache,
    )
    return _ranked(options, criterion, methods, scores, annotated)


def rerank(project: Project, previous: RankingResult, options: RankingOptions) -> RankingResult:
    """``previous``'s frame scores ranked again with ``options``, leaving out the frames
    that have ground truth now: after an annotation is saved, no frame is read again."""
    annotated: dict[str, FrameSet] = {}
    if previous.criterion in MASK_CRITERIA:
        videos = project_videos(project, require_groundtruth=False)
        annotated = {v.label: frames_with_ground_truth(v).within(v.first, v.last) for v in videos}
    return _ranked(options, previous.criterion, previous.methods, previous.scores, annotated)


def _ranked(
    options: RankingOptions,
    criterion: str,
    methods: tuple[str, ...],
    scores: list[FrameScores],
    annotated: dict[str, FrameSet],
) -> RankingResult:
    exclude = {} if options.include_annotated else annotated
    frames = rank_frames(scores, options.gap, exclude, options.top)
    considered = sum(len(s) for s in scores)
    return RankingResult(options, criterion, methods, scores, frames, considered, _count(annotated))


def _count(annotated: dict[str, FrameSet]) -> int:
    return sum(len(frames) for frames in annotated.values())


def _pair(names: list[str], pair: tuple[str, str] | None, what: str) -> tuple[str, str]:
    """The two detectors of a pair criterion: ``pair``, or the first two."""
    if len(names) < 2:
        raise UnavailableError(f"comparing detectors needs at least two with {what}")
    if pair is None:
        return names[0], names[1]
    for name in pair:
        if name not in names:
            raise InvalidOptionError(
                f"no detector named {name!r} has {what}; the detectors are {', '.join(names)}"
            )
    return pair
