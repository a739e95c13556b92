"""Analysis docks: each a QDockWidget that shows core results and asks for jobs."""
