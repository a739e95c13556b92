"""Packaging: the desktop entry, the AppStream metadata, the icon, and the frozen bundle."""

from __future__ import annotations

import configparser
import fnmatch
import importlib.resources
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import cv2
import pytest
from lxml import etree
from pypdf import PdfReader

from referee.core import __version__
from referee.resources import icon_path

REPOSITORY = Path(__file__).resolve().parents[2]
PACKAGING = REPOSITORY / "packaging"
APP_ID = "org.referee.Referee"
SVG_NAMESPACE = "{http://www.w3.org/2000/svg}"


def desktop_entry() -> configparser.SectionProxy:
    parser = configparser.ConfigParser(interpolation=None)
    parser.optionxform = str  # keys are case-sensitive
    parser.read(PACKAGING / f"{APP_ID}.desktop", encoding="utf-8")
    return parser["Desktop Entry"]


def test_desktop_entry_launches_referee_with_the_icon() -> None:
    entry = desktop_entry()
    assert entry["Type"] == "Application"
    assert entry["Name"] == "Referee"
    assert entry["Exec"].split() == ["referee", "%F"]
    assert entry["Icon"] == APP_ID
    assert entry["Terminal"] == "false"
    categories = entry["Categories"].rstrip(";").split(";")
    assert {"Science", "Education", "Video", "AudioVideo"} <= set(categories)


def test_metainfo_describes_the_desktop_entry() -> None:
    root = etree.parse(str(PACKAGING / f"{APP_ID}.metainfo.xml")).getroot()
    assert root.tag == "component" and root.get("type") == "desktop-application"
    assert root.findtext("id") == APP_ID
    assert root.findtext("metadata_license") == "CC0-1.0"
    assert root.findtext("project_license") == "MIT"
    assert root.findtext("name") == "Referee"
    assert root.findtext("summary")
    assert len(root.findall("description/p")) >= 2
    launchable = root.find("launchable")
    assert launchable.get("type") == "desktop-id"
    assert launchable.text == f"{APP_ID}.desktop"
    assert root.find("content_rating").get("type") == "oars-1.1"
    assert [release.get("version") for release in root.findall("releases/release")] == ["0.1.0"]


def test_icon_is_a_self_contained_svg_shipped_as_package_data() -> None:
    path = icon_path()
    assert path == Path(str(importlib.resources.files("referee.resources").joinpath("referee.svg")))
    root = etree.parse(str(path)).getroot()
    assert root.tag == f"{SVG_NAMESPACE}svg"
    assert root.get("viewBox") == "0 0 256 256"
    hrefs = [name for element in root.iter() for name in element.attrib if name.endswith("href")]
    assert hrefs == []
    setuptools = tomllib.loads((REPOSITORY / "pyproject.toml").read_text())["tool"]["setuptools"]
    patterns = setuptools["package-data"]["referee.resources"]
    assert any(fnmatch.fnmatch(path.name, pattern) for pattern in patterns)


@pytest.mark.slow
def test_frozen_bundle_prints_its_version_renders_the_window_and_reports(tmp_path: Path) -> None:
    subprocess.run(
        [
            sys.executable,
            "-m",
            "PyInstaller",
            str(PACKAGING / "referee.spec"),
            "--distpath",
            str(tmp_path / "dist"),
            "--workpath",
            str(tmp_path / "work"),
            "--noconfirm",
            "--log-level",
            "WARN",
        ],
        check=True,
        cwd=tmp_path,
        timeout=1200,
    )
    bundle = tmp_path / "dist" / "referee"
    program = bundle / "referee"
    resources = bundle / "_internal" / "referee" / "resources"
    assert (resources / "liris_harl.xsd").is_file() and (resources / "referee.svg").is_file()
    env = {
        **os.environ,
        "QT_QPA_PLATFORM": "offscreen",
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
    }

    version = subprocess.run(
        [str(program), "--version"], env=env, capture_output=True, text=True, timeout=120
    )
    assert version.returncode == 0, version.stderr
    assert version.stdout.strip() == f"referee {__version__}"

    shot = tmp_path / "shot.png"
    gui = subprocess.run(
        [str(program), "gui", "--screenshot", str(shot)],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        cwd=tmp_path,
    )
    assert gui.returncode == 0, gui.stderr
    assert (tmp_path / "data" / "referee" / "demo").is_dir()  # the demo went to XDG_DATA_HOME
    image = cv2.imread(str(shot))
    assert image is not None
    height, width = image.shape[:2]
    assert 800 <= width <= 4000 and 500 <= height <= 3000
    assert image.std() > 20

    # Reports use matplotlib and fpdf2 (with matplotlib's DejaVu fonts): both must be frozen.
    html, pdf = tmp_path / "demo.html", tmp_path / "demo.pdf"
    report = subprocess.run(
        [str(program), "report", "demo", "--html", str(html), "--pdf", str(pdf), "--quiet"],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        cwd=tmp_path,
    )
    assert report.returncode == 0, report.stderr
    assert "data:image/png;base64," in html.read_text(encoding="utf-8")
    assert len(PdfReader(pdf).pages) >= 6
