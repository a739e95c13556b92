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


def _readme_layout() -> str:
    text = (REPOSITORY / "README.md").read_text(encoding="utf-8")
    section = text[text.index("## Layout") :]
    return section[section.index("```") + 3 : section.index("```", section.index("```") + 3)]


def test_the_readme_layout_names_every_package_folder_and_only_those() -> None:
    layout = _readme_layout()
    named = {line.split()[0].rstrip("/") for line in layout.splitlines() if line.strip()}
    for root in ("core", "gui"):
        for init in (REPOSITORY / root).rglob("__init__.py"):
            folder = init.parent.name
            assert folder in named, f"README's layout does not name {root}/{folder}/"
    for line in layout.splitlines():
        first = line.split()[0] if line.strip() else ""
        if first.endswith("/"):
            parent = "" if not line.startswith(" ") else _parent_of(layout, line)
            assert (REPOSITORY / parent / first).is_dir(), f"README names {parent}{first}"


def _parent_of(layout: str, line: str) -> str:
    """The top-level folder an indented line of the layout sits under."""
    before = layout[: layout.index(line)].splitlines()
    return next(entry.split()[0] for entry in reversed(before) if entry and not entry[0].isspace())
