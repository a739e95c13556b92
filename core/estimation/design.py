"""How the labelled frames were chosen: a sampling design (docs/measures.md §12)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from referee.core.estimation.sampler import Draws


@dataclass(frozen=True, eq=False)
class SampleDesign:
    """The labelled draws from a population of ``N`` frames, and how they were drawn.

    Attributes
    ----------
    drawn
        ``int64`` ``(K,)``: the frame of each draw (an index into the population;
        a frame drawn twice appears twice).
    q
        ``float64`` ``(K,)``: the probability of each draw's frame within its stratum.
    strata
        ``int64`` ``(K,)``: the stratum of each draw; ``None``: one stratum.
    factors
        ``(H,)``: each stratum's finite-population factor (1: drawn with
        replacement; 0: every frame labelled; ``1 − n/N``: ``n`` frames drawn
        uniformly without replacement).
    frame_strata
        ``int64`` ``(N,)``: the stratum of every frame; ``None``: one stratum.
    """

    drawn: np.ndarray
    q: np.ndarray
    strata: np.ndarray | None = None
    factors: Sequence[float] = (1.0,)
    frame_strata: np.ndarray | None = None

    def __post_init__(self) -> None:
        normal = object.__setattr__
        normal(self, "drawn", np.asarray(self.drawn, dtype=np.int64).reshape(-1))
        normal(self, "q", np.asarray(self.q, dtype=np.float64).reshape(-1))
        normal(self, "factors", tuple(float(f) for f in self.factors))
        for name in ("strata", "frame_strata"):
            value = getattr(self, name)
            if value is not None:
                normal(self, name, np.asarray(value, dtype=np.int64).reshape(-1))

    @classmethod
    def with_replacement(cls, draws: Draws) -> SampleDesign:
        """The sampler's ``draws`` from the whole population: one stratum, with replacement."""
        return cls(draws.indices, draws.q)

    @property
    def draw_strata(self) -> np.ndarray:
        """``int64`` ``(K,)``: the stratum of each draw (0 without strata)."""
        return np.zeros(self.drawn.size, np.int64) if self.strata is None else self.strata

    def sampled(self) -> np.ndarray:
        """The draws of strata that are sampled (``f_h > 0``); every draw without strata."""
        if self.strata is None:
            return self.drawn
        kept: np.ndarray = self.drawn[np.asarray(self.factors)[self.strata] > 0]
        return kept
