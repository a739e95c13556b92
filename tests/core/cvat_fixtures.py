"""Hand-written CVAT 1.1 files, following CVAT's published description of the format
(https://docs.cvat.ai/docs/manual/advanced/formats/format-cvat/ and its XML page).

The values the tests expect of them are worked out by hand in the tests.
"""

from __future__ import annotations

from pathlib import Path

_META = """  <meta>
    <task>
      <id>{id}</id>
      <name>{name}</name>
      <size>{size}</size>
      <mode>{mode}</mode>
      <overlap>0</overlap>
      <bugtracker></bugtracker>
      <flipped>False</flipped>
      <created>2024-05-02 10:00:00.000000+00:00</created>
      <updated>2024-05-02 11:00:00.000000+00:00</updated>
      <labels>
{labels}      </labels>
      <segments>
        <segment>
          <id>{id}</id>
          <start>0</start>
          <stop>{stop}</stop>
          <url>http://localhost:8080/?id={id}</url>
        </segment>
      </segments>
      <owner>
        <username>admin</username>
        <email></email>
      </owner>
{original}    </task>
    <dumped>2024-05-02 11:00:01.000000+00:00</dumped>
  </meta>
"""


def meta(
    name: str, size: int, labels: list[str], mode: str = "interpolation", original: str = ""
) -> str:
    """A ``<meta>`` as CVAT writes it."""
    declared = "".join(
        f"        <label>\n          <name>{label}</name>\n          <attributes>\n"
        "          </attributes>\n        </label>\n"
        for label in labels
    )
    return _META.format(
        id=3, name=name, size=size, mode=mode, labels=declared, stop=size - 1, original=original
    )


def document(meta_text: str, body: str) -> str:
    """A CVAT 1.1 document holding ``meta_text`` and ``body``."""
    return (
        '<?xml version="1.0" encoding="utf-8"?>\n<annotations>\n  <version>1.1</version>\n'
        f"{meta_text}{body}</annotations>\n"
    )


_SIZE_40_30 = (
    "      <original_size>\n        <width>40</width>\n        <height>30</height>\n"
    "      </original_size>\n"
)

#: CVAT for video: a person exported frame by frame (an interpolated frame, an occluded
#: one, attributes, two appearances ended by ``outside``), a car given by keyframes only
#: (interpolated on reading, held to the task's last frame), a road polygon for one
#: frame, and a car mask held for one frame before leaving. 8 frames of 40 × 30.
VIDEO = document(
    meta("corridor", 8, ["person", "car", "road"], original=_SIZE_40_30),
    """  <track id="0" label="person" source="manual">
    <box frame="0" outside="0" occluded="0" keyframe="1" xtl="2.00" ytl="3.00" xbr="12.00" ybr="23.00" z_order="0">
      <attribute name="pose">standing</attribute>
    </box>
    <box frame="1" outside="0" occluded="0" keyframe="0" xtl="3.00" ytl="3.00" xbr="13.00" ybr="23.50" z_order="0">
      <attribute name="pose">standing</attribute>
    </box>
    <box frame="2" outside="0" occluded="1" keyframe="1" xtl="4.00" ytl="3.00" xbr="14.00" ybr="24.00" z_order="0">
      <attribute name="pose">sitting</attribute>
    </box>
    <box frame="3" outside="1" occluded="1" keyframe="1" xtl="4.00" ytl="3.00" xbr="14.00" ybr="24.00" z_order="0">
      <attribute name="pose">sitting</attribute>
    </box>
    <box frame="5" outside="0" occluded="0" keyframe="1" xtl="20.00" ytl="5.00" xbr="30.50" ybr="25.00" z_order="0">
      <attribute name="pose">standing</attribute>
    </box>
    <box frame="6" outside="1" occluded="0" keyframe="1" xtl="20.00" ytl="5.00" xbr="30.50" ybr="25.00" z_order="0">
      <attribute name="pose">standing</attribute>
    </box>
  </track>
  <track id="1" label="car" source="manual">
    <box frame="1" outside="0" occluded="0" keyframe="1" xtl="0.00" ytl="0.00" xbr="4.00" ybr="4.00" z_order="0">
    </box>
    <box frame="5" outside="0" occluded="0" keyframe="1" xtl="8.00" ytl="4.00" xbr="16.00" ybr="8.00" z_order="0">
    </box>
  </track>
  <track id="2" label="road" source="manual">
    <polygon frame="0" outside="0" occluded="0" keyframe="1" points="0.00,0.00;6.00,0.00;0.00,6.00" z_order="0">
    </polygon>
    <polygon frame="1" outside="1" occluded="0" keyframe="1" points="0.00,0.00;6.00,0.00;0.00,6.00" z_order="0">
    </polygon>
  </track>
  <track id="4" label="car" source="auto">
    <mask frame="2" outside="0" occluded="0" keyframe="1" rle="6, 2, 3, 3, 6" left="30" top="20" width="5" height="4" z_order="1">
    </mask>
    <mask frame="4" outside="1" occluded="0" keyframe="1" rle="6, 2, 3, 3, 6" left="30" top="20" width="5" height="4" z_order="1">
    </mask>
  </track>
""",
)

