"""Frame sources: image folders and video files frame by frame, their cache, and the
layers of one frame the viewer draws.
"""
