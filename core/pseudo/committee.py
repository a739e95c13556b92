"""Who votes in the consensus and the arithmetic of the committee (docs/measures.md §7)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from referee.core.errors import InvalidOptionError
from referee.core.measures.choices import check_threshold
from referee.core.pseudo.committee_options import STAPLE, CommitteeOptions
from referee.core.pseudo.consensus import binary_entropy
from referee.core.pseudo.staple import MAX_STAPLE_DETECTORS

_MAX_CODE_BITS = 8  # committees up to this size pack their votes into one uint8 code


def _check_staple(options: CommitteeOptions, methods: Sequence[str]) -> None:
    """Refuse what the model-based consensus cannot do."""
    k = len(methods)
    if options.weights is not None:
        raise InvalidOptionError(
            "detector weights apply to the committee consensus only: the model-based "
            "consensus (staple) estimates each detector's reliability itself; "
            "choose the committee consensus or drop the weights"
        )
    if k > MAX_STAPLE_DETECTORS:
        raise InvalidOptionError(
            f"the model-based consensus (staple) takes at most {MAX_STAPLE_DETECTORS} "
            f"detectors, not {k}: choose the committee consensus or fewer detectors"
        )
    if options.leave_one_out and k < 2:
        raise InvalidOptionError(
            f"leave-one-out leaves no committee to evaluate {methods[0]} against; "
            "give more detectors"
        )


class _Rules:
    """The committee arithmetic for the given detectors, checked once."""

    def __init__(self, options: CommitteeOptions, methods: Sequence[str]) -> None:
        k = len(methods)
        if k == 0:
            raise InvalidOptionError("the committee is empty: give at least one detector")
        self.staple = options.consensus == STAPLE
        if self.staple:
            _check_staple(options, methods)
        if options.weights is None:
            w = np.ones(k)
        else:
            w = np.asarray(options.weights, dtype=float)
            if w.shape != (k,):
                raise InvalidOptionError(
                    f"give one weight per detector: {k} detectors ({', '.join(methods)}) "
                    f"but {len(options.weights)} weights"
                )
            if not np.all(np.isfinite(w)) or np.any(w < 0):
                raise InvalidOptionError(
                    f"detector weights must be non-negative numbers, "
                    f"got {', '.join(f'{v:g}' for v in w)}"
                )
        t = 1.0 if options.include_trivial and not self.staple else 0.0
        den = float(w.sum()) + 2.0 * t
        if den <= 0:
            raise InvalidOptionError(
                "the committee's weights sum to 0: give a detector a "
                "positive weight or include the trivial classifiers"
            )
        den_k = den - w if options.leave_one_out else np.full(k, den)
        for method, d in zip(methods, den_k):
            if d <= 0:
                raise InvalidOptionError(
                    f"leave-one-out leaves no committee to evaluate {method} against; "
                    "include the trivial classifiers or more detectors"
                )
        threshold = check_threshold(options.threshold)
        self.k = k
        self.w = w
        self.t = t
        self.den = den
        self.den_k = den_k
        self.loo = options.leave_one_out
        # A pixel is detected iff its value > cut (cv2.THRESH_BINARY's rule).
        self.cut = 254 if threshold is None else threshold - 1

    def entropy_lut(self) -> np.ndarray:
        """``H(P)`` of the whole committee for each vote code (committees of <= 8 detectors).

        Code ``c`` has bit ``j`` set iff detector ``j`` detects the pixel; the
        table has 256 entries (unused codes are 0), ``float32``.
        """
        codes = np.arange(1 << self.k)
        bits = ((codes[:, None] >> np.arange(self.k)) & 1).astype(np.float64)
        lut = np.zeros(256, dtype=np.float32)
        lut[: codes.size] = binary_entropy((bits @ self.w + self.t) / self.den)
        return lut

    def sums(self, overlaps: np.ndarray) -> np.ndarray:
        """Per frame and detector ``tp, fp, fn, tn, Σ P²`` from the frames' overlap rows.

        ``overlaps`` is ``(frames, 1 + k + k(k−1)/2)``: the evaluated pixels
        ``n``, then the pixels each detector detects (``G_jj``), then those
        each pair ``j < l`` both detect (``G_jl``). With votes
        ``V = Σ_j w_j S_j`` every sum is a quadratic form of ``G``:
        ``Σ S_k V = (G w)_k``, ``Σ V = Σ_j w_j G_jj``, ``Σ V² = wᵀ G w``;
        leave-one-out takes ``w_k S_k`` out of ``V`` for detector ``k``.
        Returns ``(frames, k, 5)``.
        """
        k, w, t = self.k, self.w, self.t
        n = overlaps[:, :1]
        diag = overlaps[:, 1 : 1 + k]
        gram = np.zeros((overlaps.shape[0], k, k))
        gram[:, np.arange(k), np.arange(k)] = diag
        upper = np.triu_indices(k, 1)
        gram[:, upper[0], upper[1]] = overlaps[:, 1 + k :]
        gram[:, upper[1], upper[0]] = overlaps[:, 1 + k :]
        gw = gram @ w
        removed = w if self.loo else np.zeros(k)  # the weight taken out of V for detector k
        sv = (diag @ w)[:, None] - removed * diag  # Σ V_k
        svv = (gw @ w)[:, None] - 2.0 * removed * gw + removed * removed * diag  # Σ V_k²
        ssv = gw - removed * diag  # Σ S_k V_k
        den = self.den_k
        tp = (ssv + t * diag) / den
        p = (sv + t * n) / den
        p2 = (svv + 2.0 * t * sv + t * t * n) / (den * den)
        fn = p - tp
        return np.stack([tp, diag - tp, fn, n - diag - fn, p2], axis=2)
