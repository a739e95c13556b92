"""``python -m referee.core.cli``: the ``referee`` command."""

from referee.core.cli.main import main

if __name__ == "__main__":
    raise SystemExit(main())
