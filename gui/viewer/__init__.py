"""The central viewer: frames with their layers, side-by-side views and the timeline."""
