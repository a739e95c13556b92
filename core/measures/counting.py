"""Counting: the windowed count-change correct classification rate CCR_WCC (docs/measures.md §6).

Counts ``y_0..y_N`` (ground truth) and ``ŷ_0..ŷ_N`` (estimate) give changes
``Δ_n = y_{n+1} − y_n`` and ``Δ̂_m = ŷ_{m+1} − ŷ_m`` for ``n, m = 0…N−1``. Each
ground-truth instant n looks for the best-matching estimated change within
``W(n) = {δ ∈ [−w, w] : 0 ≤ n+δ ≤ N−1}`` (the window is truncated at both
ends): ``e(n) = min_δ |Δ_n − Δ̂_{n+δ}|``, with offset ``δ_n = 0`` if 0 attains
the minimum, else the most negative δ that does; n pairs with ``m = n + δ_n``
(several n may pair with the same m). Then

``CCR_WCC = #{n : Δ_n ≠ 0, e(n) = 0}
/ (#{n : Δ_n ≠ 0} + #{n : Δ_n = 0, e(n) ≠ 0} + #{m : Δ̂_m ≠ 0, m paired with no n})``.

It is undefined (NaN with a reason) when the denominator is 0. The MAE of counts
and of count changes are reported beside it.

:func:`match_change` states the matching for one instant; :func:`match_changes`
computes it for every instant at once, in ``O(N·(2w+1))`` for narrow windows
and ``O(N log² N)`` otherwise, so a wide window on a long video cannot hang.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from referee.core.errors import InvalidOptionError, RefereeError
from referee.core.measures.indicators import IndicatorValue, undefined


@dataclass(frozen=True)
class CountingResult:
    """CCR_WCC with every term that makes it, and the MAEs (docs/measures.md §6).

    Instants are change indices n (the change from count n to count n+1),
    0-based, ascending.

    Attributes
    ----------
    window
        The half-width w of the matching window, in frames.
    ccr_wcc
        ``numerator / denominator``, or undefined when the denominator is 0.
    numerator_instants
        n with ``Δ_n ≠ 0`` and ``e(n) = 0`` (ground-truth changes found exactly).
    changed_instants
        First denominator term: n with ``Δ_n ≠ 0``.
    spurious_instants
        Second term: n with ``Δ_n = 0`` but ``e(n) ≠ 0`` (no zero change nearby).
    unpaired_instants
        Third term M: m with ``Δ̂_m ≠ 0`` paired with no n.
    offsets
        ``δ_n`` for every n.
    errors
        ``e(n)`` for every n.
    gt_changes, estimated_changes
        ``Δ`` and ``Δ̂``.
    mae_counts
        Mean of ``|y_n − ŷ_n|`` over the N+1 counts.
    mae_changes
        Mean of ``|Δ_n − Δ̂_n|`` over the N changes (same instant, no window).
    """

    window: int
    ccr_wcc: IndicatorValue
    numerator_instants: tuple[int, ...]
    changed_instants: tuple[int, ...]
    spurious_instants: tuple[int, ...]
    unpaired_instants: tuple[int, ...]
    offsets: tuple[int, ...]
    errors: tuple[float, ...]
    gt_changes: tuple[float, ...]
    estimated_changes: tuple[float, ...]
    mae_counts: float
    mae_changes: float

    @property
    def numerator(self) -> int:
        return len(self.numerator_instants)

    @property
    def denominator_terms(self) -> tuple[int, int, int]:
        """The three denominator terms: GT changes, spurious instants, M."""
        return (
            len(self.changed_instants),
            len(self.spurious_instants),
            len(self.unpaired_instants),
        )

    @property
    def denominator(self) -> int:
        return sum(self.denominator_terms)


def _counts(values: Sequence[float] | np.ndarray, what: str) -> np.ndarray:
    array = np.asarray(values, dtype=np.float64).reshape(-1)
    if not np.all(np.isfinite(array)):
        raise RefereeError(f"the {what} counts must be finite numbers")
    return array


def window_offsets(n: int, changes: int, window: int) -> range:
    """The offsets δ of ``W(n)``: ``δ ∈ [−w, w]`` with ``0 ≤ n+δ ≤ changes−1``."""
    return range(max(-window, -n), min(window, changes - 1 - n) + 1)


def match_change(
    n: int, gt_changes: np.ndarray, est_changes: np.ndarray, window: int
) -> tuple[int, float]:
    """``(δ_n, e(n))`` for one ground-truth instant (docs/measures.md §6 tie rule: 0, else most negative)."""
    offsets = window_offsets(n, len(gt_changes), window)
    errors = {d: abs(gt_changes[n] - est_changes[n + d]) for d in offsets}
    best = min(errors.values())
    if errors[0] == best:
        return 0, float(best)
    return min(d for d in offsets if errors[d] == best), float(best)


#: Windows up to this many offsets wide are scanned offset by offset.
_DIRECT_WIDTH = 33


def match_changes(
    gt_changes: np.ndarray, est_changes: np.ndarray, window: int
) -> tuple[np.ndarray, np.ndarray]:
    """``(δ_n, e(n))`` of every instant, as :func:`match_change` defines them.

    Returns ``int64`` offsets and ``float64`` errors, one per instant.
    """
    if window < 0:
        raise InvalidOptionError(f"the window must be a whole number of frames >= 0, got {window}")
    gt = np.asarray(gt_changes, dtype=np.float64)
    est = np.asarray(est_changes, dtype=np.float64)
    size = len(gt)
    reach = min(int(window), max(size - 1, 0))
    if 2 * reach + 1 <= _DIRECT_WIDTH:
        best = np.full(size, np.inf)
        offsets = np.zeros(size, dtype=np.int64)
        for delta in range(-reach, reach + 1):  # ascending: a tie keeps the most negative δ
            lo, hi = max(0, -delta), min(size, size - delta)
            error = np.abs(gt[lo:hi] - est[lo + delta : hi + delta])
            better = error < best[lo:hi]
            best[lo:hi][better] = error[better]
            offsets[lo:hi][better] = delta
    else:
        best, offsets = _match_wide(gt, est, reach)
    offsets[np.abs(gt - est) == best] = 0
    return offsets, best


def _match_wide(gt: np.ndarray, est: np.ndarray, reach: int) -> tuple[np.ndarray, np.ndarray]:
    """Errors and most negative best offsets for a wide window, without scanning it.

    The window ``[n − reach, n + reach]`` splits into O(log N) dyadic blocks of
    positions; in each, the estimated changes closest to ``Δ_n`` from below and
    from above are found by binary search in that level's changes sorted
    within blocks (their ranks among the distinct values, as integer keys).
    """
    size = len(gt)
    values, ranks = np.unique(est, return_inverse=True)
    ranks = ranks.astype(np.int64)
    count = len(values)
    below = np.searchsorted(values, gt, side="right") - 1  # rank of the largest value <= Δ_n
    above = np.searchsorted(values, gt, side="left")  # rank of the smallest value >= Δ_n
    position = np.arange(size, dtype=np.int64)
    lo = np.maximum(position - reach, 0)
    hi = np.minimum(position + reach, size - 1)
    pred = np.full(size, -1, dtype=np.int64)
    succ = np.full(size, count, dtype=np.int64)
    left, right = lo.copy(), hi + 1
    level = 0
    while np.any(left < right):
        keys = np.sort((position >> level) * count + ranks)
        for side in (0, 1):
            if side == 0:
                take = np.flatnonzero((left < right) & (left & 1 == 1))
                block = left[take]
                left[take] += 1
            else:
                take = np.flatnonzero((left < right) & (right & 1 == 1))
                right[take] -= 1
                block = right[take]
            start = block * count
            at = np.searchsorted(keys, start + below[take], side="right") - 1
            key = keys[np.maximum(at, 0)]
            found = (below[take] >= 0) & (at >= 0) & (key >= start)
            pred[take[found]] = np.maximum(pred[take[found]], key[found] - start[found])
            at = np.searchsorted(keys, start + above[take], side="left")
            key = keys[np.minimum(at, size - 1)]
            found = (above[take] < count) & (at < size) & (key < start + count)
            succ[take[found]] = np.minimum(succ[take[found]], key[found] - start[found])
        left >>= 1
        right >>= 1
        level += 1
    from_below = np.where(pred >= 0, gt - values[np.maximum(pred, 0)], np.inf)
    from_above = np.where(succ < count, values[np.minimum(succ, count - 1)] - gt, np.inf)
    best = np.minimum(from_below, from_above)
    # The first position in the window holding a value at distance e(n): the most negative δ.
    by_value = np.sort(ranks * size + position)
    first = np.full(size, size, dtype=np.int64)
    for rank, hit in ((pred, from_below == best), (succ, from_above == best)):
        rows = np.flatnonzero(hit)
        at = np.searchsorted(by_value, rank[rows] * size + lo[rows])
        first[rows] = np.minimum(first[rows], by_value[at] - rank[rows] * size)
    return best, first - position


def evaluate_counts(
    gt_counts: Sequence[float] | np.ndarray, est_counts: Sequence[float] | np.ndarray, window: int
) -> CountingResult:
    """CCR_WCC, its terms, and the MAEs of counts and changes (docs/measures.md §6).

    Parameters
    ----------
    gt_counts, est_counts
        Counts ``y_0..y_N`` and ``ŷ_0..ŷ_N`` of consecutive frames; same length ≥ 2.
    window
        Half-width w ≥ 0 of the matching window, in frames (0: exact instants only).

    Raises
    ------
    RefereeError
        Sequences of different lengths or shorter than 2, or a negative window.
    """
    y, y_hat = _counts(gt_counts, "ground-truth"), _counts(est_counts, "estimated")
    if len(y) != len(y_hat):
        raise RefereeError(
            f"the ground truth has {len(y)} counts but the estimate has "
            f"{len(y_hat)}; both must cover the same frames"
        )
    if len(y) < 2:
        raise RefereeError(f"CCR_WCC needs at least 2 counts (one change), got {len(y)}")
    if isinstance(window, bool) or int(window) != window or window < 0:
        raise InvalidOptionError(f"the window must be a whole number of frames >= 0, got {window}")
    window = int(window)
    delta, delta_hat = np.diff(y), np.diff(y_hat)
    offsets, errors = match_changes(delta, delta_hat, window)
    paired = np.zeros(len(delta), dtype=bool)
    paired[np.arange(len(delta)) + offsets] = True
    changed = tuple(np.flatnonzero(delta != 0).tolist())
    found = tuple(np.flatnonzero((delta != 0) & (errors == 0)).tolist())
    spurious = tuple(np.flatnonzero((delta == 0) & (errors != 0)).tolist())
    unpaired = tuple(np.flatnonzero((delta_hat != 0) & ~paired).tolist())
    denominator = len(changed) + len(spurious) + len(unpaired)
    ccr = (
        IndicatorValue(len(found) / denominator)
        if denominator
        else undefined("undefined: no count change in the ground truth or the estimate")
    )
    return CountingResult(
        window,
        ccr,
        found,
        changed,
        spurious,
        unpaired,
        tuple(offsets.tolist()),
        tuple(errors.tolist()),
        tuple(_plain(v) for v in delta.tolist()),
        tuple(_plain(v) for v in delta_hat.tolist()),
        float(np.mean(np.abs(y - y_hat))),
        float(np.mean(np.abs(delta - delta_hat))),
    )


def _plain(value: float) -> float:
    """A Python number: ``int`` when whole, so changes print as ``+1`` rather than ``1.0``."""
    value = float(value)
    return int(value) if value.is_integer() else value
