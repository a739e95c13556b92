"""How long the desktop application takes, on its very first start, to show the demo.

Run without a path, ``referee`` opens the window on the demo project, which it writes
into Referee's data folder the first time (the window says so meanwhile). Each round
starts the application in a fresh, empty home (HOME and the XDG folders in a temporary
folder, so the demo is written again) on Qt's offscreen platform, and measures, from the
launch of the process:

* shown: until the window shows the demo, its project open and its first frame drawn
  (``referee gui`` itself, with a timer that watches the window);
* ready: until ``referee gui --screenshot FILE`` exits, every evaluation job of the
  demo ended too (the whole process);
* and both again with the demo already written (a later start).

It also times ``referee demo-data DIR`` alone, and saves the window as it was when the
demo was first shown (``--picture``, to look at). Each run starts with what the runs
before it wrote flushed to disk. Medians of the rounds, with the load average before
and after: the machine may be busy.

Writing the demo is mostly creating its 3,943 files, and the time a file system takes to
create one varies from machine to machine (on the 2-core machine of the README's figures
it went from 0.02 ms to 0.8 ms per file within an hour, whatever the folder): the script
prints that time, measured in the folder of the fresh homes before and after the rounds.
``--busy N`` keeps N other processes spinning on the cores meanwhile (a busy machine).

Usage: python benchmarks/first_start.py [--rounds N] [--picture FILE.png] [--size WxH]
       [--busy N] [--homes DIR]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from startup import referee_command

#: Runs ``referee gui`` (its entry function), prints ``shown <time>`` once the window shows
#: the demo's first frame, saves the window (of size argv[2]) to argv[1] and quits.
_DRIVER = r"""
import importlib.abc, importlib.util, sys, time
from referee.core.cli.main import main


def watch(app):
    # Wrap open_window: once the window shows the demo, print the time, save it, quit.
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    opened = app.open_window

    def open_window(path, demo_root, remember_layout=True):
        window = opened(path, demo_root, remember_layout=False)
        window.resize(*map(int, sys.argv[2].split("x")))

        def poll():
            if window.session.project is not None and window.viewer.settled():
                timer.stop()
                print(f"shown {time.time():.6f}", flush=True)
                window.grab().save(sys.argv[1])
                QApplication.quit()

        timer = QTimer(window)
        timer.timeout.connect(poll)
        timer.start(20)
        return window

    app.open_window = open_window


class Hook(importlib.abc.MetaPathFinder):
    # Patches referee.gui.app when the command imports it, not before: importing it here
    # would change the order of the start-up being measured.
    def find_spec(self, name, path, target=None):
        if name != "referee.gui.app":
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        run = spec.loader.exec_module

        def exec_module(module):
            run(module)
            watch(module)

        spec.loader.exec_module = exec_module
        return spec


sys.meta_path.insert(0, Hook())
sys.exit(main(["gui"]))
"""


def _home(folder: Path) -> dict[str, str]:
    """The environment of a user whose home is ``folder`` (empty at first)."""
    return {
        **os.environ,
        "HOME": str(folder),
        "XDG_DATA_HOME": str(folder / "data"),
        "XDG_CONFIG_HOME": str(folder / "config"),
        "XDG_CACHE_HOME": str(folder / "cache"),
        "QT_QPA_PLATFORM": "offscreen",
    }


def time_shown(env: dict[str, str], picture: Path, size: str) -> float:
    """Seconds from launching ``referee gui`` to the window showing the demo."""
    os.sync()  # what an earlier run wrote is on disk: its write-back does not slow this one
    start = time.time()
    done = subprocess.run(
        [sys.executable, "-c", _DRIVER, str(picture), size],
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    shown = [line for line in done.stdout.splitlines() if line.startswith("shown ")]
    if not shown:
        raise SystemExit(f"the window never showed the demo:\n{done.stderr}")
    return float(shown[0].split()[1]) - start


def time_process(command: list[str], env: dict[str, str]) -> float:
    os.sync()
    start = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed:\n{done.stderr}")
    return time.perf_counter() - start


def creation_ms(folder: Path, files: int = 300) -> float:
    """Milliseconds to create (and write a few bytes to) one new file in ``folder``."""
    probe = Path(tempfile.mkdtemp(prefix="probe", dir=folder))
    start = time.perf_counter()
    for k in range(files):
        (probe / f"{k}.png").write_bytes(b"probe")
    seconds = time.perf_counter() - start
    for k in range(files):
        (probe / f"{k}.png").unlink()
    probe.rmdir()
    return 1000 * seconds / files


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5, help="rounds (default 5)")
    parser.add_argument(
        "--picture",
        type=Path,
        default=Path(tempfile.gettempdir()) / "referee-first-start.png",
        help="where to save the window as the demo was first shown",
    )
    parser.add_argument("--size", default="1366x768", help="window size (default 1366x768)")
    parser.add_argument(
        "--busy", type=int, default=0, help="processes kept spinning meanwhile (default 0)"
    )
    parser.add_argument(
        "--homes", type=Path, default=None, help="where the fresh homes go (default: temp folder)"
    )
    options = parser.parse_args()
    spinners = [
        subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(options.busy)
    ]
    referee = referee_command()
    times: dict[str, list[float]] = {
        name: []
        for name in ("first: shown", "first: ready", "later: shown", "later: ready", "demo-data")
    }
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(dir=options.homes) as temporary:
        root = Path(temporary)
        creation = [creation_ms(root)]
        for round_ in range(options.rounds):
            shown_home, ready_home = root / f"shown{round_}", root / f"ready{round_}"
            picture = options.picture if round_ == 0 else root / "shown.png"
            times["first: shown"].append(time_shown(_home(shown_home), picture, options.size))
            screenshot = [referee, "gui", "--screenshot", str(root / "ready.png"), "--force"]
            screenshot += ["--size", options.size]
            times["first: ready"].append(time_process(screenshot, _home(ready_home)))
            times["later: shown"].append(
                time_shown(_home(shown_home), root / "again.png", options.size)
            )
            times["later: ready"].append(time_process(screenshot, _home(ready_home)))
            times["demo-data"].append(
                time_process(
                    [referee, "demo-data", str(root / f"d{round_}"), "--quiet"], _home(root)
                )
            )
        creation.append(creation_ms(root))
    load_after = os.getloadavg()
    for spinner in spinners:
        spinner.kill()
        spinner.wait()
    print(
        f"{options.rounds} rounds on {os.cpu_count()} cores; load average (1, 5, 15 min) "
        f"before {', '.join(f'{x:.1f}' for x in load_before)}, after "
        f"{', '.join(f'{x:.1f}' for x in load_after)}"
    )
    for name, seconds in times.items():
        print(
            f"{name:14} median {statistics.median(seconds):6.2f} s  "
            f"(min {min(seconds):.2f}, max {max(seconds):.2f})"
        )
    print(
        f"{options.busy} other processes kept spinning; creating a file in {root.parent}: "
        f"{creation[0]:.2f} ms before the rounds, {creation[1]:.2f} ms after"
    )
    print(f"the window as the demo was first shown: {options.picture}")


if __name__ == "__main__":
    main()
