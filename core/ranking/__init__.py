"""Which frames to annotate next: per-frame disagreement and a diverse ranking (docs/measures.md §8).

A frame's *disagreement* needs no ground truth; it is a number in [0, 1],
higher meaning the detectors disagree more. Criteria:

Masks (K detectors' result masks of one video, evaluated pixels = inside the
ROI, or the whole frame when the video has no ``ROI.bmp``):

* ``vote-entropy`` (default): mean over the evaluated pixels of the binary
  entropy, in bits, of the vote fraction ``v/K`` of the K detectors (no
  trivial classifiers). Needs K >= 2.
* ``pairwise-dice``: ``1 − Dice`` of two chosen detectors' masks,
  ``Dice = 2|A∩B| / (|A| + |B|)``. Dice is undefined when both masks are
  empty; the detectors then agree, so the score is 0.
* ``pseudo-gap``: ``|pseudo-F1_A − pseudo-F1_B|`` on the frame, under the
  consensus of the whole committee (every given detector plus the trivial
  all-ones and all-zeros classifiers, docs/measures.md §7 default). With the trivial
  classifiers pseudo-F1 is always defined; if it were not (no evaluated
  pixel), the score would be 0.

Boxes: ``pairwise-fda``, ``1 − FDA(t)`` between two detectors' boxes, one
playing the ground truth's role (docs/measures.md §5 mapping); a frame where neither has
a box scores 0.

Actions: ``classes``, ``1 − |∩ C_k| / |∪ C_k|`` where ``C_k`` is the set of
classes of detector k's actions present on the frame; a frame where no
detector has an action scores 0.

Ranking (:func:`rank_frames`): by score descending, ties by frame number
ascending (then by video order); after a frame is chosen, every frame of the
same video within ±``gap`` of it (``|Δ| <= gap``) is suppressed; frames in
``exclude`` (those that already have ground truth) are skipped and suppress
nothing.
"""
