"""The public API (Responses, Conversations, Files, ...) through both doors with the openai SDK."""
