"""The model-based consensus: STAPLE / Dawid–Skene over vote patterns (docs/measures.md §7).

Each evaluated pixel has a hidden truth ``T ∈ {0, 1}`` with prior ``π``;
detector ``k`` detects a positive pixel with probability ``p_k``
(sensitivity) and leaves a negative one alone with probability ``q_k``
(specificity), independently of the other detectors given ``T``. A pixel's
*vote pattern* is the code with bit ``k`` set iff detector ``k`` detects it,
so the model's likelihood depends on the pixels only through the histogram of
patterns, and expectation–maximization runs on that histogram:

* E-step: ``W(c) = P(T = 1 | pattern c)`` under the current parameters;
* M-step: ``π = Σ h W / Σ h``, ``p_k = Σ h W S_k / Σ h W``,
  ``q_k = Σ h (1 − W)(1 − S_k) / Σ h (1 − W)``, summed over patterns ``c``
  with counts ``h(c)``.

The posterior ``W`` is the consensus ``P`` of the pseudo confusion matrices.
Everything here works on the observed patterns only (at most one per pixel,
at most ``2**K``), so its cost does not depend on the number of pixels.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

#: Largest committee the model-based consensus accepts (vote codes fit in ``uint16``).
MAX_STAPLE_DETECTORS = 16

#: Every sensitivity, specificity and the prior stay within [CLAMP, 1 − CLAMP].
CLAMP = 1e-6

#: Starting sensitivity and specificity of every detector.
INITIAL_RATE = 0.9

#: EM stops when no parameter moves by more than this in one iteration...
TOLERANCE = 1e-9

#: ...or after this many iterations.
MAX_ITERATIONS = 10_000


@dataclass(frozen=True)
class StapleFit:
    """The model fitted to one video's vote patterns (docs/measures.md §7).

    ``sensitivity[k]`` and ``specificity[k]`` follow the committee order;
    ``converged`` is false when EM stopped at :data:`MAX_ITERATIONS`.
    """

    prior: float
    sensitivity: tuple[float, ...]
    specificity: tuple[float, ...]
    iterations: int
    converged: bool

    def posterior(self, bits: np.ndarray) -> np.ndarray:
        """``W = P(T = 1 | votes)`` for rows of votes ``bits`` (``(n, K)``, 0/1)."""
        p = np.asarray(self.sensitivity)
        q = np.asarray(self.specificity)
        detected = np.log(p) - np.log1p(-q)  # log-likelihood ratio of a vote
        missed = np.log1p(-p) - np.log(q)  # ... and of no vote
        offset = np.log(self.prior) - np.log1p(-self.prior) + missed.sum()
        logit = offset + np.asarray(bits, dtype=np.float64) @ (detected - missed)
        w: np.ndarray = 1.0 / (1.0 + np.exp(-np.clip(logit, -700.0, 700.0)))
        return w

    def posterior_map(self, detected: Sequence[np.ndarray]) -> np.ndarray:
        """``W`` per pixel of one frame from each detector's boolean mask, in committee order."""
        stack = np.stack([np.asarray(m, dtype=bool) for m in detected], axis=-1)
        return self.posterior(stack.reshape(-1, stack.shape[-1])).reshape(stack.shape[:-1])


def code_bits(codes: np.ndarray, k: int) -> np.ndarray:
    """Votes ``(len(codes), k)`` as ``float64`` 0/1: bit ``j`` of each code."""
    return ((np.asarray(codes, dtype=np.int64)[:, None] >> np.arange(k)) & 1).astype(np.float64)


def fit_staple(codes: np.ndarray, counts: np.ndarray, k: int) -> StapleFit:
    """Fit prior, sensitivities and specificities of ``k`` detectors by EM (docs/measures.md §7).

    Parameters
    ----------
    codes
        Distinct vote patterns (bit ``j`` set iff detector ``j`` detects).
    counts
        How many evaluated pixels have each pattern.
    k
        Number of detectors.

    The prior starts at the mean detection rate, every sensitivity and
    specificity at :data:`INITIAL_RATE` (detectors better than chance, which
    picks the solution where ``T = 1`` is what they detect, not its mirror).
    """
    bits = code_bits(codes, k)
    h = np.asarray(counts, dtype=np.float64)
    n = float(h.sum())
    lo, hi = CLAMP, 1.0 - CLAMP
    prior = float(np.clip(h @ bits.mean(axis=1) / n, lo, hi)) if n > 0 else lo
    fit = StapleFit(prior, (INITIAL_RATE,) * k, (INITIAL_RATE,) * k, 0, True)
    if n <= 0:
        return fit
    tiny = np.finfo(float).tiny
    old = np.array([prior, *fit.sensitivity, *fit.specificity])
    for iteration in range(1, MAX_ITERATIONS + 1):
        w = fit.posterior(bits)
        hw, hz = h * w, h * (1.0 - w)
        positives = float(hw.sum())
        new = np.clip(
            np.concatenate(
                [
                    [positives / n],
                    hw @ bits / max(positives, tiny),
                    hz @ (1.0 - bits) / max(n - positives, tiny),
                ]
            ),
            lo,
            hi,
        )
        done = float(np.abs(new - old).max()) <= TOLERANCE
        fit = StapleFit(
            float(new[0]),
            tuple(float(v) for v in new[1 : 1 + k]),
            tuple(float(v) for v in new[1 + k :]),
            iteration,
            done,
        )
        if done:
            break
        old = new
    return fit


