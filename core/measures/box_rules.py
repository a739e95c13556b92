"""The rules a user chooses for per-frame boxes (docs/measures.md §5): when the IoU
threshold applies, and the MOTChallenge ground-truth class rules; importable without
numpy so that the command line parses its options quickly."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from referee.core.errors import InvalidOptionError

#: Map the boxes maximizing IoU, then a mapped pair below the threshold is no true
#: positive (VACE; the default).
MAP_THEN_THRESHOLD = "map-then-threshold"
#: Pairs below the threshold may not be assigned at all; the assignment maximizes the IoU
#: of the others (CLEAR-MOT tools, TrackEval).
THRESHOLD_THEN_MAP = "threshold-then-map"
#: The true positives are CLEAR MOT's matches: a pair of identities matched on the previous
#: frame is kept while it reaches the threshold, then threshold-then-map (TrackEval's CLEAR).
KEEP_MATCHES = "keep-matches"
#: When the IoU threshold applies to the true positives; the first is the default.
IOU_RULES: tuple[str, ...] = (MAP_THEN_THRESHOLD, THRESHOLD_THEN_MAP, KEEP_MATCHES)
#: What each rule does, as the outputs say it.
IOU_RULE_WORDING: dict[str, str] = {
    MAP_THEN_THRESHOLD: "mapped pairs below the IoU threshold are no true positives",
    THRESHOLD_THEN_MAP: "pairs below the IoU threshold never assigned",
    KEEP_MATCHES: "true positives are CLEAR MOT's matches, keeping the previous frame's pairs",
}

#: The object classes of MOTChallenge ground truth (the 8th column of MOT16, MOT17 and
#: MOT20 ``gt.txt``), by id.
MOT_CLASSES: dict[int, str] = {
    1: "pedestrian",
    2: "person on vehicle",
    3: "car",
    4: "bicycle",
    5: "motorbike",
    6: "non-motorized vehicle",
    7: "static person",
    8: "distractor",
    9: "occluder",
    10: "occluder on the ground",
    11: "occluder full",
    12: "reflection",
    13: "crowd",
}
PEDESTRIAN = 1
#: A detection assigned to a distractor-class box at this IoU or more is removed (the
#: benchmarks' fixed value, whatever the threshold of the true positives).
DISTRACTOR_IOU = 0.5


@dataclass(frozen=True)
class ClassRule:
    """Which ground-truth class is counted and which classes are distractors."""

    counted: int
    distractors: tuple[int, ...]


_MOT16_17 = ClassRule(PEDESTRIAN, (2, 7, 8, 12))
#: The class rules of each benchmark (docs/measures.md §5): MOT16 and MOT17 count
#: pedestrians and treat persons on vehicles, static persons, distractors and
#: reflections as distractors; MOT20 also non-motorized vehicles.
CLASS_RULES: dict[str, ClassRule] = {
    "mot16": _MOT16_17,
    "mot17": _MOT16_17,
    "mot20": ClassRule(PEDESTRIAN, (2, 6, 7, 8, 12)),
}


@dataclass(frozen=True)
class BenchmarkRules:
    """How a MOTChallenge benchmark evaluates (docs/measures.md §5): ground-truth rows
    whose consider flag is 0 are not counted (``zero_marked``), the class rules
    (``None``: classes ignored), and the true positives are CLEAR MOT's matches
    (``iou_rule``)."""

    name: str
    zero_marked: bool
    classes: str | None
    iou_rule: str


#: Each benchmark's rules, as TrackEval applies them: MOT15 has no classes.
BENCHMARKS: dict[str, BenchmarkRules] = {
    name: BenchmarkRules(name, True, classes, KEEP_MATCHES)
    for name, classes in (
        ("MOT15", None),
        ("MOT16", "mot16"),
        ("MOT17", "mot17"),
        ("MOT20", "mot20"),
    )
}
#: ``benchmark`` option values besides a benchmark's name: infer it, or apply none.
AUTO, NO_BENCHMARK = "auto", "none"
_BENCHMARK_NAME = re.compile(r"MOT(15|16|17|20)(?![0-9])", re.IGNORECASE)


def check_benchmark(name: str) -> None:
    """Refuse a ``benchmark`` option that is neither a benchmark nor ``auto``/``none``."""
    if name not in (AUTO, NO_BENCHMARK, *BENCHMARKS):
        choices = ", ".join((AUTO, NO_BENCHMARK, *BENCHMARKS))
        raise InvalidOptionError(f"unknown benchmark {name!r} (choose from {choices})")


def inferred_benchmark(names: Sequence[str]) -> tuple[str, str] | None:
    """The benchmark the first of ``names`` (a seqmap, a split, a folder or file path)
    that names one calls for, and that name; ``None`` if none does (MOT15, MOT16, MOT17,
    MOT20, any case: ``MOT17-train``, ``.../MOT20-01/gt/gt.txt``)."""
    for name in names:
        found = _BENCHMARK_NAME.search(name)
        if found is not None:
            return f"MOT{found.group(1)}", name
    return None


def benchmark_wording(rules: BenchmarkRules, source: str | None) -> str:
    """``Benchmark rules MOT17 (inferred from MOT17-train; --benchmark none turns them
    off): …`` in one sentence."""
    how = f"inferred from {source}; --benchmark none turns them off" if source else "asked for"
    applied = (
        ["ground-truth rows whose consider flag is 0 not counted"] if rules.zero_marked else []
    )
    if rules.classes is not None:
        applied.append(f"{rules.classes} classes")
    else:
        applied.append("classes ignored")
    applied.append(f"{IOU_RULE_WORDING[rules.iou_rule]} ({rules.iou_rule})")
    return f"Benchmark rules {rules.name} ({how}): " + "; ".join(applied)


def check_iou_rule(rule: str) -> None:
    """Refuse an IoU rule that is not one of :data:`IOU_RULES`."""
    if rule not in IOU_RULES:
        raise InvalidOptionError(f"unknown IoU rule {rule!r} (choose from {', '.join(IOU_RULES)})")


def check_class_rule(rule: str | None) -> None:
    """Refuse class rules that are neither ``None`` nor one of :data:`CLASS_RULES`."""
    if rule is not None and rule not in CLASS_RULES:
        raise InvalidOptionError(
            f"unknown MOTChallenge class rules {rule!r} (choose from {', '.join(CLASS_RULES)})"
        )


def groundtruth_rules_wording(
    min_conf: float | None, classes: str | None, zero_marked: bool = False
) -> str | None:
    """What the ground-truth rules set aside, in one sentence, or ``None`` if nothing:
    ``Ground truth: rows with conf < 0.5 not counted; mot17 classes: …``."""
    check_class_rule(classes)
    parts = []
    if zero_marked:
        parts.append("rows with conf 0 (the consider flag) not counted")
    if min_conf is not None:
        parts.append(f"rows with conf < {min_conf:g} not counted")
    if classes is not None:
        rule = CLASS_RULES[classes]
        distractors = ", ".join(str(c) for c in rule.distractors)
        parts.append(
            f"{classes} classes: only class {rule.counted} ({MOT_CLASSES[rule.counted]}) "
            f"counted, detections assigned to classes {distractors} at IoU >= "
            f"{DISTRACTOR_IOU:g} removed"
        )
    return "Ground truth: " + "; ".join(parts) if parts else None
