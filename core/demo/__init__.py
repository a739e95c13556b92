"""A small, deterministic CDnet-style demo: synthetic videos, ground truth and real results.

:func:`write_demo` renders three short synthetic scenes (160x120 pixels) in the
CDnet 2014 layout (docs/measures.md §1 and §10), with ground truth that uses all five grey
levels, a palette ``ROI.bmp`` and a ``temporalROI.txt`` that leaves the first
fifth of each video for background learning. It then runs real OpenCV
background subtractors on the JPEG frames it wrote, so the results show the
mistakes such methods really make: salt noise, ghosts, cast shadows detected
as motion, a stopped car absorbed into the background, false alarms during an
illumination change. One method also writes a soft score map (docs/measures.md §3) so
ROC and PR curves have something to show.

The demo also holds actions (docs/measures.md §4) and counts (docs/measures.md §6). The ground-truth
actions are the scene objects themselves: one action per object and per
stretch of frames where any of it is inside the image (all frames, not only
the temporal ROI), one box per frame bounding the object's own pixels (not
its shadow; occlusion by another object is ignored). The classes are
synthetic, a plausible reading of each object's role:

* 7 UB "leave baggage unattended": an object that stands still for
  :data:`STOP_FRAMES` frames or more (the car that parks in the street);
* 4 EN "enter/leave room": any other person (drawn as an upright ellipse);
* 5 ET "try to enter": any other vehicle (drawn as a rectangle: the cars,
  the cyclist).

The detected actions of the methods in :data:`TRACKED_METHODS` come from
:func:`~referee.core.demo.tracking.track_masks` run on that method's masks inside
the ROI, which gives the same three classes by a rule on the boxes (still,
else tall, else wide). So the detections split, merge, miss, invent and
misclassify objects as a real detector does. Each video has a counting
region, a rectangle; the count of a frame is the number of boxes
(ground-truth objects or tracker boxes) whose centre is inside it.

Layout under ``root``::

    referee-demo.json                       marker: generator, format, seed
    dataset/<category>/<video>/input/in%06d.jpg
    dataset/<category>/<video>/groundtruth/gt%06d.png
    dataset/<category>/<video>/ROI.bmp
    dataset/<category>/<video>/temporalROI.txt
    results/<method>/<category>/<video>/bin%06d.png        0/255 masks
    results-soft/<method>/<category>/<video>/bin%06d.png   0-255 scores
    actions/groundtruth.xml                 LIRIS XML, all videos, videoName <category>_<video>
    actions/<method>.xml                    the tracker's actions on that method's masks
    counts/<category>_<video>/groundtruth.csv   frame,count for frames 1..N
    counts/<category>_<video>/<method>.csv

Everything is a function of ``seed`` and the OpenCV version: two runs with the
same seed write byte-identical files.
"""
