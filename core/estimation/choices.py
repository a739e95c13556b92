"""The samplers, estimators and labelled-frame rules of estimates from a few labelled
frames, and their defaults (docs/measures.md §12), importable without numpy or SciPy so
that options naming them are quick to build."""

from __future__ import annotations

from referee.core.errors import InvalidOptionError

TUNED, SURROGATE, PLAIN = "tuned", "surrogate", "plain"
#: Estimators; the first is the default.
ESTIMATORS: tuple[str, ...] = (TUNED, SURROGATE, PLAIN)

BALANCED, ACTIVE, RANDOM = "balanced", "active", "random"
#: Samplers; the first is the default.
SAMPLERS: tuple[str, ...] = (BALANCED, ACTIVE, RANDOM)
DRAWN, ANNOTATED = "drawn", "annotated"
#: Which frames of a partly annotated video are labelled, without a simulation; the first
#: is the default. ``drawn``: the start of the sampler's sequence of draws that has ground
#: truth (:func:`~referee.core.estimation.sampler.labelled_sequence`); ``annotated``:
#: every frame with ground truth, taken as a uniform sample of its video.
LABELLED: tuple[str, ...] = (DRAWN, ANNOTATED)
#: The uniform share ``u`` of the balanced and active samplers' probabilities.
DEFAULT_UNIFORM_SHARE = 0.3


def check_uniform_share(share: float) -> None:
    """Raise unless ``0 < share <= 1``."""
    if not 0 < share <= 1:
        raise InvalidOptionError(f"the uniform share must be in (0, 1], not {share}")
