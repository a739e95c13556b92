"""Error dialogs that never pile up: one box per distinct message, and one box for every
source of a project that could not be read."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from pathlib import Path

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QMessageBox, QWidget


def names_path(message: str, path: Path) -> bool:
    """Whether ``message`` names ``path`` or a file inside it (``/a/mog`` is not in
    ``/a/mog2``)."""
    return re.search(re.escape(os.fspath(path)) + r"(?![\w.-])", message) is not None


class ErrorDialogs(QObject):
    """Shows problems in non-modal warning boxes over ``parent``.

    A message already on screen is not shown a second time (:meth:`show`); a
    problem that background work found (jobs, frame reads) is shown once until
    :meth:`forget` (:meth:`report`), so that several jobs and frames failing on
    the same file open one dialog. The list of a project's sources that could not
    be read (:meth:`report_sources`) takes the place of the boxes of problems in
    those sources, and later ones are not shown. ``reported(message)`` is
    emitted for every message, shown or not.
    """

    reported = Signal(str)

    def __init__(self, parent: QWidget) -> None:
        # The parent is not kept in an attribute: a reference from child to parent would
        # keep the window's Python objects for the garbage collector, which may run on a
        # worker thread, where deleting Qt objects is not safe.
        super().__init__(parent)
        self._open: dict[str, QMessageBox] = {}
        self._reported: set[str] = set()
        #: The sources listed by :meth:`report_sources` since :meth:`forget`.
        self._listed: set[Path] = set()

    def show(self, message: str) -> None:
        """Show ``message`` unless a box already shows it."""
        self.reported.emit(message)
        box = self._open.get(message)
        if box is not None:
            box.raise_()
            return
        box = QMessageBox(QMessageBox.Icon.Warning, "Referee", message, parent=self._window())
        box.setModal(False)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.finished.connect(lambda _result, key=message: self._open.pop(key, None))
        self._open[message] = box
        box.show()

    def report(self, message: str) -> None:
        """Show a problem found by background work, unless it was shown since :meth:`forget`
        or it names a source :meth:`report_sources` listed."""
        if message in self._reported or self._is_listed(message):
            self.reported.emit(message)
            return
        self._reported.add(message)
        self.show(message)

    def report_sources(self, message: str, paths: Iterable[Path]) -> None:
        """Show ``message``, the list of sources that could not be read at ``paths``, once
        until :meth:`forget`, closing the boxes of problems in those sources (the list
        names them all); later problems in them are not shown."""
        self._listed.update(Path(path) for path in paths)
        for shown, box in list(self._open.items()):
            if shown != message and self._is_listed(shown):
                self._open.pop(shown)
                box.close()
        if message in self._reported:
            self.reported.emit(message)
            return
        self._reported.add(message)
        self.show(message)

    def forget(self) -> None:
        """Let every problem be shown again (a project was opened)."""
        self._reported.clear()
        self._listed.clear()

    def _is_listed(self, message: str) -> bool:
        return any(names_path(message, path) for path in self._listed)

    def _window(self) -> QWidget | None:
        parent = self.parent()
        return parent if isinstance(parent, QWidget) else None

    def boxes(self) -> list[QMessageBox]:
        """The boxes on screen, oldest first."""
        return list(self._open.values())
