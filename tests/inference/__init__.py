"""The inference client (gateway/inference): backends down, malformed or slow; the fleet."""
