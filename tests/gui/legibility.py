"""Texts a window shows cut short, found by asking each widget's font metrics.

Qt elides a tab's title and a header's text that do not fit, and clips a button's,
a label's or a check box's: either way the reader loses words. :func:`cut_texts`
measures each visible text with the widget's own font (``horizontalAdvance``), adds
the room its style gives it (margins, icon, indicator, sort arrow, menu arrow) and
names every widget whose rect is narrower than that. It looks at tabs of tab bars,
push and tool buttons, single-line labels, check boxes, combo boxes, dock titles and
the header sections of tables; a widget not visible (behind another tab, in a
stacked widget's hidden page) is left out, a widget scrolled out of view is not.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtGui import QFontMetrics, QTextDocument
from PySide6.QtGui import Qt as GuiQt
from PySide6.QtWidgets import (
    QAbstractButton,
    QCheckBox,
    QComboBox,
    QDockWidget,
    QHeaderView,
    QLabel,
    QPushButton,
    QStyle,
    QStyleOptionComboBox,
    QTabBar,
    QToolButton,
    QWidget,
)

_PM = QStyle.PixelMetric


def _plain(text: str) -> str:
    """A button's text as drawn: ``&`` marks a mnemonic, ``&&`` is one ``&``."""
    return text.replace("&&", "\0").replace("&", "").replace("\0", "&")


def _metric(widget: QWidget, metric: QStyle.PixelMetric) -> int:
    return widget.style().pixelMetric(metric, None, widget)


def _label_lines(label: QLabel) -> list[str]:
    text = label.text()
    rich = label.textFormat() == Qt.TextFormat.RichText or (
        label.textFormat() == Qt.TextFormat.AutoText and GuiQt.mightBeRichText(text)
    )
    if rich:
        document = QTextDocument()
        document.setHtml(text)
        text = document.toPlainText()
    return [line for line in text.replace("\u2029", "\n").split("\n") if line.strip()]


def _label(label: QLabel) -> list[str]:
    if label.wordWrap() or not label.text() or not label.pixmap().isNull():
        return []
    metrics = label.fontMetrics()
    indent = label.indent()
    if indent < 0:  # Qt's default: half an "x" beside a frame, else none
        indent = metrics.horizontalAdvance("x") // 2 if label.frameWidth() > 0 else 0
    room = label.contentsRect().width() - 2 * label.margin() - indent
    return [
        f"needs {metrics.horizontalAdvance(line)} px, has {room}: {line!r}"
        for line in _label_lines(label)
        if metrics.horizontalAdvance(line) > room
    ]


def _icon_room(button: QAbstractButton) -> int:
    return 0 if button.icon().isNull() else button.iconSize().width() + 4


def _push_button(button: QPushButton) -> list[str]:
    text = _plain(button.text())
    if not text:
        return []
    needed = button.fontMetrics().horizontalAdvance(text) + _icon_room(button)
    needed += _metric(button, _PM.PM_ButtonMargin) + 2 * _metric(button, _PM.PM_DefaultFrameWidth)
    if button.menu() is not None:
        needed += _metric(button, _PM.PM_MenuButtonIndicator)
    return [] if needed <= button.width() else [f"needs {needed} px, has {button.width()}"]


def _tool_button(button: QToolButton) -> list[str]:
    text = _plain(button.text())
    style = button.toolButtonStyle()
    if not button.icon().isNull() and style == Qt.ToolButtonStyle.ToolButtonIconOnly:
        return [] if button.toolTip() else ["an icon without a tooltip"]
    if not text:
        return []
    needed = button.fontMetrics().horizontalAdvance(text) + 6  # QCommonStyle's CT_ToolButton
    if style == Qt.ToolButtonStyle.ToolButtonTextBesideIcon:
        needed += _icon_room(button)
    if (
        button.menu() is not None
        or button.popupMode() == QToolButton.ToolButtonPopupMode.MenuButtonPopup
    ):
        needed += _metric(button, _PM.PM_MenuButtonIndicator)
    return [] if needed <= button.width() else [f"needs {needed} px, has {button.width()}"]


def _check_box(box: QCheckBox) -> list[str]:
    text = _plain(box.text())
    if not text:
        return []
    needed = box.fontMetrics().horizontalAdvance(text) + _icon_room(box)
    needed += _metric(box, _PM.PM_IndicatorWidth) + _metric(box, _PM.PM_CheckBoxLabelSpacing)
    return [] if needed <= box.width() else [f"needs {needed} px, has {box.width()}"]