def without(codes: np.ndarray, j: int) -> np.ndarray:
    """The codes with bit ``j`` removed (higher bits move down one place)."""
    codes = np.asarray(codes, dtype=np.int64)
    return (codes & ((1 << j) - 1)) | ((codes >> (j + 1)) << j)


def staple_consensus(
    codes: np.ndarray, counts: np.ndarray, k: int, leave_one_out: bool
) -> tuple[StapleFit, np.ndarray]:
    """The fit of all ``k`` detectors and each detector's consensus per observed pattern.

    Returns the fit and ``(len(codes), k)`` posteriors: column ``j`` is the
    consensus detector ``j`` is judged against: ``W`` of the whole committee,
    or with ``leave_one_out`` the posterior of a model fitted to the patterns
    of the other ``k − 1`` detectors alone.
    """
    fit = fit_staple(codes, counts, k)
    if not leave_one_out:
        return fit, np.repeat(fit.posterior(code_bits(codes, k))[:, None], k, axis=1)
    columns = []
    for j in range(k):
        reduced = without(codes, j)
        patterns, inverse = np.unique(reduced, return_inverse=True)
        others = fit_staple(patterns, np.bincount(inverse, weights=counts), k - 1)
        columns.append(others.posterior(code_bits(patterns, k - 1))[inverse])
    return fit, np.column_stack(columns)


def staple_sums(
    patterns: np.ndarray, pixels: np.ndarray, k: int, leave_one_out: bool
) -> tuple[np.ndarray, np.ndarray, StapleFit, tuple[np.ndarray, np.ndarray]]:
    """Per-frame and whole-video ``tp, fp, fn, tn, Σ P²`` of every detector under ``W``.

    Parameters
    ----------
    patterns
        ``(m, 3)`` rows ``frame row, code, count``: each frame's histogram of
        vote patterns over its evaluated pixels (rows in any order).
    pixels
        The evaluated pixels of each frame (``n`` per row).
    k, leave_one_out
        Detectors; whether each is judged by the model of the others.

    Returns
    -------
    ``(frames, k, 5)`` and ``(k, 5)`` sums (the video's from its whole
    histogram, exact), the fit of all detectors, and the video's histogram
    as distinct codes and their counts.
    """
    rows = patterns[:, 0].astype(np.int64)
    observed, inverse = np.unique(patterns[:, 1], return_inverse=True)
    weights = patterns[:, 2].astype(np.float64)
    totals = np.bincount(inverse, weights=weights, minlength=observed.size)
    fit, reference = staple_consensus(observed, totals, k, leave_one_out)
    bits = code_bits(observed, k)
    # Per observed pattern and detector: S·P, S, P, P².
    values = np.stack([bits * reference, bits, reference, reference**2], axis=2)
    frames = pixels.size
    per_frame = np.empty((frames, k, 4))
    for j in range(k):
        for v in range(4):
            per_frame[:, j, v] = np.bincount(
                rows, weights=weights * values[inverse, j, v], minlength=frames
            )
    video = np.einsum("m,mkv->kv", totals, values)
    return (
        _confusion(per_frame, pixels[:, None]),
        _confusion(video, np.array(float(pixels.sum()))),
        fit,
        (observed, totals),
    )


def _confusion(sums: np.ndarray, n: np.ndarray) -> np.ndarray:
    """``tp, fp, fn, tn, Σ P²`` from ``Σ S·P, Σ S, Σ P, Σ P²`` (last axis) and the pixel count."""
    tp, s, p, p2 = np.moveaxis(sums, -1, 0)
    fn = p - tp
    return np.stack([tp, s - tp, fn, n - s - fn, p2], axis=-1)
