"""The HTTP door (gateway/http): slow clients, WebSocket mode, the console."""
