"""Run ``referee`` (its entry function) in a fresh interpreter and see what it imported."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

#: Runs ``referee`` on the arguments after the output file; writes the exit status and
#: every module imported to that file.
_PROBE = """
import json, sys
from referee.core.cli.main import main
try:
    status = main(sys.argv[2:])
except SystemExit as exit:
    status = exit.code
with open(sys.argv[1], "w", encoding="utf-8") as out:
    json.dump({"status": status, "modules": sorted(sys.modules)}, out)
"""


def run_probe(args: list[str], folder: Path) -> tuple[int, str, set[str]]:
    """Exit status, standard error and imported modules of ``referee ARGS`` in a new process."""
    record = folder / "probe.json"
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, str(record), *args],
        capture_output=True,
        text=True,
        check=False,
        cwd=folder,
        timeout=300,
    )
    outcome = json.loads(record.read_text(encoding="utf-8"))
    return outcome["status"], done.stderr, set(outcome["modules"])
