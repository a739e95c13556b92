"""Entry script of the frozen ``referee`` program (PyInstaller runs this file)."""

from referee.core.cli.main import main

raise SystemExit(main())
