"""The Pseudo ground truth dock: committee choice, pseudo indicators, consensus heatmap (docs/measures.md §7).

The dock only asks for a pseudo evaluation (:class:`PseudoRequest` through
``run_requested``) and draws what the window gives back: a
:class:`~referee.core.pseudo.dataset.PseudoResult`, optionally with a
:class:`~referee.core.pseudo.truth.TruthComparison`, and the consensus map of the
current frame.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDockWidget,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSplitter,
    QTableWidget,
    QVBoxLayout,
    QWidget,
)

from referee.core.exports.pseudo import TABLE_COLUMNS, disagreement_reasons
from referee.core.measures.indicators import INDICATORS
from referee.core.pseudo.committee_options import COMMITTEE, CONSENSUS, CommitteeOptions
from referee.core.pseudo.dataset import PseudoResult
from referee.core.pseudo.truth import (
    Correlation,
    TruthAgreement,
    TruthComparison,
    truth_agreement,
)
from referee.gui.widgets.check_list import CheckList
from referee.gui.widgets.deferred_draw import DeferredDraw
from referee.gui.widgets.empty_state import EmptyState, needs_two_detectors, no_project
from referee.gui.widgets.tables import filling, number_item, read_only_table, text_item
from referee.gui.widgets.warning_line import WarningLine

#: Colour map of the consensus heatmap (the CLI's too).
HEATMAP_COLORMAP = "viridis"

_CORRELATION_HEADERS = ("indicator", "Pearson", "Spearman", "detectors")

#: What the dock says before a result, with two or more detectors to vote.
NO_RESULT = (
    "No result yet: the checked detectors are judged against their consensus once their "
    "masks are evaluated. To change the voters or the consensus, or to leave out a detector "
    "whose masks cannot be read (the Data dock says which), set them above and press Run."
)
#: What the heatmap says before a frame is shown.
NO_HEATMAP = (
    "The consensus map of the frame shown in the viewer appears here once two or more "
    "detectors with masks are loaded."
)


def disagreement_text(agreement: TruthAgreement) -> str:
    """The warning that the consensus disagrees with the ground truth, with the numbers that
    say so ("" when it agrees)."""
    reasons = disagreement_reasons(agreement)
    if not reasons:
        return ""
    return (
        "The consensus disagrees with the ground truth here: pseudo and true F1 "
        + " and ".join(reasons)
        + ". Trust the estimates from labelled frames instead "
        "(Indicators › estimates, Annotate next › Sampled)."
    )


@dataclass(frozen=True)
class PseudoRequest:
    """What to evaluate: the committee's detectors, in order, and its options."""

    methods: tuple[str, ...]
    options: CommitteeOptions


def correlation_label(key: str) -> str:
    """Row label of a correlated key; NCC and PSNR are compared with MCC and −10 log10 ER."""
    if key == "ncc":
        return "NCC (true: MCC)"
    if key == "psnr":
        return "PSNR (true: −10 log10 ER)"
    return f"{INDICATORS[key].symbol} ({key})"


def true_header(key: str) -> str:
    """Column header of a key's true value (NCC and PSNR stand for MCC and −10 log10 ER)."""
    if key == "ncc":
        return "MCC (true)"
    if key == "psnr":
        return "−10 log10 ER (true)"
    return f"{INDICATORS[key].symbol} (true)"


#: The dock's title (its tab's): short, so that its group's tabs keep whole titles on a laptop.
TITLE, FULL_TITLE = "Pseudo GT", "Pseudo ground truth"


