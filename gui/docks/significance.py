"""The Significance dock: do the methods really differ? (docs/measures.md §9)

The dock asks for a discriminative evaluation (:class:`SignificanceRequest`
through ``run_requested``) and draws the
:class:`~referee.core.significance.sweep.DiscriminativeResult` the window gives
back: p against the normalized threshold with the α line, the threshold table
and core's verdict in words.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import (
    QComboBox,
    QDockWidget,
    QDoubleSpinBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSplitter,
    QTableWidget,
    QVBoxLayout,
    QWidget,
)

from referee.core.colours import OKABE_ITO
from referee.core.significance.choices import AUTO_TEST, PAIR_TESTS, SEVERAL_TESTS
from referee.core.significance.hypothesis_tests import TEST_NAMES
from referee.core.significance.sweep import DiscriminativeResult
from referee.core.significance.wording import direction_text, sentence, verdict_text
from referee.core.workflow.options import SignificanceOptions
from referee.gui.widgets.check_list import CheckList
from referee.gui.widgets.empty_state import EmptyState
from referee.gui.widgets.tables import filling, number_item, read_only_table, text_item
from referee.gui.widgets.theme import add_legend

#: Case kinds the window can build, with what a case's score is (core's builders).
CASE_KIND_MEASURES: dict[str, str] = {
    "frames": "per-frame F1",
    "pseudo": "per-frame pseudo-F1",
    "boxes": "per-frame FDA",
    "actions": "per-action Dice",
    "tracking": "per-sequence or per-block HOTA",
}

_HEADERS = ("t", "normalized t", "t / max d", "cases left", "removed %", "statistic", "p")
#: The α line; the p-value curve is drawn in the text colour (it is no detector's).
_ALPHA_RGB = OKABE_ITO["vermillion"]


@dataclass(frozen=True)
class SignificanceRequest:
    """What to compare: methods (two or more), case kind, test key or ``"auto"``, α."""

    methods: tuple[str, ...]
    kind: str
    test: str
    alpha: float

    def options(self) -> SignificanceOptions:
        """The request as the workflow's options."""
        return SignificanceOptions(
            cases=self.kind, methods=self.methods, test=self.test, alpha=self.alpha
        )


def kind_label(kind: str) -> str:
    """``frames (per-frame F1)`` for a known kind, else the kind itself."""
    measure = CASE_KIND_MEASURES.get(kind)
    return f"{kind} ({measure})" if measure else kind


#: What the dock says in place of its plot and table before a test has run.
NO_RESULT = (
    "No test yet: choose two or more detectors, the cases and the test above, then press "
    "Run to see the p-value against the threshold and the verdict in words."
)


