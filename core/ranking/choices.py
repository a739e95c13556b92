"""The criteria that rank frames to annotate next and the default gap between chosen frames
(docs/measures.md §8), importable without numpy so that options naming them are quick to
build."""

from __future__ import annotations

VOTE_ENTROPY = "vote-entropy"
PAIRWISE_DICE = "pairwise-dice"
PSEUDO_GAP = "pseudo-gap"
PAIRWISE_FDA = "pairwise-fda"
CLASSES = "classes"

#: Criteria for masks; the first is the default (docs/measures.md §8).
MASK_CRITERIA: tuple[str, ...] = (VOTE_ENTROPY, PAIRWISE_DICE, PSEUDO_GAP)
#: Criteria that compare exactly two chosen detectors.
PAIR_CRITERIA: tuple[str, ...] = (PAIRWISE_DICE, PSEUDO_GAP, PAIRWISE_FDA)
#: Every criterion, for readers of exported rankings.
CRITERIA: tuple[str, ...] = (*MASK_CRITERIA, PAIRWISE_FDA, CLASSES)

#: After a frame is chosen, the frames within ±gap of it are dropped.
DEFAULT_GAP = 10
