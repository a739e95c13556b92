"""Discriminative evaluation: is one method really better than another? (docs/measures.md §9, seed 002)

Each method has one score per *test case* (a frame, an action, …), paired
across methods. The cases on which the methods score alike say nothing about
which is better, so they are removed step by step and the rest is tested again:

* ``d_i`` is the spread of case ``i``'s scores, ``max_m s_m − min_m s_m``; for
  two methods A and B that is ``|a_i − b_i|``.
* Thresholds ``t_1 < … < t_K``: by default ``K = 20`` evenly spaced values from
  0 *included* to ``max d`` *excluded*, ``t_k = k · max d / K`` for
  ``k = 0 … K−1``. The first threshold removes nothing, so the first row is the
  plain test on every case. When every ``d_i`` is 0 the grid is the single value 0.
* At ``t_k`` the cases with ``d_i < t_k`` are removed and the remaining ones
  tested: two methods with the paired t-test (default), the Wilcoxon
  signed-rank test or Welch's t-test; more methods with a one-way
  repeated-measures ANOVA (default) or the Friedman test. p is undefined (NaN
  with a reason) when fewer than 3 cases remain or when the test itself is
  (e.g. the differences have zero variance).
* Each threshold is also given normalized, ``t_k / Σ_j t_j`` (the seed's), as a
  fraction of ``max d``, and as the fraction of cases removed.
* Verdict "differ" iff there is a ``t_0`` with ``p_0 < α`` such that p stays
  ``< α`` at every larger threshold where it is defined, and ``t_0``'s
  normalized value is ``≤ τ`` (defaults α = 0.05, τ = 0.1). ``t_0`` is the
  smallest such threshold (the normalized value grows with t, so if it fails
  τ every larger one does too).

Note: for the default grid the normalized value of ``t_k`` is ``k / (K(K−1)/2)``,
whatever the scores; its largest value is ``2/K``, i.e. exactly 0.1 for K = 20,
so with the defaults the τ condition never rejects. A coarser grid (smaller K)
or explicit thresholds make τ bite.

The removed cases and the mean scores are reported at ``t_0`` whenever such a
threshold exists (even when τ then rejects it, so the user sees what would have
to be dropped); when there is none, nothing is removed and the means are over
every case.

This module computes only; it reads no file. The builders at the end turn the
per-frame or per-action results of the other modules into :class:`CaseScores`.
"""
