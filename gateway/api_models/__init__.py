"""Pydantic models and validators of the OpenAI API surface the gateway serves."""
