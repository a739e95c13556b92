"""Where a frame's ground truth came from, and when the annotator accepted it (docs/measures.md §8).

A frame the annotator paints by hand is theirs. A frame started from a draft —
a detector's mask, the detectors' consensus — or marked annotated without an
edit is not ground truth until the annotator accepts it; the project file then
records, per frame, its :class:`Origin` and the time it was accepted. Frames
whose ground truth was on disk before Referee recorded anything have no origin.
"""

from __future__ import annotations

import enum
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime

from referee.core.model.frame_set import FrameSet


class Source(enum.Enum):
    """What a frame's label map was started from."""

    PAINTED = "painted"  # by hand, from a blank frame or the ground truth on disk
    BLANK = "blank"  # accepted with nothing painted: static, outside-ROI where the ROI is 0
    CONSENSUS = "consensus"  # the detectors' consensus, then corrected or not
    DETECTOR = "detector"  # one detector's mask, then corrected or not
    PROPAGATED = "propagated"  # another frame's label map carried by optical flow


@dataclass(frozen=True)
class Origin:
    """A frame's source (and the detector, for :attr:`Source.DETECTOR`)."""

    source: Source
    detector: str | None = None

    def __str__(self) -> str:
        """``painted``, ``blank``, ``consensus`` or ``detector:NAME``, as stored."""
        if self.source is Source.DETECTOR:
            return f"{self.source.value}:{self.detector}"
        return str(self.source.value)

    @classmethod
    def parse(cls, text: str) -> Origin:
        """The origin written as :meth:`__str__` does.

        Raises
        ------
        ValueError
            If ``text`` names no source (the message lists them).
        """
        kind, _, detector = text.partition(":")
        try:
            source = Source(kind)
        except ValueError:
            raise ValueError(
                f"{text!r} is not a source; sources are "
                + ", ".join(s.value for s in Source if s is not Source.DETECTOR)
                + " and detector:NAME"
            ) from None
        if (source is Source.DETECTOR) != bool(detector):
            raise ValueError(f"{text!r}: only a detector source names a detector, as detector:NAME")
        return cls(source, detector or None)


PAINTED = Origin(Source.PAINTED)
BLANK = Origin(Source.BLANK)
CONSENSUS = Origin(Source.CONSENSUS)
PROPAGATED = Origin(Source.PROPAGATED)


@dataclass(frozen=True)
class AcceptedRun:
    """Frames ``first..last`` of one video with the same origin, accepted at ``accepted``
    (UTC, whole seconds, ISO 8601 as ``2026-11-26T23:43:25Z``)."""

    first: int
    last: int
    origin: Origin
    accepted: str


def now_utc() -> str:
    """The current time as :attr:`AcceptedRun.accepted` writes it."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def check_accepted_time(text: str) -> str:
    """``text`` if it is a time as :func:`now_utc` writes it.

    Raises
    ------
    ValueError
        Otherwise.
    """
    try:
        datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ")
    except ValueError:
        raise ValueError(f"{text!r} is not a UTC time like 2026-11-26T23:43:25Z") from None
    return text


def accepted_runs(frames: Mapping[int, tuple[Origin, str]]) -> tuple[AcceptedRun, ...]:
    """Consecutive frames with the same origin and time, as runs in frame order."""
    runs: list[AcceptedRun] = []
    for frame in sorted(frames):
        origin, accepted = frames[frame]
        last = runs[-1] if runs else None
        if last and last.last + 1 == frame and (last.origin, last.accepted) == (origin, accepted):
            runs[-1] = AcceptedRun(last.first, frame, origin, accepted)
        else:
            runs.append(AcceptedRun(frame, frame, origin, accepted))
    return tuple(runs)


def replace_origins(
    runs: Iterable[AcceptedRun], dropped: FrameSet, new: Mapping[int, tuple[Origin, str]]
) -> tuple[AcceptedRun, ...]:
    """``runs`` without the frames of ``dropped`` or ``new``, plus the ``new`` frames' origins,
    in frame order (runs are cut, never expanded into frames)."""
    replaced = dropped.union(FrameSet.of(new))
    kept = [
        AcceptedRun(first, last, run.origin, run.accepted)
        for run in runs
        for first, last in FrameSet.span(run.first, run.last).difference(replaced).runs
    ]
    return tuple(sorted((*kept, *accepted_runs(new)), key=lambda run: run.first))


def frames_by_source(runs: Iterable[AcceptedRun], frames: FrameSet) -> Counter[str]:
    """How many of ``frames`` each origin (as text) accounts for; the others count under
    ``"recorded before"`` (ground truth on disk before any origin was recorded)."""
    counts: Counter[str] = Counter()
    for run in runs:
        counts[str(run.origin)] += frames.count_within(run.first, run.last)
    unknown = len(frames) - sum(counts.values())
    if unknown:
        counts[UNRECORDED] = unknown
    return counts


#: The key of :func:`frames_by_source` for frames without a recorded origin.
UNRECORDED = "recorded before"
