"""The cache's tables against a small model of what must be on disk: random updates, saves,
kills (a new cache on the same folder), corrupted files and lookups (DESIGN "Long work")."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import numpy as np
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from referee.core import __version__
from referee.core.cache.store import FrameCache, _digest

KEYS = ({"video": "a"}, {"video": "b"})
Row = tuple[int, int]  # (stamp, value)


class CacheMachine(RuleBasedStateMachine):
    """The model: per key, the rows kept in memory and the rows last saved."""

    def __init__(self) -> None:
        super().__init__()
        self.folder = Path(tempfile.mkdtemp(prefix="referee-cache-test-"))
        self.cache = FrameCache(self.folder)
        self.memory: list[dict[int, Row]] = [{}, {}]
        self.disk: list[dict[int, Row]] = [{}, {}]
        self.changed = [False, False]  # rows updated since the table was saved or loaded

    def teardown(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)

    def _table(self, k: int):
        return self.cache.table(KEYS[k], 1, 1)

    @rule(
        k=st.integers(0, 1),
        rows=st.dictionaries(st.integers(1, 30), st.tuples(st.integers(0, 3), st.integers(0, 99))),
    )
    def update(self, k: int, rows: dict[int, Row]) -> None:
        frames = np.array(sorted(rows), dtype=np.int64)
        stamps = np.array([[rows[f][0]] for f in frames], dtype=np.int64).reshape(-1, 1)
        values = np.array([[rows[f][1]] for f in frames], dtype=np.int64).reshape(-1, 1)
        self._table(k).update(frames, stamps, values)
        self.memory[k].update(rows)
        self.changed[k] = self.changed[k] or bool(rows)

    @rule()
    def save(self) -> None:
        """Only tables with new rows are written."""
        self.cache.save()
        for k in (0, 1):
            if self.changed[k]:
                self.disk[k] = dict(self.memory[k])
        self.changed = [False, False]

    @rule()
    def kill_and_reopen(self) -> None:
        self.cache = FrameCache(self.folder)
        self.memory = [dict(d) for d in self.disk]
        self.changed = [False, False]

    @rule(k=st.integers(0, 1), garbage=st.binary(max_size=40))
    def corrupt(self, k: int, garbage: bytes) -> None:
        files = sorted((self.folder / "v1").glob("*.npz")) if (self.folder / "v1").exists() else []
        for path in files:
            if (
                path.name
                == f"{_digest({**KEYS[k], 'referee': __version__, 'stamps': 1, 'values': 1})}.npz"
            ):
                path.write_bytes(garbage)
                self.disk[k] = {}

    @rule(
        k=st.integers(0, 1),
        frames=st.lists(st.integers(1, 30), max_size=8),
        stamp=st.integers(0, 3),
    )
    def lookup(self, k: int, frames: list[int], stamp: int) -> None:
        numbers = np.array(sorted(set(frames)), dtype=np.int64)
        hit, values = self._table(k).lookup(numbers, np.full((numbers.size, 1), stamp, np.int64))
        for f, h, v in zip(numbers.tolist(), hit.tolist(), values[:, 0].tolist()):
            expected = self.memory[k].get(f)
            assert h == (expected is not None and expected[0] == stamp)
            if h:
                assert v == expected[1]

    @invariant()
    def rows_in_memory_are_the_models(self) -> None:
        for k in (0, 1):
            table = self._table(k)
            assert (
                dict(
                    zip(
                        table.frames.tolist(),
                        zip(table.stamps[:, 0].tolist(), table.values[:, 0].tolist()),
                    )
                )
                == self.memory[k]
            )


CacheMachine.TestCase.settings = settings(max_examples=40, stateful_step_count=25, deadline=None)
TestCache = CacheMachine.TestCase
