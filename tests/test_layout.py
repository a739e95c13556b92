"""The distribution lists every package folder, so an installed Referee has all its modules."""

from __future__ import annotations

import tomllib
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parent.parent


def _package_folders() -> set[str]:
    found = set()
    for root, name in (("core", "referee.core"), ("gui", "referee.gui")):
        for init in (REPOSITORY / root).rglob("__init__.py"):
            relative = init.parent.relative_to(REPOSITORY / root)
            found.add(".".join((name, *relative.parts)))
    return found


def test_every_package_folder_is_listed_in_pyproject() -> None:
    listed = tomllib.loads((REPOSITORY / "pyproject.toml").read_text(encoding="utf-8"))
    packages = set(listed["tool"]["setuptools"]["packages"])
    assert _package_folders() <= packages
    assert "referee.core.workflow" in packages
