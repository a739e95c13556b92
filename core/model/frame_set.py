"""Sets of frame numbers kept as runs, never expanded into one entry per frame.

A video may record a million annotated frames in a few runs; a project file or
an autosave of a kilobyte may claim ten million. :class:`FrameSet` keeps the
increasing, disjoint runs ``(first, last)`` and answers membership, counts,
indexing and slicing by binary search, so that its memory follows the number
of runs, not of frames (docs/measures.md §8, §11).
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Iterable, Iterator, Sequence
from typing import overload

Run = tuple[int, int]


class FrameSet(Sequence[int]):
    """Increasing frame numbers held as disjoint, non-adjacent runs ``(first, last)``.

    Immutable and hashable; equal when the frames are equal. As a sequence it
    lists the frames in increasing order: ``len`` counts them, ``fs[k]`` is the
    k-th, ``fs[a:b]`` another :class:`FrameSet`, ``frame in fs`` is a binary search.
    """

    __slots__ = ("_ends", "_firsts", "_lasts")

    def __init__(self, runs: Iterable[Run] = ()) -> None:
        """``runs``: ``(first, last)`` pairs with ``first ≤ last``, in any order (they are
        merged where they overlap or touch)."""
        merged: list[list[int]] = []
        for first, last in sorted((int(a), int(b)) for a, b in runs):
            if first > last:
                raise ValueError(f"the run ({first}, {last}) ends before it starts")
            if merged and first <= merged[-1][1] + 1:
                merged[-1][1] = max(merged[-1][1], last)
            else:
                merged.append([first, last])
        self._firsts = tuple(run[0] for run in merged)
        self._lasts = tuple(run[1] for run in merged)
        # _ends[k]: frames in runs 0..k, for indexing by position.
        self._ends = tuple(
            itertools.accumulate(last - first + 1 for first, last in zip(self._firsts, self._lasts))
        )

    @classmethod
    def of(cls, frames: Iterable[int]) -> FrameSet:
        """The set of ``frames`` (any order, duplicates ignored)."""
        ordered = sorted({int(frame) for frame in frames})
        # The runs start where a frame does not follow the one before it (thousands of
        # listed files a video: no merging pass, one run per gap).
        starts = [k for k in range(len(ordered)) if k == 0 or ordered[k] != ordered[k - 1] + 1]
        ends = [k - 1 for k in starts[1:]] + [len(ordered) - 1] if starts else []
        return cls((ordered[a], ordered[b]) for a, b in zip(starts, ends))

    @classmethod
    def span(cls, first: int, last: int) -> FrameSet:
        """The frames ``first..last`` (empty when ``last < first``)."""
        return cls(((first, last),) if first <= last else ())

    # --- reading -------------------------------------------------------------------------

    @property
    def runs(self) -> tuple[Run, ...]:
        """The runs ``(first, last)``, increasing and separated by at least one frame."""
        return tuple(zip(self._firsts, self._lasts))

    def __len__(self) -> int:
        return self._ends[-1] if self._ends else 0

    def __contains__(self, frame: object) -> bool:
        if not isinstance(frame, int):
            return False
        k = bisect.bisect_right(self._firsts, frame) - 1
        return k >= 0 and frame <= self._lasts[k]

    def __iter__(self) -> Iterator[int]:
        for first, last in zip(self._firsts, self._lasts):
            yield from range(first, last + 1)

    def __reversed__(self) -> Iterator[int]:
        for first, last in zip(reversed(self._firsts), reversed(self._lasts)):
            yield from range(last, first - 1, -1)

    @overload
    def __getitem__(self, index: int) -> int: ...

    @overload
    def __getitem__(self, index: slice) -> FrameSet: ...

    def __getitem__(self, index: int | slice) -> int | FrameSet:
        n = len(self)
        if isinstance(index, slice):
            start, stop, step = index.indices(n)
            if step != 1:
                raise ValueError("a FrameSet is sliced with step 1 only")
            if start >= stop:
                return FrameSet()
            return self.within(self[start], self[stop - 1])
        if index < 0:
            index += n
        if not 0 <= index < n:
            raise IndexError(f"frame index {index} out of range for {n} frames")
        k = bisect.bisect_right(self._ends, index)
        before = self._ends[k - 1] if k else 0
        return self._firsts[k] + index - before

    def __eq__(self, other: object) -> bool:
        if isinstance(other, FrameSet):
            return self._firsts == other._firsts and self._lasts == other._lasts
        return NotImplemented

    def __hash__(self) -> int:
        return hash((self._firsts, self._lasts))

    def __repr__(self) -> str:
        return f"FrameSet({list(self.runs)!r})"

    @property
    def first(self) -> int | None:
        """The smallest frame, or ``None`` when empty."""
        return self._firsts[0] if self._firsts else None

    @property
    def last(self) -> int | None:
        """The largest frame, or ``None`` when empty."""
        return self._lasts[-1] if self._lasts else None

    def count_within(self, first: int, last: int) -> int:
        """How many frames lie in ``first..last``."""
        return len(self.within(first, last))

    # --- new sets ------------------------------------------------------------------------

    def within(self, first: int, last: int) -> FrameSet:
        """The frames that lie in ``first..last``."""
        if first > last:
            return FrameSet()
        lo = max(0, bisect.bisect_right(self._firsts, first) - 1)
        hi = bisect.bisect_right(self._firsts, last)
        return FrameSet(
            (max(a, first), min(b, last))
            for a, b in zip(self._firsts[lo:hi], self._lasts[lo:hi])
            if b >= first and a <= last
        )

    def union(self, other: Iterable[Run] | FrameSet) -> FrameSet:
        """The frames of either (``other``: a set or runs)."""
        runs = other.runs if isinstance(other, FrameSet) else tuple(other)
        return FrameSet((*self.runs, *runs))

    def difference(self, other: FrameSet) -> FrameSet:
        """The frames of this set that are not in ``other``."""
        kept: list[Run] = []
        for first, last in self.runs:
            start = first
            for a, b in other.within(first, last).runs:
                if a > start:
                    kept.append((start, a - 1))
                start = b + 1
            if start <= last:
                kept.append((start, last))
        return FrameSet(kept)

    def with_frame(self, frame: int) -> FrameSet:
        """This set and ``frame``."""
        return self if frame in self else self.union(((frame, frame),))

    def without_frame(self, frame: int) -> FrameSet:
        """This set less ``frame``."""
        return self.difference(FrameSet.span(frame, frame)) if frame in self else self


def as_frame_set(frames: Iterable[int]) -> FrameSet:
    """``frames`` as a :class:`FrameSet`: itself when it already is one, a ``range`` of
    step 1 as one run, anything else frame by frame."""
    if isinstance(frames, FrameSet):
        return frames
    if isinstance(frames, range) and frames.step == 1:
        return FrameSet.span(frames.start, frames.stop - 1)
    return FrameSet.of(frames)


__all__ = ["FrameSet", "Run", "as_frame_set"]