class PseudoDock(QDockWidget):
    """Pseudo indicators of each detector under its committee's consensus (docs/measures.md §7)."""

    run_requested = Signal(object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(TITLE, parent)
        self.setObjectName("PseudoDock")
        self.toggleViewAction().setText(FULL_TITLE)  # View › Docks names it in full
        self.setToolTip(
            "Evaluate detectors without ground truth: their consensus is the reference (docs/measures.md §7)"
        )
        defaults = CommitteeOptions()
        self._detectors = CheckList(
            "Detectors voting in the consensus; each is evaluated against it"
        )
        self._consensus = QComboBox()
        self._consensus.addItems(list(CONSENSUS))
        self._consensus.setCurrentText(defaults.consensus)
        self._consensus.setToolTip(
            "staple: each detector's sensitivity and specificity fitted by EM on its votes; "
            "committee: the seed's mean vote (docs/measures.md §7)"
        )
        self._consensus.currentTextChanged.connect(self._on_consensus_changed)
        self._trivial = QCheckBox("trivial all-ones/all-zeros voters")
        self._trivial.setChecked(defaults.include_trivial)
        self._trivial.setToolTip(
            "Add the all-ones and all-zeros classifiers to the committee "
            "(K' = K + 2, as in the seed)"
        )
        self._leave_one_out = QCheckBox("leave one out")
        self._leave_one_out.setChecked(defaults.leave_one_out)
        self._leave_one_out.setToolTip(
            "Evaluate each detector against the consensus of the others only"
        )
        self._run = QPushButton("Run")
        self._run.setToolTip("Pseudo-evaluate the checked detectors")
        self._run.clicked.connect(self._on_run_clicked)
        self._caption = QLabel()
        self._caption.setWordWrap(True)
        self._caption.setVisible(False)
        self._warning = WarningLine()
        self._values = read_only_table(["detector"])
        self._values.setToolTip(
            "Pseudo indicators summarized over videos; 'true' columns "
            "appear when ground truth exists"
        )
        self._correlations = read_only_table(_CORRELATION_HEADERS)
        self._correlations.setToolTip(
            "Correlation across detectors of each pseudo indicator with its true value"
        )
        self._correlations.setVisible(False)
        self._heatmap = _ConsensusWidget()
        #: The newest frame's consensus, drawn while the dock can be seen (every frame shown
        #: brings one; a dock behind a tab draws only the last, when it is raised).
        self._newest: tuple[np.ndarray, int] | None = None
        self._heatmap_drawing = DeferredDraw(self, self._draw_heatmap)
        self.setWidget(self._layout())
        self.setMinimumSize(320, 360)
        self._on_consensus_changed(self._consensus.currentText())

    def _layout(self) -> QWidget:
        options = QVBoxLayout()
        options.addWidget(self._consensus)
        options.addWidget(self._trivial)
        options.addWidget(self._leave_one_out)
        options.addStretch(1)
        options.addWidget(self._run)
        committee = QHBoxLayout()
        committee.addWidget(self._detectors, 1)
        committee.addLayout(options)
        values = QSplitter(Qt.Orientation.Vertical)
        values.addWidget(self._values)
        values.addWidget(self._correlations)
        self._result_state = EmptyState(
            values, no_project("judge its detectors by their consensus, without ground truth")
        )
        self._heatmap_state = EmptyState(self._heatmap, NO_HEATMAP)
        tables = QSplitter(Qt.Orientation.Vertical)
        tables.addWidget(self._result_state)
        tables.addWidget(self._heatmap_state)
        body = QWidget()
        layout = QVBoxLayout(body)
        layout.addLayout(committee)
        layout.addWidget(self._caption)
        layout.addWidget(self._warning)
        layout.addWidget(tables, 1)
        return body

    # --- inputs -------------------------------------------------------------------------

    def set_detectors(self, names: Sequence[str]) -> None:
        """List the detectors that may vote, all checked (a project was opened: the result
        shown so far is dropped, and the dock says what comes next)."""
        self._detectors.set_names(names)
        self._caption.setVisible(False)
        self._warning.set_text("")
        self._result_state.show_message(
            NO_RESULT if len(names) >= 2 else needs_two_detectors("Pseudo ground truth", len(names))
        )
        self._heatmap_state.show_message(NO_HEATMAP)

    def request(self) -> PseudoRequest:
        """The request the Run button sends: checked detectors and committee options."""
        methods = self._detectors.checked_names()
        options = CommitteeOptions(
            include_trivial=self._trivial.isChecked(),
            leave_one_out=self._leave_one_out.isChecked(),
            consensus=self._consensus.currentText(),
        )
        return PseudoRequest(methods, options)

    def _on_consensus_changed(self, consensus: str) -> None:
        """Trivial voters belong to the committee's mean vote only."""
        self._trivial.setEnabled(consensus == COMMITTEE)

    def _on_run_clicked(self) -> None:
        self.run_requested.emit(self.request())

    # --- results ------------------------------------------------------------------------

    def show_result(self, result: PseudoResult, truth: TruthComparison | None = None) -> None:
        """Show each detector's summarized pseudo values, and the true ones when given,
        with a warning when the consensus disagrees with them."""
        self._caption.setText(
            result.options.describe(result.methods) + f"; videos weighted '{result.scheme}'"
        )
        self._caption.setVisible(True)
        self._warning.set_text(
            "" if truth is None else disagreement_text(truth_agreement(result, truth))
        )
        self._result_state.show_content()
        with filling(self._values), filling(self._correlations):
            headers = ["detector"]
            for key, title in TABLE_COLUMNS:
                headers.append(title)
                if truth is not None:
                    headers.append(true_header(key))
            self._values.setColumnCount(len(headers))
            self._values.setHorizontalHeaderLabels(headers)
            self._values.setRowCount(len(result.methods))
            for row, method in enumerate(result.methods):
                self._values.setItem(row, 0, text_item(method))
                pseudo = result.summaries[method].values
                column = 1
                for key, _ in TABLE_COLUMNS:
                    self._values.setItem(
                        row, column, number_item(pseudo[key].value, pseudo[key].reason)
                    )
                    column += 1
                    if truth is not None:
                        true = truth.true_summary[method][key]
                        self._values.setItem(row, column, number_item(true.value, true.reason))
                        column += 1
            self._show_correlations(truth)

    def _show_correlations(self, truth: TruthComparison | None) -> None:
        self._correlations.setVisible(truth is not None)
        if truth is None:
            self._correlations.setRowCount(0)
            return
        self._correlations.setRowCount(len(truth.summary))
        for row, (key, c) in enumerate(truth.summary.items()):
            self._set_correlation_row(row, key, c)

    def _set_correlation_row(self, row: int, key: str, c: Correlation) -> None:
        self._correlations.setItem(row, 0, text_item(correlation_label(key)))
        self._correlations.setItem(row, 1, number_item(c.pearson.value, c.pearson.reason, 3))
        self._correlations.setItem(row, 2, number_item(c.spearman.value, c.spearman.reason, 3))
        self._correlations.setItem(row, 3, text_item(str(c.n_detectors)))

    def show_heatmap(self, consensus: np.ndarray, frame: int) -> None:
        """Show the consensus ``P`` (0..1, NaN outside the ROI) of ``frame`` (once the dock
        can be seen)."""
        self._newest = (consensus, frame)
        self._heatmap_drawing.request()

    def _draw_heatmap(self) -> None:
        if self._newest is not None:
            self._heatmap.show_consensus(*self._newest)
            self._heatmap_state.show_content()

    @property
    def empty_message(self) -> str | None:
        """What the dock says in place of its tables, or ``None`` once they show a result."""
        return self._result_state.message()

    @property
    def heatmap_message(self) -> str | None:
        """What the dock says in place of the heatmap, or ``None`` once it shows a frame."""
        return self._heatmap_state.message()

    @property
    def warning(self) -> WarningLine:
        """The line that warns when the consensus disagrees with the ground truth."""
        return self._warning

    @property
    def values_table(self) -> QTableWidget:
        """One row per detector: pseudo values (and true ones beside them)."""
        return self._values

    @property
    def correlation_table(self) -> QTableWidget:
        """One row per correlated key: Pearson, Spearman, detectors counted."""
        return self._correlations

    @property
    def heatmap_image(self) -> pg.ImageItem:
        """The consensus image."""
        return self._heatmap.image

    @property
    def colour_bar(self) -> pg.ColorBarItem:
        """The 0..1 colour bar of the consensus image."""
        return self._heatmap.bar


class _ConsensusWidget(pg.GraphicsLayoutWidget):
    """The consensus map of one frame with a 0..1 colour bar."""

    def __init__(self) -> None:
        super().__init__()
        self.setToolTip(
            "Consensus P of the current frame: fraction of the committee that "
            "detects each pixel (transparent outside the ROI)"
        )
        self.setMinimumHeight(140)
        self._plot = self.addPlot(title="consensus P")
        self._plot.setAspectLocked(True)
        self._plot.invertY(True)
        self._plot.hideAxis("bottom")
        self._plot.hideAxis("left")
        self._image = pg.ImageItem(axisOrder="row-major")
        self._plot.addItem(self._image)
        self._bar = pg.ColorBarItem(
            values=(0.0, 1.0), colorMap=HEATMAP_COLORMAP, label="P", interactive=False, width=12
        )
        self._bar.setImageItem(self._image, insert_in=self._plot)

    @property
    def image(self) -> pg.ImageItem:
        return self._image

    @property
    def bar(self) -> pg.ColorBarItem:
        return self._bar

    def show_consensus(self, consensus: np.ndarray, frame: int) -> None:
        self._image.setImage(np.asarray(consensus, dtype=np.float64), levels=(0.0, 1.0))
        self._plot.setTitle(f"consensus P, frame {frame}")
