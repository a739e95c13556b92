"""Entry script of the frozen ``referee`` program (PyInstaller runs this file)."""

from referee.core.cli import main

raise SystemExit(main())
