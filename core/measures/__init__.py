"""The measures, as pure functions over in-memory data (docs/measures.md).

Indicators and their registry, summarization over videos, CDnet's pixel rules,
ROC/PR curves, LIRIS actions, per-frame boxes and counting. No file is read here.
"""