class SignificanceDock(QDockWidget):
    """Threshold sweep and verdict of the discriminative evaluation (docs/measures.md §9)."""

    run_requested = Signal(object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Significance", parent)
        self.setObjectName("SignificanceDock")
        self.setToolTip(
            "Is one method really better? Cases where the methods score alike are "
            "removed step by step and the rest is tested (docs/measures.md §9)"
        )
        self._methods = CheckList(
            "Check two methods (A and B) for a pairwise test, or more for ANOVA / Friedman"
        )
        self._kind = QComboBox()
        self._kind.setToolTip("What a test case is and how it is scored")
        self._test = QComboBox()
        self._test.addItem(f"{AUTO_TEST} (t-test for two, ANOVA for more)", AUTO_TEST)
        for key in PAIR_TESTS + SEVERAL_TESTS:
            self._test.addItem(TEST_NAMES[key], key)
        self._test.setToolTip("Statistical test; 'auto' lets the number of methods decide")
        self._alpha = QDoubleSpinBox()
        self._alpha.setDecimals(3)
        self._alpha.setRange(0.001, 0.5)
        self._alpha.setSingleStep(0.01)
        self._alpha.setValue(SignificanceOptions.alpha)
        self._alpha.setToolTip("Significance level α")
        self._run = QPushButton("Run")
        self._run.setToolTip("Compare the checked methods")
        self._run.clicked.connect(self._on_run_clicked)
        self._plot = pg.PlotWidget()
        self._plot.setToolTip(
            "p-value at each normalized threshold; below the α line the "
            "methods differ at that threshold"
        )
        self._plot.setMinimumHeight(150)
        self._plot.setLabel("bottom", "normalized threshold t / Σt")
        self._plot.setLabel("left", "p (log scale)")
        self._plot.getAxis("bottom").enableAutoSIPrefix(False)
        self._plot.setLogMode(x=False, y=True)
        add_legend(self._plot, (-10, 10))
        self._curve = self._plot.plot([], [], symbol="o", symbolSize=6, name="p-value")
        self._colour_p_curve()
        self._alpha_line = pg.InfiniteLine(
            pos=math.log10(SignificanceOptions.alpha),
            angle=0,
            pen=pg.mkPen(_ALPHA_RGB, width=1.5, style=Qt.PenStyle.DashLine),
        )
        self._plot.addItem(self._alpha_line)
        self._plot.getPlotItem().legend.addItem(
            pg.PlotDataItem(pen=self._alpha_line.pen), f"α = {SignificanceOptions.alpha:g}"
        )
        self._verdict = QLabel()
        self._verdict.setWordWrap(True)
        self._verdict.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self._table = read_only_table(_HEADERS)
        self._table.setToolTip(
            "The sweep: at threshold t the cases whose scores differ by less than t are removed"
        )
        self.setWidget(self._layout())
        self.setMinimumSize(320, 380)

    def _layout(self) -> QWidget:
        form = QFormLayout()
        form.addRow("Cases", self._kind)
        form.addRow("Test", self._test)
        alpha = QHBoxLayout()
        alpha.addWidget(self._alpha)
        alpha.addStretch(1)
        alpha.addWidget(self._run)
        form.addRow("α", alpha)
        top = QHBoxLayout()
        top.addWidget(self._methods, 1)
        top.addLayout(form, 2)
        results = QSplitter(Qt.Orientation.Vertical)
        results.addWidget(self._plot)
        results.addWidget(self._table)
        self._results_state = EmptyState(results, NO_RESULT)
        body = QWidget()
        layout = QVBoxLayout(body)
        layout.addLayout(top)
        layout.addWidget(self._verdict)
        layout.addWidget(self._results_state, 1)
        return body

    def changeEvent(self, event: QEvent) -> None:
        """Follow a change of theme: the p-value curve is drawn in the text colour."""
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:
            self._colour_p_curve()

    def _colour_p_curve(self) -> None:
        colour = self.palette().color(QPalette.ColorRole.Text)
        self._curve.setPen(pg.mkPen(colour, width=2))
        self._curve.setSymbolPen(pg.mkPen(colour))
        self._curve.setSymbolBrush(pg.mkBrush(colour))

    # --- inputs -------------------------------------------------------------------------

    def set_detectors(self, names: Sequence[str]) -> None:
        """Offer these methods; the first two are checked (A and B)."""
        self._methods.set_names(names, checked=2)

    def set_case_kinds(self, kinds: Sequence[str]) -> None:
        """Offer these case kinds (e.g. keys of :data:`CASE_KIND_MEASURES`), first selected."""
        self._kind.clear()
        for kind in kinds:
            self._kind.addItem(kind_label(kind), kind)

    def request(self) -> SignificanceRequest:
        """The request the Run button sends."""
        methods = self._methods.checked_names()
        return SignificanceRequest(
            methods, self._kind.currentData() or "", self._test.currentData(), self._alpha.value()
        )

    def _on_run_clicked(self) -> None:
        self.run_requested.emit(self.request())

    # --- results ------------------------------------------------------------------------

    @property
    def empty_message(self) -> str | None:
        """What the dock says in place of its plot and table, or ``None`` once a test ran."""
        return self._results_state.message()

    def show_result(self, result: DiscriminativeResult) -> None:
        """Plot p against the normalized threshold, list the sweep, state the verdict."""
        self._results_state.show_content()
        rows = result.rows
        x = np.array([row.normalized for row in rows], dtype=float)
        p = np.array([row.p.value for row in rows], dtype=float)
        self._curve.setData(x, p, connect="finite")
        self._alpha_line.setValue(math.log10(result.alpha))  # the y axis is log10 p
        self._set_alpha_legend(result.alpha)
        self._plot.setTitle(
            f"{TEST_NAMES[result.test]} on {result.cases.measure}, {' vs '.join(result.methods)}"
        )
        self._verdict.setText(
            f"{verdict_text(result)}.\n{sentence(direction_text(result))}"
            + (
                f" {result.cases.dropped} case(s) left out: {result.cases.dropped_reason}."
                if result.cases.dropped
                else ""
            )
        )
        self._show_rows(result)

    def _set_alpha_legend(self, alpha: float) -> None:
        legend = self._plot.getPlotItem().legend
        for _, label in legend.items:
            if label.text.startswith("α"):
                label.setText(f"α = {alpha:g}")

    def _show_rows(self, result: DiscriminativeResult) -> None:
        self._table.setRowCount(len(result.rows))
        with filling(self._table):
            self._fill_rows(result)

    def _fill_rows(self, result: DiscriminativeResult) -> None:
        for r, row in enumerate(result.rows):
            values = (row.threshold, row.normalized, row.fraction_of_max)
            for column, value in enumerate(values):
                self._table.setItem(
                    r,
                    column,
                    number_item(value, "undefined: every case scores the same for all methods"),
                )
            self._table.setItem(r, 3, text_item(str(row.cases_left)))
            self._table.setItem(r, 4, number_item(100 * row.fraction_removed, None, 0))
            self._table.setItem(r, 5, number_item(row.statistic, row.p.reason, 3))
            p_item = number_item(row.p.value, row.p.reason, 3, "g")
            if r == result.t0_index:
                p_item.setToolTip("t_0: p stays below α from here on")
            self._table.setItem(r, 6, p_item)

    @property
    def p_curve(self) -> pg.PlotDataItem:
        """The p-value curve (x = normalized threshold, y = p, drawn on a log axis)."""
        return self._curve

    @property
    def alpha_line(self) -> pg.InfiniteLine:
        """The horizontal line at α (its value is log10 α: the y axis is logarithmic)."""
        return self._alpha_line

    @property
    def table(self) -> QTableWidget:
        """The sweep table, one row per threshold."""
        return self._table

    @property
    def verdict_text(self) -> str:
        """The verdict as shown."""
        return self._verdict.text()
