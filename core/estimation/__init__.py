"""Estimates with intervals from a few labelled frames (docs/measures.md §12).

The consensus of the detectors (docs/measures.md §7) gives every frame expected
counts; a few frames, drawn with known probabilities, get true counts. Together
they give an unbiased estimate of each detector's totals ``tp, fp, fn`` over
every frame, and from those precision, recall and F1 with 95% intervals:

* :mod:`~referee.core.estimation.sampler`: which frames to label, and with
  which probabilities;
* :mod:`~referee.core.estimation.design`: the labelled draws, their
  probabilities and strata (a sampling design);
* :mod:`~referee.core.estimation.estimators`: the ``surrogate`` and ``plain``
  estimators of the totals, the ratios and their delta-method intervals;
* :mod:`~referee.core.estimation.result`: every detector's estimates, P(A beats
  B) and the discriminative test (§9) on the labelled frames.

Nothing here reads a file.
"""
