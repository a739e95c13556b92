"""What the viewer shows in place of the frames: a sentence, and the progress of a job."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QSizePolicy, QVBoxLayout, QWidget

from referee.gui.widgets.progress_bar import ProgressBar

#: Width of the progress bar, in multiples of the font's height.
_BAR_WIDTH_EM = 20


class MessagePage(QWidget):
    """A centred sentence, in a larger font, with a progress bar under it while a job runs."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.label = QLabel()
        self.label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.label.setWordWrap(True)
        self.label.setMargin(24)
        self.label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Maximum)
        font = self.label.font()
        font.setPointSizeF(font.pointSizeF() * 1.4)
        self.label.setFont(font)
        self.progress_bar = ProgressBar()
        self.progress_bar.setFixedWidth(_BAR_WIDTH_EM * self.fontMetrics().height())
        self.progress_bar.hide()
        layout = QVBoxLayout(self)
        layout.addStretch(1)
        layout.addWidget(self.label)
        layout.addWidget(self.progress_bar, 0, Qt.AlignmentFlag.AlignHCenter)
        layout.addStretch(1)

    def text(self) -> str:
        """The sentence shown."""
        return self.label.text()

    def show_text(self, text: str) -> None:
        """Show ``text`` alone (no progress bar)."""
        self.label.setText(text)
        self.progress_bar.hide()

    def show_progress(self, text: str, done: int, total: int) -> None:
        """Show ``text`` over a progress bar: ``done`` of ``total`` steps, or a busy bar
        while the total is not known (``total`` ≤ 0)."""
        self.label.setText(text)
        self.progress_bar.show_progress(done, total)
        self.progress_bar.show()
