"""A progress bar painted with the rest of the window, never on its own.

``QProgressBar.setValue`` and ``setRange`` repaint the bar at once whenever its text or
its bar changes, and a repaint paints then and there everything in the window waiting
to be painted. A job's progress arriving just after another job's results filled the
docks painted them all in the middle of the event loop's pass, and the pass painted
again at its end. :class:`ProgressBar` asks for an ordinary update instead.
"""

from __future__ import annotations

from PySide6.QtWidgets import QProgressBar


class ProgressBar(QProgressBar):
    """A :class:`QProgressBar` whose :meth:`show_progress` waits for the window's next paint."""

    def show_progress(self, done: int, total: int) -> None:
        """Show ``done`` of ``total`` steps, or a busy bar while the total is not known
        (``total`` ≤ 0)."""
        self.setUpdatesEnabled(False)  # a widget whose updates are off is not repainted
        try:
            if total > 0:
                self.setRange(0, total)
                self.setValue(min(max(done, 0), total))
            else:
                self.setRange(0, 0)
        finally:
            self.setUpdatesEnabled(True)  # and turning them on asks for an ordinary update
