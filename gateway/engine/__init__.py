"""The transport-agnostic engine: context assembly, the tool loop, the event stream, persistence."""
