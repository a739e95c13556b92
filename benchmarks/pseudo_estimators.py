"""Pseudo ground truth estimators against the truth, on the demo and on highway.

Each estimator is a consensus option of ``referee pseudo`` (docs/measures.md §7),
run through the product's stage ``referee.core.workflow.pseudo.run_pseudo``,
which compares the pseudo values with the true ones when ground truth exists.
No label is used to estimate anything; the truth only scores the estimates.

Data:

* the demo (``referee demo-data``; five detectors: MOG2, KNN, bgsegm MOG,
  bgsegm CNT, running average; three videos in two categories);
* CDnet's highway video (frames 470-1700) with five real OpenCV detectors:
  MOG2, KNN, bgsegm MOG, bgsegm CNT and frame differencing
  (``highway_detectors.py``, cached outside the repository).

For every estimator and dataset it prints, over the detectors, the mean
absolute error of the summarized pseudo precision, recall and F1 against
their true values, and the Spearman and Pearson correlations of pseudo F1
with true F1 (the product's correlation table); then the same per video of
the demo. One more row, ``staple, others' posterior``, is not an option of
the product: each detector is judged by the posterior of the other
detectors' votes under the model fitted to all of them (computed here from
each video's vote histogram and fitted model, as the product reports them).

Usage: python benchmarks/pseudo_estimators.py [--demo DIR] [--cache DIR] [--workers N]
"""

from __future__ import annotations

import argparse
import math
import tempfile
from dataclasses import replace
from pathlib import Path

import numpy as np
from highway_detectors import DEFAULT_CACHE, DETECTORS, HIGHWAY, highway_results

from referee.core.demo.dataset import BINARY_METHODS, ensure_demo
from referee.core.model.confusion import ConfusionMatrix
from referee.core.pseudo.committee_options import CommitteeOptions
from referee.core.pseudo.dataset import PseudoResult, summarize_pseudo
from referee.core.pseudo.staple import StapleFit, code_bits
from referee.core.pseudo.truth import TruthComparison, compare_with_truth
from referee.core.pseudo.video import PseudoVideoResult
from referee.core.workflow.options import PixelOptions, PseudoOptions
from referee.core.workflow.pixels import run_pixels
from referee.core.workflow.projects import project_of_outputs
from referee.core.workflow.pseudo import run_pseudo

ESTIMATORS: dict[str, CommitteeOptions] = {
    "committee + trivial (seed)": CommitteeOptions(consensus="committee"),
    "committee, no trivial": CommitteeOptions(consensus="committee", include_trivial=False),
    "committee, no trivial, leave-one-out": CommitteeOptions(
        consensus="committee", include_trivial=False, leave_one_out=True
    ),
    "staple": CommitteeOptions(consensus="staple"),
    "staple, leave-one-out (refitted)": CommitteeOptions(consensus="staple", leave_one_out=True),
}
OTHERS_POSTERIOR = "staple, others' posterior (not an option)"
KEYS = ("precision", "recall", "f1")


def others_posterior(video: PseudoVideoResult) -> PseudoVideoResult:
    """``video`` (staple, no leave-one-out) with each detector judged by the others' posterior."""
    assert video.model is not None and video.patterns is not None
    codes, counts = video.patterns
    model, k = video.model, len(video.methods)
    bits = code_bits(codes, k)
    totals, p2 = {}, {}
    for j, method in enumerate(video.methods):
        keep = [i for i in range(k) if i != j]
        others = StapleFit(
            model.prior,
            tuple(model.sensitivity[i] for i in keep),
            tuple(model.specificity[i] for i in keep),
            model.iterations,
            model.converged,
        )
        w = others.posterior(bits[:, keep])
        s = bits[:, j]
        tp, sum_s, sum_p = counts @ (s * w), counts @ s, counts @ w
        n = float(counts.sum())
        totals[method] = ConfusionMatrix(tp, sum_s - tp, sum_p - tp, n - sum_s - sum_p + tp)
        p2[method] = float(counts @ (w * w))
    return replace(video, totals=totals, sum_p_squared=p2)


