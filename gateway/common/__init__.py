"""What every layer uses: OpenAI's error types, object ids, JSON helpers, redaction."""
