"""How well ``referee estimate`` estimates each detector's F1 from a few labelled frames.

Simulates an annotator on fully annotated data (docs/measures.md §12): for each
design (sampler, estimator) in (random, plain), (random, surrogate) and
(active, surrogate), each number of draws K and each seed, the sampler draws K
frames, their true counts enter the estimator, and the estimated F1 of every
detector (pooled over every evaluated frame) is compared with the true one.
Per dataset, design and K it prints the RMSE of F1 over detectors and seeds,
the mean |bias| and the largest |bias| / standard error over detectors, the
coverage of the 95% interval (a missing interval does not cover), and the mean
Kendall τ of the estimated ranking against the true one; then the label
saving: how many random-plain draws reach the RMSE of K active-surrogate draws
(log-log interpolation on a grid of K; draws are with replacement, so the grid
may exceed the N frames, which ``referee estimate`` itself refuses).

The consensus counts and the true counts of every frame are computed once per
dataset with the product's stages (``run_pseudo``, ``run_pixels``), exactly as
``run_estimate`` gathers them; the draws and the estimates then use the
product's sampler and estimator functions on arrays. One call of
``run_estimate`` per dataset checks that both paths give the same estimates.

Data: the demo (five subtractors, three videos) and CDnet's highway video with
five real OpenCV detectors (``highway_detectors.py``).

Usage: python benchmarks/annotation_efficiency.py [--seeds 20] [--ks 5 10 20 50 100]
       [--workers N] [--demo DIR] [--cache DIR]
"""

from __future__ import annotations

import argparse
import math
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from highway_detectors import DEFAULT_CACHE, DETECTORS, HIGHWAY, highway_results
from scipy.stats import kendalltau

from referee.core.demo.dataset import BINARY_METHODS, ensure_demo
from referee.core.estimation.estimators import estimate_totals, interval, ratio
from referee.core.estimation.sampler import acquisition_scores, draw, probabilities
from referee.core.model.project import Project
from referee.core.workflow.estimate import run_estimate
from referee.core.workflow.options import EstimateOptions, PixelOptions, PseudoOptions
from referee.core.workflow.pixels import run_pixels
from referee.core.workflow.projects import project_of_outputs
from referee.core.workflow.pseudo import run_pseudo
from referee.core.workflow.results import PixelResult, PseudoOutcome

DESIGNS: tuple[tuple[str, str], ...] = (
    ("random", "plain"),
    ("random", "surrogate"),
    ("active", "surrogate"),
)
#: Extra numbers of draws of random-plain, for the label saving.
SAVING_GRID: tuple[int, ...] = (200, 500, 1000, 2000, 5000)
CHECK = (20, 0, ("active", "surrogate"))  # K, seed, design checked against run_estimate


@dataclass(frozen=True)
class Dataset:
    """Every evaluated frame: the consensus's and the true counts, ``(N, D, 3)``."""

    methods: tuple[str, ...]
    surrogate: np.ndarray
    truth: np.ndarray

    @property
    def true_f1(self) -> np.ndarray:
        tp, fp, fn = self.truth.sum(axis=0).T
        f1: np.ndarray = 2 * tp / (2 * tp + fp + fn)
        return f1


@dataclass(frozen=True)
class Row:
    """One design and K over the seeds."""

    rmse: float
    mean_bias: float
    max_z: float
    coverage: float
    no_interval: int
    undefined: int
    tau: float


def counts(pseudo: PseudoOutcome, pixels: PixelResult) -> Dataset:
    """The consensus's counts as ``run_estimate`` stacks them, and the true counts of the
    same frames in the same order."""
    methods = pseudo.methods
    surrogate, truth = [], []
    for v in pseudo.result.videos:
        surrogate.append(np.stack([v.per_frame[m][:, 1:4] for m in methods], axis=1))
        per_method = []
        for m in methods:
            (found,) = [e for e in pixels.evaluations[m] if e.key == v.key]
            assert np.array_equal(found.per_frame[:, 0], v.frames), (m, v.key)
            per_method.append(found.per_frame[:, 1:4].astype(np.float64))
        truth.append(np.stack(per_method, axis=1))
    return Dataset(methods, np.concatenate(surrogate), np.concatenate(truth))


def estimates(
    data: Dataset, design: tuple[str, str], k: int, seed: int
) -> tuple[np.ndarray, np.ndarray]:
    """``(D,)`` F1 estimates and ``(D, 2)`` 95% intervals of one draw, as ``run_estimate``."""
    sampler, estimator = design
    q = probabilities(sampler, acquisition_scores(data.surrogate))
    drawn = draw(q, k, np.random.default_rng(seed))
    totals = estimate_totals(
        data.surrogate, drawn.indices, data.truth[drawn.indices], drawn.q, estimator
    )
    r = ratio(totals, "f1")
    rows = np.array([interval(r, j) for j in range(len(data.methods))])
    return rows[:, 0], rows[:, 1:]


def evaluate(data: Dataset, design: tuple[str, str], k: int, seeds: int) -> Row:
    true = data.true_f1
    runs = [estimates(data, design, k, s) for s in range(seeds)]
    values = np.array([v for v, _ in runs])  # (seeds, D)
    bounds = np.array([b for _, b in runs])  # (seeds, D, 2)
    error = values - true
    bias = np.nanmean(error, axis=0)
    se = np.nanstd(error, axis=0, ddof=1) / np.sqrt(np.sum(~np.isnan(error), axis=0))
    z = np.where(se > 0, np.abs(bias) / np.where(se > 0, se, 1), np.where(bias == 0, 0, np.inf))
    covered = (bounds[..., 0] <= true) & (true <= bounds[..., 1])  # NaN: not covered
    taus = [kendalltau(v, true).statistic if not np.isnan(v).any() else math.nan for v in values]
    return Row(
        rmse=float(np.sqrt(np.mean(np.nanmean(error**2, axis=0)))),
        mean_bias=float(np.mean(np.abs(bias))),
        max_z=float(np.max(z)),
        coverage=float(covered.mean()),
        no_interval=int(np.isnan(bounds[..., 0]).sum()),
        undefined=int(np.isnan(values).sum()),
        tau=float(np.nanmean(taus)),
    )


