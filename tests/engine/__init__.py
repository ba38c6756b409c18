"""The engine: the turn, the event stream, compaction, truncation, the tool loop, background runs."""
