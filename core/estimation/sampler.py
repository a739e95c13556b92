"""Which frames to label: draws with known probabilities (docs/measures.md §12).

The population is every evaluated frame of every video, ``N`` frames. A draw
picks frame ``i`` with probability ``q_i``; ``K`` draws are independent and
with replacement, so that the Hansen–Hurwitz weights ``1 / (K q_i)`` make every
weighted total unbiased (:mod:`referee.core.estimation.estimators`).

* ``active``: ``q_i = (1 − u) · a_i / Σ_j a_j + u / N``, with ``a_i`` the
  frame's disagreement under the consensus (:func:`acquisition_scores`) and
  ``u`` the uniform share, so no frame has probability 0;
* ``random``: ``q_i = 1 / N``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from referee.core.errors import InvalidOptionError

ACTIVE, RANDOM = "active", "random"
#: Samplers; the first is the default.
SAMPLERS: tuple[str, ...] = (ACTIVE, RANDOM)
#: The uniform share ``u`` of the active sampler's probabilities.
DEFAULT_UNIFORM_SHARE = 0.2


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


def check_uniform_share(share: float) -> None:
    """Raise unless ``0 < share <= 1``."""
    if not 0 < share <= 1:
        raise InvalidOptionError(f"the uniform share must be in (0, 1], not {share}")


def acquisition_scores(surrogate: np.ndarray) -> np.ndarray:
    """Each frame's disagreement ``a_i = Σ_m (fp̂_im + fn̂_im)`` (docs/measures.md §12).

    ``surrogate`` is ``(N, D, 3)``: each frame's expected counts ``tp̂, fp̂, fn̂``
    of each detector under the consensus. ``a_i`` is the expected number of
    pixels the detectors get wrong on the frame if the consensus were the truth;
    for a consensus that is the plain vote fraction ``P``, it equals
    ``2D · Σ_pixels P(1 − P)``.
    """
    counts = np.asarray(surrogate, dtype=np.float64)
    if counts.ndim != 3 or counts.shape[2] != 3:
        raise InvalidOptionError(
            f"surrogate counts must be (frames, detectors, 3), not {counts.shape}"
        )
    scores: np.ndarray = np.clip(counts[:, :, 1:3].sum(axis=(1, 2)), 0, None)
    return scores


def probabilities(
    sampler: str, scores: np.ndarray, uniform_share: float = DEFAULT_UNIFORM_SHARE
) -> np.ndarray:
    """``q`` over the ``N`` frames: the ``active`` mix or the ``random`` uniform.

    Frames whose scores are all 0 leave the active sampler uniform.
    """
    if sampler not in SAMPLERS:
        raise InvalidOptionError(f"unknown sampler {sampler!r} (choose from {', '.join(SAMPLERS)})")
    check_uniform_share(uniform_share)
    a = np.asarray(scores, dtype=np.float64).reshape(-1)
    n = a.size
    if n == 0:
        raise InvalidOptionError("there is no frame to draw from")
    if not np.all(np.isfinite(a)) or np.any(a < 0):
        raise InvalidOptionError("acquisition scores must be finite and non-negative")
    uniform = np.full(n, 1.0 / n)
    total = a.sum()
    if sampler == RANDOM or total <= 0:
        return uniform
    q: np.ndarray = (1 - uniform_share) * a / total + uniform_share * uniform
    q /= q.sum()  # sums to 1 despite rounding
    return q


def draw(q: np.ndarray, count: int, rng: np.random.Generator) -> Draws:
    """``count`` independent draws from ``q``, with replacement."""
    if count < 0:
        raise InvalidOptionError(f"the number of draws must be 0 or more, not {count}")
    indices = rng.choice(len(q), size=count, replace=True, p=q).astype(np.int64)
    return Draws(indices, np.asarray(q, dtype=np.float64)[indices])
