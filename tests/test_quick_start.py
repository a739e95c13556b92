"""The README's quick start, CI and the files a user reproduces the tested set with agree."""

from __future__ import annotations

import re
import shlex
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

REPOSITORY = Path(__file__).resolve().parents[1]


def quick_start_commands() -> list[str]:
    readme = (REPOSITORY / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```sh\n(.+?)\n```", section)


def test_ci_runs_the_readme_test_command_exactly() -> None:
    setup_and_open, setup_and_test = quick_start_commands()
    assert setup_and_open.endswith(".venv/bin/referee")
    ci = (REPOSITORY / ".ci" / "run").read_text(encoding="utf-8").strip().splitlines()
    assert ci[-1] == setup_and_test
    assert setup_and_test.startswith("./scripts/install-system-packages && python3 -m venv .venv")


def test_the_readme_names_every_package_the_setup_script_installs() -> None:
    script = (REPOSITORY / "scripts" / "install-system-packages").read_text(encoding="utf-8")
    listed = shlex.split(re.search(r'QT_PACKAGES="([^"]+)"', script, re.DOTALL).group(1))
    readme = " ".join((REPOSITORY / "README.md").read_text(encoding="utf-8").split())
    named = re.search(r"`(libegl1 [^`]+)`", readme).group(1).split()
    assert named == listed
    tools = re.search(r'TOOL_PACKAGES="([^"]+)"', script).group(1).split()
    assert tools == ["binutils"] and "`binutils`" in readme
    assert "libpython$(" in script and "`libpython3.11`" in readme
    assert "python3-venv" in script and "`python3-venv`" in readme


def test_constraints_pin_every_dependency_within_its_range() -> None:
    project = tomllib.loads((REPOSITORY / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    wanted = [
        Requirement(r)
        for r in [*project["dependencies"], *project["optional-dependencies"]["test"]]
    ]
    pins = {}
    for line in (REPOSITORY / "constraints.txt").read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            name, version = line.split("==")
            pins[canonicalize_name(name)] = version.strip()
    for requirement in wanted:
        name = canonicalize_name(requirement.name)
        assert name in pins, f"constraints.txt does not pin {requirement.name}"
        assert requirement.specifier.contains(pins[name]), (requirement, pins[name])


def test_the_licence_is_the_one_the_package_declares() -> None:
    project = tomllib.loads((REPOSITORY / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    licence = (REPOSITORY / "LICENSE").read_text(encoding="utf-8")
    assert project["license"]["text"] == "MIT" and licence.startswith("MIT License")
