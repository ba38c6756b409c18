"""Research mode (gateway/research) through chat completions and the Responses API."""
