"""Per-frame results kept between runs, keyed by the stamps of the files they read (DESIGN "Long work")."""
