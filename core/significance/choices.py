"""The tests, test cases and defaults of the discriminative evaluation (docs/measures.md §9),
importable without numpy or SciPy so that options naming them are quick to build."""

from __future__ import annotations

from referee.core.errors import InvalidOptionError

#: Tests of two methods; the first is the default.
PAIR_TESTS: tuple[str, ...] = ("t", "wilcoxon", "welch")
#: Tests of more than two methods; the first is the default.
SEVERAL_TESTS: tuple[str, ...] = ("anova", "friedman")
#: The test chosen by the number of methods: :data:`PAIR_TESTS`' first for two, else
#: :data:`SEVERAL_TESTS`' first.
AUTO_TEST = "auto"
#: Every value of the ``test`` option.
TESTS: tuple[str, ...] = (AUTO_TEST, *PAIR_TESTS, *SEVERAL_TESTS)

DEFAULT_ALPHA = 0.05
DEFAULT_TAU = 0.1
DEFAULT_THRESHOLDS = 20

#: Tracking measures the tracking cases and intervals are about (docs/measures.md §5,
#: "Tracking: intervals and tests"): key → name; the first is the default of the tests.
TRACKING_MEASURES: dict[str, str] = {"hota": "HOTA", "mota": "MOTA", "idf1": "IDF1"}
#: Trackers are resampled and compared on their sequences when there are at least this
#: many, else on frame blocks of the sequences.
MIN_SEQUENCES = 5
#: Frames per block of the per-block tracking measures.
DEFAULT_BLOCK_LENGTH = 50
#: Bootstrap resamples of the tracking intervals.
DEFAULT_RESAMPLES = 1000
#: Coverage of the tracking intervals: the 2.5th and 97.5th percentiles.
INTERVAL_LEVEL = 0.95


def check_block_length(block: int | None) -> None:
    """Raise unless ``block`` is ``None`` or at least 1 frame."""
    if block is not None and block < 1:
        raise InvalidOptionError(f"the block length must be at least 1 frame, not {block}")


def check_tracking_measure(measure: str) -> None:
    """Raise unless ``measure`` is a key of :data:`TRACKING_MEASURES`."""
    if measure not in TRACKING_MEASURES:
        raise InvalidOptionError(
            f"unknown tracking measure {measure!r} (choose from {', '.join(TRACKING_MEASURES)})"
        )


#: Kinds of paired test cases built from a project's results, and what each compares.
CASE_KINDS: dict[str, str] = {
    "frames": "F1 of each evaluated frame (needs ground truth)",
    "pseudo": "pseudo-F1 of each frame against the consensus (no ground truth needed)",
    "actions": "Dice of each ground-truth action (LIRIS)",
    "boxes": "FDA of each frame's boxes (per-frame boxes)",
    "tracking": "HOTA, MOTA or IDF1 of each sequence, or of each frame block with fewer "
    f"than {MIN_SEQUENCES} sequences (MOTChallenge tracks)",
}
