"""Inference backend adapters: chat completions (vLLM's universal API) and native Responses."""
