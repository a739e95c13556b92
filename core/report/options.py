"""What a report computes and shows, with every default named."""

from __future__ import annotations

from dataclasses import dataclass, field

from referee.core.errors import InvalidOptionError
from referee.core.workflow.options import AnalysisOptions, TrackingIntervalOptions

#: Consensus thumbnails per video, by default, and at most.
DEFAULT_HEATMAP_FRAMES, MAX_HEATMAP_FRAMES = 3, 10


@dataclass(frozen=True)
class ReportOptions:
    """A report's options: every stage's (:class:`AnalysisOptions`), its title, how many
    consensus thumbnails it shows per video (evenly spaced evaluated frames), and the
    bootstrap of the trackers' intervals.

    ``title`` defaults to "Referee report — <project name>".
    """

    analysis: AnalysisOptions = field(default_factory=AnalysisOptions)
    title: str | None = None
    heatmap_frames: int = DEFAULT_HEATMAP_FRAMES
    intervals: TrackingIntervalOptions = field(default_factory=TrackingIntervalOptions)

    def __post_init__(self) -> None:
        if not 0 <= self.heatmap_frames <= MAX_HEATMAP_FRAMES:
            raise InvalidOptionError(
                f"heatmap thumbnails per video must be between 0 and {MAX_HEATMAP_FRAMES}"
            )
