"""Editing ground truth in the window: undo commands, the editor, the mask tools."""
