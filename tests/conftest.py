"""Fixtures shared by the test suite."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from pathlib import Path

import pytest

from referee.core.demo.dataset import DemoLayout, write_demo

REPOSITORY = Path(__file__).resolve().parents[1]
HIGHWAY = REPOSITORY.parent / "shared" / "data" / "cdnet2014" / "baseline" / "highway"


@pytest.fixture(scope="session")
def demo(tmp_path_factory: pytest.TempPathFactory) -> DemoLayout:
    """The demo dataset and its methods' results, written once per test session."""
    return write_demo(tmp_path_factory.mktemp("demo") / "demo")


@pytest.fixture(autouse=True)
def collectable_again() -> Iterator[None]:
    """Give back to the collector what a window set aside (gui/garbage.py): in the
    application that is the window and the libraries, here also the tests' garbage."""
    yield
    gc.unfreeze()
