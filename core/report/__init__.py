"""Reports: one document model, built from a project, written as HTML, PDF, CSV and JSON."""
