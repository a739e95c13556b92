"""FrameSet: frame numbers kept as runs, checked against Python's own sets."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from referee.core.model.frame_set import FrameSet, as_frame_set

frames = st.sets(st.integers(1, 60), max_size=40)


def test_runs_by_hand() -> None:
    assert FrameSet.of([7, 1, 2, 3, 9, 8, 20]).runs == ((1, 3), (7, 9), (20, 20))
    assert FrameSet([(5, 9), (1, 4), (20, 20), (8, 12)]).runs == ((1, 12), (20, 20))
    assert FrameSet.of([]).runs == () and len(FrameSet()) == 0 and FrameSet().last is None
    with pytest.raises(ValueError, match="ends before it starts"):
        FrameSet([(4, 3)])


def test_ten_million_frames_take_one_run() -> None:
    huge = FrameSet([(1, 10_000_000)])
    assert len(huge) == 10_000_000 and huge[-1] == 10_000_000 and 9_999_999 in huge
    assert huge.runs == ((1, 10_000_000),) and huge.within(470, 520) == FrameSet.span(470, 520)
    assert as_frame_set(range(3, 10**9)).runs == ((3, 10**9 - 1),)


@given(frames, frames, st.integers(0, 70), st.integers(0, 70))
def test_a_frame_set_behaves_as_the_sorted_set_of_its_frames(
    a: set[int], b: set[int], low: int, high: int
) -> None:
    left, right = FrameSet.of(a), FrameSet.of(b)
    assert list(left) == sorted(a) and len(left) == len(a)
    assert list(reversed(left)) == sorted(a, reverse=True)
    assert all((f in left) == (f in a) for f in range(0, 62))
    assert [left[k] for k in range(len(a))] == sorted(a)
    assert list(left[low:high]) == sorted(a)[low:high]
    assert list(left.union(right)) == sorted(a | b)
    assert list(left.difference(right)) == sorted(a - b)
    assert list(left.within(low, high)) == sorted(f for f in a if low <= f <= high)
    assert left.count_within(low, high) == len([f for f in a if low <= f <= high])
    assert (left == right) == (a == b) and (hash(left) == hash(right)) >= (a == b)
    assert list(left.with_frame(low)) == sorted(a | {low})
    assert list(left.without_frame(low)) == sorted(a - {low})
    assert (left.first, left.last) == ((min(a), max(a)) if a else (None, None))
    assert all(x[1] + 1 < y[0] for x, y in zip(left.runs, left.runs[1:]))
