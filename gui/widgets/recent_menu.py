"""File › Open recent: the last opened paths, kept in the user's settings."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QMenu

#: Most paths listed.
RECENT_LIMIT = 8


def recent_paths() -> list[str]:
    """The paths opened last, newest first."""
    value = QSettings().value("recent", [])
    if isinstance(value, str):  # a one-entry list may come back as its entry
        return [value]
    return [str(path) for path in value] if isinstance(value, list) else []


class RecentMenu:
    """Keeps ``menu`` listing :func:`recent_paths`; choosing one calls ``open_path``."""

    def __init__(self, menu: QMenu, open_path: Callable[[str], object]) -> None:
        self.menu, self._open = menu, open_path
        self.fill()

    def remember(self, path: Path) -> None:
        """Put ``path`` first in the list."""
        resolved = str(path.resolve())
        recent = [resolved] + [p for p in recent_paths() if p != resolved]
        QSettings().setValue("recent", recent[:RECENT_LIMIT])
        self.fill()

    def fill(self) -> None:
        """List the recent paths again."""
        self.menu.clear()
        for path in recent_paths():
            action = self.menu.addAction(path)
            action.triggered.connect(lambda _=False, p=path: self._open(p))
        self.menu.setEnabled(bool(recent_paths()))
