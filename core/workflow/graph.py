"""The stages of the workflow as a graph: what each reads, what it uses, what a change
makes stale (DESIGN "Long work").

Each :class:`Stage` declares the parts of the project it reads (:data:`PARTS`:
ground truth of each kind, the detectors' outputs, the annotation record), its
options (the field of :class:`~referee.core.workflow.options.AnalysisOptions`
named by its key) and the stages whose results it uses. The command line, the
report (:func:`run_stages`) and the desktop session (one job per ready stage,
:func:`ready`) ask the graph; none chains stages by hand.

After a change, :func:`invalidate` drops the results of the stages that read a
changed part or whose options changed, and sets aside as *stale* the results
of the stages that only use them: those are brought up to date from their
stale result where that is cheaper (pseudo ground truth compares its consensus
with the new true values, the ranking leaves out the newly annotated frames,
the masks are summarized again with other weights) instead of reading every
frame again. Per-frame counts come from a :class:`~referee.core.cache.store.FrameCache`
when one is given, so only changed frames are read.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

from referee.core.cache.store import FrameCache
from referee.core.errors import UnavailableError
from referee.core.model.project import Project
from referee.core.parallel import run_in_worker
from referee.core.progress import CancelToken, ProgressCallback, check, report, scaled
from referee.core.workflow.agreement import run_agreement
from referee.core.workflow.detections import run_actions, run_boxes, run_counts
from referee.core.workflow.estimate import run_estimate
from referee.core.workflow.options import AnalysisOptions, PixelOptions, RankingOptions
from referee.core.workflow.pixels import resummarize, run_curves, run_pixels
from referee.core.workflow.pseudo import compare_pseudo_with_truth, run_pseudo
from referee.core.workflow.ranking import rerank, run_ranking
from referee.core.workflow.results import ProjectResults
from referee.core.workflow.significance import run_significance

#: Parts of a project a stage can read.
MASK_TRUTH = "mask ground truth"
ACTION_TRUTH = "action ground truth"
BOX_TRUTH = "box ground truth"
COUNT_TRUTH = "count ground truth"
DETECTIONS = "detector outputs"
RECORD = "annotation record"
PARTS: tuple[str, ...] = (MASK_TRUTH, ACTION_TRUTH, BOX_TRUTH, COUNT_TRUTH, DETECTIONS, RECORD)


@dataclass(frozen=True)
class StageInput:
    """What a stage's run gets besides the project: its options, the results so far
    (upstream stages' and its own stale one) and the per-frame cache."""

    options: Any
    results: ProjectResults
    cache: FrameCache | None

    def stale(self, key: str) -> Any:
        """The stage's result before the last change (``None``: none kept)."""
        return self.results.stale.get(key)


#: ``run(project, input, progress, cancel) -> the stage's result``.
StageRun = Callable[[Project, StageInput, ProgressCallback, CancelToken | None], object]


@dataclass(frozen=True)
class Stage:
    """One computation: its key (its field in :class:`ProjectResults` and
    :class:`AnalysisOptions`), what it does, its share of a whole run's progress, the
    parts of the project it reads, the stages it uses, how it runs, the parts whose
    change it can follow from its stale result (``refreshes``) instead of starting over,
    and whether it mostly runs Python without the per-frame cache (``apart``: the desktop
    session runs it in a worker process, so that the window keeps the interpreter lock)."""

    key: str
    title: str
    share: int
    reads: frozenset[str]
    uses: tuple[str, ...]
    run: StageRun
    refreshes: frozenset[str] = frozenset()
    apart: bool = False


def _pixels(project: Project, given: StageInput, progress: Any, cancel: Any) -> object:
    options: PixelOptions = given.options
    stale = given.stale("pixels")
    if stale is not None and _same_counts(stale.options, options):
        return resummarize(stale, options)  # other weights or indicator: no frame is read
    return run_pixels(project, options, progress, cancel, given.cache)


def _same_counts(a: PixelOptions, b: PixelOptions) -> bool:
    """Whether two pixel options count the same frames the same way."""
    return replace(a, weights=b.weights, custom_weights=b.custom_weights, rank_by=b.rank_by) == b


def _pseudo(project: Project, given: StageInput, progress: Any, cancel: Any) -> object:
    stale, pixels = given.stale("pseudo"), given.results.pixels
    if stale is not None and stale.options == given.options:
        if pixels is None or not given.options.compare_with_truth:
            return stale  # the consensus reads no ground truth: unchanged
        return compare_pseudo_with_truth(stale, pixels)
    return run_pseudo(project, given.options, progress, cancel, pixels)


def _ranking(project: Project, given: StageInput, progress: Any, cancel: Any) -> object:
    options: RankingOptions = given.options
    stale = given.stale("ranking")
    if stale is not None and stale.scores and _same_scores(stale.options, options):
        return rerank(project, stale, options)  # new ground truth: the scores are unchanged
    return run_ranking(project, options, progress, cancel, given.cache)


def _same_scores(a: RankingOptions, b: RankingOptions) -> bool:
    """Whether two ranking options score frames alike (they may order them differently)."""
    return replace(a, include_annotated=b.include_annotated, gap=b.gap, top=b.top) == b


def _estimate(project: Project, given: StageInput, progress: Any, cancel: Any) -> object:
    results = given.results
    return run_estimate(project, given.options, progress, cancel, results.pseudo, results.pixels)


#: The stages in an order where every stage comes after the stages it uses.
STAGES: tuple[Stage, ...] = (
    Stage(
        "pixels",
        "evaluating masks",
        30,
        frozenset({MASK_TRUTH, DETECTIONS, RECORD}),
        (),
        _pixels,
    ),
    Stage(
        "curves",
        "sweeping score curves",
        15,
        frozenset({MASK_TRUTH, DETECTIONS, RECORD}),
        (),
        lambda p, g, pr, c: run_curves(p, g.options, pr, c, g.cache),
    ),
    Stage(
        "actions",
        "evaluating actions",
        5,
        frozenset({ACTION_TRUTH, DETECTIONS}),
        (),
        lambda p, g, pr, c: run_actions(p, g.options, pr, c),
        apart=True,
    ),
    Stage(
        "boxes",
        "evaluating per-frame boxes",
        5,
        frozenset({BOX_TRUTH, DETECTIONS, RECORD}),
        (),
        lambda p, g, pr, c: run_boxes(p, g.options, pr, c),
        apart=True,
    ),
    Stage(
        "counts",
        "evaluating counts",
        2,
        frozenset({COUNT_TRUTH, DETECTIONS}),
        (),
        lambda p, g, pr, c: run_counts(p, g.options, pr, c),
        apart=True,
    ),
    Stage("pseudo", "pseudo ground truth", 20, frozenset({DETECTIONS}), ("pixels",), _pseudo),
    Stage(
        "ranking",
        "ranking frames to annotate",
        15,
        frozenset({DETECTIONS}),
        (),
        _ranking,
        refreshes=frozenset({MASK_TRUTH, RECORD}),
    ),
    Stage(
        "significance",
        "significance",
        3,
        frozenset(),
        ("pixels", "pseudo", "actions", "boxes"),
        lambda p, g, pr, c: run_significance(p, g.options, pr, c, g.results),
    ),
    Stage(
        "estimate",
        "estimating from labelled frames",
        5,
        frozenset({MASK_TRUTH, RECORD}),
        ("pseudo", "pixels"),
        _estimate,
        apart=True,
    ),
    # The annotators' label maps are mask ground truth: a saved mask may be one of them.
    Stage(
        "agreement",
        "comparing annotators",
        3,
        frozenset({MASK_TRUTH}),
        (),
        lambda p, g, pr, c: run_agreement(p, g.options, pr, c),
    ),
)
#: Stages by key.
BY_KEY: dict[str, Stage] = {stage.key: stage for stage in STAGES}
#: Progress of :func:`run_stages` runs from 0 to this.
PROGRESS_TOTAL = 1000


def invalidate(
    results: ProjectResults, parts: Collection[str] = (), options: Collection[str] = ()
) -> set[str]:
    """Forget what a change makes wrong; return the keys of the stages to run again.

    A stage that reads one of ``parts`` loses its result (and its reason for
    being skipped). A stage whose options changed (its key in ``options``), that
    can follow the change of a part (:attr:`Stage.refreshes`) or that uses a stage
    to run again, directly or not, keeps its result as stale, for its run to bring
    up to date.
    """
    changed = set(parts)
    lost = {s.key for s in STAGES if s.reads & changed}
    kept: set[str] = set()
    for stage in STAGES:
        if stage.key in lost:
            continue
        if (
            stage.key in options
            or stage.refreshes & changed
            or any(u in lost | kept for u in stage.uses)
        ):
            kept.add(stage.key)
    for key in lost | kept:
        current = getattr(results, key)
        if key in kept and current is not None:
            results.stale[key] = current
        elif key in lost:
            results.stale.pop(key, None)
        setattr(results, key, None)
        results.skipped.pop(key, None)
    return lost | kept


def settled(results: ProjectResults, key: str) -> bool:
    """Whether stage ``key`` has a result or a reason it was skipped."""
    return getattr(results, key) is not None or key in results.skipped


def ready(results: ProjectResults, running: Collection[str], wanted: Iterable[str]) -> list[Stage]:
    """The stages of ``wanted`` to start now: not settled, not running, and every used stage
    that is wanted too settled."""
    keys = set(wanted)
    return [
        stage
        for stage in STAGES
        if stage.key in keys
        and stage.key not in running
        and not settled(results, stage.key)
        and all(settled(results, u) for u in stage.uses if u in keys)
    ]


def run_stage(
    stage: Stage,
    project: Project,
    options: AnalysisOptions,
    progress: ProgressCallback | None,
    cancel: CancelToken | None,
    results: ProjectResults,
    cache: FrameCache | None = None,
    apart: bool = False,
) -> object:
    """Run one stage with its options from ``options`` on the results so far; with
    ``apart``, a stage marked :attr:`Stage.apart` runs in a standing worker process
    (:func:`~referee.core.parallel.run_in_worker`), its progress not reported."""
    if apart and stage.apart:
        used = _used_results(stage, results)
        return run_in_worker(_run_apart, stage.key, project, options, used, cancel=cancel)
    given = StageInput(getattr(options, stage.key), results, cache)
    return stage.run(project, given, _silent(progress), cancel)


def _used_results(stage: Stage, results: ProjectResults) -> ProjectResults:
    """What of ``results`` a stage may read: the results it uses and its own stale one
    (the rest need not be pickled for a worker process)."""
    kept = {f.name: getattr(results, f.name) for f in fields(results) if f.name in stage.uses}
    stale = {stage.key: results.stale[stage.key]} if stage.key in results.stale else {}
    return ProjectResults(**kept, stale=stale)


def _run_apart(
    key: str, project: Project, options: AnalysisOptions, results: ProjectResults
) -> object:
    """In a worker process: :func:`run_stage` of stage ``key``."""
    return run_stage(BY_KEY[key], project, options, None, None, results)


def run_stages(
    project: Project,
    options: AnalysisOptions | None = None,
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
    stages: Sequence[Stage] = STAGES,
    results: ProjectResults | None = None,
    cache: FrameCache | None = None,
) -> ProjectResults:
    """Run ``stages`` in order on ``project``; what the project cannot provide is skipped
    and the reason kept in :attr:`ProjectResults.skipped`.

    A stage whose result ``results`` already holds, computed with the same
    options, is not run again. ``progress(done, total)`` runs from 0 to
    :data:`PROGRESS_TOTAL` over all stages, each taking its share.

    Raises
    ------
    RefereeError
        Bad input files (named in the message), as each stage raises them.
    CancelledError
        If ``cancel`` is set.
    """
    options = options or AnalysisOptions()
    results = results or ProjectResults()
    whole, done = sum(s.share for s in stages), 0
    for stage in stages:
        check(cancel)
        start, width = done * PROGRESS_TOTAL // whole, stage.share * PROGRESS_TOTAL // whole
        existing = getattr(results, stage.key)
        if existing is None or getattr(existing, "options", None) != getattr(options, stage.key):
            stage_progress = scaled(progress, start, width, PROGRESS_TOTAL)
            try:
                result = run_stage(stage, project, options, stage_progress, cancel, results, cache)
                setattr(results, stage.key, result)
                results.stale.pop(stage.key, None)
            except UnavailableError as error:
                results.skipped[stage.key] = str(error)
        done += stage.share
        report(progress, done * PROGRESS_TOTAL // whole, PROGRESS_TOTAL)
    return results


def changed_parts(project: Project, files: Iterable[Path]) -> frozenset[str]:
    """The parts of ``project`` that writing ``files`` changed (an annotation's save)."""
    found: set[str] = set()
    targets = {
        ACTION_TRUTH: project.actions_groundtruth,
        BOX_TRUTH: project.boxes_groundtruth,
        RECORD: project.file,
    }
    counts = _resolved(project.counts)
    for path in files:
        resolved = Path(path).resolve()
        named = [part for part, t in targets.items() if t and _resolved(t) == resolved]
        if named:
            found.update(named)
        elif resolved.suffix.lower() == ".png":
            found.add(MASK_TRUTH)
        elif counts is not None and counts in resolved.parents:
            found.add(COUNT_TRUTH)
        else:  # a file the graph cannot place: every kind of ground truth may have changed
            found.update((MASK_TRUTH, ACTION_TRUTH, BOX_TRUTH, COUNT_TRUTH))
    if MASK_TRUTH in found:
        found.add(RECORD)  # the frames with ground truth changed
    return frozenset(found)


def _resolved(path: Path | str | None) -> Path | None:
    if path is None:
        return None
    try:
        return Path(path).resolve()
    except OSError:
        return None


def _silent(progress: ProgressCallback | None) -> ProgressCallback:
    return progress if progress is not None else (lambda done, total: None)
