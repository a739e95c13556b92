"""Make every picture the README shows again, from the window as it is now.

Runs, one process each, the commands the README quotes: ``referee gui --screenshot`` at
1366×768 and 1920×1080, light and dark, and ``scripts/annotation_screenshot.py`` for the
annotation, boxes, estimates and tracking pictures. Each run starts from a fresh demo
project, cache and settings (in a temporary folder), so that a picture never depends on
what was opened or annotated on this machine before; it renders without a display.

    python scripts/readme_screenshots.py [--out docs] [NAME ...]

NAME (``referee-boxes.png``, or ``boxes``) makes only those pictures. Run it after any
change of the window and look at every picture it writes.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parents[1]
ANNOTATION_SCRIPT = REPOSITORY / "scripts" / "annotation_screenshot.py"
GUI = [sys.executable, "-m", "referee.core.cli.main", "gui"]
ANNOTATION = [sys.executable, str(ANNOTATION_SCRIPT)]

#: Each picture of the README (in docs/), and the arguments that make it: the command,
#: then the options after the picture's path.
PICTURES: dict[str, tuple[list[str], list[str]]] = {
    "referee-1366x768.png": (GUI, []),
    "referee-1366x768-dark.png": (GUI, ["--dark"]),
    "referee-1920x1080.png": (GUI, ["--size", "1920x1080"]),
    "referee-1920x1080-dark.png": (GUI, ["--size", "1920x1080", "--dark"]),
    "referee-annotation.png": (ANNOTATION, ["--size", "1366x768"]),
    "referee-boxes.png": (ANNOTATION, ["--size", "1920x1080", "--boxes"]),
    "referee-estimates.png": (ANNOTATION, ["--size", "1366x768", "--estimates", "8"]),
    "referee-tracking.png": (ANNOTATION, ["--size", "1366x768", "--tracking"]),
}


def command(name: str, out: Path, demo: Path) -> list[str]:
    """The command that makes picture ``name`` in folder ``out`` (``demo``: where the
    ``referee gui`` runs find the demo project)."""
    program, options = PICTURES[name]
    if program is GUI:
        return [*GUI, "--screenshot", str(out / name), *options, "--force", "--demo-dir", str(demo)]
    return [*program, str(out / name), *options]


def fresh_environment(folder: Path) -> dict[str, str]:
    """The environment of one run: offscreen, with its own data, cache and settings folders."""
    environment = dict(os.environ)
    environment.setdefault("QT_QPA_PLATFORM", "offscreen")
    for variable in ("XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME"):
        path = folder / variable.lower()
        path.mkdir(parents=True, exist_ok=True)
        environment[variable] = str(path)
    return environment


def chosen(names: list[str]) -> list[str]:
    """The pictures ``names`` asks for (all when empty); an unknown name stops the script."""
    if not names:
        return list(PICTURES)
    found = []
    for name in names:
        matches = [p for p in PICTURES if p in (name, f"referee-{name}.png")]
        if not matches:
            raise SystemExit(f"no picture {name!r}; the README's are: {', '.join(PICTURES)}")
        found += matches
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", metavar="NAME", help="only these pictures")
    parser.add_argument("--out", type=Path, default=REPOSITORY / "docs", help="default: docs/")
    args = parser.parse_args()
    names = chosen(args.names)
    args.out.mkdir(parents=True, exist_ok=True)
    failed = []
    with tempfile.TemporaryDirectory(prefix="referee-screenshots-") as temporary:
        demo = Path(temporary) / "demo"
        for k, name in enumerate(names):
            run = command(name, args.out, demo)
            print(f"[{k + 1}/{len(names)}] {' '.join(run[1:])}", flush=True)
            start = time.monotonic()
            done = subprocess.run(
                run, env=fresh_environment(Path(temporary) / f"run-{k}"), check=False
            )
            if done.returncode != 0:
                failed.append(name)
                print(f"  failed (exit {done.returncode})", file=sys.stderr)
            else:
                print(f"  wrote {args.out / name} in {time.monotonic() - start:.0f} s")
    if failed:
        print(f"not made: {', '.join(failed)}", file=sys.stderr)
        return 1
    print("Look at every picture before committing it.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