def scores(result: PseudoResult, truth: TruthComparison, videos: bool = False) -> list[list[float]]:
    """Rows ``MAE P, MAE R, MAE F1, Spearman F1, Pearson F1``: the summary, or one per video."""
    methods = result.methods
    if not videos:
        pseudo = [{m: result.summaries[m].values for m in methods}]
        true = [truth.true_summary]
        correlations = [truth.summary["f1"]]
    else:
        pseudo = [{m: v.values(m) for m in methods} for v in result.videos]
        true = [truth.true_per_video[v.key] for v in result.videos]
        correlations = [truth.per_video[v.key]["f1"] for v in result.videos]
    rows = []
    for p, t, c in zip(pseudo, true, correlations):
        row = []
        for key in KEYS:
            errors = [abs(p[m][key].value - t[m][key].value) for m in methods]
            row.append(float(np.nanmean(errors)))
        row += [c.spearman.value, c.pearson.value]
        rows.append(row)
    return rows


def measure(
    dataset: Path, roots: list[Path], workers: int
) -> dict[str, tuple[PseudoResult, TruthComparison]]:
    """Every estimator's pseudo result on one dataset, compared with the truth."""
    project = project_of_outputs("masks", roots, dataset=dataset)
    pixels = run_pixels(project, PixelOptions(workers=workers))
    out: dict[str, tuple[PseudoResult, TruthComparison]] = {}
    for name, committee in ESTIMATORS.items():
        options = PseudoOptions(committee, workers=workers, entropy=False)
        outcome = run_pseudo(project, options, pixels=pixels)
        assert outcome.truth is not None, outcome.truth_problem
        out[name] = (outcome.result, outcome.truth)
        if name == "staple":
            result = outcome.result
            videos = [others_posterior(v) for v in result.videos]
            swapped = replace(
                result, videos=tuple(videos), summaries=summarize_pseudo(videos, result.scheme)
            )
            out[OTHERS_POSTERIOR] = (swapped, compare_with_truth(swapped, pixels.evaluations))
    return out


def table(title: str, rows: dict[str, list[float]]) -> str:
    """A Markdown table of one dataset's rows."""
    lines = [
        f"{title}",
        "",
        "| estimator | MAE precision | MAE recall | MAE F1 | Spearman F1 | Pearson F1 |",
        "|---|---|---|---|---|---|",
    ]
    for name, (mp, mr, mf, sp, pe) in rows.items():
        cells = [f"{v:.3f}" for v in (mp, mr, mf)]
        cells += ["n/a" if math.isnan(v) else f"{v:+.3f}" for v in (sp, pe)]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--demo", type=Path, default=Path(tempfile.gettempdir()) / "referee-bench" / "demo"
    )
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args()

    demo = ensure_demo(args.demo)
    folders = highway_results(args.cache, tuple(DETECTORS))
    datasets = {
        f"demo ({', '.join(BINARY_METHODS)}; summary over videos, weights 'category')": (
            demo.dataset,
            [demo.results[m] for m in BINARY_METHODS],
        ),
        f"highway, frames 470-1700 ({', '.join(folders)})": (HIGHWAY, list(folders.values())),
    }
    per_video: dict[str, dict[str, list[float]]] = {}
    for title, (dataset, roots) in datasets.items():
        results = measure(dataset, roots, args.workers)
        print(table(title, {n: scores(r, t)[0] for n, (r, t) in results.items()}) + "\n")
        if dataset == demo.dataset:
            for name, (result, truth) in results.items():
                for v, row in zip(result.videos, scores(result, truth, videos=True)):
                    per_video.setdefault(f"demo, {v.category}/{v.video}", {})[name] = row
    for title, rows in per_video.items():
        print(table(title, rows) + "\n")


if __name__ == "__main__":
    main()
