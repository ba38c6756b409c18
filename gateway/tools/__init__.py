"""Server-side tools: executors registered by tool type and run concurrently by the tool loop."""
