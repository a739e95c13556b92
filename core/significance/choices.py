"""The tests, test cases and defaults of the discriminative evaluation (docs/measures.md §9),
importable without numpy or SciPy so that options naming them are quick to build."""

from __future__ import annotations

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

#: Kinds of paired test cases built from a project's results, and what each compares.
CASE_KINDS: dict[str, str] = {
    "frames": "F1 of each evaluated frame (needs ground truth)",
    "pseudo": "pseudo-F1 of each frame against the consensus (no ground truth needed)",
    "actions": "Dice of each ground-truth action (LIRIS)",
    "boxes": "FDA of each frame's boxes (per-frame boxes)",
}
