"""Start-up of the ``referee`` command: asking for the version or a command's help imports
none of the heavy libraries, which each command imports only when it runs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from referee.core.cli import main as cli
from tests.core.cli_probe import run_probe

#: Libraries that parsing the options must not import: each costs from 0.05 s (numpy)
#: to 0.6 s (SciPy) before the command does any work.
HEAVY = ("numpy", "scipy", "matplotlib", "PySide6", "pyqtgraph", "cv2", "lxml")


def _core_commands() -> list[str]:
    return list(cli.subcommands(cli.build_parser()).choices)


def _every_command() -> list[str]:
    """Every command of the real parser, the plugins' (the desktop application's) too."""
    parser = cli.build_parser()
    cli.add_command_plugins(cli.subcommands(parser))
    return list(cli.subcommands(parser).choices)


CORE_COMMANDS = _core_commands()
EVERY_COMMAND = _every_command()


def imported_by(arguments: list[str], folder: Path) -> tuple[int, set[str]]:
    """The exit status of ``referee ARGUMENTS`` run in a new process, and the modules
    it imported."""
    status, _, modules = run_probe(arguments, folder)
    return status, modules


def heavy_in(modules: set[str]) -> list[str]:
    return [name for name in HEAVY if name in modules]


def test_the_commands_are_found_on_the_real_parser() -> None:
    assert {"evaluate", "pseudo", "report", "significance"} <= set(CORE_COMMANDS)
    assert "gui" in EVERY_COMMAND and "gui" not in CORE_COMMANDS


@pytest.mark.parametrize("arguments", [["--version"], ["--help"]], ids=["version", "help"])
def test_version_and_help_import_no_heavy_library(arguments: list[str], tmp_path: Path) -> None:
    status, modules = imported_by(arguments, tmp_path)
    assert status == 0
    assert heavy_in(modules) == []


@pytest.mark.parametrize("command", EVERY_COMMAND)
def test_a_commands_help_imports_no_heavy_library(command: str, tmp_path: Path) -> None:
    status, modules = imported_by([command, "--help"], tmp_path)
    assert status == 0
    assert heavy_in(modules) == []
    if command in CORE_COMMANDS:  # the plugins are not even looked for
        assert "referee.gui" not in modules


def test_a_command_that_needs_scipy_imports_it(tmp_path: Path) -> None:
    """The probe sees what a command imports when it runs: a paired t-test needs SciPy."""
    scores = tmp_path / "scores.csv"
    scores.write_text("case,A,B\n1,0.5,0.7\n2,0.4,0.6\n3,0.6,0.9\n4,0.3,0.4\n", encoding="utf-8")
    status, modules = imported_by(["significance", "--scores", str(scores)], tmp_path)
    assert status == 0
    assert {"scipy", "numpy"} <= modules


def test_the_command_table_names_what_each_module_adds() -> None:
    """``referee COMMAND`` imports only the module :data:`~cli.COMMANDS` names for it."""
    for module, names in cli.COMMANDS.items():
        assert list(cli.subcommands(cli.build_parser([module])).choices) == list(names)
    assert [n for names in cli.COMMANDS.values() for n in names] == CORE_COMMANDS


@pytest.mark.parametrize("command", ["evaluate", "report", "gui"])
def test_a_commands_help_imports_no_other_command(command: str, tmp_path: Path) -> None:
    status, modules = imported_by([command, "--help"], tmp_path)
    assert status == 0
    others = {f"referee.core.cli.{module}" for module in cli.COMMANDS} - {
        f"referee.core.cli.{command}"
    }
    assert others & modules == set()


def test_the_version_through_the_installed_command_imports_no_heavy_library() -> None:
    """The console script as installed (or ``python -m``), its imports listed by Python."""
    script = Path(sys.executable).with_name("referee")
    program = [str(script)] if script.exists() else ["-m", "referee.core.cli"]
    done = subprocess.run(
        [sys.executable, "-X", "importtime", *program, "--version"],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    assert done.stdout.strip() == f"referee {cli.__version__}"
    imported = {line.rpartition("|")[2].strip() for line in done.stderr.splitlines()}
    assert "referee.core.cli.main" in imported
    assert heavy_in(imported) == []
    assert not {m for m in imported if m.startswith("referee.core.cli.")} - {
        "referee.core.cli.main"
    }
