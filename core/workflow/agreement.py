"""Agreement between annotators' ground truth of the same frames (docs/measures.md §13)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from referee.core.errors import InputFileError, SizeMismatchError, UnavailableError
from referee.core.formats.annotated import annotated_frames
from referee.core.formats.annotators import (
    LAYOUT,
    annotator_video,
    check_annotator_root,
    consensus_files,
    consensus_video_folder,
)
from referee.core.formats.cdnet import read_gt
from referee.core.formats.datasets import fixed_frames, read_video_roi, roi_file
from referee.core.formats.frame_files import write_files
from referee.core.formats.text_files import exists_error
from referee.core.measures.agreement import (
    consensus_levels,
    disagreement_map,
    frame_patterns,
    vote_codes,
)
from referee.core.model.project import AnnotatorSource, Project
from referee.core.model.videos import GROUNDTRUTH_DIR, VideoSpec
from referee.core.progress import CancelToken, ProgressCallback, check, report
from referee.core.pseudo.agreement import AgreementResult, video_agreement
from referee.core.pseudo.staple import MAX_STAPLE_DETECTORS, code_bits
from referee.core.workflow.options import AgreementOptions
from referee.core.workflow.projects import project_videos


@dataclass(frozen=True)
class _Plan:
    """One video to compare: the dataset's video, each annotator's, the shared frames."""

    video: VideoSpec
    labelled: tuple[VideoSpec, ...]
    frames: tuple[int, ...]


def run_agreement(
    project: Project,
    options: AgreementOptions | None = None,
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> AgreementResult:
    """Every pair of annotators and each annotator against their STAPLE consensus, over
    the frames that every annotator labelled; with ``options.consensus_folder``, the
    consensus is written there as ground truth too. Progress counts frames read (twice
    as many when the consensus is written).

    Raises
    ------
    UnavailableError
        If the project has no dataset or fewer than two annotators, or no frame is
        labelled by every annotator.
    RefereeError
        An annotator's folder missing, a label map unreadable or of another size (named
        in the message), or a consensus file that exists (without ``force``).
    """
    options = options or AgreementOptions()
    annotators = _chosen(project, options)
    videos = project_videos(project, require_groundtruth=False)
    if not videos:
        raise UnavailableError("agreement between annotators needs the project's dataset")
    for annotator in annotators:
        check_annotator_root(annotator.name, annotator.root)
    folder = options.consensus_folder
    if folder is not None:
        _check_consensus_folder(folder, annotators)
    plans, left_out = _plans(videos, annotators)
    names = tuple(a.name for a in annotators)
    total = sum(len(plan.frames) for plan in plans) * (1 if folder is None else 2)
    done = 0
    found = []
    for plan in plans:
        roi = _roi(plan.video)
        rows, pixels = [], np.zeros(len(plan.frames))
        for row, frame in enumerate(plan.frames):
            check(cancel)
            codes, counted = vote_codes(
                annotator_labels(plan.video, plan.labelled, frame, roi), roi
            )
            counts = frame_patterns(codes, counted, len(names))
            present = np.flatnonzero(counts)
            rows.append(np.column_stack([np.full(present.size, row), present, counts[present]]))
            pixels[row] = counts.sum()
            done += 1
            report(progress, done, total)
        found.append(
            video_agreement(plan.video.key, names, plan.frames, np.concatenate(rows), pixels)
        )
    result = AgreementResult(names, tuple(found), left_out)
    if folder is None:
        return result
    _write_consensus(folder, plans, result, options.force, progress, cancel, done, total)
    return AgreementResult(names, result.videos, left_out, folder)


def _chosen(project: Project, options: AgreementOptions) -> tuple[AnnotatorSource, ...]:
    """The annotators ``options`` names, in that order (by default the project's)."""
    known = {a.name: a for a in project.annotators}
    unknown = [name for name in options.annotators or () if name not in known]
    if unknown:
        raise UnavailableError(
            f"no annotator {', '.join(map(repr, unknown))} in the project; its annotators: "
            + (", ".join(known) or "none")
        )
    chosen = (
        tuple(known[n] for n in options.annotators) if options.annotators else tuple(known.values())
    )
    if len(chosen) < 2:
        raise UnavailableError(
            "agreement between annotators needs at least two annotators' ground truth "
            f"({LAYOUT}); the project names {len(chosen)}"
        )
    if len(chosen) > MAX_STAPLE_DETECTORS:
        raise UnavailableError(
            f"the STAPLE consensus takes at most {MAX_STAPLE_DETECTORS} annotators, not "
            f"{len(chosen)}; choose fewer"
        )
    return chosen


def _plans(
    videos: Sequence[VideoSpec], annotators: Sequence[AnnotatorSource]
) -> tuple[list[_Plan], tuple[tuple[str, str], ...]]:
    """The videos with frames every annotator labelled (in the temporal ROI when the
    dataset fixes it), and the others with the reason.

    Raises
    ------
    UnavailableError
        If no video has such a frame.
    """
    plans, left_out = [], []
    for video in videos:
        labelled = [annotator_video(a.root, video, len(videos) == 1) for a in annotators]
        missing = [a.name for a, v in zip(annotators, labelled) if v is None]
        if missing:
            left_out.append((video.label, f"no {GROUNDTRUTH_DIR}/ folder of {', '.join(missing)}"))
            continue
        present = [v for v in labelled if v is not None]
        each = [annotated_frames(v) for v in present]
        if fixed_frames(video):
            each = [frames.within(video.first, video.last) for frames in each]
        shared = each[0]
        for frames in each[1:]:
            shared = shared.difference(shared.difference(frames))
        if len(shared):
            plans.append(_Plan(video, tuple(present), tuple(shared)))
        else:
            counts = ", ".join(f"{a.name} {len(f)}" for a, f in zip(annotators, each))
            left_out.append((video.label, f"no frame labelled by every annotator ({counts})"))
    if not plans:
        roots = ", ".join(f"{a.name} ({a.root})" for a in annotators)
        reasons = "; ".join(f"{label}: {why}" for label, why in left_out[:3])
        raise UnavailableError(
            f"no frame is labelled by every annotator of {roots}: {reasons}; each must "
            f"hold {LAYOUT}, with files of the same frames"
        )
    return plans, tuple(left_out)


def _roi(video: VideoSpec) -> np.ndarray | None:
    """The video's region of interest, or ``None`` (the whole frame) without one."""
    if video.layout is None and not os.path.lexists(video.roi_path):
        return None
    return read_video_roi(video)


def annotator_labels(
    video: VideoSpec, labelled: Sequence[VideoSpec], frame: int, roi: np.ndarray | None
) -> list[np.ndarray]:
    """The label map of ``frame`` of each of ``labelled`` (``video`` as each annotator
    labelled it), checked to be of one size and of the size of ``roi``, ``video``'s.

    Raises
    ------
    RefereeError
        A label map missing or unreadable; of another size (a ``SizeMismatchError``
        naming both files).
    """
    labels = [read_gt(v.gt_name(frame), frame) for v in labelled]
    first = labelled[0].gt_path(frame)
    if roi is not None and roi.shape != labels[0].shape:
        raise SizeMismatchError(first, labels[0].shape, roi_file(video), roi.shape)
    for other, label in zip(labelled[1:], labels[1:]):
        if label.shape != labels[0].shape:
            raise SizeMismatchError(other.gt_path(frame), label.shape, first, labels[0].shape)
    return labels


def labelled_videos(project: Project, video: VideoSpec, single_video: bool) -> dict[str, VideoSpec]:
    """The project's annotators who have a ground-truth folder of ``video``, by name, each
    with ``video`` as they labelled it (``single_video``: the dataset has no other video,
    so an annotator's root may be that video's folder)."""
    found = {a.name: annotator_video(a.root, video, single_video) for a in project.annotators}
    return {name: labelled for name, labelled in found.items() if labelled is not None}


def _check_consensus_folder(folder: Path, annotators: Sequence[AnnotatorSource]) -> None:
    """Refuse a consensus folder that is a file or one of the annotators' roots."""
    if os.path.lexists(folder) and not folder.is_dir():
        raise InputFileError(folder, "is a file; the consensus is written to a folder")
    for annotator in annotators:
        if os.path.realpath(folder) == os.path.realpath(annotator.root):
            raise InputFileError(
                folder,
                f"is the ground truth of annotator {annotator.name!r}; write the consensus "
                "to another folder",
            )


def _write_consensus(
    folder: Path,
    plans: Sequence[_Plan],
    result: AgreementResult,
    force: bool,
    progress: ProgressCallback | None,
    cancel: CancelToken | None,
    done: int,
    total: int,
) -> None:
    """Write each shared frame's consensus (``W ≥ 0.5`` is motion) as ground truth; without
    ``force`` nothing is written if one of the files exists. One video's files are held
    at a time, as PNG."""
    if not force:
        for plan in plans:
            target = consensus_video_folder(folder, plan.video) / GROUNDTRUTH_DIR
            for frame in plan.frames:
                if os.path.lexists(path := target / f"gt{frame:06d}.png"):
                    raise exists_error(path)
    k = len(result.annotators)
    for plan, agreement in zip(plans, result.videos):
        motion = agreement.model.posterior(code_bits(np.arange(1 << k), k)) >= 0.5
        roi = _roi(plan.video)
        files = {}
        for frame in plan.frames:
            check(cancel)
            labels = annotator_labels(plan.video, plan.labelled, frame, roi)
            codes, _ = vote_codes(labels, roi)
            files.update(
                consensus_files(
                    folder, plan.video, {frame: consensus_levels(labels, roi, motion[codes])}
                )
            )
            done += 1
            report(progress, done, total)
        write_files(files, force)


@dataclass(frozen=True)
class FrameMaps:
    """One frame's annotators, for display (docs/measures.md §13): ``disagreement``, the
    share of pairs of annotators that disagree on each pixel, and ``consensus``, the
    posterior ``W`` of the video's model; both NaN where a pixel is not counted."""

    disagreement: np.ndarray
    consensus: np.ndarray


def frame_maps(project: Project, result: AgreementResult, label: str, frame: int) -> FrameMaps:
    """The disagreement and consensus maps of ``frame`` of the video ``label``, one of the
    videos of ``result``, read from the annotators' files.

    Raises
    ------
    KeyError
        If ``result`` did not compare that frame.
    RefereeError
        A label map unreadable or of another size, named in the message.
    """
    agreement = result.video(label)
    if frame not in agreement.frames:
        raise KeyError(f"frame {frame} of {label} is not labelled by every annotator")
    known = {a.name: a for a in project.annotators}
    videos = project_videos(project, require_groundtruth=False)
    video = next(v for v in videos if v.label == label)
    labelled = tuple(
        annotator_video(known[n].root, video, len(videos) == 1) for n in result.annotators
    )
    plan = _Plan(video, tuple(v for v in labelled if v is not None), (frame,))
    roi = _roi(video)
    labels = annotator_labels(plan.video, plan.labelled, frame, roi)
    codes, counted = vote_codes(labels, roi)
    k = len(labels)
    posterior = agreement.model.posterior(code_bits(np.arange(1 << k), k))[codes]
    return FrameMaps(disagreement_map(labels, roi), np.where(counted, posterior, np.nan))
