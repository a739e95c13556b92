"""One function per computation a user can ask for; the CLI, the report and the GUI
session call these and nothing else.
"""
