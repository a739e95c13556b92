"""Entry script of the frozen ``referee`` program (PyInstaller runs this file)."""

import multiprocessing

from referee.core.cli.main import main

if __name__ == "__main__":
    # Worker processes of a frozen program are this executable started again: let
    # multiprocessing run them (and its resource tracker) instead of the command line.
    multiprocessing.freeze_support()
    raise SystemExit(main())
