"""Pseudo ground truth from the agreement of detectors (docs/measures.md §7, seed 004).

K binary classifiers give ``S_k(i) ∈ {0, 1}`` per pixel or item ``i``. The
consensus ``P(i)`` is, by default, the posterior of a model of each detector's
sensitivity and specificity fitted per video by EM on the histogram of vote
patterns (:mod:`.staple`); or the committee's (weighted) mean vote, with by
default the trivial all-ones and all-zeros classifiers (``K' = K + 2``). A classifier
``S`` then has the *pseudo confusion matrix* of expected counts under ``P``:
``tp = Σ S·P``, ``fp = Σ S·(1−P)``, ``fn = Σ (1−S)·P``, ``tn = Σ (1−S)·(1−P)``,
from which every indicator of the registry has a pseudo version.

Videos are evaluated streaming, frame by frame, without ground truth
(:func:`pseudo_evaluate`). Which pixels and frames count:

* pixels inside ``ROI.bmp`` when the video has one, else the whole frame;
* the frames of ``temporalROI.txt`` when the video has one (every detector
  must then have every such frame), else the frames that every detector has.

Per frame, each pixel's votes are packed into a *code* (bit ``j`` set iff
detector ``j`` detects it). Every sum the measures need is a linear function
of the histogram of codes over the evaluated pixels, so a frame costs a few
whole-image passes whatever the options: the committee keeps the overlaps of
pairs of detectors, the model each frame's histogram (the model is fitted
once the video is read, then gives every frame's sums).
Pseudo NCC and PSNR come from the streamed sums ``n, Σs, Σp, Σp², Σsp``.

When ground truth exists too, :func:`compare_with_truth` correlates every
pseudo indicator with its true value across detectors (Pearson, Spearman).
"""
