"""The main window's menu bar: File, Edit, Go, View and Help, with their shortcuts."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QDockWidget, QMenu, QWidget

from referee.gui.annotation.keys import BRUSH_LARGER_KEY, BRUSH_SMALLER_KEY
from referee.gui.annotation_files import export_annotations, import_annotations
from referee.gui.help import (
    LAYER_KEYS,
    NAVIGATION_KEYS,
    RECOMPUTE_KEY,
    VIEW_KEYS,
    show_about,
    show_shortcuts,
)
from referee.gui.project_edits import new_project, save_project, save_project_as
from referee.gui.viewer.frame_view import LAYER_TITLES, LAYERS
from referee.gui.viewer.zoom import ZOOM_KEYS
from referee.gui.widgets.recent_menu import RecentMenu

if TYPE_CHECKING:
    from referee.gui.main_window import MainWindow


@dataclass(frozen=True)
class WindowMenus:
    """The menu entries the window keeps using after it built its menus."""

    recent: RecentMenu
    export_report_action: QAction
    layer_actions: dict[str, QAction]
    dark_action: QAction


def add_action(
    owner: QWidget,
    menu: QMenu,
    text: str,
    slot: Callable,
    shortcut: str | None = None,
    tip: str = "",
) -> QAction:
    """Add ``text`` to ``menu``, calling ``slot`` with the triggered signal's argument;
    ``shortcut`` works anywhere in ``owner``'s window; ``tip`` (default ``text``) is shown
    as tool tip and in the status bar."""
    action = QAction(text, owner)
    if shortcut:
        action.setShortcut(QKeySequence(shortcut))
        action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
    action.setToolTip(tip or text)
    action.setStatusTip(tip or text)
    action.triggered.connect(slot)
    menu.addAction(action)
    return action


def build_menus(window: MainWindow) -> WindowMenus:
    """Fill ``window``'s menu bar (its docks and annotation controller exist already)."""
    bar = window.menuBar()
    file = bar.addMenu("&File")
    add_action(
        window,
        file,
        "&New project…",
        lambda: new_project(window),
        "Ctrl+N",
        "Make a project of your dataset, detectors' results and ground truth, checking "
        "each source, and open it",
    )
    add_action(
        window,
        file,
        "&Open…",
        window.choose_and_open,
        "Ctrl+O",
        "Open a project (*.referee.json), a CDnet dataset folder or a video",
    )
    add_action(
        window,
        file,
        "Open &folder…",
        window.choose_folder_and_open,
        "Ctrl+Shift+O",
        "Open a CDnet dataset or video folder",
    )
    recent = RecentMenu(file.addMenu("Open &recent"), window.open)
    file.addSeparator()
    add_action(
        window,
        file,
        "&Import…",
        lambda: import_annotations(window),
        "Ctrl+I",
        "Convert CVAT, COCO, YOLO or labelme annotations to Referee's formats and add "
        "them to the project",
    )
    add_action(
        window,
        file,
        "E&xport annotations…",
        lambda: export_annotations(window),
        None,
        "Write the project's annotations in CVAT, COCO, YOLO, labelme or another format",
    )
    file.addSeparator()
    add_action(
        window,
        file,
        "&Save",
        lambda: save_project(window),
        "Ctrl+S",
        "Save the annotation and project",
    )
    add_action(
        window,
        file,
        "Save project &as…",
        lambda: save_project_as(window),
        "Ctrl+Shift+S",
        "Write the open project (dataset, detectors, ground truth, annotated frames) to a "
        "project file of your choice",
    )
    file.addSeparator()
    export_report = add_action(
        window,
        file,
        "&Export report…",
        window.export_report,
        "Ctrl+E",
        "Build a report of the project and write it as HTML, PDF, CSV tables or JSON",
    )
    export_report.setEnabled(False)
    file.addSeparator()
    add_action(window, file, "&Quit", window.close, "Ctrl+Q")
    window.annotation.add_edit_menu()
    _add_go_menu(window)
    layer_actions, dark = _add_view_menu(window)
    help_menu = bar.addMenu("&Help")
    add_action(window, help_menu, "&Keyboard shortcuts", lambda: show_shortcuts(window), "F1")
    add_action(window, help_menu, "&About Referee", lambda: show_about(window))
    return WindowMenus(recent, export_report, layer_actions, dark)


def _add_go_menu(window: MainWindow) -> None:
    go = window.menuBar().addMenu("&Go")
    timeline = window.viewer.timeline
    slots = (
        timeline.toggle_play,
        lambda: timeline.step(-1),
        lambda: timeline.step(1),
        lambda: timeline.step(-10),
        lambda: timeline.step(10),
        timeline.go_to_first,
        timeline.go_to_last,
        timeline.previous_marked,
        timeline.next_marked,
        lambda: window.tracking.step_switch(False),
        lambda: window.tracking.step_switch(True),
        lambda: window.viewer.step_video(-1),
        lambda: window.viewer.step_video(1),
    )
    by_key = {
        key: add_action(window, go, text, slot, key)
        for (text, key), slot in zip(NAVIGATION_KEYS, slots)
    }
    window.annotation.mask_keys.share_keys(by_key[BRUSH_SMALLER_KEY], by_key[BRUSH_LARGER_KEY])
    go.addSeparator()
    add_action(window, go, "Cancel all jobs", window.runner.cancel_all, "Esc")
    add_action(
        window,
        go,
        "Compute everything again",
        window.session.recompute,
        RECOMPUTE_KEY,
        "Compute every result again, for files changed outside Referee (unchanged frames "
        "come from the cache)",
    )


def _add_view_menu(window: MainWindow) -> tuple[dict[str, QAction], QAction]:
    """The View menu; returns its layer actions by layer name and its dark-theme action."""
    view = window.menuBar().addMenu("&View")
    panel = window.layers_panel
    layer_actions: dict[str, QAction] = {}
    for name, key in zip(LAYERS, LAYER_KEYS):
        action = add_action(
            window,
            view,
            f"{LAYER_TITLES[name]} layer",
            lambda checked, n=name: panel.set_checked(n, checked),
            key,
            f"Show or hide the {LAYER_TITLES[name].lower()} layer",
        )
        action.setCheckable(True)
        action.setChecked(panel.is_checked(name))
        action.setEnabled(panel.is_available(name))
        layer_actions[name] = action
    panel.availability_changed.connect(lambda name, can: layer_actions[name].setEnabled(can))
    view.addSeparator()
    for text, key, count in VIEW_KEYS:
        add_action(
            window, view, text, lambda _=False, n=count: window.viewer.set_view_count(n), key
        )
    view.addSeparator()
    viewer = window.viewer
    zooms = (viewer.fit_to_window, viewer.zoom_actual_size, viewer.zoom_in, viewer.zoom_out)
    for (text, key), slot in zip(ZOOM_KEYS, zooms):
        add_action(window, view, text, slot, key)
    view.addSeparator()
    dark = add_action(window, view, "&Dark theme", window.set_dark, "Ctrl+D")
    dark.setCheckable(True)
    docks = view.addMenu("&Docks")
    for dock in window.findChildren(QDockWidget):
        docks.addAction(dock.toggleViewAction())
    return layer_actions, dark
