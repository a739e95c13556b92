"""The main window: a thin assembly of the viewer, the docks, menus and shortcuts."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, cast

from PySide6.QtCore import QSettings, QSize, Qt, QTimer
from PySide6.QtGui import (
    QCloseEvent,
    QDragEnterEvent,
    QDropEvent,
    QShowEvent,
)
from PySide6.QtWidgets import (
    QDockWidget,
    QFileDialog,
    QLabel,
    QMainWindow,
    QMessageBox,
    QWidget,
)

from referee.core.cache.store import FrameCache, user_cache_folder
from referee.core.demo.project import ensure_demo_project
from referee.core.errors import RefereeError
from referee.core.model.project import Project
from referee.core.model.videos import video_label
from referee.core.significance.choices import CASE_KINDS
from referee.core.workflow.projects import ListedProject, list_project, open_path
from referee.core.workflow.sources import source_status
from referee.gui.agreement_controller import AgreementController
from referee.gui.annotation_controller import AnnotationController
from referee.gui.docks.actions import ActionsDock
from referee.gui.docks.counts import CountsDock
from referee.gui.docks.data import DataDock
from referee.gui.docks.indicators import IndicatorsDock
from referee.gui.docks.jobs import JobsDock, JobsStatusWidget
from referee.gui.docks.next_frames import NextFramesDock
from referee.gui.docks.plots import PlotsDock
from referee.gui.docks.pseudo import PseudoDock
from referee.gui.docks.significance import SignificanceDock
from referee.gui.garbage import set_aside_long_lived
from referee.gui.project_edits import add_detector, remove_detector, save_project
from referee.gui.session import ProjectSession
from referee.gui.tracking_controller import TrackingController
from referee.gui.viewer.frame_view import LAYERS
from referee.gui.viewer.layers_panel import LayersPanel
from referee.gui.viewer.panel import WELCOME, ViewerPanel
from referee.gui.widgets.dock_tabs import hide_stray_tab_bars
from referee.gui.widgets.error_dialogs import ErrorDialogs
from referee.gui.widgets.focus import FieldFocus
from referee.gui.widgets.layout_keeper import LayoutKeeper
from referee.gui.widgets.screen_fit import opening_size
from referee.gui.widgets.theme import apply_theme
from referee.gui.window_docks import LAYOUT_VERSION, arrange_docks, size_docks
from referee.gui.window_menus import build_menus
from referee.gui.worker import Job, JobRunner

if TYPE_CHECKING:
    from referee.gui.report_dialog import ReportDialog

#: How long quitting waits for cancelled jobs to stop (ms); a job stuck in a blocking
#: call is then left behind, and the application quits anyway.
QUIT_WAIT_MS = 3000
#: The jobs a project just opened starts wait until this long after its first frame is
#: shown, so that the frame is painted while no job's thread competes for the interpreter
#: lock (ms) ...
JOBS_AFTER_FIRST_FRAME_MS = 100
#: ... and at most this long for that frame (a video that cannot be shown).
JOBS_WAIT_AT_MOST_MS = 1000
#: Size of a new window: most of a 1920×1080 screen; on a smaller one, all of it but the
#: window's frame (gui/widgets/screen_fit.py).
WINDOW_SIZE = QSize(1760, 990)
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
        self.runner = JobRunner(parent=self)
        self.session = ProjectSession(self.runner, self, FrameCache(user_cache_folder()))
        self.report_dialog: ReportDialog | None = None
        self.viewer = ViewerPanel(self.session)
        self.setCentralWidget(self.viewer)
        self._build_docks()
        self._docks_sized = False  # until a layout is restored or the window first shown
        hide_stray_tab_bars(self)
        menus = build_menus(self)
        self.recent, self.export_report_action = menus.recent, menus.export_report_action
        self.layer_actions, self.dark_action = menus.layer_actions, menus.dark_action
        self.status_label = QLabel()
        self.statusBar().addWidget(self.status_label, 1)
        self.statusBar().addPermanentWidget(JobsStatusWidget(self.runner))
        self._connect()
        layout = self.layout()
        if layout is not None:  # the docks' minimum sizes now: their contents scroll
            layout.activate()
        self.resize(opening_size(WINDOW_SIZE, self.screen().availableGeometry().size()))
        for name in LAYERS:
            self.layers_panel.set_checked(name, self.viewer.layer_visible[name])
        self._restore_settings()
        # Return or Escape in a number box gives the keys back to the frame view.
        FieldFocus(self.viewer.grid.views[0]).guard(self)
        self._layout_keeper = LayoutKeeper(self, self.save_settings) if remember_layout else None
        set_aside_long_lived()  # the window and the libraries: no collection walks them again

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
        self.counts_dock = CountsDock()
        self.pseudo_dock = PseudoDock()
        self.next_frames_dock = NextFramesDock()
        self.significance_dock = SignificanceDock()
        self.actions_dock = ActionsDock()
        self.tracking = TrackingController(self.session, self.viewer)
        self.agreement = AgreementController(self, self.session, self.viewer)
        self.jobs_dock = JobsDock(self.runner)
        # Two groups of tabs on each side, few enough that every tab keeps its whole title.
        arrange_docks(
            self,
            left=[
                [self.data_dock, self.jobs_dock, self.inspector_dock],
                [self.layers_dock, self.annotation.history, self.agreement.dock],
            ],
            right=[
                [
                    self.indicators_dock,
                    self.plots_dock,
                    self.counts_dock,
                    self.pseudo_dock,
                    self.significance_dock,
                ],
                [
                    self.next_frames_dock,
                    self.annotation.dock,
                    self.annotation.boxes.dock,
                    self.actions_dock,
                    self.tracking.dock,
                ],
            ],
        )

    def _wrap(self, title: str, name: str, widget: QWidget) -> QDockWidget:
        dock = QDockWidget(title, self)
        dock.setObjectName(name)
        dock.setWidget(widget)
        return dock

    def _connect(self) -> None:
        session, viewer = self.session, self.viewer
        session.error.connect(self.report_problem)
        viewer.problem.connect(self.report_problem)
        session.project_changed.connect(self._on_project_changed)
        session.evaluations_changed.connect(self._on_evaluations_changed)
        session.actions_changed.connect(lambda: self.actions_dock.show_evaluations(session.actions))
        session.actions_changed.connect(lambda: self.plots_dock.show_actions(session.actions))
        session.curves_changed.connect(lambda: self.plots_dock.show_curves(session.curves))
        session.pseudo_changed.connect(self._on_pseudo_changed)
        session.ranking_changed.connect(self._on_ranking_changed)
        session.significance_changed.connect(self._on_significance_changed)
        session.estimate_changed.connect(
            lambda: self.indicators_dock.show_estimate(session.estimate)
        )
        session.estimate_changed.connect(
            lambda: self.next_frames_dock.show_estimate(
                session.estimate, session.results.skipped.get("estimate")
            )
        )
        viewer.video_box.currentIndexChanged.connect(lambda _: self._show_frame_f())
        viewer.status_message.connect(lambda text: self.statusBar().showMessage(text, 8000))
        viewer.pixel_info.connect(self.inspector.setText)
        viewer.frame_shown.connect(self._on_frame_shown)
        viewer.frame_shown.connect(self._release_jobs)
        viewer.problem.connect(self._release_jobs)
        self.layers_panel.visibility_changed.connect(self._on_layer_visibility)
        self.layers_panel.opacity_changed.connect(viewer.set_layer_opacity)
        self.data_dock.add_requested.connect(partial(add_detector, self))
        self.data_dock.remove_requested.connect(partial(remove_detector, self))
        self.indicators_dock.row_selected.connect(self._on_indicator_row)
        self.data_dock.sources_failed.connect(self.report_failed_sources)
        viewer.detector_colours_changed.connect(self.layers_panel.show_detector_colours)
        self.plots_dock.frame_requested.connect(
            lambda frame: viewer.go_to(viewer.current_video_label() or "", frame)
        )
        self.counts_dock.frame_requested.connect(
            lambda frame: viewer.go_to(viewer.current_video_label() or "", frame)
        )
        session.counts_changed.connect(
            lambda: self.counts_dock.show_result(
                session.results.counts, session.results.skipped.get("counts")
            )
        )
        editor = self.annotation.editor
        editor.counts_edited.connect(lambda folder: self._show_count_edits([folder]))
        editor.modified_changed.connect(lambda _: self._show_count_edits())
        self.next_frames_dock.frame_requested.connect(viewer.go_to)
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
        self.next_frames_dock.run_requested.connect(
            lambda options: self._guard(session.run_ranking, options)
        )
        self.significance_dock.run_requested.connect(
            lambda request: self._guard(session.run_significance, request.options())
        )

    # --- opening and saving -----------------------------------------------------------------

    def open(self, path: str | Path) -> Job:
        """Open a project file, a CDnet dataset or video folder, or a video file: its folders
        are listed in a job, then it is shown.

        A path that cannot be opened is shown in an error dialog (its message names the
        path), and the project already open stays open.
        """
        absolute = os.path.abspath(path)

        def listing(progress: object, cancel: object) -> ListedProject:
            try:
                return list_project(open_path(absolute))
            except RefereeError as error:
                if absolute in str(error):
                    raise
                raise RefereeError(f"cannot open {absolute}: {error}") from error

        return self._open_listed(f"Opening {Path(absolute).name}", listing, Path(path))

    def open_project(self, project: Project, unsaved: bool = False) -> Job:
        """Make ``project`` current once its folders are listed (a job); a project that has
        nothing to show or whose dataset cannot be read is shown in an error dialog and
        the open project stays. ``unsaved``: the project differs from its file."""
        return self._open_listed(
            f"Opening {project.name}",
            lambda progress, cancel: list_project(project),
            unsaved=unsaved,
        )

    def _open_listed(
        self,
        title: str,
        listing: Callable[[object, object], ListedProject],
        recent: Path | None = None,
        unsaved: bool = False,
    ) -> Job:
        """Run ``listing`` as the job of kind ``open`` (a newer one cancels it), then show
        the project it lists, once unsaved annotation is saved or discarded as the user
        says (or nothing happens)."""
        if self.session.project is None:
            self.viewer.show_progress(f"{title}…", 0, 0)

        def done(listed: ListedProject) -> None:
            if not self.annotation.confirm_leaving():
                return
            self.errors.forget()
            self.runner.hold(JOBS_WAIT_AT_MOST_MS)  # released by _release_jobs
            self.session.open(listed)
            if unsaved:
                self.session.project_unsaved = True
                self.annotation.show_modified()
            if recent is not None:
                self.statusBar().showMessage(f"Opened {recent}", 5000)
                self.remember_recent(recent)

        def ended() -> None:  # failed or cancelled, with nothing to show instead
            opening = any(job.kind == "open" for job in self.runner.jobs)
            if self.session.project is None and not opening:
                self.viewer.show_message(WELCOME)

        job = self.runner.run("open", title, listing, done, self.show_error, urgent=True)
        job.ended.connect(ended)
        return job

    def open_demo(self, root: Path) -> Job:
        """Prepare the demo project in ``root`` as a job (written there the first time),
        then open it, unless a project was opened meanwhile."""
        preparing = "Preparing the demo project…"
        self.viewer.show_progress(preparing, 0, 0)

        def progressed(done: int, total: int) -> None:
            if self.session.project is None:  # a late signal never covers the frames
                self.viewer.show_progress(preparing, done, total)

        def done(project: Project) -> None:
            if self.session.project is None:
                self.open_project(project)

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
        job.progress.connect(progressed)
        return job

    def choose_and_open(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open", "", OPEN_FILTER)
        if path:
            self.open(path)

    def choose_folder_and_open(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Open a CDnet dataset or video folder")
        if folder:
            self.open(folder)

    # --- recent files and settings ------------------------------------------------------------

    def remember_recent(self, path: Path) -> None:
        """List ``path`` first in File › Open recent (not for a screenshot's window)."""
        if self.remember_layout:
            self.recent.remember(path)

    def _restore_settings(self) -> None:
        settings = QSettings()
        geometry = settings.value("window/geometry") if self.remember_layout else None
        state = settings.value("window/state") if self.remember_layout else None
        if geometry is not None:
            self.restoreGeometry(geometry)
        if state is not None:
            self._docks_sized = self.restoreState(state, LAYOUT_VERSION)
        # type=bool makes QSettings.value return a bool; the stubs say object.
        dark = cast(bool, settings.value("window/dark", False, type=bool))
        self.dark_action.setChecked(dark)
        apply_theme(self, dark)
        self.recent.fill()

    def save_settings(self) -> None:
        """Keep the window's size, position, dock layout and theme in the preferences
        (when they change, and on closing)."""
        settings = QSettings()
        settings.setValue("window/geometry", self.saveGeometry())
        settings.setValue("window/state", self.saveState(LAYOUT_VERSION))
        settings.setValue("window/dark", self.dark_action.isChecked())

    def showEvent(self, event: QShowEvent) -> None:
        """Shown the first time without a remembered layout: size the docks for the window."""
        if not self._docks_sized:
            self._docks_sized = True
            size_docks(
                self,
                [self.data_dock, self.layers_dock],
                [self.indicators_dock, self.next_frames_dock],
            )
        super().showEvent(event)

    def closeEvent(self, event: QCloseEvent) -> None:
        if not self.annotation.confirm_leaving():
            event.ignore()
            return
        if self.session.project_unsaved:
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
                save_project(self)
        if self._layout_keeper is not None:
            self._layout_keeper.stop()
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
        order = [d.name for d in project.detectors]
        self.plots_dock.clear()  # the previous project's plots: drawn anew with its results
        self.plots_dock.set_detector_order(order)
        self.counts_dock.clear(has_counts=project.counts is not None)
        self.counts_dock.set_detector_order(order)
        self._show_count_edits()  # recovered from an autosave as the annotation opened
        self.next_frames_dock.plot.set_detector_order(order)
        self.indicators_dock.set_detector_order(order)
        detectors = list(session.mask_detectors())
        self.pseudo_dock.set_detectors(detectors)
        self.next_frames_dock.set_detectors(detectors)
        self.significance_dock.set_detectors(
            sorted(set(detectors) | set(session.action_detectors()))
        )
        self.significance_dock.set_case_kinds(list(CASE_KINDS))
        self.actions_dock.set_project_actions(
            project.actions_groundtruth is not None, len(project.action_detectors())
        )
        self.next_frames_dock.set_annotated(session.annotated())
        self._refresh_data_dock(project)  # last: its job would slow the drawing above

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
        elif "pixels" in self.session.results.skipped:
            self.indicators_dock.show_unavailable(self.session.results.skipped["pixels"])
        self._show_frame_f()

    def _on_ranking_changed(self) -> None:
        result = self.session.ranking_result
        if result is not None:
            self.next_frames_dock.show_result(result)

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

    def _show_count_edits(self, folders: Iterable[str] = ()) -> None:
        """Show the ground-truth counts the annotation holds (unsaved changes included) for
        ``folders`` and every video with unsaved count changes, in place of the stage's."""
        document = self.annotation.editor.document
        if document is not None:
            for folder in {*folders, *document.modified_counts()}:
                self.counts_dock.show_groundtruth(folder, document.counts_of(folder))

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
        viewer = self.viewer
        self.counts_dock.show_video(
            viewer.current_video_name() or "", viewer.current_video_label() or ""
        )
        self.counts_dock.set_current_frame(frame)
        layers = self.viewer.layers
        if layers is not None and layers.consensus is not None:
            self.pseudo_dock.show_heatmap(layers.consensus, frame)

    def _release_jobs(self, *_: object) -> None:
        """Once a project just opened shows its first frame (or cannot), let the jobs it
        started run after that frame is painted."""
        if self.runner.held:
            QTimer.singleShot(JOBS_AFTER_FIRST_FRAME_MS, self, self.runner.release)

    def _on_layer_visibility(self, name: str, visible: bool) -> None:
        self.viewer.set_layer_visible(name, visible)
        self.layer_actions[name].setChecked(visible)

    def _on_indicator_row(self, detector: str, category: str, video: str) -> None:
        """Show the detector of the row chosen in the Indicators table, on its video."""
        self.viewer.show_detector(detector)
        if video:
            self.viewer.go_to(video_label(category, video), self.viewer.timeline.frame())

    def _on_action_selected(self, video: str, frame: int, row) -> None:
        self.viewer.selected_pair = row
        self.viewer.go_to(video, frame)

    def set_dark(self, dark: bool) -> None:
        """Switch to the dark theme, or back to the light one."""
        apply_theme(self, dark)

    def export_report(self) -> None:
        """Open the Export report dialog on the open project (none: nothing happens)."""
        project = self.session.project
        if project is None:  # the action is enabled once a project is open
            return
        # The report's libraries (plots, PDF) load when a report is first asked for, not
        # with the window: they would add a third of a second to every start.
        from referee.core.report.build import build_report
        from referee.gui.report_dialog import ReportDialog, session_report_options

        options = session_report_options(self.session)
        build = partial(
            build_report, computed=replace(self.session.results), cache=self.session.cache
        )
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

    def report_failed_sources(self, message: str, paths: list[Path]) -> None:
        """Show the sources of the project that could not be read, once per opened project."""
        self.statusBar().showMessage(message.splitlines()[0], 10000)
        self.errors.report_sources(message, paths)
