"""Mask drafts carried from the frame shown to the next (or previous) frames by optical
flow (docs/measures.md §1), computed in a job by
:func:`~referee.core.annotation.mask_propagation.propagate_mask` and pushed as one
undoable edit: each drafted frame waits, orange on the timeline, to be corrected and
accepted. Frames that already hold ground truth, accepted or on disk, are left alone.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from referee.core.annotation.mask_propagation import MaskPropagation, propagate_mask
from referee.core.annotation.review import FrameStatus
from referee.core.model.origins import PROPAGATED
from referee.core.model.videos import VideoSpec
from referee.core.progress import CancelToken, ProgressCallback
from referee.gui.annotation.commands import LabelMapCommand
from referee.gui.annotation.editor import AnnotationEditor
from referee.gui.viewer.panel import ViewerPanel
from referee.gui.worker import Job, JobRunner

#: The job kind (a newer propagation cancels an older one).
PROPAGATE_KIND = "propagate-mask"
#: Frames left as they are: they hold ground truth already.
_KEPT = (FrameStatus.GROUND_TRUTH, FrameStatus.ACCEPTED)


class MaskDrafts:
    """Propagates the shown frame's label map as drafts; ``say`` tells the user."""

    def __init__(
        self,
        editor: AnnotationEditor,
        viewer: ViewerPanel,
        runner: JobRunner,
        say: Callable[[str], None],
    ) -> None:
        self.editor, self.viewer, self.runner, self.say = editor, viewer, runner, say

    def propagate(
        self, frame: tuple[str, int] | None, video: VideoSpec | None, direction: str, count: int
    ) -> Job | None:
        """Start the job carrying ``frame``'s label map ``count`` frames in ``direction``
        (``forward`` or ``backward``); ``None`` when there is nothing to carry."""
        source = self.viewer.image_source()
        if frame is None or video is None or source is None:
            self.say("Propagation needs a frame of a CDnet video on screen.")
            return None
        label, start = frame
        start_map = self.editor.document_or_raise().label_map(label, start).copy()

        def work(progress: ProgressCallback, cancel: CancelToken) -> MaskPropagation:
            reader, _last = source()
            return propagate_mask(
                start_map,
                reader.read,
                start,
                direction,
                count,
                video.frames,
                progress=progress,
                cancel=cancel,
            )

        title = f"Propagating frame {start}'s mask {direction} {count} frames"
        return self.runner.run(
            PROPAGATE_KIND, title, work, lambda done: self._push(label, start, done), self.say
        )

    def _push(self, label: str, start: int, done: MaskPropagation) -> None:
        """Push every draft of a frame without ground truth as one undoable edit."""
        document = self.editor.document
        if document is None or label not in document.videos:
            return  # the project changed while the job ran
        drafts = {
            frame: draft
            for frame, draft in done.drafts.items()
            if document.status(label, frame) not in _KEPT
        }
        kept = len(done.drafts) - len(drafts)
        if not drafts:
            self.say(f"Every frame reached from frame {start} has ground truth already.")
            return
        stack = self.editor.stack
        stack.beginMacro(f"Propagate frame {start} to {len(drafts)} frames")
        for frame, draft in sorted(drafts.items()):
            text = f"Draft propagated from frame {start}"
            self.editor.push(
                LabelMapCommand(self.editor, label, frame, np.asarray(draft), PROPAGATED, text)
            )
        stack.endMacro()
        frames = sorted(drafts)
        left = f"; {kept} with ground truth left as they are" if kept else ""
        self.say(
            f"Drafted frames {frames[0]}–{frames[-1]} from frame {start} ({len(frames)} "
            f"frames{left}): step through them, correct and accept each (Enter); Ctrl+Z "
            "takes them all back."
        )
