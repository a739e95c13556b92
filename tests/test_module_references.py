"""Every module, class or function that the code and the docs name still exists.

The Python files of ``core/`` and ``gui/`` (docstrings, comments and code alike) and the
Markdown of ``docs/``, ``README.md`` and ``CONTRIBUTING.md`` are scanned for dotted names
starting with ``referee.core``, ``referee.gui`` or ``referee.resources`` and for paths of
the form ``core/….py`` or ``gui/….py``. A dotted name resolves when its longest prefix that
is a module imports and the rest are attributes of it; a path, when the file exists.
Names are also imported from where they are defined: no module re-exports a name, neither
with ``__all__`` nor with ``import x as x`` in an ``__init__.py`` (which ruff's PLC0414 skips).
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import os
import re
from collections.abc import Iterator
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")  # the GUI modules import Qt

REPOSITORY = Path(__file__).resolve().parent.parent

#: ``referee.core.x.y``; not ``demo.referee.json`` nor ``org.referee.Referee``.
DOTTED = re.compile(r"(?<![\w.*/-])referee\.(?:core|gui|resources)(?:\.[A-Za-z_]\w*)*")
#: ``core/x/y.py`` or ``gui/x.py``; not ``tests/core/x.py`` nor ``.typecheck/referee/core``.
PATH = re.compile(r"(?<![\w./-])(?:core|gui)/(?:[\w-]+/)*\w+\.py\b")


def _scanned_files() -> list[Path]:
    """The Python files of the packages and the Markdown documents."""
    python = [
        *sorted((REPOSITORY / "core").rglob("*.py")),
        *sorted((REPOSITORY / "gui").rglob("*.py")),
    ]
    markdown = [*sorted((REPOSITORY / "docs").rglob("*.md")), REPOSITORY / "README.md"]
    return [*python, *markdown, REPOSITORY / "CONTRIBUTING.md"]


def _references(pattern: re.Pattern[str]) -> Iterator[tuple[str, str]]:
    """``(where, reference)`` for each match of ``pattern`` in the scanned files."""
    for file in _scanned_files():
        relative = file.relative_to(REPOSITORY).as_posix()
        for number, line in enumerate(file.read_text(encoding="utf-8").splitlines(), 1):
            for match in pattern.finditer(line):
                yield f"{relative}:{number}", match.group()


def _is_module(name: str) -> bool:
    """Whether ``name`` is an importable module (not an attribute of one)."""
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):  # a parent is not a package
        return False


def resolve(reference: str) -> str | None:
    """Why ``reference`` does not resolve, or None when it does."""
    parts = reference.split(".")
    count = 2  # referee.core, referee.gui or referee.resources: always a package
    while count < len(parts) and _is_module(".".join(parts[: count + 1])):
        count += 1
    found: object = importlib.import_module(".".join(parts[:count]))
    for index in range(count, len(parts)):
        if not hasattr(found, parts[index]):
            return f"{'.'.join(parts[:index])} has no {parts[index]!r}"
        found = getattr(found, parts[index])
    return None


def test_every_dotted_reference_resolves() -> None:
    reasons: dict[str, str | None] = {}
    broken = []
    for where, reference in _references(DOTTED):
        if reference not in reasons:
            reasons[reference] = resolve(reference)
        if reasons[reference] is not None:
            broken.append(f"{where}: {reference} ({reasons[reference]})")
    assert len(reasons) > 100  # the scan found the references
    assert not broken, "references to names that do not exist:\n" + "\n".join(broken)


def test_every_source_path_exists() -> None:
    paths = list(_references(PATH))
    broken = [f"{where}: {path}" for where, path in paths if not (REPOSITORY / path).is_file()]
    assert paths  # the scan found the paths
    assert not broken, "paths to files that do not exist:\n" + "\n".join(broken)


def test_a_missing_module_or_attribute_does_not_resolve() -> None:
    assert resolve("referee.core.errors") is None
    assert resolve("referee.core.errors.RefereeError.__init__") is None
    assert resolve("referee.core.no_such_module.name") is not None
    assert resolve("referee.core.errors.NoSuchError") is not None


def _imported_only(tree: ast.Module) -> set[str]:
    """The names a module imports and does not define."""
    defined: set[str] = set()
    imported: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            defined.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            defined.add(node.id)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            imported.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
    return imported - defined


def test_no_module_re_exports_an_imported_name() -> None:
    found = []
    for file in _scanned_files():
        if file.suffix != ".py":
            continue
        tree = ast.parse(file.read_text(encoding="utf-8"))
        imported = _imported_only(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Import | ast.ImportFrom):
                found += [
                    f"{file.relative_to(REPOSITORY)}: {alias.name} as {alias.asname}"
                    for alias in node.names
                    if alias.asname == alias.name
                ]
        for node in tree.body:
            if isinstance(node, ast.Assign) and any(
                isinstance(target, ast.Name) and target.id == "__all__" for target in node.targets
            ):
                listed = {
                    element.value
                    for element in ast.walk(node.value)
                    if isinstance(element, ast.Constant)
                }
                found += [
                    f"{file.relative_to(REPOSITORY)}: {name}" for name in sorted(listed & imported)
                ]
    assert not found, "import these names from the module that defines them:\n" + "\n".join(found)
