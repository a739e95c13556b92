"""Which frames to label: draws with known probabilities (docs/measures.md §12).

The population is every evaluated frame of every video, ``N`` frames. A draw
picks frame ``i`` with probability ``q_i``; ``K`` draws are independent and
with replacement, so that the Hansen–Hurwitz weights ``1 / (K q_i)`` make every
weighted total unbiased (:mod:`referee.core.estimation.estimators`).

* ``balanced``: ``q_i = (1 − u) · (a_i / Σ_j a_j + b_i / Σ_j b_j) / 2 + u / N``,
  half where the detectors disagree about an object (:func:`acquisition_scores`),
  half where each detector's own F1 is at stake (:func:`detector_shares`);
* ``active``: ``q_i = (1 − u) · a_i / Σ_j a_j + u / N``;
* ``random``: ``q_i = 1 / N``.

``u`` is the uniform share, so no frame has probability 0 and no weight
exceeds ``N / u``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from referee.core.errors import InvalidOptionError
from referee.core.estimation.choices import (
    BALANCED,
    DEFAULT_UNIFORM_SHARE,
    RANDOM,
    SAMPLERS,
    check_uniform_share,
)


@dataclass(frozen=True, eq=False)
class Draws:
    """``K`` draws with replacement: the frames drawn and their probabilities.

    Attributes
    ----------
    indices
        ``int64`` ``(K,)``: the frame drawn at each draw (an index into the
        population; a frame may be drawn more than once).
    q
        ``float64`` ``(K,)``: the probability of the frame drawn at each draw.
    """

    indices: np.ndarray
    q: np.ndarray


def _counts(surrogate: np.ndarray) -> np.ndarray:
    counts = np.asarray(surrogate, dtype=np.float64)
    if counts.ndim != 3 or counts.shape[2] != 3:
        raise InvalidOptionError(
            f"surrogate counts must be (frames, detectors, 3), not {counts.shape}"
        )
    return counts


def acquisition_scores(surrogate: np.ndarray) -> np.ndarray:
    """Each frame's score ``a_i = Σ_m min(tp̂_im, fp̂_im + fn̂_im)`` (docs/measures.md §12).

    ``surrogate`` is ``(N, D, 3)``: each frame's expected counts ``tp̂, fp̂, fn̂``
    of each detector under the consensus. Each detector's expected errors on the
    frame count, up to its expected true detections there: a frame matters to
    the estimate where the detectors disagree about an object, not where one of
    them errs on a background the consensus is sure of.
    """
    counts = _counts(surrogate)
    errors = counts[:, :, 1] + counts[:, :, 2]
    scores: np.ndarray = np.clip(np.minimum(counts[:, :, 0], errors).sum(axis=1), 0, None)
    return scores


def detector_shares(surrogate: np.ndarray) -> np.ndarray:
    """Each frame's score ``b_i = Σ_m |g_m·ŝ_im| / Σ_j |g_m·ŝ_jm|`` (docs/measures.md §12).

    ``g_m = (2 (1 − F_m), −F_m, −F_m) / (2 tp̂ + fp̂ + fn̂)`` is the gradient of
    detector ``m``'s F1 at its consensus totals (``F_m`` their F1), so
    ``|g_m·ŝ_im|`` is how much frame ``i`` weighs in that F1; each detector's
    weights are normalized to sum 1, so that a detector with few errors counts
    as much as one with many.
    """
    counts = _counts(surrogate)
    totals = counts.sum(axis=0)
    below = 2 * totals[:, 0] + totals[:, 1] + totals[:, 2]
    f = np.divide(2 * totals[:, 0], below, out=np.zeros_like(below), where=below > 0)
    gradient = np.stack([2 * (1 - f), -f, -f], axis=1) / np.where(below > 0, below, 1)[:, None]
    weight = np.abs(np.einsum("ndc,dc->nd", counts, gradient))
    sums = weight.sum(axis=0)
    shares: np.ndarray = np.divide(weight, sums, out=np.zeros_like(weight), where=sums > 0).sum(
        axis=1
    )
    return shares


def probabilities(
    sampler: str, surrogate: np.ndarray, uniform_share: float = DEFAULT_UNIFORM_SHARE
) -> np.ndarray:
    """``q`` over the ``N`` frames of ``surrogate`` (``(N, D, 3)``) for ``sampler``.

    A score that is 0 on every frame leaves its part of ``q`` uniform.
    """
    if sampler not in SAMPLERS:
        raise InvalidOptionError(f"unknown sampler {sampler!r} (choose from {', '.join(SAMPLERS)})")
    check_uniform_share(uniform_share)
    counts = _counts(surrogate)
    n = counts.shape[0]
    if n == 0:
        raise InvalidOptionError("there is no frame to draw from")
    if not np.all(np.isfinite(counts)):
        raise InvalidOptionError("the consensus's counts must be finite")
    uniform = np.full(n, 1.0 / n)
    if sampler == RANDOM:
        return uniform
    parts = [acquisition_scores(counts)]
    if sampler == BALANCED:
        parts.append(detector_shares(counts))
    mix = np.mean([p / p.sum() if p.sum() > 0 else uniform for p in parts], axis=0)
    q: np.ndarray = (1 - uniform_share) * mix + uniform_share * uniform
    q /= q.sum()  # sums to 1 despite rounding
    return q


def draw(q: np.ndarray, count: int, rng: np.random.Generator) -> Draws:
    """``count`` independent draws from ``q``, with replacement."""
    if count < 0:
        raise InvalidOptionError(f"the number of draws must be 0 or more, not {count}")
    indices = rng.choice(len(q), size=count, replace=True, p=q).astype(np.int64)
    return Draws(indices, np.asarray(q, dtype=np.float64)[indices])


@dataclass(frozen=True, eq=False)
class LabelledStart:
    """The labelled start of a video's sequence of draws (docs/measures.md §12).

    Attributes
    ----------
    draws
        The draws before the first frame without ground truth (indices into the
        video's frames, with their probabilities).
    next
        The frame of that first draw without ground truth (the frame to label
        next), or ``None`` if every draw up to the cap had ground truth.
    """

    draws: Draws
    next: int | None


def labelled_sequence(
    q: np.ndarray, labelled: np.ndarray, rng: np.random.Generator, cap_per_frame: int = 100
) -> LabelledStart:
    """Draw from ``q`` with replacement until a frame whose ``labelled`` is false comes up.

    The draws are the same, for the same ``rng`` seed and ``q``, however many
    frames have been labelled, so labelling the frame ``next`` lengthens the
    labelled start by one draw at least. At most ``cap_per_frame × N`` draws are made.
    """
    known = np.asarray(labelled, dtype=bool).reshape(-1)
    if known.size != len(q):
        raise InvalidOptionError(f"{known.size} labelled flags for {len(q)} frames")
    block, cap = max(64, known.size), cap_per_frame * known.size
    drawn = np.zeros(0, dtype=np.int64)
    while drawn.size < cap:
        more = draw(q, block, rng).indices
        missing = np.flatnonzero(~known[more])
        if missing.size:
            stop = int(missing[0])
            indices = np.concatenate([drawn, more[:stop]])
            return LabelledStart(Draws(indices, np.asarray(q)[indices]), int(more[stop]))
        drawn = np.concatenate([drawn, more])
    drawn = drawn[:cap]
    return LabelledStart(Draws(drawn, np.asarray(q)[drawn]), None)
