"""Streaming evaluation of pixel masks against CDnet ground truth (docs/measures.md §1, §3).

Frames are read one at a time and never held together. A video's counts are
the sum of its frames' counts, so a video splits into contiguous frame chunks
that worker processes evaluate independently (DESIGN "Long work"); the
chunks' counts are then added up.

Per-frame counts are ``int64`` arrays with columns :data:`PER_FRAME_COLUMNS`
``(frame, tp, fp, fn, tn, se)``.
"""