def _combo_box(combo: QComboBox) -> list[str]:
    text = combo.currentText()
    if not text:
        return []
    option = QStyleOptionComboBox()
    option.initFrom(combo)
    option.editable = combo.isEditable()
    option.frame = combo.hasFrame()
    option.currentText = text
    field = combo.style().subControlRect(
        QStyle.ComplexControl.CC_ComboBox, option, QStyle.SubControl.SC_ComboBoxEditField, combo
    )
    needed = combo.fontMetrics().horizontalAdvance(text)
    if not combo.itemIcon(combo.currentIndex()).isNull():
        needed += combo.iconSize().width() + 4
    room = field.width()
    return [] if needed <= room else [f"needs {needed} px, has {room}"]


def _tab_bar(bar: QTabBar) -> list[str]:
    metrics = bar.fontMetrics()
    space = _metric(bar, _PM.PM_TabBarTabHSpace)
    cut = []
    for index in range(bar.count()):
        if not bar.isTabVisible(index):
            continue
        text = _plain(bar.tabText(index))
        rect = bar.tabRect(index)
        needed = metrics.horizontalAdvance(text) + space
        if not bar.tabIcon(index).isNull():
            needed += bar.iconSize().width() + 4
        if rect.width() < needed:
            cut.append(f"tab needs {needed} px, has {rect.width()}: {text!r}")
        elif not bar.rect().contains(rect):
            cut.append(f"tab out of view (behind the scroll arrows): {text!r}")
    return cut


def _header(header: QHeaderView) -> list[str]:
    model = header.model()
    if model is None:
        return []
    metrics = header.fontMetrics()
    margin = 2 * _metric(header, _PM.PM_HeaderMargin)
    cut = []
    for section in range(header.count()):
        if header.isSectionHidden(section) or header.sectionSize(section) <= 0:
            continue
        text = model.headerData(section, header.orientation(), Qt.ItemDataRole.DisplayRole)
        if not text:
            continue
        needed = metrics.horizontalAdvance(str(text)) + margin
        if header.isSortIndicatorShown() and header.sortIndicatorSection() == section:
            needed += _metric(header, _PM.PM_HeaderMarkSize)
        size = (
            header.sectionSize(section)
            if header.orientation() == Qt.Orientation.Horizontal
            else header.width()
        )
        if size < needed:
            cut.append(f"section needs {needed} px, has {size}: {text!r}")
    return cut


def _dock_title(dock: QDockWidget) -> list[str]:
    if dock.titleBarWidget() is not None or not dock.windowTitle():
        return []
    metrics = QFontMetrics(dock.font())
    buttons = 2 * (_metric(dock, _PM.PM_TitleBarButtonIconSize) + 4)
    needed = metrics.horizontalAdvance(dock.windowTitle()) + buttons
    needed += 2 * _metric(dock, _PM.PM_DockWidgetTitleMargin)
    width = dock.width()
    return [] if needed <= width else [f"title needs {needed} px, has {width}"]


#: Each kind of widget looked at, and how its cut texts are found (a subclass is looked
#: at by the first kind it is).
CHECKS: tuple[tuple[type[QWidget], Callable], ...] = (
    (QTabBar, _tab_bar),
    (QPushButton, _push_button),
    (QToolButton, _tool_button),
    (QCheckBox, _check_box),
    (QComboBox, _combo_box),
    (QLabel, _label),
    (QHeaderView, _header),
    (QDockWidget, _dock_title),
)


def _name(widget: QWidget) -> str:
    """``Kind 'text'`` and, when it has one, the dock it is in."""
    text = ""
    if isinstance(widget, (QAbstractButton, QLabel)):
        text = widget.text()
    elif isinstance(widget, QComboBox):
        text = widget.currentText()
    elif isinstance(widget, QDockWidget):
        text = widget.windowTitle()
    name = f"{type(widget).__name__} {text[:60]!r}" if text else type(widget).__name__
    parent = widget.parentWidget()
    while parent is not None and not isinstance(parent, QDockWidget):
        parent = parent.parentWidget()
    if widget.objectName():
        name += f" ({widget.objectName()})"
    return f"{name} in {parent.windowTitle()}" if parent is not None else name


def _behind_a_tab(widget: QWidget, top: QWidget) -> bool:
    """Whether ``widget`` is in a dock tabbed behind another (Qt keeps it visible, off
    the window)."""
    parent: QWidget | None = widget
    while parent is not None and parent is not top:
        docked = isinstance(parent, QDockWidget) and not parent.isFloating()
        if docked and not top.rect().intersects(parent.geometry()):
            return True
        parent = parent.parentWidget()
    return False


def cut_texts(top: QWidget) -> list[str]:
    """Every visible text under ``top`` that its widget's rect cannot hold, each named
    with its widget (kind, text, dock) and the widths."""
    found = []
    for widget in top.findChildren(QWidget):
        if not widget.isVisible() or _behind_a_tab(widget, top):
            continue
        for kind, check in CHECKS:
            if isinstance(widget, kind):
                found += [f"{_name(widget)}: {problem}" for problem in check(widget)]
                break
    return found
