"""Readers and writers, one module per file format. No metric is computed here."""