#: CVAT for video with boxes of one label, as Referee's tracks hold them: track 0
#: exported frame by frame (keyframes, an interpolated frame, ``outside`` after each of
#: two appearances), track 3 given by keyframes only and ended by ``outside``.
ROUND_TRIP = document(
    meta("walkway", 12, ["person"]),
    """  <track id="0" label="person" source="manual">
    <box frame="0" outside="0" occluded="0" keyframe="1" xtl="10.5" ytl="20" xbr="30.25" ybr="60" z_order="0"/>
    <box frame="1" outside="0" occluded="0" keyframe="0" xtl="11.5" ytl="20" xbr="31.25" ybr="60.5" z_order="0"/>
    <box frame="2" outside="0" occluded="0" keyframe="1" xtl="12.5" ytl="20" xbr="32.25" ybr="61" z_order="0"/>
    <box frame="3" outside="1" occluded="0" keyframe="1" xtl="12.5" ytl="20" xbr="32.25" ybr="61" z_order="0"/>
    <box frame="6" outside="0" occluded="0" keyframe="1" xtl="40" ytl="2" xbr="45" ybr="9" z_order="0"/>
    <box frame="7" outside="1" occluded="0" keyframe="1" xtl="40" ytl="2" xbr="45" ybr="9" z_order="0"/>
  </track>
  <track id="3" label="person" source="manual">
    <box frame="4" outside="0" occluded="0" keyframe="1" xtl="0" ytl="0" xbr="10" ybr="10" z_order="0"/>
    <box frame="8" outside="0" occluded="0" keyframe="1" xtl="8" ytl="4" xbr="20" ybr="10" z_order="0"/>
    <box frame="10" outside="1" occluded="0" keyframe="1" xtl="8" ytl="4" xbr="20" ybr="10" z_order="0"/>
  </track>
""",
)

#: CVAT for images: three 12 × 10 images; a polyline and a tag are not read.
IMAGES = document(
    meta("crossing", 3, ["person", "car", "sky"], mode="annotation"),
    """  <image id="0" name="in000001.jpg" width="12" height="10">
    <box label="car" occluded="0" source="manual" xtl="1.00" ytl="2.00" xbr="5.50" ybr="6.00" z_order="0">
    </box>
    <polygon label="sky" occluded="0" source="manual" points="0.00,0.00;12.00,0.00;12.00,3.00;0.00,3.00" z_order="0">
    </polygon>
    <polyline label="person" occluded="0" source="manual" points="1.00,1.00;2.00,2.00" z_order="0">
    </polyline>
    <tag label="person" source="manual">
    </tag>
  </image>
  <image id="1" name="in000002.jpg" width="12" height="10">
  </image>
  <image id="2" name="in000003.jpg" width="12" height="10">
    <mask label="car" source="manual" occluded="0" rle="6, 2, 3, 3, 6" left="4" top="5" width="5" height="4" z_order="2">
    </mask>
    <polygon label="sky" occluded="1" source="manual" points="4.00,5.00;9.00,5.00;9.00,9.00;4.00,9.00" z_order="1">
    </polygon>
    <box label="person" occluded="0" source="manual" xtl="0" ytl="0" xbr="2" ybr="3" z_order="0">
    </box>
  </image>
""",
)


def write(folder: Path, name: str, text: str) -> Path:
    """``text`` written to ``folder / name``."""
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path