def equivalent(target: float, grid: list[int], rmse: list[float]) -> tuple[str, float]:
    """Random-plain draws with RMSE ``target``: first crossing, log-log interpolation."""
    if target >= rmse[0]:
        return "<=", float(grid[0])
    for (k0, r0), (k1, r1) in zip(zip(grid, rmse), zip(grid[1:], rmse[1:])):
        if r0 > target >= r1:
            t = (math.log(target) - math.log(r0)) / (math.log(r1) - math.log(r0))
            return "", math.exp(math.log(k0) + t * (math.log(k1) - math.log(k0)))
    return ">", float(grid[-1])


def check_product(
    project: Project, data: Dataset, pseudo: PseudoOutcome, pixels: PixelResult
) -> None:
    """``run_estimate`` gives the array path's estimates, intervals and true values."""
    k, seed, (sampler, estimator) = CHECK
    options = EstimateOptions(
        labels=k, sampler=sampler, estimator=estimator, seed=seed, simulate=True
    )
    result = run_estimate(project, options, pseudo=pseudo, pixels=pixels)
    values, bounds = estimates(data, (sampler, estimator), k, seed)
    for j, m in enumerate(data.methods):
        e = result.estimates[m]["f1"]
        got = np.array([e.estimate, e.low, e.high, e.true])
        want = np.array([values[j], *bounds[j], data.true_f1[j]])
        assert np.allclose(got, want, rtol=0, atol=1e-12, equal_nan=True), (m, got, want)


def run(
    title: str, dataset: Path, roots: list[Path], ks: list[int], seeds: int, workers: int
) -> None:
    start = time.perf_counter()
    project = project_of_outputs("masks", roots, dataset=dataset)
    options = PseudoOptions(workers=workers, entropy=False, compare_with_truth=False)
    pseudo = run_pseudo(project, options)
    threshold = pseudo.options.committee.threshold
    pixels = run_pixels(project, PixelOptions(threshold=threshold, workers=workers))
    data = counts(pseudo, pixels)
    check_product(project, data, pseudo, pixels)
    prepared = time.perf_counter() - start
    rows = {(d, k): evaluate(data, d, k, seeds) for d in DESIGNS for k in ks}
    grid = sorted({*ks, *SAVING_GRID})
    plain = [evaluate(data, DESIGNS[0], k, seeds).rmse for k in grid]
    order = np.argsort(-data.true_f1)
    n = data.truth.shape[0]
    print(f"### {title}\n")
    print(
        f"N = {n} frames, {seeds} seeds; true F1 (pooled): "
        + ", ".join(f"{data.methods[j]} {data.true_f1[j]:.3f}" for j in order)
        + f". Consensus and truth {prepared:.0f} s; run_estimate check passed "
        f"(K={CHECK[0]}, seed {CHECK[1]}, {'/'.join(CHECK[2])}).\n"
    )
    print(
        "| sampler, estimator | K | RMSE F1 | mean abs bias | max abs bias/SE "
        "| coverage 95% | no interval | Kendall τ |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for (d, k), r in rows.items():
        nan = f" (+{r.undefined} no F1)" if r.undefined else ""
        print(
            f"| {', '.join(d)} | {k} | {r.rmse:.4f} | {r.mean_bias:.4f} | {r.max_z:.2f} | "
            f"{r.coverage:.3f} | {r.no_interval}/{seeds * len(data.methods)}{nan} | "
            f"{r.tau:.3f} |"
        )
    print(
        "\nLabel saving: random-plain draws with the RMSE of K active-surrogate draws "
        f"(random-plain grid {', '.join(map(str, grid))}).\n"
    )
    print("| K | RMSE active, surrogate | random-plain draws, same RMSE | saving |")
    print("|---|---|---|---|")
    for k in ks:
        target = rows[(DESIGNS[2], k)].rmse
        sign, equal = equivalent(target, grid, plain)
        prefix = f"{sign} " if sign else ""
        print(f"| {k} | {target:.4f} | {prefix}{equal:.0f} | {prefix}{equal / k:.1f}× |")
    print(f"\n({time.perf_counter() - start:.0f} s)\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=20, help="draws per design and K")
    parser.add_argument("--ks", type=int, nargs="+", default=[5, 10, 20, 50, 100])
    parser.add_argument(
        "--demo", type=Path, default=Path(tempfile.gettempdir()) / "referee-bench" / "demo"
    )
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args()
    print("`python3 " + " ".join(["benchmarks/annotation_efficiency.py", *sys.argv[1:]]) + "`\n")
    demo = ensure_demo(args.demo)
    folders = highway_results(args.cache, tuple(DETECTORS))
    datasets = {
        f"demo ({', '.join(BINARY_METHODS)})": (
            demo.dataset,
            [demo.results[m] for m in BINARY_METHODS],
        ),
        f"highway, frames 470-1700 ({', '.join(folders)})": (HIGHWAY, list(folders.values())),
    }
    for title, (dataset, roots) in datasets.items():
        run(title, dataset, roots, args.ks, args.seeds, args.workers)


if __name__ == "__main__":
    main()
