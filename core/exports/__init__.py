"""What the commands write from results: text tables, JSON and CSV files."""
