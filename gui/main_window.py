"""The main window: a thin assembly of the viewer, the docks, menus and shortcuts."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import cast

from PySide6.QtCore import QSettings, Qt
from PySide6.QtGui import (
    QAction,
    QCloseEvent,
    QDragEnterEvent,
    QDropEvent,
    QKeySequence,
)
from PySide6.QtWidgets import (
    QDockWidget,
    QFileDialog,
    QLabel,
    QMainWindow,
    QMessageBox,
    QWidget,
)

from referee.core.demo.project import ensure_demo_project
from referee.core.errors import RefereeError
from referee.core.formats.project_json import write_project
from referee.core.model.project import DetectorSource, Project, with_detector, without_detector
from referee.core.model.videos import video_label
from referee.core.report.build import build_report
from referee.core.significance.cases import CASE_KINDS
from referee.core.workflow.projects import open_path
from referee.core.workflow.sources import source_status
from referee.gui.annotation_controller import AnnotationController
from referee.gui.docks.actions import ActionsDock
from referee.gui.docks.annotate import AnnotateDock
from referee.gui.docks.data import DataDock
from referee.gui.docks.indicators import IndicatorsDock
from referee.gui.docks.jobs import JobsDock, JobsStatusWidget
from referee.gui.docks.plots import PlotsDock
from referee.gui.docks.pseudo import PseudoDock
from referee.gui.docks.significance import SignificanceDock
from referee.gui.help import LAYER_KEYS, NAVIGATION_KEYS, VIEW_KEYS, show_about, show_shortcuts
from referee.gui.report_dialog import ReportDialog, session_report_options
from referee.gui.session import ProjectSession
from referee.gui.viewer.frame_view import LAYER_TITLES, LAYERS
from referee.gui.viewer.layers_panel import LayersPanel
from referee.gui.viewer.panel import WELCOME, ViewerPanel
from referee.gui.widgets.dock_tabs import hide_stray_tab_bars
from referee.gui.widgets.error_dialogs import ErrorDialogs
from referee.gui.widgets.recent_menu import RecentMenu
from referee.gui.widgets.theme import apply_theme
from referee.gui.worker import Job, JobRunner

#: How long quitting waits for cancelled jobs to stop (ms); a job stuck in a blocking
#: call is then left behind, and the application quits anyway.
QUIT_WAIT_MS = 3000
OPEN_FILTER = (
    "Referee projects (*.referee.json);;Videos (*.mp4 *.avi *.mkv *.mov *.webm);;All files (*)"
)


class MainWindow(QMainWindow):
    """Referee's window. ``open(path)`` loads a project, dataset folder or video.

    With ``remember_layout=False`` (a screenshot) the window starts with the
    default layout and writes nothing to the user's settings (layout, recent files).
    """

    def __init__(self, parent: QWidget | None = None, remember_layout: bool = True) -> None:
        super().__init__(parent)
        self.remember_layout = remember_layout
        self.errors = ErrorDialogs(self)
        self.setWindowTitle("Referee")
        self.setAcceptDrops(True)
        self.resize(1400, 900)
        self.runner = JobRunner(parent=self)
        self.session = ProjectSession(self.runner, self)
        self.report_dialog: ReportDialog | None = None
        self.viewer = ViewerPanel(self.session)
        self.setCentralWidget(self.viewer)
        self._build_docks()
        hide_stray_tab_bars(self)
        self._build_menus()
        self.status_label = QLabel()
        self.statusBar().addWidget(self.status_label, 1)
        self.statusBar().addPermanentWidget(JobsStatusWidget(self.runner))
        self._connect()
        for name in LAYERS:
            self.layers_panel.set_checked(name, self.viewer.layer_visible[name])
        self._restore_settings()

    # --- assembly ---------------------------------------------------------------------------

    def _build_docks(self) -> None:
        self.annotation = AnnotationController(self, self.session, self.viewer, self.errors)
        self.data_dock = DataDock()
        self.layers_panel = LayersPanel()
        self.layers_dock = self._wrap("Layers", "LayersDock", self.layers_panel)
        self.inspector = QLabel("Move the mouse over the frame.")
        self.inspector.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.inspector.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.inspector.setMargin(6)
        self.inspector_dock = self._wrap("Inspector", "InspectorDock", self.inspector)
        self.indicators_dock = IndicatorsDock()
        self.plots_dock = PlotsDock()
        self.pseudo_dock = PseudoDock()
        self.annotate_dock = AnnotateDock()
        self.significance_dock = SignificanceDock()
        self.actions_dock = ActionsDock()
        self.jobs_dock = JobsDock(self.runner)
        left = Qt.DockWidgetArea.LeftDockWidgetArea
        right = Qt.DockWidgetArea.RightDockWidgetArea
        for dock in (self.data_dock, self.layers_dock, self.inspector_dock, self.jobs_dock):
            self.addDockWidget(left, dock)
        for dock in (self.inspector_dock, self.jobs_dock, self.annotation.history):
            self.tabifyDockWidget(self.layers_dock, dock)
        self.layers_dock.raise_()
        analysis = (
            self.indicators_dock,
            self.plots_dock,
            self.annotate_dock,
            self.annotation.dock,
            self.annotation.boxes.dock,
            self.pseudo_dock,
            self.significance_dock,
            self.actions_dock,
        )
        self.addDockWidget(right, analysis[0])
        for dock in analysis[1:]:
            self.tabifyDockWidget(analysis[0], dock)
        self.indicators_dock.raise_()
        self.resizeDocks(
            [self.data_dock, self.indicators_dock], [320, 600], Qt.Orientation.Horizontal
        )
        self.resizeDocks([self.data_dock, self.layers_dock], [260, 520], Qt.Orientation.Vertical)

    def _wrap(self, title: str, name: str, widget: QWidget) -> QDockWidget:
        dock = QDockWidget(title, self)
        dock.setObjectName(name)
        dock.setWidget(widget)
        return dock

    def _action(
        self, menu, text: str, slot: Callable, shortcut: str | None = None, tip: str = ""
    ) -> QAction:
        action = QAction(text, self)
        if shortcut:
            action.setShortcut(QKeySequence(shortcut))
            action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        action.setToolTip(tip or text)
        action.setStatusTip(tip or text)
        action.triggered.connect(slot)
        menu.addAction(action)
        return action

    def _build_menus(self) -> None:
        bar = self.menuBar()
        file = bar.addMenu("&File")
        self._action(
            file,
            "&Open…",
            self.choose_and_open,
            "Ctrl+O",
            "Open a project (*.referee.json), a CDnet dataset folder or a video",
        )
        self._action(
            file,
            "Open &folder…",
            self.choose_folder_and_open,
            "Ctrl+Shift+O",
            "Open a CDnet dataset or video folder",
        )
        self.recent_menu = file.addMenu("Open &recent")
        self.recent = RecentMenu(self.recent_menu, self.open)
        file.addSeparator()
        self._action(file, "&Save", self.save_project, "Ctrl+S", "Save the annotation and project")
        self._action(file, "Save project &as…", self.save_project_as, "Ctrl+Shift+S")
        file.addSeparator()
        self.export_report_action = self._action(
            file,
            "&Export report…",
            self._on_export_report,
            "Ctrl+E",
            "Build a report of the project and write it as HTML, PDF, CSV tables or JSON",
        )
        self.export_report_action.setEnabled(False)
        file.addSeparator()
        self._action(file, "&Quit", self.close, "Ctrl+Q")
        self.annotation.add_edit_menu()

        go = bar.addMenu("&Go")
        timeline = self.viewer.timeline
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
            lambda: self.viewer.step_video(-1),
            lambda: self.viewer.step_video(1),
        )
        for (text, key), slot in zip(NAVIGATION_KEYS, slots):
            self._action(go, text, slot, key)
        go.addSeparator()
        self._action(go, "Cancel all jobs", self.runner.cancel_all, "Esc")

        view = bar.addMenu("&View")
        self.layer_actions: dict[str, QAction] = {}
        for name, key in zip(LAYERS, LAYER_KEYS):
            action = self._action(
                view,
                f"{LAYER_TITLES[name]} layer",
                lambda checked, n=name: self.layers_panel.set_checked(n, checked),
                key,
                f"Show or hide the {LAYER_TITLES[name].lower()} layer",
            )
            action.setCheckable(True)
            action.setChecked(self.layers_panel.is_checked(name))
            self.layer_actions[name] = action
        view.addSeparator()
        for text, key, count in VIEW_KEYS:
            self._action(view, text, lambda _=False, n=count: self.viewer.set_view_count(n), key)
        view.addSeparator()
        self.dark_action = self._action(view, "&Dark theme", self._on_dark_toggled, "Ctrl+D")
        self.dark_action.setCheckable(True)
        docks = view.addMenu("&Docks")
        for dock in self.findChildren(QDockWidget):
            docks.addAction(dock.toggleViewAction())

        help_menu = bar.addMenu("&Help")
        self._action(help_menu, "&Keyboard shortcuts", lambda: show_shortcuts(self), "F1")
        self._action(help_menu, "&About Referee", lambda: show_about(self))

    def _connect(self) -> None:
        session, viewer = self.session, self.viewer
        session.error.connect(self.report_problem)
        viewer.problem.connect(self.report_problem)
        session.project_changed.connect(self._on_project_changed)
        session.evaluations_changed.connect(self._on_evaluations_changed)
        session.actions_changed.connect(lambda: self.actions_dock.show_evaluations(session.actions))
        session.actions_changed.connect(lambda: self.plots_dock.show_actions(session.actions))
        session.pseudo_changed.connect(self._on_pseudo_changed)
        session.ranking_changed.connect(self._on_ranking_changed)
        session.significance_changed.connect(self._on_significance_changed)
        session.estimate_changed.connect(
            lambda: self.indicators_dock.show_estimate(session.estimate)
        )
        session.estimate_changed.connect(lambda: self.annotate_dock.show_estimate(session.estimate))
        viewer.video_box.currentIndexChanged.connect(lambda _: self._show_frame_f())
        viewer.status_message.connect(lambda text: self.statusBar().showMessage(text, 8000))
        viewer.pixel_info.connect(self.inspector.setText)
        viewer.frame_shown.connect(self._on_frame_shown)
        self.layers_panel.visibility_changed.connect(self._on_layer_visibility)
        self.layers_panel.opacity_changed.connect(viewer.set_layer_opacity)
        self.data_dock.add_requested.connect(self.add_detector)
        self.data_dock.remove_requested.connect(self.remove_detector)
        self.indicators_dock.video_selected.connect(
            lambda category, video: viewer.go_to(
                video_label(category, video), viewer.timeline.frame()
            )
        )
        self.plots_dock.frame_requested.connect(
            lambda frame: viewer.go_to(viewer.current_video_label() or "", frame)
        )
        self.annotate_dock.frame_requested.connect(viewer.go_to)
        self.indicators_dock.scheme_changed.connect(
            lambda scheme: self._guard(session.set_pixel_weights, scheme)
        )
        self.actions_dock.action_selected.connect(self._on_action_selected)
        self.pseudo_dock.run_requested.connect(
            lambda request: self._guard(
                session.run_pseudo,
                replace(session.options.pseudo, committee=request.options, methods=request.methods),
            )
        )
        self.annotate_dock.run_requested.connect(
            lambda options: self._guard(session.run_ranking, options)
        )
        self.significance_dock.run_requested.connect(
            lambda request: self._guard(session.run_significance, request.options())
        )

    # --- opening and saving -----------------------------------------------------------------

    def open(self, path: str | Path) -> bool:
        """Open a project file, a CDnet dataset or video folder, or a video file.

        A path that cannot be opened is shown in an error dialog, and the
        project already open stays open.
        """
        try:
            self.load(path)
        except RefereeError as error:
            self.show_error(str(error))
            return False
        return True

    def load(self, path: str | Path) -> None:
        """:meth:`open` that raises :class:`RefereeError` instead of showing it; its message
        names ``path`` (and the file at fault, when another: a project's dataset, say)."""
        try:
            project = open_path(path)
            self.statusBar().showMessage(f"Opened {path}", 5000)  # a problem next replaces it
            self.open_project(project)
        except RefereeError as error:
            if os.path.abspath(path) in str(error):
                raise
            raise RefereeError(f"cannot open {os.path.abspath(path)}: {error}") from error
        self._remember_recent(Path(path))

    def open_project(self, project: Project) -> None:
        """Make ``project`` current; raises :class:`RefereeError` (and keeps the open
        project) if it has nothing to show or its dataset cannot be read; unsaved annotation
        is saved or discarded first, as the user says (or nothing happens)."""
        if not self.annotation.confirm_leaving():
            return
        self.errors.forget()
        self.session.open(project)

    def open_demo(self, root: Path) -> Job:
        """Prepare the demo project in ``root`` as a job (written there the first time),
        then open it, unless a project was opened meanwhile."""
        self.viewer.show_message("Preparing the demo project…")

        def done(project: Project) -> None:
            if self.session.project is None:
                self._guard(self.open_project, project)

        def failed(message: str) -> None:
            if self.session.project is None:
                self.viewer.show_message(f"The demo project could not be prepared.\n\n{WELCOME}")
            self.show_error(message)

        def cancelled() -> None:
            if self.session.project is None:
                self.viewer.show_message(WELCOME)

        job = self.runner.run(
            "demo",
            "Preparing the demo project",
            lambda progress, cancel: ensure_demo_project(root, progress, cancel),
            done,
            failed,
        )
        job.cancelled.connect(cancelled)
        return job

    def choose_and_open(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open", "", OPEN_FILTER)
        if path:
            self.open(path)

    def choose_folder_and_open(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Open a CDnet dataset or video folder")
        if folder:
            self.open(folder)

    def save_project(self) -> None:
        project = self.session.project
        if project is None:
            return
        if self.annotation.editor.modified and project.file is not None:
            self.annotation.save()  # writes the project file too
            return
        if project.file is None or not project.file.name.endswith(".referee.json"):
            self.save_project_as()
            return
        self._write(project, project.file)

    def save_project_as(self) -> None:
        project = self.session.project
        if project is None:
            return
        path, _ = QFileDialog.getSaveFileName(
            self,
            "Save project",
            f"{project.name}.referee.json",
            "Referee projects (*.referee.json)",
        )
        if path:  # the dialog itself asked before replacing an existing file
            if not path.endswith(".referee.json"):
                path += ".referee.json"
            self._write(project, Path(path))

    def _write(self, project: Project, path: Path) -> None:
        try:
            write_project(project, path)
        except (RefereeError, OSError) as error:
            self.show_error(f"The project was not saved: {error}")
            return
        self.session.project = replace(project, file=path)
        self.setWindowModified(False)
        if self.annotation.editor.modified:  # it needed a project file to be saved beside
            self.annotation.save()
        self._remember_recent(path)
        self.statusBar().showMessage(f"Saved {path}", 5000)

    def add_detector(self, detector: DetectorSource) -> None:
        self._change_project(lambda p: with_detector(p, detector))

    def remove_detector(self, name: str) -> None:
        answer = QMessageBox.question(
            self, "Remove detector", f"Remove {name} from the project? Its files stay on disk."
        )
        if answer == QMessageBox.StandardButton.Yes:
            self._change_project(lambda p: without_detector(p, name))

    def _change_project(self, change: Callable[[Project], Project]) -> None:
        if self.session.project is None:
            return
        try:
            self.open_project(change(self.session.project))
        except RefereeError as error:
            self.show_error(str(error))
            return
        self.setWindowModified(True)

    # --- recent files and settings ------------------------------------------------------------

    def _remember_recent(self, path: Path) -> None:
        if self.remember_layout:
            self.recent.remember(path)

    def _restore_settings(self) -> None:
        settings = QSettings()
        geometry = settings.value("window/geometry") if self.remember_layout else None
        state = settings.value("window/state") if self.remember_layout else None
        if geometry is not None:
            self.restoreGeometry(geometry)
        if state is not None:
            self.restoreState(state)
        # type=bool makes QSettings.value return a bool; the stubs say object.
        dark = cast(bool, settings.value("window/dark", False, type=bool))
        self.dark_action.setChecked(dark)
        apply_theme(self, dark)
        self.recent.fill()

    def save_settings(self) -> None:
        settings = QSettings()
        settings.setValue("window/geometry", self.saveGeometry())
        settings.setValue("window/state", self.saveState())
        settings.setValue("window/dark", self.dark_action.isChecked())

    def closeEvent(self, event: QCloseEvent) -> None:
        if not self.annotation.confirm_leaving():
            event.ignore()
            return
        if self.isWindowModified():
            answer = QMessageBox.question(
                self,
                "Unsaved project",
                "The project has changed. Save it before quitting?",
                QMessageBox.StandardButton.Save
                | QMessageBox.StandardButton.Discard
                | QMessageBox.StandardButton.Cancel,
            )
            if answer == QMessageBox.StandardButton.Cancel:
                event.ignore()
                return
            if answer == QMessageBox.StandardButton.Save:
                self.save_project()
        if self.remember_layout:
            self.save_settings()
        # Quitting never blocks for good: jobs and frame reads get a bounded time to stop.
        self.runner.cancel_all()
        self.viewer.loader.close()
        self.runner.wait(QUIT_WAIT_MS)
        super().closeEvent(event)

    # --- drag and drop ------------------------------------------------------------------------

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if event.mimeData().hasUrls():
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        urls = [u for u in event.mimeData().urls() if u.isLocalFile()]
        if urls:
            self.open(urls[0].toLocalFile())
            event.acceptProposedAction()

    # --- reactions ----------------------------------------------------------------------------

    def _guard(self, start: Callable, *args) -> None:
        """Start a job or open a project; a request that cannot be met becomes an error dialog."""
        try:
            start(*args)
        except RefereeError as error:
            self.show_error(str(error))

    def _on_project_changed(self) -> None:
        session = self.session
        project = session.project
        if project is None:
            return
        self.setWindowTitle(f"{project.name}[*] — Referee")
        self.export_report_action.setEnabled(True)
        self._refresh_data_dock(project)
        detectors = list(session.mask_detectors())
        self.pseudo_dock.set_detectors(detectors)
        self.annotate_dock.set_detectors(detectors)
        self.significance_dock.set_detectors(
            sorted(set(detectors) | set(session.action_detectors()))
        )
        self.significance_dock.set_case_kinds(list(CASE_KINDS))
        self.annotate_dock.set_annotated(session.annotated())

    def _refresh_data_dock(self, project: Project) -> None:
        """Check every source off the GUI thread (it parses each XML file), then show the tree."""
        names = [d.name for d in project.detectors]
        self.runner.run(
            "status",
            "Checking sources",
            lambda progress, cancel: source_status(project),
            lambda rows: self.data_dock.show_status(rows, names),
            self.report_problem,
        )

    def _on_evaluations_changed(self) -> None:
        pixels = self.session.pixels
        if pixels is not None:
            self.indicators_dock.show_pixels(pixels)
            self.plots_dock.show_pixels(pixels)
        self._show_frame_f()

    def _on_ranking_changed(self) -> None:
        result = self.session.ranking_result
        if result is not None:
            self.annotate_dock.show_result(result)

    def _show_frame_f(self) -> None:
        index = self.viewer.video_box.currentIndex()
        if not 0 <= index < len(self.session.videos):
            return
        key = self.session.videos[index].key
        series = {
            name: e.frame_f1()
            for name, results in self.session.evaluations.items()
            for e in results
            if e.key == key
        }
        self.plots_dock.show_frame_f(self.viewer.current_video_label() or "", series)

    def _on_significance_changed(self) -> None:
        result = self.session.significance
        if result is not None:
            self.significance_dock.show_result(result)

    def _on_pseudo_changed(self) -> None:
        outcome = self.session.pseudo
        if outcome is not None:
            self.pseudo_dock.show_result(outcome.result, outcome.truth)

    def _on_frame_shown(self, frame: int) -> None:
        self.plots_dock.set_current_frame(frame)
        layers = self.viewer.layers
        if layers is not None and layers.consensus is not None:
            self.pseudo_dock.show_heatmap(layers.consensus, frame)

    def _on_layer_visibility(self, name: str, visible: bool) -> None:
        self.viewer.set_layer_visible(name, visible)
        self.layer_actions[name].setChecked(visible)

    def _on_action_selected(self, video: str, frame: int, row) -> None:
        self.viewer.selected_pair = row
        self.viewer.go_to(video, frame)

    def _on_dark_toggled(self, dark: bool) -> None:
        apply_theme(self, dark)

    def _on_export_report(self) -> None:
        project = self.session.project
        if project is None:  # the action is enabled once a project is open
            return
        options = session_report_options(self.session)
        build = partial(build_report, computed=replace(self.session.results))
        self.report_dialog = ReportDialog(self.runner, project, options, self, build=build)
        self.report_dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.report_dialog.open()

    # --- dialogs ------------------------------------------------------------------------------

    def show_error(self, message: str) -> None:
        """Show a user-caused problem; the message names the file and what is wrong."""
        self.statusBar().showMessage(message.splitlines()[0], 10000)
        self.errors.show(message)

    def report_problem(self, message: str) -> None:
        """Show a problem a job or a frame read found, once per opened project."""
        self.statusBar().showMessage(message.splitlines()[0], 10000)
        self.errors.report(message)
