"""The core library must never load Qt (DESIGN.md, "The boundary that matters")."""

from __future__ import annotations

import json
import pkgutil
import subprocess
import sys

import referee.core

QT_MODULE_PREFIXES = ("PySide6", "shiboken6", "PyQt5", "PyQt6", "pyqtgraph", "qtpy", "superqt")


def _core_module_names() -> list[str]:
    return sorted(
        info.name for info in pkgutil.walk_packages(referee.core.__path__, prefix="referee.core.")
    )


def test_core_has_modules_to_check() -> None:
    names = _core_module_names()
    assert "referee.core.model.confusion" in names
    assert "referee.core.formats" in names


def _qt_modules_loaded_after(import_code: str) -> list[str]:
    """Run ``import_code`` in a fresh interpreter; return the Qt modules it loaded."""
    script = (
        "import importlib, json, sys\n"
        f"{import_code}\n"
        f"prefixes = {QT_MODULE_PREFIXES!r}\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in prefixes)))\n"
    )
    completed = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    return json.loads(completed.stdout.strip().splitlines()[-1])


def test_importing_every_core_module_loads_no_qt() -> None:
    code = f"for name in {_core_module_names()!r}:\n    importlib.import_module(name)"
    loaded_qt = _qt_modules_loaded_after(code)
    assert loaded_qt == [], f"core imported Qt modules: {loaded_qt}"


def test_the_check_detects_qt_when_it_is_loaded() -> None:
    """Guard against a check that cannot fail: importing PySide6 must be seen."""
    assert "PySide6.QtCore" in _qt_modules_loaded_after("import PySide6.QtCore")
