"""Who votes in the consensus and how: the options of the pseudo ground truth
(docs/measures.md §7), importable without numpy so that options holding them are quick
to build."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from referee.core.errors import InvalidOptionError

STAPLE = "staple"
COMMITTEE = "committee"
#: The consensus estimators (docs/measures.md §7): the model-based one, the mean vote.
CONSENSUS: tuple[str, ...] = (STAPLE, COMMITTEE)


@dataclass(frozen=True)
class CommitteeOptions:
    """Who votes in the consensus ``P`` and how (docs/measures.md §7 options).

    Attributes
    ----------
    include_trivial
        Committee consensus: add the all-ones and all-zeros classifiers,
        weight 1 each (default, as in the seed's table: ``K' = K + 2``).
        The model-based consensus ignores it.
    leave_one_out
        Evaluate each detector against the consensus of the *other* members
        (default off: every detector is in its own reference).
    weights
        Committee consensus: one non-negative weight per detector, in the
        order of the methods (default: all 1). Refused with ``staple``.
    threshold
        Detection rule of docs/measures.md §1: ``None`` (default) a mask value of 255 is
        a detection, ``T`` values ``>= T`` are.
    consensus
        ``staple`` (default: the posterior of the model fitted per video by
        EM, measured closest to the truth) or ``committee`` (the seed's
        weighted mean vote); see :data:`CONSENSUS`.
    """

    include_trivial: bool = True
    leave_one_out: bool = False
    weights: tuple[float, ...] | None = None
    threshold: int | None = None
    consensus: str = STAPLE

    def __post_init__(self) -> None:
        if self.consensus not in CONSENSUS:
            raise InvalidOptionError(
                f"unknown consensus {self.consensus!r} (choose from {', '.join(CONSENSUS)})"
            )
        if self.weights is not None:
            try:
                weights = tuple(float(w) for w in self.weights)
            except (TypeError, ValueError):
                raise InvalidOptionError(
                    f"detector weights must be numbers, got {self.weights!r}"
                ) from None
            object.__setattr__(self, "weights", weights)

    def describe(self, methods: Sequence[str]) -> str:
        """One line naming every option, defaults included, for reports."""
        k = len(methods)
        rule = "detected iff 255" if self.threshold is None else f"detected iff >= {self.threshold}"
        if self.consensus == STAPLE:
            loo = (
                "leave-one-out (each detector against the model of the others)"
                if self.leave_one_out
                else "each detector against the posterior of all"
            )
            return (
                f"consensus: STAPLE model of {k} detector{'' if k == 1 else 's'} "
                f"(prior, sensitivities, specificities by EM per video); {loo}; {rule}"
            )
        members = f"{k} detector{'' if k == 1 else 's'}"
        members += (
            f" + trivial all-ones and all-zeros (K' = {k + 2})"
            if self.include_trivial
            else f", no trivial classifiers (K' = {k})"
        )
        weights = (
            "equal weights"
            if self.weights is None
            else "weights " + ", ".join(f"{m} {w:g}" for m, w in zip(methods, self.weights))
        )
        loo = (
            "leave-one-out (each detector against the others)"
            if self.leave_one_out
            else "each detector against the whole committee"
        )
        return f"committee: {members}; {weights}; {loo}; {rule}"
