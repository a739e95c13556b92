"""Paired test cases: one score per case and method (docs/measures.md §9)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

from referee.core.errors import InvalidOptionError
from referee.core.evaluation.masks import VideoEvaluation
from referee.core.measures.action_matching import ActionMatching
from referee.core.measures.boxes import BoxEvaluation
from referee.core.measures.indicators import f1_scores
from referee.core.model.case_scores import CaseScores, scores_table
from referee.core.model.videos import video_label
from referee.core.pseudo.dataset import PseudoResult
from referee.core.significance.choices import TRACKING_MEASURES
from referee.core.significance.tracking_units import (
    SEQUENCES,
    TrackingUnits,
    measure_defined,
    measure_value,
)

# --- test-case builders ----------------------------------------------------------------------


F1_UNDEFINED = "F1 is undefined (no positive and no detected pixel) for at least one method"


def frame_f1_cases(evaluations: Mapping[str, Sequence[VideoEvaluation]]) -> CaseScores:
    """Per-frame F1 of each method's masks (docs/measures.md §9 with §1 counts).

    Parameters
    ----------
    evaluations
        Method name → its :class:`VideoEvaluation` of every video. Videos are
        paired by ``(category, video)`` and frames by number; only frames
        evaluated for every method are cases.

    Returns
    -------
    CaseScores
        One case per frame, labelled ``<video label>:frame``; a frame where F1
        is undefined for any method (no positive and no detected pixel) is
        dropped and counted in ``dropped``.
    """
    names = list(evaluations)
    per_method = [{e.key: e for e in evaluations[m]} for m in names]
    labels: list[str] = []
    columns: dict[str, list[np.ndarray]] = {m: [] for m in names}
    keys = [
        k for k in (per_method[0] if per_method else {}) if all(k in side for side in per_method)
    ]
    for key in keys:
        frames = per_method[0][key].frames
        for side in per_method[1:]:
            frames = np.intersect1d(frames, side[key].frames)
        for name, side in zip(names, per_method):
            rows = side[key].per_frame
            where = np.searchsorted(rows[:, 0], frames)
            picked = rows[where]
            columns[name].append(f1_scores(picked[:, 1], picked[:, 2], picked[:, 3]))
        labels += [f"{video_label(*key)}:{int(i)}" for i in frames]
    return scores_table(
        "per-frame F1",
        labels,
        {m: np.concatenate(c) if c else np.zeros(0) for m, c in columns.items()},
        F1_UNDEFINED,
    )


def pseudo_f1_cases(pseudo: Mapping[str, np.ndarray], labels: Sequence[str]) -> CaseScores:
    """Per-frame pseudo-F1 of each method under a committee's consensus (docs/measures.md §9, §7).

    Parameters
    ----------
    pseudo
        Method name → per-frame pseudo confusion counts ``(n_frames, 4)``, columns
        ``tp, fp, fn, tn`` (expected counts under the consensus), rows aligned
        across methods.
    labels
        One label per frame.

    Returns
    -------
    CaseScores
        Pseudo-F1 ``2 Σ S·P / (Σ S + Σ P)`` per frame; frames where it is
        undefined for any method (nothing detected and a zero consensus) are
        dropped and counted.
    """
    columns = {}
    for name, counts in pseudo.items():
        c = np.asarray(counts, dtype=np.float64)
        if c.ndim != 2 or c.shape[1] != 4:
            raise InvalidOptionError(
                f"pseudo counts of {name} must be (frames, 4) with columns "
                f"tp, fp, fn, tn; got shape {c.shape}"
            )
        columns[name] = f1_scores(c[:, 0], c[:, 1], c[:, 2])
    return scores_table(
        "per-frame pseudo-F1",
        labels,
        columns,
        "pseudo-F1 is undefined (nothing detected, zero consensus) for at least one method",
    )


def pseudo_result_cases(result: PseudoResult, methods: Sequence[str]) -> CaseScores:
    """:func:`pseudo_f1_cases` of ``methods`` from a
    :func:`~referee.core.pseudo.dataset.pseudo_evaluate` result: one case per evaluated frame,
    labelled ``<video label>:frame``."""
    counts = {m: np.concatenate([v.per_frame[m][:, 1:5] for v in result.videos]) for m in methods}
    labels = [
        f"{video_label(v.category, v.video)}:{int(i)}" for v in result.videos for i in v.frames
    ]
    return pseudo_f1_cases(counts, labels)


def box_fda_cases(evaluations: Mapping[str, BoxEvaluation]) -> CaseScores:
    """Per-frame FDA of each method's boxes against the same ground truth (docs/measures.md §9, §5).

    Frames are paired by video name and number; a case is a frame with a box in
    the ground truth or in any method's detections, labelled ``video:frame``. A
    frame with no box at all for some method's evaluation (FDA 0/0) is dropped
    and counted: it is the frame SFDA skips too.

    Raises
    ------
    InvalidOptionError
        If two evaluations disagree on a frame's number of ground-truth boxes
        (they were not made against the same ground truth).
    """
    names = list(evaluations)
    per_method: list[dict[tuple[str, int], tuple[int, float]]] = []
    order: dict[tuple[str, int], None] = {}
    for name in names:
        frames = {}
        for video in evaluations[name].videos:
            for r in video.frames:
                frames[(video.name, r.frame)] = (r.n_gt, r.fda)
                order.setdefault((video.name, r.frame), None)
        per_method.append(frames)
    columns: dict[str, list[float]] = {m: [] for m in names}
    for key in order:
        seen = {side[key][0] for side in per_method if key in side}
        if len(seen) > 1:
            raise InvalidOptionError(
                f"the box evaluations disagree on the number of "
                f"ground-truth boxes of video {key[0]!r}, frame {key[1]}; "
                "evaluate every method against the same ground truth"
            )
        for name, side in zip(names, per_method):
            columns[name].append(side[key][1] if key in side else math.nan)
    return scores_table(
        "per-frame FDA",
        [f"{v}:{f}" for v, f in order],
        columns,
        "no ground-truth box and no detection on the frame for at least one method (FDA 0/0)",
    )


def action_dice_cases(matchings: Mapping[str, ActionMatching]) -> CaseScores:
    """Per-action Dice of each method's detections (docs/measures.md §9, §4).

    A case is a ground-truth action, labelled ``video:nr``; its score is the
    Dice overlap of the detection the LIRIS matching assigned to it (class-aware
    greedy matching of :func:`~referee.core.measures.action_matching.match_actions`), 0 when none
    was. Every score is defined, so no case is dropped.

    Raises
    ------
    InvalidOptionError
        If the matchings were not made against the same ground truth.
    """
    names = list(matchings)
    reference: list[tuple[str, int]] | None = None
    columns: dict[str, np.ndarray] = {}
    for name in names:
        matching = matchings[name]
        actions = [(v.video, a.number) for v in matching.videos for a in v.gt]
        if reference is None:
            reference = actions
        elif actions != reference:
            raise InvalidOptionError(
                f"the action matchings of {names[0]} and {name} were made "
                "against different ground truths; match every method "
                "against the same ground-truth file"
            )
        offsets = np.concatenate([[0], np.cumsum(matching.n_gt)])
        dice = np.zeros(int(matching.n_gt.sum()))
        pairs = matching.pairs
        dice[offsets[pairs.video] + pairs.gt] = pairs.dice
        columns[name] = dice
    labels = [f"{video}:{number}" for video, number in (reference or [])]
    return scores_table("per-action Dice", labels, columns)


def tracking_cases(
    units: TrackingUnits, measure: str, methods: Sequence[str] | None = None
) -> CaseScores:
    """Per-sequence, or per-block, HOTA, MOTA or IDF1 of each tracker (docs/measures.md §9,
    §5 "Tracking: intervals and tests").

    A case is a unit of :func:`~referee.core.significance.tracking_units.tracking_units`,
    labelled by its sequence (and frames); ``methods`` chooses among the trackers
    (default: all). A unit where the measure has nothing to divide by for some tracker
    (no ground-truth box for MOTA, no box on either side for HOTA and IDF1) is dropped
    and counted.
    """
    names = list(units.scores) if methods is None else list(methods)
    labels = list(units.scores[names[0]]) if names else []
    columns = {
        name: [
            measure_value(s, measure) if measure_defined(s, measure) else math.nan
            for s in (units.scores[name][label] for label in labels)
        ]
        for name in names
    }
    unit = "sequence" if units.kind == SEQUENCES else "block"
    nothing = "no ground-truth box" if measure == "mota" else "no box on either side"
    name = TRACKING_MEASURES[measure]
    return scores_table(
        f"per-{unit} {name}",
        labels,
        columns,
        f"{name} is undefined ({nothing}) in the {unit} for at least one tracker",
    )
