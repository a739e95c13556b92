"""Do frames chosen by disagreement teach more than random frames? (docs/measures.md §8, §9)

Simulates an annotator who labels k frames of fully annotated data, chosen by
each disagreement criterion of ``referee rank`` (vote entropy, pairwise 1−Dice,
pseudo-F1 gap; gap 10) or at random (several seeds), and asks two questions:

* ranking: the detectors ranked by F1 pooled over the k frames, against the
  ranking by F1 pooled over every frame (Kendall τ; 1 = same order);
* verdicts: for every pair of detectors, the discriminative verdict of docs/measures.md §9
  (paired t-test on per-frame F1) on the k frames, against the verdict on every
  frame; agreement = same "differ / no difference" and, when both differ, the
  same winner.

Data: the demo (three synthetic videos, five subtractors) and the real CDnet
highway video with four OpenCV subtractors (``highway_detectors.py``).

Usage: python benchmarks/annotation_efficiency.py [--seeds 20] [--ks 5 10 20 50]
"""

from __future__ import annotations

import argparse
import itertools
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from highway_detectors import HIGHWAY, highway_results
from scipy.stats import kendalltau

from referee.core.demo.dataset import ensure_demo
from referee.core.evaluation.masks import evaluate_method
from referee.core.formats.cdnet import discover_videos
from referee.core.frames.results import result_sources
from referee.core.measures.indicators import f1_scores
from referee.core.ranking.criteria import PAIRWISE_DICE, PSEUDO_GAP, VOTE_ENTROPY
from referee.core.ranking.order import rank_frames
from referee.core.ranking.scores import mask_scores
from referee.core.significance.sweep import compare_pair

CRITERIA = (VOTE_ENTROPY, PAIRWISE_DICE, PSEUDO_GAP)


@dataclass
class Cases:
    """Every evaluated frame of a dataset, with each method's per-frame counts."""

    labels: list[tuple[str, int]]  # (video label, frame)
    counts: dict[str, np.ndarray]  # method -> (n, 3) tp, fp, fn
    scores: dict[str, list]  # criterion -> FrameScores per video


def collect(dataset: Path, results: dict[str, Path]) -> Cases:
    videos = discover_videos(dataset)
    labels: list[tuple[str, int]] = []
    counts: dict[str, list[np.ndarray]] = {m: [] for m in results}
    for method, root in results.items():
        for video, evaluation in zip(videos, evaluate_method(videos, root)):
            counts[method].append(evaluation.per_frame[:, 1:4])
            if method == next(iter(results)):
                label = (
                    video.name if video.category == video.name else f"{video.category}/{video.name}"
                )
                labels += [(label, int(f)) for f in evaluation.per_frame[:, 0]]
    sources = {m: result_sources(videos, root) for m, root in results.items()}
    pair = tuple(list(results)[:2])
    scores = {
        c: mask_scores(videos, sources, c, pair=pair if c != VOTE_ENTROPY else None)
        for c in CRITERIA
    }
    return Cases(labels, {m: np.concatenate(c) for m, c in counts.items()}, scores)


def pooled_f1(counts: np.ndarray) -> float:
    tp, fp, fn = counts.sum(axis=0)
    return 2 * tp / (2 * tp + fp + fn) if 2 * tp + fp + fn else float("nan")


def verdicts(cases: Cases, rows: np.ndarray) -> dict[tuple[str, str], str]:
    """Per pair of methods: 'none', or the name of the better method when they differ."""
    out = {}
    for a, b in itertools.combinations(cases.counts, 2):
        fa = f1_scores(*cases.counts[a][rows].T)
        fb = f1_scores(*cases.counts[b][rows].T)
        keep = ~(np.isnan(fa) | np.isnan(fb))
        result = compare_pair(fa[keep], fb[keep], (a, b))
        out[(a, b)] = result.better if result.differ and result.better else "none"
    return out


def judge(
    cases: Cases, rows: np.ndarray, full_f1: list[float], full_verdicts: dict
) -> tuple[float, float]:
    """(Kendall τ of the F1 ranking, fraction of pairwise verdicts agreeing) on ``rows``."""
    f1 = [pooled_f1(cases.counts[m][rows]) for m in cases.counts]
    tau = kendalltau(full_f1, np.nan_to_num(f1, nan=-1.0)).statistic
    subset = verdicts(cases, rows)
    agree = np.mean([subset[p] == full_verdicts[p] for p in full_verdicts])
    return float(tau), float(agree)


def chosen_rows(cases: Cases, criterion: str, k: int) -> np.ndarray:
    index = {label: i for i, label in enumerate(cases.labels)}
    ranked = rank_frames(cases.scores[criterion], gap=10, top=k)
    return np.array([index[(r.video, r.frame)] for r in ranked], dtype=np.int64)


def run(name: str, cases: Cases, ks: list[int], seeds: int) -> None:
    full_rows = np.arange(len(cases.labels))
    full_f1 = [pooled_f1(cases.counts[m]) for m in cases.counts]
    full_verdicts = verdicts(cases, full_rows)
    order = sorted(cases.counts, key=lambda m: -pooled_f1(cases.counts[m]))
    differ = sum(v != "none" for v in full_verdicts.values())
    print(
        f"\n{name}: {len(cases.labels)} annotated frames, detectors by F1 on all frames: "
        + ", ".join(f"{m} {pooled_f1(cases.counts[m]):.3f}" for m in order)
    )
    print(
        f"  all frames: {differ} of {len(full_verdicts)} detector pairs differ (docs/measures.md §9)"
    )
    print(f"  {'k':>3}  {'chooser':<16} {'Kendall tau':>18}  {'verdicts agree':>18}")
    rng = np.random.default_rng(0)
    for k in ks:
        for criterion in CRITERIA:
            tau, agree = judge(cases, chosen_rows(cases, criterion, k), full_f1, full_verdicts)
            print(f"  {k:>3}  {criterion:<16} {tau:>18.3f}  {agree:>18.2f}")
        taus, agrees = zip(
            *(
                judge(cases, rng.choice(full_rows, size=k, replace=False), full_f1, full_verdicts)
                for _ in range(seeds)
            )
        )
        print(
            f"  {k:>3}  {'random':<16} {np.mean(taus):>9.3f} ± {np.std(taus):.3f}  "
            f"{np.mean(agrees):>9.2f} ± {np.std(agrees):.2f}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=20, help="random draws per k")
    parser.add_argument("--ks", type=int, nargs="+", default=[5, 10, 20, 50])
    args = parser.parse_args()
    demo = ensure_demo(Path(tempfile.gettempdir()) / "referee-bench" / "demo")
    run("demo", collect(demo.dataset, demo.results), args.ks, args.seeds)
    run("highway", collect(HIGHWAY, highway_results()), args.ks, args.seeds)


if __name__ == "__main__":
    main()
