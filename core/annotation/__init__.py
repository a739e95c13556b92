"""Editing ground truth: keyframed boxes, label maps, counts, the annotation document."""
